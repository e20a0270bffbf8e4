// simdjson On-Demand walk over a Kineto trace. Fields are taken as raw JSON tokens (pointer
// arithmetic over simdjson's structural index): numbers are converted from their text,
// strings are unescaped only for the few events that are kept.
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/decimal.h"
#include "readers/kineto/kineto_json_internal.h"
#include "readers/launch_apis.h"
#include "readers/name_cache.h"

namespace stepstat::kineto {
namespace {

namespace ondemand = simdjson::ondemand;

enum class Category { kOther, kKernel, kMemcpy, kMemset, kLaunchApi, kAnnotation };

// A raw token without the whitespace simdjson leaves after it.
std::string_view Trim(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                            token.back() == '\t')) {
    token.remove_suffix(1);
  }
  return token;
}

// Kineto's categories; PyTorch 1.8-1.9 spelled them "Kernel", "Memcpy", "Memset", "Runtime".
Category Classify(std::string_view cat) {
  if (cat == "\"kernel\"" || cat == "\"Kernel\"") return Category::kKernel;
  if (cat == "\"gpu_memcpy\"" || cat == "\"Memcpy\"") return Category::kMemcpy;
  if (cat == "\"gpu_memset\"" || cat == "\"Memset\"") return Category::kMemset;
  if (cat == "\"cuda_runtime\"" || cat == "\"cuda_driver\"" || cat == "\"Runtime\"" ||
      cat == "\"Driver\"") {
    return Category::kLaunchApi;  // only when the name is a launch API, checked later
  }
  if (cat == "\"user_annotation\"") return Category::kAnnotation;
  return Category::kOther;
}

bool NeedsArgs(Category category) {
  return category != Category::kOther && category != Category::kAnnotation;
}

// An integer from a number token, or from a string token's last word ("stream 7" → 7).
// A bool and an out parameter, not std::optional: GCC returned the optional through the
// stack, a byte store then a wider load over it, which stalled on store forwarding at every
// call (~4 % of the parse's samples on a 521 MB trace, ~5 calls per kept event).
bool ParseInt(std::string_view token, int64_t& out) {
  if (token.size() >= 2 && token.front() == '"' && token.back() == '"') {
    token = token.substr(1, token.size() - 2);
    size_t space = token.rfind(' ');
    if (space != std::string_view::npos) token.remove_prefix(space + 1);
  }
  bool negative = !token.empty() && token.front() == '-';
  if (negative) token.remove_prefix(1);
  if (token.empty() || token.size() > 18) return false;
  int64_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  out = negative ? -value : value;
  return true;
}

// The integer of a token (ParseInt), or -1 when it has none.
int64_t IntOrMinusOne(std::string_view token) {
  int64_t value = -1;
  return ParseInt(token, value) ? value : -1;
}

struct Event {
  std::string_view ph, cat, name, pid, tid, ts, dur;
  std::string_view stream, correlation, bytes;  // from "args"

  // Field by field: `Event event{}` in the loop compiled to `rep stos` for its 160 bytes,
  // whose start-up cost was ~3 % of the whole parse (one per event); plain stores are not.
  void Clear() {
    // One by one: chained (`ph = cat = ... = {}`) copies each through the last, a 16-byte
    // load of two 8-byte stores that stalls on store forwarding.
    ph = {};
    cat = {};
    name = {};
    pid = {};
    tid = {};
    ts = {};
    dur = {};
    stream = {};
    correlation = {};
    bytes = {};
  }
};

class EventParser {
 public:
  EventParser(const char* data, size_t size, const TextOrigin& origin,
              std::string_view display_name, StringPool& pool, Records& records)
      : data_(data),
        size_(size),
        origin_(origin),
        display_name_(display_name),
        pool_(pool),
        records_(records) {}

