// A TraceSink for tests: keeps every op and call, with names resolved to strings during the
// callback (the reader's pool dies with the reader).
#pragma once

#include <string>
#include <vector>

#include "readers/unread_fields.h"
#include "stepstat/trace.h"

namespace stepstat {

struct CollectedOp {
  GpuOp op;
  std::string name;
  std::string device;
};

struct CollectedCall {
  LaunchCall call;
  std::string api_name;
  std::string kernel_name;
  std::string device;
};

class CollectingSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    ++batches;
    for (GpuOp op : ops) {
      OverwriteUnread({&op, 1}, kept, kDropped, 0);
      this->ops.push_back({op, std::string(names.Get(op.name)), std::string(names.Get(op.device))});
    }
    return fail_after_batches > 0 && batches >= fail_after_batches ? Status::Error("sink full")
                                                                   : Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    ++batches;
    for (LaunchCall call : calls) {
      OverwriteUnread({&call, 1}, kept, kDropped, 0);
      this->calls.push_back({call, std::string(names.Get(call.api_name)),
                             std::string(names.Get(call.kernel_name)),
                             std::string(names.Get(call.device))});
    }
    return fail_after_batches > 0 && batches >= fail_after_batches ? Status::Error("sink full")
                                                                   : Status::Ok();
  }
  TraceFields reads() const override { return fields; }

  std::vector<CollectedOp> ops;
  std::vector<CollectedCall> calls;
  int batches = 0;
  int fail_after_batches = 0;               ///< > 0: return an error from that batch on
  TraceFields fields = TraceFields::All();  ///< what it tells the reader it reads
  /// What it keeps of each row: the other fields are overwritten with kDropped (numbers) and
  /// the empty name, so that readings of different fields compare on the fields both keep.
  TraceFields kept = TraceFields::All();
  static constexpr int64_t kDropped = -2;
};

}  // namespace stepstat
