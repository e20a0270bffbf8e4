// The exact spreads (Nsight's Min, Med, StdDev) of a few kernel names, as a sink of its own:
// KernelSpreadsOf reads the GPU side into one, and `stepstat report` feeds one from a pass
// of the steps that reads every GPU operation anyway (summary_alongside.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/trace.h"

namespace stepstat {

class KernelNameSink;  // details_kernels.cc

/// Keeps the durations of `names` alone (memory grows with their launches, at most 16 bytes
/// each, not with the trace). With `launches_are_kernels` (a kern-exec trace read as the GPU
/// side), each launch row's kernel counts as a kernel.
class KernelSpreadsSink : public TraceSink {
 public:
  KernelSpreadsSink(std::vector<std::string> names, bool launches_are_kernels);
  ~KernelSpreadsSink() override;
  KernelSpreadsSink(const KernelSpreadsSink&) = delete;
  KernelSpreadsSink& operator=(const KernelSpreadsSink&) = delete;

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;

  /// The spreads of the names seen, in the order the trace first showed them.
  std::vector<KernelSpread> Take();

 private:
  std::vector<std::string> names_;  // what only_ points into
  std::unordered_set<std::string_view> only_;
  std::unique_ptr<KernelNameSink> kept_;
};

}  // namespace stepstat
