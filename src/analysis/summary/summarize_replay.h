// The summary pipeline over operations a caller replays into a sink (one step of a whole
// run), instead of over files: one thread feeds both sides of the launch overlap.
#pragma once

#include <functional>
#include <vector>

#include "analysis/summary/summary_values.h"
#include "stepstat/details.h"
#include "stepstat/step_stats.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Feeds `sink` a trace (launch calls and GPU operations) and, when all of it was read,
/// finishes it (TraceSink's contract); returns what the files read held.
using TraceReplay = std::function<Result<std::vector<InputDetails>>(TraceSink& sink)>;

/// The summary of the replayed trace and, when `details` is not null, its details. The
/// replay runs once, or twice when the operations turn out not sorted by start.
/// `sources.kernel_exec_trace` says whether launch calls are part of it.
Result<StepStats> SummarizeReplayed(const TraceReplay& replay, const Policy& policy,
                                    const StepStatsSources& sources, Details* details);

}  // namespace stepstat
