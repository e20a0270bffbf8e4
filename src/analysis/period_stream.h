// Steps of a whole run from its kernel sequence, with memory bounded by a prefix rather than
// by the trace. The period is detected on the first kernels only (a prefix of 2^18 kernels
// by default: a warm-up and many steady steps of up to some 30k kernels each), then the rest
// of the sequence is cut as it streams by (StreamingCutter). A prefix is accepted when the
// detector finds a period that it holds at least kMinPrefixPeriods times and its final
// cuts reach the prefix's second half (a warm-up is not most of it); otherwise the prefix
// grows fourfold and detection is tried again, until the trace ends and the whole
// sequence is used, exactly as DetectPeriod would. Cuts in the prefix are kept only up to
// the last one whose look-ahead lay inside it, so the result equals DetectPeriod on the
// whole sequence whenever the prefix yields the same period and anchor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/period_cutter.h"
#include "analysis/period_detector.h"

namespace stepstat {

struct DetectedSteps {
  bool found = false;
  size_t period = 0;
  size_t kernel_count = 0;
  std::vector<size_t> first_kernels;  ///< each step's first kernel index, from 0, increasing
  std::vector<int64_t> starts_ns;     ///< that kernel's start, one per step
};

class StreamingPeriodDetector {
 public:
  static constexpr size_t kDefaultPrefixKernels = size_t{1} << 18;
  static constexpr size_t kMinPrefixPeriods = 8;

  explicit StreamingPeriodDetector(size_t prefix_kernels = kDefaultPrefixKernels);
  /// The next kernel in start order; `idle_before` and `host_transfer_before` as DetectPeriod
  /// takes them.
  void Add(NameId name, int64_t start_ns, int64_t idle_before, bool host_transfer_before);
  /// After the last kernel. Call once.
  DetectedSteps Finish();

 private:
  // Detects on the buffered prefix; true when accepted (the cutter takes over from there).
  bool TryPrefix();
  void Emit(size_t first_kernel, int64_t start_ns);

  size_t prefix_cap_;
  size_t count_ = 0;
  std::vector<NameId> names_;
  std::vector<int64_t> starts_;
  std::vector<int64_t> idle_;
  std::vector<uint8_t> host_transfer_;
  std::optional<StreamingCutter> cutter_;
  DetectedSteps result_;
};

}  // namespace stepstat
