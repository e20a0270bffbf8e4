#include "readers/kineto_json.h"

#include <simdjson.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <utility>

#include "readers/kineto_json_internal.h"

namespace stepstat {
namespace kineto {
namespace {

constexpr size_t kBatchSize = 4096;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<uint32_t> Hex4(std::string_view text, size_t at) {
  if (at + 4 > text.size()) return std::nullopt;
  uint32_t value = 0;
  for (size_t i = at; i < at + 4; ++i) {
    int digit = HexValue(text[i]);
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<uint32_t>(digit);
  }
  return value;
}

void AppendUtf8(uint32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// The order that sorts `items` by start, ties in file order; empty when already sorted.
// Sorting 16-byte keys and gathering at emission avoids a sorted copy of the records.
template <typename T, typename Start>
std::vector<uint32_t> SortedOrder(const std::vector<T>& items, Start start) {
  auto before = [&](const T& a, const T& b) { return start(a) < start(b); };
  if (std::is_sorted(items.begin(), items.end(), before)) return {};
  std::vector<std::pair<int64_t, uint32_t>> keys(items.size());
  for (size_t i = 0; i < items.size(); ++i) keys[i] = {start(items[i]), static_cast<uint32_t>(i)};
  std::sort(keys.begin(), keys.end());
  std::vector<uint32_t> order(items.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].second;
  return order;
}

// Turns base-less times into absolute ones, byte offsets into lines, device indexes into
// names; then joins launch calls to kernels by correlation id.
class Finisher {
 public:
  Finisher(std::string_view json, std::string_view display_name, StringPool& pool, Records& records)
      : json_(json), display_name_(display_name), pool_(pool), records_(records) {}

  /// The order that sorts ops (calls) by start; empty when they are in order already.
  const std::vector<uint32_t>& op_order() const { return op_order_; }
  const std::vector<uint32_t>& call_order() const { return call_order_; }
  const std::vector<uint32_t>& range_order() const { return range_order_; }

  Status Run() {
    RETURN_IF_ERROR(AddBaseTime());
    if (!records_.lines_resolved) {
      LineCursor cursor;
      OffsetsToLines(json_, records_, 0, 0, 0, cursor);
    }
    NameDevices();
    op_order_ = SortedOrder(records_.ops, [](const GpuOp& op) { return op.start_ns; });
    JoinLaunchCalls();
    call_order_ =
        SortedOrder(records_.calls, [](const LaunchCall& call) { return call.api_start_ns; });
    range_order_ =
        SortedOrder(records_.ranges, [](const CpuRange& range) { return range.start_ns; });
    return Status::Ok();
  }

 private:
  // A record's line: a byte offset until lines are resolved.
  int64_t LineOf(int64_t line_or_offset) const {
    return records_.lines_resolved ? line_or_offset
                                   : LineAt(json_, static_cast<size_t>(line_or_offset));
  }

  Status AddBaseTime() {
    const int64_t base = records_.base_time_ns.value_or(0);
    const int64_t limit = std::numeric_limits<int64_t>::max() - base;
    for (GpuOp& op : records_.ops) {
      if (op.start_ns > limit || op.duration_ns > limit - op.start_ns) {
        return ErrorAt(display_name_, LineOf(op.line), "ts + dur overflows 64-bit nanoseconds");
      }
      op.start_ns += base;
    }
    for (LaunchCall& call : records_.calls) {
      if (call.api_start_ns > limit || call.api_duration_ns > limit - call.api_start_ns) {
        return ErrorAt(display_name_, LineOf(call.line), "ts + dur overflows 64-bit nanoseconds");
      }
      call.api_start_ns += base;
    }
    for (CpuRange& range : records_.ranges) {
      if (range.end_ns > limit) {
        return ErrorAt(display_name_, LineOf(range.line), "ts + dur overflows 64-bit nanoseconds");
      }
      range.start_ns += base;
      range.end_ns += base;
    }
    return Status::Ok();
  }

  // "<deviceProperties name> (<id>)" like nsys's Device column, else "GPU <id>"; a string
  // pid is its own name.
  void NameDevices() {
    std::vector<NameId> names;
    std::string scratch;
    for (std::string_view key : records_.device_keys) {
      if (key.empty()) {
        names.push_back(pool_.Intern("GPU ?"));
      } else if (key.front() == '"') {
        names.push_back(pool_.Intern(UnescapeJsonString(key, scratch).value_or(key)));
      } else {
        std::string id(key);
        std::optional<int64_t> number;
        if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos &&
            id.size() < 19) {
          number = std::stoll(id);
        }
        auto it = number ? records_.device_names.find(*number) : records_.device_names.end();
        names.push_back(pool_.Intern(
            it != records_.device_names.end() ? it->second + " (" + id + ")" : "GPU " + id));
      }
    }
    for (GpuOp& op : records_.ops) op.device = names[op.device];
  }

  // A graph launch runs many kernels under one correlation id: one call per kernel, as
  // nsys's cuda_kern_exec_trace does.
  void JoinLaunchCalls() {
    std::vector<std::pair<int64_t, size_t>> kernels;  // (correlation id, index in ops)
    for (size_t i = 0; i < records_.ops.size(); ++i) {
      const GpuOp& op = records_.ops[i];
      if (op.kind == OpKind::kKernel && op.correlation_id >= 0) {
        kernels.emplace_back(op.correlation_id, i);
      }
    }
    if (!std::is_sorted(kernels.begin(), kernels.end())) std::sort(kernels.begin(), kernels.end());
    const NameId unknown_kernel = pool_.Intern("");
    // Calls mostly come in correlation order too: try where the previous call's kernels
    // ended before searching.
    auto hint = kernels.begin();
    auto kernels_of = [&](const LaunchCall& call) {
      auto first = hint;
      bool at_hint = first != kernels.end() && first->first == call.correlation_id &&
                     (first == kernels.begin() || std::prev(first)->first < call.correlation_id);
      if (!at_hint) {
        first = std::lower_bound(kernels.begin(), kernels.end(),
                                 std::pair<int64_t, size_t>(call.correlation_id, 0));
      }
      auto last = first;
      while (call.correlation_id >= 0 && last != kernels.end() &&
             last->first == call.correlation_id) {
        ++last;
      }
      hint = last;
      return std::pair(first, last);
    };
    auto fill = [&](LaunchCall& call, const GpuOp& kernel) {
      call.kernel_start_ns = kernel.start_ns;
      call.kernel_duration_ns = kernel.duration_ns;
      call.kernel_name = kernel.name;
      call.device = kernel.device;  // a launch belongs to its kernel's device
      int64_t queue = kernel.start_ns - call.api_end_ns();
      call.queue_duration_ns = queue >= 0 ? queue : -1;
    };
    size_t joined_count = 0;
    for (const LaunchCall& call : records_.calls) {
      auto [first, last] = kernels_of(call);
      joined_count += std::max<size_t>(1, static_cast<size_t>(last - first));
    }
    hint = kernels.begin();
    if (joined_count == records_.calls.size()) {  // the usual case: fill in place
      for (LaunchCall& call : records_.calls) {
        call.kernel_name = unknown_kernel;
        auto [first, last] = kernels_of(call);
        if (first != last) fill(call, records_.ops[first->second]);
      }
      return;
    }
    hint = kernels.begin();
    std::vector<LaunchCall> joined;
    joined.reserve(joined_count);
    for (LaunchCall call : records_.calls) {
      call.kernel_name = unknown_kernel;
      auto [first, last] = kernels_of(call);
      if (first == last) joined.push_back(call);
      for (auto it = first; it != last; ++it) {
        fill(call, records_.ops[it->second]);
        joined.push_back(call);
      }
    }
    records_.calls = std::move(joined);
  }

  std::string_view json_;
  std::string_view display_name_;
  StringPool& pool_;
  Records& records_;
  std::vector<uint32_t> op_order_;
  std::vector<uint32_t> call_order_;
  std::vector<uint32_t> range_order_;
};

// Batches of `items` in `order` (or as they are when `order` is empty).
template <typename T, typename Emit>
Status EmitInBatches(const std::vector<T>& items, const std::vector<uint32_t>& order, Emit emit) {
  std::vector<T> batch;
  for (size_t begin = 0; begin < items.size(); begin += kBatchSize) {
    size_t count = std::min(kBatchSize, items.size() - begin);
    if (order.empty()) {
      RETURN_IF_ERROR(emit(std::span<const T>(items.data() + begin, count)));
      continue;
    }
    batch.clear();
    for (size_t i = begin; i < begin + count; ++i) batch.push_back(items[order[i]]);
    RETURN_IF_ERROR(emit(std::span<const T>(batch)));
  }
  return Status::Ok();
}

}  // namespace

void OffsetsToLines(std::string_view document, Records& records, size_t first_op, size_t first_call,
                    size_t first_range, LineCursor& cursor) {
  // Each vector is in file order: a three-way merge lets one forward scan count every
  // newline once.
  auto line_of = [&](int64_t offset) {
    size_t target =
        std::max(cursor.scanned, std::min(static_cast<size_t>(offset), document.size()));
    cursor.line += CountNewlines(document.substr(cursor.scanned, target - cursor.scanned));
    cursor.scanned = target;
    return cursor.line;
  };
  auto& ops = records.ops;
  auto& calls = records.calls;
  auto& ranges = records.ranges;
  size_t i = first_op, j = first_call, k = first_range;
  constexpr int64_t kDone = std::numeric_limits<int64_t>::max();
  for (;;) {
    int64_t op = i < ops.size() ? ops[i].line : kDone;
    int64_t call = j < calls.size() ? calls[j].line : kDone;
    int64_t range = k < ranges.size() ? ranges[k].line : kDone;
    if (op == kDone && call == kDone && range == kDone) break;
    if (op <= call && op <= range) {
      ops[i++].line = line_of(op);
    } else if (call <= range) {
      calls[j++].line = line_of(call);
    } else {
      ranges[k++].line = line_of(range);
    }
  }
}

std::optional<std::string_view> UnescapeJsonString(std::string_view token, std::string& scratch) {
  if (token.size() < 2 || token.front() != '"' || token.back() != '"') return std::nullopt;
  std::string_view body = token.substr(1, token.size() - 2);
  size_t backslash = body.find('\\');
  if (backslash == std::string_view::npos) return body;
  scratch.assign(body.substr(0, backslash));
  for (size_t i = backslash; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      scratch += c;
      continue;
    }
    if (++i == body.size()) return std::nullopt;
    switch (body[i]) {
      case '"': scratch += '"'; break;
      case '\\': scratch += '\\'; break;
      case '/': scratch += '/'; break;
      case 'b': scratch += '\b'; break;
      case 'f': scratch += '\f'; break;
      case 'n': scratch += '\n'; break;
      case 'r': scratch += '\r'; break;
      case 't': scratch += '\t'; break;
      case 'u': {
        std::optional<uint32_t> unit = Hex4(body, i + 1);
        if (!unit) return std::nullopt;
        i += 4;
        uint32_t code_point = *unit;
        if (code_point >= 0xD800 && code_point < 0xDC00) {  // a surrogate pair's high half
          if (i + 2 >= body.size() || body[i + 1] != '\\' || body[i + 2] != 'u')
            return std::nullopt;
          std::optional<uint32_t> low = Hex4(body, i + 3);
          if (!low || *low < 0xDC00 || *low > 0xDFFF) return std::nullopt;
          i += 6;
          code_point = 0x10000 + ((code_point - 0xD800) << 10) + (*low - 0xDC00);
        } else if (code_point >= 0xDC00 && code_point <= 0xDFFF) {
          return std::nullopt;
        }
        AppendUtf8(code_point, scratch);
        break;
      }
      default: return std::nullopt;
    }
  }
  return std::string_view(scratch);
}

}  // namespace kineto

