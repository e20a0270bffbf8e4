// A kern-exec trace read on its own: its Kernel Start/Dur/Name columns stand in for the GPU
// trace (kernels only: that report has no memory operations).
#pragma once

#include <cstdint>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

class LaunchedKernelsSink : public TraceSink {
 public:
  /// `forward_launch_calls`: also pass the calls on (summarize wants both sides from the one
  /// file; the steps pass reads launch calls separately).
  LaunchedKernelsSink(TraceSink& inner, bool forward_launch_calls)
      : inner_(inner), forward_launch_calls_(forward_launch_calls) {}

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    return inner_.OnGpuOps(ops, names);
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    kernels_.clear();
    for (const LaunchCall& call : calls) {
      if (call.kernel_start_ns < 0 || call.kernel_duration_ns < 0) continue;
      GpuOp op;
      op.start_ns = call.kernel_start_ns;
      op.duration_ns = call.kernel_duration_ns;
      op.correlation_id = call.correlation_id;
      op.name = call.kernel_name;
      op.device = call.device;
      // The report has no stream column: the process at least keeps ranks' kernels apart.
      op.pid = call.pid >= 0 && call.pid <= INT32_MAX ? static_cast<int32_t>(call.pid) : -1;
      op.line = call.line;
      kernels_.push_back(op);
    }
    RETURN_IF_ERROR(inner_.OnGpuOps(kernels_, names));
    return forward_launch_calls_ ? inner_.OnLaunchCalls(calls, names) : Status::Ok();
  }
  Status OnFinish() override { return inner_.OnFinish(); }

 private:
  TraceSink& inner_;
  bool forward_launch_calls_;
  std::vector<GpuOp> kernels_;
};

}  // namespace stepstat
