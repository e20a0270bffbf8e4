// Finds the steps of a run without annotations: the period of the kernel-name sequence.
// Candidate periods come from the distances between repeats of names that recur at a
// regular distance; a candidate is verified by how often seq[i] == seq[i + p] in the steady
// tail, and must be consistent with every regular name (a name recurring every d >= p
// kernels must have d a multiple of p, which rules out the period of a repeated layer).
// Among consistent candidates whose cuts fall at an idle gap comparable to the best, one that
// is a whole number of a shorter one (give or take a kernel per repeat) is that unit
// repeated and is dropped; of the units left the longest is taken: the whole repeating
// unit (a step), not a sub-unit of it (a layer) that happens to cut at similar gaps.
// Units shorter than kMinStepKernels are refused, with the reason. Steps are cut at one phase of
// the period, re-synchronised on the anchor name when noise shifts the sequence; a differing
// warm-up prefix becomes its own step.
//
// The phase: the one with the largest median idle gap before it, unless host transfers say
// otherwise. A step ends where the host waits for the GPU (it reads results back, then
// prepares and uploads the next inputs), so the boundary is an idle gap with copies between
// host and device in it. A long gap inside a step (the host busy building the next layers,
// the GPU resetting buffers meanwhile) has only device-side work in it and can be longer
// than the sync between steps. So a phase that follows a host transfer in at least half
// of the periods, with a median gap at least half of the largest, is preferred to any phase
// without one. Unified-memory page migrations are not host transfers (they happen during
// kernels, not at a sync). With no host transfers in the trace the rule is idle gaps alone.
// Not used: the longest gap with ALL GPU work idle (device-side memsets split a pause's gap,
// but on the DiT run both gaps come out near 2.3 ms, so it does not decide), nor "a capture
// starts at a step" (nsys --delay captures start anywhere).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

/// A step of a training or inference run launches tens to thousands of kernels (each layer
/// several). A sequence that repeats every one to three kernels is one operation in a loop
/// (a benchmark's kernel, a kernel and its copy): cutting it into "steps" only restates
/// per-kernel figures, and any phase of so short a period is as good as another.
inline constexpr size_t kMinStepKernels = 4;

struct PeriodDetectorOptions {
  double min_match_rate = 0.8;  ///< seq[i] == seq[i+p] at least this often in the steady tail
  size_t min_repeats = 3;       ///< the tail must hold at least this many periods
  size_t max_candidates = 32;
  size_t min_period = kMinStepKernels;  ///< shorter repeating units are refused
};

struct PeriodDetection {
  bool found = false;
  size_t period = 0;        ///< kernels per step
  double match_rate = 0;    ///< of the chosen period in the steady part
  size_t steady_start = 0;  ///< where seq[i] == seq[i+p] starts to hold
  size_t slack = 0;         ///< how far a cut may move to stay on the anchor name
  NameId anchor = 0;        ///< the name of the kernel every steady step starts with
  /// Kernel indexes where steps start, increasing, from 0. The first and last steps may be
  /// partial (shorter than period - slack): a warm-up prefix, a cut-off tail.
  std::vector<size_t> boundaries;
  /// When not found although the sequence repeats: why its period was refused.
  std::string refused;
};

/// `names` are the kernels' name ids in start order; `idle_before[i]` is the kernels' idle
/// time before kernel i (0 when it overlaps earlier kernels); `host_transfer_before[i]` is 1
/// when a host<->device copy started after kernel i-1 and before kernel i (empty: unknown).
/// The spans have the same length as names.
PeriodDetection DetectPeriod(std::span<const NameId> names, std::span<const int64_t> idle_before,
                             std::span<const uint8_t> host_transfer_before = {},
                             const PeriodDetectorOptions& options = {});

}  // namespace stepstat