Result<ReadReport> ParseKinetoJson(std::string& json, std::string_view display_name,
                                   TraceSink& sink) {
  // simdjson reads past the end; zero the padding so those reads see defined bytes.
  const size_t size = json.size();
  json.resize(size + simdjson::SIMDJSON_PADDING, '\0');
  json.resize(size);
  return kineto::ParsePaddedJson(json, json.capacity(), display_name, sink);
}

namespace kineto {

Result<ReadReport> ParsePaddedJson(std::string_view json, size_t readable_size,
                                   std::string_view display_name, TraceSink& sink,
                                   const DocumentWindow& window) {
  StringPool pool;
  kineto::Records records;
  if (!kineto::ParseEventsInChunks(json, display_name, pool, records, window).ok()) {
    records = kineto::Records();
    if (window.ahead) window.ahead(0, json.size());
    RETURN_IF_ERROR(kineto::ParseEvents(json.data(), json.size(), readable_size, {json, 0},
                                        display_name, pool, records));
  }
  kineto::Finisher finisher(json, display_name, pool, records);
  RETURN_IF_ERROR(finisher.Run());
  RETURN_IF_ERROR(kineto::EmitInBatches(
      records.ops, finisher.op_order(),
      [&](std::span<const GpuOp> batch) { return sink.OnGpuOps(batch, pool); }));
  RETURN_IF_ERROR(kineto::EmitInBatches(
      records.calls, finisher.call_order(),
      [&](std::span<const LaunchCall> batch) { return sink.OnLaunchCalls(batch, pool); }));
  RETURN_IF_ERROR(kineto::EmitInBatches(
      records.ranges, finisher.range_order(),
      [&](std::span<const CpuRange> batch) { return sink.OnRanges(batch, pool); }));

  ReadReport report;
  report.kind = InputKind::kKinetoJson;
  report.time_unit = "us";
  report.rows = records.events;
  report.layout = records.saw_decimal_time ? "Kineto JSON, decimal us" : "Kineto JSON, integer us";
  if (records.base_time_ns) report.layout += ", relative to baseTimeNanoseconds";
  return report;
}

}  // namespace kineto
}  // namespace stepstat
