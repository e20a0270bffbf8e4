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
//
// A prefix cannot see a structure longer than itself: a step of many identical layers
// looks like the layer's period until the step's own kernels (embedding, loss, optimizer)
// recur. So the rest of the trace is watched: a name the prefix saw at most twice that then
// recurs three times at the same distance (give or take two kernels), that distance not a
// whole number of periods, contradicts the period, and the caller must detect again on the
// whole sequence (needs_whole_sequence). A name recurring every few whole periods (a
// checkpoint every 10 steps) does not. What no watch can catch: a trace that ends less than
// four of its steps after a prefix too short for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/steps/period/period_cutter.h"
#include "analysis/steps/period/period_detector.h"

namespace stepstat {

struct DetectedSteps {
  bool found = false;
  size_t period = 0;
  size_t kernel_count = 0;
  size_t detected_on = 0;  ///< kernels held to detect the period: the prefix, or all of them
  std::vector<size_t> first_kernels;  ///< each step's first kernel index, from 0, increasing
  std::vector<int64_t> starts_ns;     ///< where each step opens: as fed to Add (its first
                                      ///< kernel's start, or the upload before it)
  /// The trace contradicted the period found on the prefix: nothing was found, detect
  /// again with a prefix that holds every kernel.
  bool needs_whole_sequence = false;
  /// When not found although the sequence repeats: why (PeriodDetection::refused).
  std::string refused;
};

/// Names the prefix saw at most twice, and whether one of them recurs in the rest of the
/// trace at a steady distance that is not a whole number of periods.
class LongerStructureWatch {
 public:
  LongerStructureWatch(std::span<const NameId> prefix, size_t period);
  /// Kernel `index` of the whole sequence, after the prefix; true once contradicted.
  bool Add(NameId name, size_t index);

 private:
  struct Recurrence {
    size_t last = 0, distance = 0;
    uint32_t recurrences = 0, steady = 0;
  };
  size_t period_;
  std::vector<uint8_t> prefix_count_;  // by name id, at most 3
  std::unordered_map<NameId, Recurrence> rare_;
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
  std::optional<LongerStructureWatch> watch_;
  bool contradicted_ = false;
  DetectedSteps result_;
};

}  // namespace stepstat
