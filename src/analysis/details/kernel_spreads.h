// The exact spreads (Nsight's Min, Med, StdDev) of a few kernel names, as a sink of its own:
// KernelSpreadsOf reads the GPU side into one, and `stepstat report` feeds one from a pass
// of the steps that reads every GPU operation anyway (summary_alongside.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/policy.h"
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

/// ListKernels' listing (every kernel name with its launches, time, component and each
/// launch's duration) made by a sink that another pass's read of the GPU operations feeds:
/// the steps' residue pass reads every one of them in file order, as ListKernels does, so a
/// diff or record side lists its kernels without a read of its own. For a GPU side of GPU
/// operations (not a kern-exec trace read as one). Each start of that read asks Fresh() for a
/// new sink (a read that starts over starts the listing over).
class KernelsAlongside {
 public:
  /// `policy` must outlive this.
  static Result<std::unique_ptr<KernelsAlongside>> Create(const Policy& policy);
  ~KernelsAlongside();
  KernelsAlongside(const KernelsAlongside&) = delete;
  KernelsAlongside& operator=(const KernelsAlongside&) = delete;

  TraceSink& Fresh();
  /// After the read that fed the last Fresh() sink finished it: the listing, as ListKernels
  /// gives it; nullopt when no sink was asked for.
  std::optional<std::vector<KernelDetails>> Take();

 private:
  KernelsAlongside(const Policy& policy, Classifier classifier);
  const Policy& policy_;
  Classifier classifier_;
  std::unique_ptr<KernelNameSink> sink_;
};

}  // namespace stepstat
