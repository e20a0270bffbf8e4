// After attribution: warm-up steps, flags, the steady-state distribution, the median step.
#pragma once

#include <span>

#include "stepstat/policy.h"
#include "stepstat/steps.h"

namespace stepstat {

/// Linear interpolation between order statistics (numpy's default); `sorted` is ascending
/// and non-empty; q in [0, 1].
double Quantile(std::span<const double> sorted, double q);

/// Fills warmup, flags, warmup_count, steady_count, median_step and steady_state. Warm-up:
/// the leading steps (at most half) whose GPU span differs from the median span of all
/// complete steps by more than warmup_tolerance, or that have no GPU work; steady: every
/// step that is neither warm-up nor partial.
void FinishStepsReport(StepsReport& report, const Policy& policy, const StepsOptions& options);

}  // namespace stepstat