  Status Run(ondemand::document& doc) {
    ondemand::object root;
    if (auto error = doc.get_object().get(root)) {
      if (error == simdjson::INCORRECT_TYPE) {
        return ErrorAt(display_name_, 0,
                       "the top level is not a JSON object: not a PyTorch profiler trace");
      }
      return JsonError(error, doc, "the top level");
    }
    bool saw_events = false;
    for (auto member : root) {
      ondemand::field field;
      if (auto error = std::move(member).get(field))
        return JsonError(error, doc, "a top-level key");
      ondemand::raw_json_string key = field.key();
      if (key.unsafe_is_equal("traceEvents")) {
        ondemand::array events;
        if (auto error = field.value().get_array().get(events)) {
          return JsonError(error, doc, "traceEvents (an array)");
        }
        saw_events = true;
        RETURN_IF_ERROR(ReadEvents(doc, events));
        ++shape_.event_arrays;
        const char* after = nullptr;
        if (doc.current_location().get(after) == simdjson::SUCCESS) {
          shape_.events_end = static_cast<size_t>(after - data_);
        }
      } else if (key.unsafe_is_equal("deviceProperties")) {
        RETURN_IF_ERROR(ReadDeviceProperties(doc, field.value()));
      } else if (key.unsafe_is_equal("baseTimeNanoseconds")) {
        std::string_view token = Trim(field.value().raw_json_token());
        DecimalResult base = ParseScaledDecimal(token, 0);
        if (!base.ok()) {
          return Error(token.data(), "bad baseTimeNanoseconds " + std::string(token) + ": " +
                                         std::string(DecimalErrorText(*base.error)));
        }
        records_.base_time_ns = base.value;
      }
    }
    // simdjson 3.0.1 has no document::at_end(): a location past the object means more input.
    const char* rest = nullptr;
    if (doc.current_location().get(rest) == simdjson::SUCCESS) {
      return Error(rest, "unexpected content after the top-level object");
    }
    if (!saw_events) {
      return ErrorAt(display_name_, 0, "no \"traceEvents\" array: not a PyTorch profiler trace");
    }
    return Status::Ok();
  }

 private:
  Status ReadEvents(ondemand::document& doc, ondemand::array& events) {
    Event event;
    for (auto element : events) {
      const char* where = nullptr;
      if (element.current_location().get(where) != simdjson::SUCCESS) where = nullptr;
      ondemand::object object;
      if (auto error = element.get_object().get(object)) return JsonError(error, doc, "an event");
      event.Clear();
      bool ignored = false;
      for (auto member : object) {
        ondemand::field field;
        if (auto error = std::move(member).get(field))
          return JsonError(error, doc, "an event's key");
        ASSIGN_OR_RETURN(bool key_decides, ReadEventField(doc, field, event));
        // Most events are CPU ops, Python functions and flow arrows: leave them as soon as
        // "ph", "cat" or "name" says so; the array walk skips the rest of the object.
        if (key_decides && Ignored(event)) {
          ignored = true;
          break;
        }
      }
      ++records_.events;
      if (ignored || event.ph != "\"X\"") continue;
      Category category = Classify(event.cat);
      if (category == Category::kOther && IsOldProfilerStep(event))
        category = Category::kAnnotation;
      if (category == Category::kOther) continue;
      size_t offset = where != nullptr ? static_cast<size_t>((where - data_) + origin_.shift) : 0;
      if (category == Category::kAnnotation) {
        RETURN_IF_ERROR(AddRange(event, offset));
      } else if (category == Category::kLaunchApi) {
        RETURN_IF_ERROR(AddLaunchCall(event, offset));
      } else {
        RETURN_IF_ERROR(AddGpuOp(event, category, offset));
      }
    }
    return Status::Ok();
  }

  // PyTorch 1.x wrote ProfilerStep#N as a CPU op rather than a user annotation.
  static bool IsOldProfilerStep(const Event& event) {
    return (event.cat == "\"cpu_op\"" || event.cat == "\"Operator\"") &&
           event.name.starts_with("\"ProfilerStep#");
  }

