// Fits one drawn step to the reference GB10 step so that every integer of the reference
// summary comes out exactly, then proves it by measuring the result.
#pragma once

#include "stepstat/status.h"
#include "synth/step_plan.h"
#include "synth/step_timeline.h"

namespace stepstat::synth {

/// How far the fit had to bend the launch model; reported so a reader can judge it.
struct FitReport {
  int64_t queue_depth = 0;
  int64_t host_pace_permille = 0;
  int64_t pause_call_extension_ns = 0;  ///< added before block 0's first launch (the GPU is idle)
  int64_t host_hiccup_ns = 0;  ///< taken from the start of one blocked call (inside a kernel)
  size_t host_hiccup_launch = 0;
};

/// Scales `draw` to the reference (component sums, gaps, span), picks the queue depth, lays
/// the step out into `rows` and stretches or trims two launch calls so the launch-API union and its
/// overlap with the kernels match. Fails, saying which figure is off, rather than return a wrong
/// step.
Status FitReferenceStep(const StepPlan& plan, StepDraw& draw, TimelineParams& params,
                        StepRows& rows, FitReport* report = nullptr);

}  // namespace stepstat::synth
