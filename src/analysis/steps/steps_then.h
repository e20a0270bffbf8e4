// AnalyzeSteps with a second look at one step's operations while the inputs are at hand:
// what SummarizeStep (steps.h) is built on. Internal: a face asks the engine for a step's
// summary and gets plain structs, never a callback valid only during a call.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "analysis/details/kernel_spreads.h"
#include "analysis/pipeline/trace_reads.h"
#include "analysis/steps/step_filter_sink.h"
#include "analysis/summary/summary_alongside.h"
#include "stepstat/details.h"
#include "stepstat/steps.h"
#include "stepstat/timeline.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Reads steps of the run again, as AnalyzeSteps attributed them, in one read of the inputs:
/// the launch calls, then the GPU operations that belong to each route's step, into that
/// route's sink (what a capture cut by hand around that step would hold), then finishes each
/// sink once (TraceSink's contract). The routes' steps must differ. Returns what each input
/// file held.
using StepReplay =
    std::function<Result<std::vector<InputDetails>>(std::span<const StepRoute> routes)>;
/// Called with the finished report and a replay valid during the call.
using StepsConsumer = std::function<Status(const StepsReport& report, const StepReplay& replay)>;

/// Optional, for a consumer that knows which steps it will replay as soon as the steps'
/// figures are final (warm-up, flags, median: everything but the residue): called with that
/// report just before the steps' last pass over the GPU side (the residue pass, which reads
/// every operation anyway), which then hands the returned routes their GPU operations as the
/// replay would (same attribution, file order), so that the replay reads only the launch
/// side. If that pass starts over (rows out of start order), it is called again and must
/// return fresh sinks; `then` must replay exactly the last call's routes. A sink gets its
/// GPU operations before its launch calls: fine for one that keeps the two apart. When the
/// launch calls come from a CSV file of their own, it is also called once before that pass,
/// to learn the steps (those sinks get nothing): their launch calls are then read on a second
/// thread during the residue pass and kept, and the replay reads nothing.
using StepsEarlyRoutes = std::function<std::vector<StepRoute>(const StepsReport& report)>;

/// AnalyzeSteps, then `then(report, replay)`; an error from `then` fails the call.
/// `summary` (optional, `stepstat report`): the whole trace's summary, fed by the passes the
/// steps make anyway (StepsPasses::summary); whether it completed, it says itself.
/// `kernels` (optional, a diff or record side): the kernel listing, fed by the residue pass
/// (StepsPasses::kernels). `reads` (optional): the caller's TraceReads, which the passes
/// read through and which keeps what they parsed for the caller's next reads.
Result<StepsReport> AnalyzeStepsThen(const StepsInputs& inputs, const Policy& policy,
                                     const StepsOptions& options, const StepsConsumer& then,
                                     const StepsEarlyRoutes& early = nullptr,
                                     SummaryAlongside* summary = nullptr,
                                     KernelsAlongside* kernels = nullptr,
                                     TraceReads* reads = nullptr);

/// AnalyzeStepsWithTimelines (timeline.h) with the whole trace's summary riding on its
/// passes, as AnalyzeStepsThen takes one: what RunReport draws its page from.
Result<StepsReport> AnalyzeStepsDrawing(const StepsInputs& inputs, const Policy& policy,
                                        const StepsOptions& options,
                                        std::vector<StepTimeline>& timelines,
                                        SummaryAlongside* summary, TraceReads* reads = nullptr);

}  // namespace stepstat
