// The summary pipeline with its internal limits exposed, for tests that force the two
// reader threads into their tightest interleavings.
#pragma once

#include <cstddef>

#include "stepstat/details.h"
#include "stepstat/step_stats.h"

namespace stepstat {

struct PipelineLimits {
  /// How far one reader may run ahead of the other, in union components (16 bytes each).
  size_t max_pending_components = size_t{1} << 16;
};

/// Summarize / SummarizeWithDetails (`details` null: not wanted) under `limits`.
Result<StepStats> SummarizeWith(const SummaryInputs& inputs, const Policy& policy, Details* details,
                                const PipelineLimits& limits);

}  // namespace stepstat
