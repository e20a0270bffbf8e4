// RunSteps with the timelines of its median and slowest steps, and RunSummary in its parts:
// for RunReport, which draws the steps and takes the summary from their passes
// (engine_report.cc), and RunRecord, whose side's steps carry the whole-run summary
// (engine_sides.cc; the ride itself: summary_ride.cc). Internal to the engine.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "analysis/pipeline/trace_reads.h"
#include "analysis/summary/summary_alongside.h"
#include "stepstat/details.h"
#include "stepstat/engine.h"
#include "stepstat/timeline.h"

namespace stepstat {

/// RunSteps; with `timelines` not null, also the median and slowest steps' timelines
/// (AnalyzeStepsDrawing: from the steps' own passes for a CSV pair, else with one more read
/// of the launch side); with `summary` too (not null), the whole trace's summary rides on
/// the steps' passes.
/// With `kernels` (not null), RunKernels' listing of the trace's kernels comes from the
/// steps' own residue pass where it can (else it stays nullopt: ask RunKernels).
/// With `reads` (not null), the passes read through it, and it keeps what they parsed for the
/// command's next calls (RunSummaryReading).
Result<StepsResult> RunStepsDrawing(const RunOptions& options, std::vector<StepTimeline>* timelines,
                                    SummaryAlongside* summary,
                                    std::optional<std::vector<KernelDetails>>* kernels = nullptr,
                                    TraceReads* reads = nullptr);

/// RunSummary, a whole input read through `reads` (not null): replayed when an earlier call
/// of the command parsed it (a Kineto trace the steps read), and then not planned again.
Result<SummaryResult> RunSummaryReading(const RunOptions& options, TraceReads* reads);

/// What RunSummary knows before it reads the trace.
struct SummaryRun {
  Policy policy;
  StepsInputs inputs;  ///< ranges only for one step (RunOptions::step)
  RunContext context;
};

/// RunSummary's first part: the policy, the inputs, the refusal of an output over them and
/// the input checks; with `plan_reads`, the summary's reads told to the progress meter.
Result<SummaryRun> PrepareSummary(const RunOptions& options, bool plan_reads);

/// RunSummary's last part, from the summary of `run`'s trace (and its details, when
/// `options` ask for them): the policy hint, the result. `kernel_totals`: every kernel
/// name's launches and time from the summary's own pass, when it counted all that the
/// hint's coverage counts; null: the hint lists the trace's kernels itself (a read).
Result<SummaryResult> FinishSummary(const RunOptions& options, SummaryRun run,
                                    Result<StepStats> stats, Details details,
                                    const std::vector<KernelDetails>* kernel_totals = nullptr);

/// The trace without its step ranges (an NVTX CSV is no GPU trace; a name that is no file,
/// an nsys base, is kept: the summary resolves it), as the whole-run summary reads it.
RunOptions SummaryOptions(const RunOptions& run, bool details);

/// When the summary of `summary_options` can ride on the steps' passes (an nsys CSV pair, the
/// whole trace, every device): its sinks, to hand RunStepsDrawing, and in `prepared` what
/// RunSummary knows before reading (the sinks refer to it: it must outlive them). Else nullptr: the
/// summary reads for itself; `replayed` (when not null) then says whether a TraceReads the
/// steps read through can replay their parse to it (RunSummaryReading).
std::unique_ptr<SummaryAlongside> StartSummaryRide(const RunOptions& summary_options,
                                                   std::optional<SummaryRun>& prepared,
                                                   bool* replayed = nullptr);

/// After RunStepsDrawing succeeded with `alongside`: the summary RunSummary(summary_options)
/// gives (and the kernels' spreads into `spreads`, when not null); nullopt when the ride
/// stopped (rows out of start order, no steps), and the summary must read for itself.
std::optional<Result<SummaryResult>> FinishSummaryRide(const RunOptions& summary_options,
                                                       std::optional<SummaryRun>& prepared,
                                                       SummaryAlongside& alongside,
                                                       std::vector<KernelSpread>* spreads);

}  // namespace stepstat
