// AnalyzeSteps with a second look at one step's operations while the inputs are at hand:
// what SummarizeStep (steps.h) is built on. Internal: a face asks the engine for a step's
// summary and gets plain structs, never a callback valid only during a call.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/steps.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Reads one step of the run again, as AnalyzeSteps attributed it: the launch calls, then the
/// GPU operations that belong to it, into `sink` (what a capture cut by hand around that step
/// would hold), then finishes the sink once (TraceSink's contract). Returns what each input
/// file held.
using StepReplay = std::function<Result<std::vector<InputDetails>>(size_t step, TraceSink& sink)>;
/// Called with the finished report and a replay valid during the call.
using StepsConsumer = std::function<Status(const StepsReport& report, const StepReplay& replay)>;

/// AnalyzeSteps, then `then(report, replay)`; an error from `then` fails the call.
Result<StepsReport> AnalyzeStepsThen(const StepsInputs& inputs, const Policy& policy,
                                     const StepsOptions& options, const StepsConsumer& then);

}  // namespace stepstat
