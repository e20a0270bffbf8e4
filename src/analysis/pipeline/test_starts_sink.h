// A TraceSink for the pipeline's tests: keeps the starts of what reached it, in the order it
// came, and whether it was finished. Enough to tell a filter or a reorder by its output.
#pragma once

#include <cstdint>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

class StartsSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    for (const GpuOp& op : ops) op_starts.push_back(op.start_ns);
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    for (const LaunchCall& call : calls) call_starts.push_back(call.api_start_ns);
    return Status::Ok();
  }
  Status OnFinish() override {
    finished = true;
    return Status::Ok();
  }

  std::vector<int64_t> op_starts;
  std::vector<int64_t> call_starts;
  bool finished = false;
};

}  // namespace stepstat
