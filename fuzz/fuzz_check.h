// Shared helpers of the fuzzers: a check that survives NDEBUG, the message rules every
// reader error must follow, and a sink that checks what readers promise about ops and calls.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "readers/unread_fields.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

/// Aborts (a crash libFuzzer keeps) when `cond` is false, also in release builds.
#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace stepstat::fuzz {

/// An error message is one line without control characters (it goes to a terminal as is).
inline void CheckOneLineMessage(const Status& status) {
  const std::string& message = status.message();
  for (char c : message) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      std::fprintf(stderr, "control byte 0x%02x in message: %s\n", byte, message.c_str());
      std::abort();
    }
  }
}

/// An error about a file is one line and starts with "<display_name>:".
inline void CheckErrorMessage(const Status& status, std::string_view display_name) {
  const std::string& message = status.message();
  if (message.substr(0, display_name.size()) != display_name ||
      message.size() <= display_name.size() || message[display_name.size()] != ':') {
    std::fprintf(stderr, "message does not start with \"%.*s:\": %s\n",
                 static_cast<int>(display_name.size()), display_name.data(), message.c_str());
    std::abort();
  }
  CheckOneLineMessage(status);
}

/// Checks what trace.h says readers guarantee, and keeps a digest of what it saw so two
/// reads of the same bytes (whole and in tiny windows) can be compared.
class CheckingSink : public TraceSink {
 public:
  /// `sorted`: the reader promises ops, calls and ranges each in start order (SQLite, Kineto).
  explicit CheckingSink(bool sorted = false) : sorted_(sorted) {}

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    for (GpuOp op : ops) {
      if (sorted_) FUZZ_CHECK(InOrder(last_op_start_, op.start_ns));
      FUZZ_CHECK(op.start_ns >= 0);
      FUZZ_CHECK(op.duration_ns >= 0);
      FUZZ_CHECK(op.duration_ns <= INT64_MAX - op.start_ns);
      FUZZ_CHECK(op.line >= 1);
      FUZZ_CHECK(op.name < names.size() && op.device < names.size());
      OverwriteUnread({&op, 1}, kept, -2, 0);
      Add(op.start_ns, op.duration_ns, op.stream, op.bytes, op.correlation_id, op.line);
      digest_.append(names.Get(op.name)).push_back('\x1f');
      digest_.append(names.Get(op.device)).push_back('\x1e');
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    for (LaunchCall call : calls) {
      if (sorted_) FUZZ_CHECK(InOrder(last_call_start_, call.api_start_ns));
      FUZZ_CHECK(call.api_start_ns >= 0);
      FUZZ_CHECK(call.api_duration_ns >= 0);
      FUZZ_CHECK(call.api_duration_ns <= INT64_MAX - call.api_start_ns);
      FUZZ_CHECK(call.line >= 1);
      FUZZ_CHECK(call.api_name < names.size() && call.kernel_name < names.size());
      OverwriteUnread({&call, 1}, kept, -2, 0);
      const size_t before = digest_.size();
      Add(call.api_start_ns, call.api_duration_ns, call.queue_duration_ns, call.kernel_start_ns,
          call.kernel_duration_ns, call.correlation_id);
      Add(call.pid, call.tid, call.line, 0, 0, 0);
      digest_.append(names.Get(call.api_name)).push_back('\x1f');
      digest_.append(names.Get(call.kernel_name)).push_back('\x1e');
      if (collapse_repeated_calls) {
        std::string piece = digest_.substr(before);
        if (piece == last_call_) {
          digest_.resize(before);
        } else {
          last_call_ = std::move(piece);
        }
      }
    }
    return Status::Ok();
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    for (const CpuRange& range : ranges) {
      if (sorted_) FUZZ_CHECK(InOrder(last_range_start_, range.start_ns));
      FUZZ_CHECK(range.line >= 0);
      FUZZ_CHECK(range.name < names.size());
      Add(range.start_ns, range.end_ns, range.pid, range.tid, range.depth, range.line);
      digest_.append(names.Get(range.name)).push_back('\x1e');
    }
    return Status::Ok();
  }

  TraceFields reads() const override { return fields; }

  const std::string& digest() const { return digest_; }

  /// What it tells the reader it reads, and what of each row goes into the digest (the
  /// other fields as -2 and the empty name), so that reads of different fields compare.
  TraceFields fields = TraceFields::All();
  TraceFields kept = TraceFields::All();
  /// A call the same as the one before it (a call handed out once per kernel, with its
  /// kernel fields not kept) goes into the digest once.
  bool collapse_repeated_calls = false;

 private:
  static bool InOrder(int64_t& last, int64_t start) {
    bool in_order = start >= last;
    last = start;
    return in_order;
  }
  void Add(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f) {
    for (int64_t v : {a, b, c, d, e, f}) digest_ += std::to_string(v) + ',';
  }
  std::string digest_;
  std::string last_call_;
  bool sorted_;
  int64_t last_op_start_ = INT64_MIN;
  int64_t last_call_start_ = INT64_MIN;
  int64_t last_range_start_ = INT64_MIN;
};

}  // namespace stepstat::fuzz
