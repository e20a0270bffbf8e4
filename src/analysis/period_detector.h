// Finds the steps of a run without annotations: the period of the kernel-name sequence.
// Candidate periods come from the distances between repeats of names that recur at a
// regular distance; a candidate is verified by how often seq[i] == seq[i + p] in the steady
// tail, and must be consistent with every regular name (a name recurring every d >= p
// kernels must have d a multiple of p, which rules out the period of a repeated layer).
// Among consistent candidates the smallest one whose cut falls at an idle gap comparable to
// the best is taken, so a step is not mistaken for two. Steps are cut at one phase of the
// period (the one with the largest median idle gap before it), re-synchronised on the
// anchor name when noise shifts the sequence; a differing warm-up prefix becomes its own step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

struct PeriodDetectorOptions {
  double min_match_rate = 0.8;  ///< seq[i] == seq[i+p] at least this often in the steady tail
  size_t min_repeats = 3;       ///< the tail must hold at least this many periods
  size_t max_candidates = 32;
};

struct PeriodDetection {
  bool found = false;
  size_t period = 0;        ///< kernels per step
  double match_rate = 0;    ///< of the chosen period in the steady part
  size_t steady_start = 0;  ///< where seq[i] == seq[i+p] starts to hold
  size_t slack = 0;         ///< how far a cut may move to stay on the anchor name
  /// Kernel indexes where steps start, increasing, from 0. The first and last steps may be
  /// partial (shorter than period - slack): a warm-up prefix, a cut-off tail.
  std::vector<size_t> boundaries;
};

/// `names` are the kernels' name ids in start order; `idle_before[i]` is the GPU idle time
/// before kernel i (0 when it overlaps earlier work), the same length as names.
PeriodDetection DetectPeriod(std::span<const NameId> names, std::span<const int64_t> idle_before,
                             const PeriodDetectorOptions& options = {});

}  // namespace stepstat