  // True when what was read so far shows the event will not be kept, whatever follows.
  static bool Ignored(const Event& event) {
    if (!event.ph.empty() && event.ph != "\"X\"") return true;
    if (event.cat.empty()) return false;
    Category category = Classify(event.cat);
    if (category != Category::kOther) return false;
    if (event.cat != "\"cpu_op\"" && event.cat != "\"Operator\"") return true;
    return !event.name.empty() && !IsOldProfilerStep(event);
  }

  // Stores the field the event needs; true when the key was "ph", "cat" or "name", the keys
  // that can show the event is not wanted.
  Result<bool> ReadEventField(ondemand::document& doc, ondemand::field& field, Event& event) {
    ondemand::raw_json_string key = field.key();
    const char* k = key.raw();
    std::string_view* slot = nullptr;
    bool decides = false;
    switch (k[0]) {
      case 'p':
        if (key.unsafe_is_equal("ph")) {
          slot = &event.ph;
          decides = true;
        } else if (key.unsafe_is_equal("pid")) {
          slot = &event.pid;
        }
        break;
      case 'c':
        if (key.unsafe_is_equal("cat")) {
          slot = &event.cat;
          decides = true;
        }
        break;
      case 'n':
        if (key.unsafe_is_equal("name")) {
          slot = &event.name;
          decides = true;
        }
        break;
      case 't':
        if (key.unsafe_is_equal("ts")) slot = &event.ts;
        if (key.unsafe_is_equal("tid")) slot = &event.tid;
        break;
      case 'd':
        if (key.unsafe_is_equal("dur")) slot = &event.dur;
        break;
      case 'a':
        // Args of CPU ops are large: only open them for categories that need them (or when
        // "cat" has not been seen yet).
        if (key.unsafe_is_equal("args") && (event.cat.empty() || NeedsArgs(Classify(event.cat)))) {
          RETURN_IF_ERROR(ReadArgs(doc, field.value(), event));
          return false;
        }
        break;
      default: break;
    }
    if (slot != nullptr) *slot = Trim(field.value().raw_json_token());
    return decides;
  }

  Status ReadArgs(ondemand::document& doc, ondemand::value value, Event& event) {
    ondemand::object args;
    if (auto error = value.get_object().get(args)) return JsonError(error, doc, "args");
    for (auto member : args) {
      ondemand::field field;
      if (auto error = std::move(member).get(field)) return JsonError(error, doc, "an args key");
      ondemand::raw_json_string key = field.key();
      if (key.unsafe_is_equal("stream")) {
        event.stream = Trim(field.value().raw_json_token());
      } else if (key.unsafe_is_equal("correlation")) {
        event.correlation = Trim(field.value().raw_json_token());
      } else if (key.unsafe_is_equal("bytes")) {
        event.bytes = Trim(field.value().raw_json_token());
      }
    }
    return Status::Ok();
  }

  Status ReadDeviceProperties(ondemand::document& doc, ondemand::value value) {
    ondemand::array devices;
    if (auto error = value.get_array().get(devices)) {
      return JsonError(error, doc, "deviceProperties (an array)");
    }
    for (auto element : devices) {
      ondemand::object device;
      if (auto error = element.get_object().get(device)) return JsonError(error, doc, "a device");
      int64_t id = 0;
      bool has_id = false;
      std::string name;
      for (auto member : device) {
        ondemand::field field;
        if (auto error = std::move(member).get(field)) return JsonError(error, doc, "a device key");
        if (field.key().unsafe_is_equal("id")) {
          has_id = ParseInt(Trim(field.value().raw_json_token()), id);
        } else if (field.key().unsafe_is_equal("name")) {
          std::string_view text;
          if (auto error = field.value().get_string().get(text)) {
            return JsonError(error, doc, "a device name");
          }
          name = text;
        }
      }
      if (has_id && !name.empty()) records_.device_names.emplace(id, std::move(name));
    }
    return Status::Ok();
  }

