// Turns accumulated totals into the summary's fields, with the spec's exact arithmetic.
#pragma once

#include <optional>
#include <string>

#include "analysis/summary/summary_sinks.h"
#include "stepstat/policy.h"
#include "stepstat/step_stats.h"

namespace stepstat {

struct StepStatsSources {
  std::string gpu_trace;
  std::optional<std::string> kernel_exec_trace;
};

struct LaunchOverlapTotals {
  int64_t union_ns = 0;
  int64_t overlap_ns = 0;
};

/// `overlap` is absent when there was no launch source (the field is then null).
StepStats MakeStepStats(const Policy& policy, const GpuTotals& gpu,
                        const std::optional<LaunchOverlapTotals>& overlap,
                        const StepStatsSources& sources);

}  // namespace stepstat
