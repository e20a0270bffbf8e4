// RunSteps with the timelines of its median and slowest steps, and RunSummary in its parts:
// for RunReport, which draws the steps and takes the summary from their passes
// (engine_report.cc). Internal to the engine.
#pragma once

#include <optional>
#include <vector>

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
Result<StepsResult> RunStepsDrawing(const RunOptions& options, std::vector<StepTimeline>* timelines,
                                    SummaryAlongside* summary,
                                    std::optional<std::vector<KernelDetails>>* kernels = nullptr);

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

}  // namespace stepstat