  Result<int64_t> Time(std::string_view token, const char* what, size_t offset) {
    if (token.empty()) return Error(data_ + offset, std::string("event without \"") + what + "\"");
    std::string_view text = token;
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
      text = text.substr(1, text.size() - 2);
    }
    int64_t simple = 0;
    if (MicrosToNsIfSimple(text, records_.saw_decimal_time, simple)) {
      return simple;
    }
    DecimalResult result = ParseScaledDecimal(text, 3);
    if (!result.ok()) {
      return Error(token.data(), std::string("bad \"") + what + "\" " + std::string(token) + ": " +
                                     std::string(DecimalErrorText(*result.error)));
    }
    if (text.find_first_of(".eE") != std::string_view::npos) records_.saw_decimal_time = true;
    return result.value;
  }

  Result<NameId> Name(std::string_view token, size_t offset) {
    if (token.empty()) return pool_.Intern("");
    std::optional<std::string_view> text = UnescapeJsonString(token, scratch_);
    if (!text) return Error(data_ + offset, "\"name\" is not a valid JSON string");
    return names_.Intern(*text);
  }

  Status AddGpuOp(const Event& event, Category category, size_t offset) {
    GpuOp op;
    op.kind = category == Category::kKernel   ? OpKind::kKernel
              : category == Category::kMemcpy ? OpKind::kMemcpy
                                              : OpKind::kMemset;
    ASSIGN_OR_RETURN(op.start_ns, Time(event.ts, "ts", offset));
    ASSIGN_OR_RETURN(op.duration_ns, Time(event.dur, "dur", offset));
    ASSIGN_OR_RETURN(op.name, Name(event.name, offset));
    op.stream = IntOrMinusOne(event.stream.empty() ? event.tid : event.stream);
    op.correlation_id = IntOrMinusOne(event.correlation);
    if (op.kind != OpKind::kKernel) op.bytes = IntOrMinusOne(event.bytes);
    op.device = DeviceIndex(event.pid);
    op.line = static_cast<int64_t>(offset);
    GrowFor(records_.ops, offset);
    records_.ops.push_back(op);
    return Status::Ok();
  }

  Status AddLaunchCall(const Event& event, size_t offset) {
    std::optional<std::string_view> name = UnescapeJsonString(event.name, scratch_);
    if (!name) return Status::Ok();
    const std::string_view api = NormalizeCudaApiName(*name);
    LaunchCall call;
    if (IsCopyApi(api)) {
      call.kind = CallKind::kCopy;  // kept for a sink that asks (SortedRecords::Take)
    } else if (!IsKernelLaunchApi(api)) {
      return Status::Ok();
    }
    call.api_name = names_.Intern(api);
    ASSIGN_OR_RETURN(call.api_start_ns, Time(event.ts, "ts", offset));
    ASSIGN_OR_RETURN(call.api_duration_ns, Time(event.dur, "dur", offset));
    call.pid = IntOrMinusOne(event.pid);
    call.tid = IntOrMinusOne(event.tid);
    call.correlation_id = IntOrMinusOne(event.correlation);
    call.line = static_cast<int64_t>(offset);
    GrowFor(records_.calls, offset);
    records_.calls.push_back(call);
    return Status::Ok();
  }

  Status AddRange(const Event& event, size_t offset) {
    CpuRange range;
    ASSIGN_OR_RETURN(range.start_ns, Time(event.ts, "ts", offset));
    ASSIGN_OR_RETURN(int64_t duration, Time(event.dur, "dur", offset));
    if (duration > std::numeric_limits<int64_t>::max() - range.start_ns) {
      return Error(data_ + offset, "ts + dur overflows 64-bit nanoseconds");
    }
    range.end_ns = range.start_ns + duration;
    ASSIGN_OR_RETURN(range.name, Name(event.name, offset));
    range.pid = IntOrMinusOne(event.pid);
    range.tid = IntOrMinusOne(event.tid);
    range.line = static_cast<int64_t>(offset);
    GrowFor(records_.ranges, offset);
    records_.ranges.push_back(range);
    return Status::Ok();
  }

  // Grows to the count the rest of the text suggests, so the records are copied about once
  // instead of log2(n) times into fresh (slow to touch) memory. The text, not the document:
  // a chunk's records leave (to the sorters) before the next chunk is parsed.
  template <typename T>
  void GrowFor(std::vector<T>& items, size_t offset) {
    if (items.size() < items.capacity()) return;
    const int64_t in_text = static_cast<int64_t>(offset) - origin_.shift;
    size_t seen = static_cast<size_t>(std::max<int64_t>(in_text, 1));
    size_t projected = static_cast<size_t>(static_cast<double>(items.size()) * 1.1 *
                                           static_cast<double>(size_) / static_cast<double>(seen));
    items.reserve(std::max({projected, 2 * items.size(), size_t{1024}}));
  }

  // GPU "pid"s are device indexes; a trace has a handful, so a linear search is fastest.
  NameId DeviceIndex(std::string_view pid) {
    auto& keys = records_.device_keys;
    // Compare the parsed text (in cache), not the document bytes it was copied from.
    auto it = std::find(keys.begin(), keys.end(), pid);
    if (it != keys.end()) return static_cast<NameId>(it - keys.begin());
    // A new key must outlive a chunk's copy: view the same bytes in the document.
    if (!pid.empty() && pid.data() >= data_ && pid.data() + pid.size() <= data_ + size_) {
      pid = origin_.document.substr(static_cast<size_t>((pid.data() - data_) + origin_.shift),
                                    pid.size());
    }
    keys.push_back(pid);
    return static_cast<NameId>(keys.size() - 1);
  }

  Status Error(const char* where, std::string_view what) const {
    int64_t line = 0;
    if (where != nullptr && where >= data_ && where <= data_ + size_) {
      line = LineAt(std::string_view(data_, size_), static_cast<size_t>(where - data_));
    }
    return ErrorAt(display_name_, line, what);
  }

  Status JsonError(simdjson::error_code error, ondemand::document& doc, std::string_view reading) {
    const char* where = nullptr;
    if (doc.current_location().get(where) != simdjson::SUCCESS) where = nullptr;
    std::string what = "invalid JSON while reading " + std::string(reading) + ": " +
                       simdjson::error_message(error);
    return Error(where, what);
  }

 public:
  const TextShape& shape() const { return shape_; }

 private:
  const char* data_;
  size_t size_;
  TextOrigin origin_;
  TextShape shape_;
  std::string_view display_name_;
  StringPool& pool_;
  NameCache names_{pool_};  ///< kernel and API names repeat on every launch
  Records& records_;
  std::string scratch_;
};

