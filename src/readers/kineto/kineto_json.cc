#include "readers/kineto/kineto_json.h"

#include <simdjson.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "readers/kineto/kineto_json_internal.h"
#include "readers/kineto/kineto_json_sorted.h"
#include "readers/unread_fields.h"

namespace stepstat {
namespace kineto {
namespace {

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
  return kineto::ParseKinetoJsonWith(json, display_name, sink, {});
}

namespace kineto {

Result<ReadReport> ParseKinetoJsonWith(std::string& json, std::string_view display_name,
                                       TraceSink& sink, const SpillOptions& spill,
                                       const ChunkOptions& chunks) {
  // simdjson reads past the end; zero the padding so those reads see defined bytes.
  const size_t size = json.size();
  json.resize(size + simdjson::SIMDJSON_PADDING, '\0');
  json.resize(size);
  return ParsePaddedJson(json, json.capacity(), display_name, sink, {}, spill, chunks);
}

Result<ReadReport> ParsePaddedJson(std::string_view json, size_t readable_size,
                                   std::string_view display_name, TraceSink& sink,
                                   const DocumentWindow& window, const SpillOptions& spill,
                                   const ChunkOptions& chunks) {
  StringPool pool;
  kineto::Records records;
  const TraceFields fields = FieldsToRead(sink);
  auto sorted = std::make_unique<SortedRecords>(spill, display_name, fields);
  // Each chunk's records go to the sorters as soon as its lines are known; a failure to
  // write them is kept apart from a failure to cut.
  Status spill_status = Status::Ok();
  auto drain = [&](Records& chunk) {
    spill_status = sorted->Take(chunk);
    return spill_status;
  };
  if (!kineto::ParseEventsInChunks(json, display_name, pool, records, window, drain, chunks).ok()) {
    RETURN_IF_ERROR(spill_status);
    records = kineto::Records();
    sorted = std::make_unique<SortedRecords>(spill, display_name, fields);
    if (window.ahead) window.ahead(0, json.size());
    RETURN_IF_ERROR(kineto::ParseEvents(json.data(), json.size(), readable_size, {json, 0},
                                        display_name, pool, records));
    LineCursor cursor;
    OffsetsToLines(json, records, 0, 0, 0, cursor);
    records.lines_resolved = true;
    RETURN_IF_ERROR(sorted->Take(records));
    records.ops.shrink_to_fit();
    records.calls.shrink_to_fit();
    records.ranges.shrink_to_fit();
  }
  RETURN_IF_ERROR(sorted->Emit(records, pool, sink));

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
