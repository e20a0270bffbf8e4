// KeptCallsSink: keeps the launch calls handed to it, their names copied into a pool of its
// own (the reader's pool dies with the reader), to hand them on later to another sink as if
// read then. For the few calls of a step or two: it holds every call it is given.
#pragma once

#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

class KeptCallsSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    for (LaunchCall call : calls) {
      call.api_name = names_.Intern(names.Get(call.api_name));
      call.kernel_name = names_.Intern(names.Get(call.kernel_name));
      call.device = names_.Intern(names.Get(call.device));
      calls_.push_back(call);
    }
    return Status::Ok();
  }

  /// Hands every kept call to `sink` in the order they came, in one batch (no OnFinish).
  Status HandTo(TraceSink& sink) const {
    if (calls_.empty()) return Status::Ok();
    return sink.OnLaunchCalls(calls_, names_);
  }

 private:
  StringPool names_;
  std::vector<LaunchCall> calls_;
};

}  // namespace stepstat