// Parsers kept between documents: a parser's structural index (4 bytes per JSON token) is
// large, and fresh memory costs more to touch than parsing does. Not one thread_local parser:
// under mingw-w64 a thread_local's destructor can run after its thread's TLS is gone (an
// intermittent crash in ~parser() as `ranks`' pool threads ended, seen under wine).
// Threads: any reader thread borrows a parser (Borrow) and gives it back (Return), each under
// `mutex_`, held only to pop or push: nothing blocks while holding it, and no other lock is
// taken inside, so no two waits can wait for each other. A borrowed parser is its
// borrower's alone. The shelf holds at most as many parsers as threads ever parsed at once.
class ParserShelf {
 public:
  std::unique_ptr<ondemand::parser> Borrow() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (spare_.empty()) return std::make_unique<ondemand::parser>();
    std::unique_ptr<ondemand::parser> parser = std::move(spare_.back());
    spare_.pop_back();
    return parser;
  }
  void Return(std::unique_ptr<ondemand::parser> parser) {
    std::lock_guard<std::mutex> lock(mutex_);
    spare_.push_back(std::move(parser));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<ondemand::parser>> spare_;
};

ParserShelf& Shelf() {
  static ParserShelf shelf;
  return shelf;
}

// A parser borrowed from the shelf for one document; given back on every path.
class BorrowedParser {
 public:
  BorrowedParser() : parser_(Shelf().Borrow()) {}
  ~BorrowedParser() { Shelf().Return(std::move(parser_)); }
  BorrowedParser(const BorrowedParser&) = delete;
  BorrowedParser& operator=(const BorrowedParser&) = delete;
  ondemand::parser& operator*() { return *parser_; }

