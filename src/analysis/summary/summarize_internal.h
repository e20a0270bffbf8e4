// The summary pipeline with its internal limits exposed, for tests that force the two
// reader threads into their tightest interleavings.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/pipeline/trace_reads.h"
#include "stepstat/details.h"
#include "stepstat/step_stats.h"

namespace stepstat {

struct PipelineLimits {
  /// How far one reader may run ahead of the other, in union components (16 bytes each).
  size_t max_pending_components = size_t{1} << 16;
};

/// Summarize / SummarizeWithDetails (`details` null: not wanted) under `limits`. With
/// `kernel_totals` (not null), also each distinct kernel name the summary counted, in order
/// of first appearance, with only its name, launches and total_ns filled: what a policy's
/// coverage needs (SuggestBuiltinPolicy) without reading the trace again. With `reads` (not
/// null), a whole input is read through it: a trace another engine call of the same command
/// parsed is replayed, not parsed again (trace_reads.h).
Result<StepStats> SummarizeWith(const SummaryInputs& inputs, const Policy& policy, Details* details,
                                const PipelineLimits& limits,
                                std::vector<KernelDetails>* kernel_totals = nullptr,
                                TraceReads* reads = nullptr);

}  // namespace stepstat