 private:
  std::unique_ptr<ondemand::parser> parser_;
};

}  // namespace

Status ParseEvents(const char* data, size_t size, size_t padded_size, const TextOrigin& origin,
                   std::string_view display_name, StringPool& pool, Records& records,
                   TextShape* shape) {
  if (padded_size < size + simdjson::SIMDJSON_PADDING) {
    return ErrorAt(display_name, 0, "internal error: JSON buffer lacks simdjson's padding");
  }
  if (size > 0xFFFFFFFFULL) {
    return ErrorAt(display_name, 0, "JSON documents over 4 GiB are not supported (simdjson)");
  }
  BorrowedParser parser;  // kept between documents (ParserShelf)
  ondemand::document doc;
  if (auto error = (*parser).iterate(data, size, padded_size).get(doc)) {
    return ErrorAt(display_name, 0, std::string("invalid JSON: ") + simdjson::error_message(error));
  }
  EventParser events(data, size, origin, display_name, pool, records);
  Status status = events.Run(doc);
  if (shape != nullptr) *shape = events.shape();
  return status;
}

bool MicrosToNsIfSimple(std::string_view text, bool& has_fraction, int64_t& ns) {
  constexpr size_t kMaxDigits = 19;  // < 10^19: no overflow in a uint64_t
  const char* p = text.data();
  const char* end = p + text.size();
  if (text.empty() || text.size() > kMaxDigits + 1) return false;
  uint64_t value = 0;
  const char* q = p;
  while (q < end && static_cast<unsigned>(*q - '0') < 10) value = value * 10 + (*q++ - '0');
  if (q == p) return false;
  uint64_t scale = 1000;
  if (q < end) {
    if (*q != '.') return false;
    const char* fraction = ++q;
    while (q < end && static_cast<unsigned>(*q - '0') < 10) value = value * 10 + (*q++ - '0');
    size_t digits = static_cast<size_t>(q - fraction);
    if (q != end || digits == 0 || digits > 3) return false;
    scale = digits == 1 ? 100 : digits == 2 ? 10 : 1;
    has_fraction = true;
  } else if (text.size() > kMaxDigits) {
    return false;
  }
  if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / scale) {
    return false;
  }
  ns = static_cast<int64_t>(value * scale);
  return true;
}

std::optional<int64_t> SimpleMicrosToNs(std::string_view text, bool& has_fraction) {
  int64_t ns = 0;
  if (!MicrosToNsIfSimple(text, has_fraction, ns)) return std::nullopt;
  return ns;
}

int64_t CountNewlines(std::string_view text) {
  // 64 one-byte counters, one per byte position of a 64-byte block, for at most 255 blocks
  // per round: the inner loop is a compare and a subtract per 16 bytes once the compiler
  // vectorises it with baseline SIMD (about 1.5x the earlier 8-byte SWAR loop).
  constexpr size_t kBlock = 64;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const unsigned char* end = p + text.size();
  int64_t count = 0;
  while (static_cast<size_t>(end - p) >= kBlock) {
    size_t blocks = std::min<size_t>(static_cast<size_t>(end - p) / kBlock, 255);
    uint8_t lanes[kBlock] = {};
    for (size_t b = 0; b < blocks; ++b, p += kBlock) {
      for (size_t i = 0; i < kBlock; ++i) lanes[i] += p[i] == '\n';
    }
    for (uint8_t lane : lanes) count += lane;
  }
  for (; p < end; ++p) count += *p == '\n';
  return count;
}

int64_t LineAt(std::string_view text, size_t offset) {
  return 1 + CountNewlines(text.substr(0, std::min(offset, text.size())));
}

}  // namespace stepstat::kineto
