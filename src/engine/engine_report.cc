// RunReport: the steps with their timelines and the summary with details (riding on the
// steps' passes for an nsys CSV pair, after them replaying their parse of a Kineto trace, else
// on a thread of its own), then the before/after.
// What `stepstat report` and the Python module's report both call.
#include "stepstat/engine_report.h"

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "analysis/details/kernel_spreads.h"
#include "engine/engine_inputs.h"
#include "engine/engine_steps.h"
#include "io/read_progress.h"
#include "readers/input_traits.h"
#include "stepstat/platform.h"

namespace stepstat {

namespace {

// The summary with details, then the exact spreads of the kernels its tables list: a second
// read of the GPU side that keeps only those few names' durations. Both read through
// `reads`: a trace an earlier call parsed (the steps, a Kineto trace) is replayed.
Result<SummaryResult> SummaryAndSpreads(const RunOptions& options,
                                        std::vector<KernelSpread>& spreads, TraceReads& reads) {
  ASSIGN_OR_RETURN(SummaryResult summary, RunSummaryReading(options, &reads));
  std::vector<std::string> names;
  for (const KernelDetails& kernel : summary.details->top_kernels) names.push_back(kernel.name);
  for (const KernelDetails& kernel : summary.details->coverage.top_other) {
    names.push_back(kernel.name);
  }
  ASSIGN_OR_RETURN(SummaryInputs inputs, ResolveSummaryInputs(options));
  KernelSpreadsSink sink(std::move(names), OpsAreItsLaunchRows(inputs.gpu.kind));
  RETURN_IF_ERROR(reads.Whole(inputs.gpu, sink).status());
  spreads = sink.Take();
  return summary;
}

// The steps (with the two steps' timelines) and the summary on two threads, as independent
// passes: for inputs the summary can neither ride on nor replay (an SQLite export, whose
// summary with details reads on one thread for a while).
// Threads: this one runs RunStepsDrawing and owns `steps` and `timelines`; the summary
// thread runs RunSummary and then the kernels' spreads on `summary_options` (only read, here
// too, until join()) and writes only `summary` and `spreads`, read here after join(). Each
// engine call builds and owns every reader, pool and sink it touches (the inputs, files or
// caller's bytes, are only read; each thread its own TraceReads), so neither thread waits on
// the other: the readers inside each call wait only on their own call's partner thread. The
// one wait between these two is join(), after RunStepsDrawing has returned, and the summary
// thread waits on nothing of this one.
Result<StepsResult> StepsBesideSummary(const RunOptions& run, const RunOptions& summary_options,
                                       std::vector<StepTimeline>& timelines,
                                       std::optional<Result<SummaryResult>>& summary,
                                       std::vector<KernelSpread>& spreads) {
  std::thread summary_thread([&summary, &spreads, &summary_options] {
    TraceReads reads;
    summary = SummaryAndSpreads(summary_options, spreads, reads);
  });
  Result<StepsResult> steps = RunStepsDrawing(run, &timelines, nullptr);
  summary_thread.join();
  return steps;
}

}  // namespace

Result<ReportResult> RunReport(const ReportRunOptions& options) {
  // One meter over both threads and the before/after (scopes of the same meter nest).
  ProgressScope progress(options.run.progress);
  const RunOptions summary_options = SummaryOptions(options.run, /*details=*/true);

  std::optional<Result<SummaryResult>> summary;
  std::vector<KernelSpread> spreads;
  std::vector<StepTimeline> timelines;
  Result<StepsResult> steps = Status::Error("not run");
  // The summary with details rides on the steps' own reads when it can: the steps' pass
  // over both files at once feeds the summary's sinks, their residue pass the kernels'
  // spreads, so the page reads the trace only as often as the steps do. Whatever stops the
  // ride (the summary's own preparation failing, rows out of start order, no steps) leaves
  // the summary to its own read, which says what is wrong the way it always has.
  std::optional<SummaryRun> prepared;
  bool replayed = false;
  std::unique_ptr<SummaryAlongside> alongside =
      StartSummaryRide(summary_options, prepared, &replayed);
  if (alongside) {
    // Threads: none of this call's own; the steps' passes start theirs (two_sides.h), and
    // summary_alongside.h states what its sinks add to them (no wait).
    // A trace the steps parse whole (Kineto) is kept for the summary's own read, should the
    // ride not finish.
    TraceReads reads;
    steps = RunStepsDrawing(options.run, &timelines, alongside.get(), nullptr, &reads);
    if (!steps.ok() && !options.run.steps.range_regex.empty()) return steps.status();
    if (steps.ok()) summary = FinishSummaryRide(summary_options, prepared, *alongside, &spreads);
    if (!summary) summary = SummaryAndSpreads(summary_options, spreads, reads);
  } else if (replayed) {
    // The steps, then the summary and the spreads, through one TraceReads: the trace the
    // steps parsed (Kineto) is replayed to them, not parsed again, and its records are held
    // once, not twice at once.
    TraceReads reads;
    steps = RunStepsDrawing(options.run, &timelines, nullptr, nullptr, &reads);
    if (!steps.ok() && !options.run.steps.range_regex.empty()) return steps.status();
    summary = SummaryAndSpreads(summary_options, spreads, reads);
  } else {
    steps = StepsBesideSummary(options.run, summary_options, timelines, summary, spreads);
  }

  if (!steps.ok() && !options.run.steps.range_regex.empty()) return steps.status();
  if (!summary->ok()) return summary->status();
  ReportResult result;
  result.summary = std::move(*summary).value();
  result.kernel_spreads = std::move(spreads);
  if (steps.ok()) {
    result.steps = std::move(steps).value();
    result.timelines = std::move(timelines);
  } else {
    result.steps_note = "not cut into steps: " + steps.status().message();
  }

  // Before and after: this run is the candidate; its trace is read once more, as `diff`
  // reads a side (steps when it has enough, else whole).
  if (!options.vs.empty()) {
    DiffRunOptions diff;
    diff.base = options.vs;
    for (const std::filesystem::path& input : options.run.inputs) {
      diff.cand.push_back(PathToUtf8(input));
    }
    diff.run = options.run;
    diff.run.inputs.clear();
    diff.ledger = options.ledger;
    ASSIGN_OR_RETURN(DiffRun run, RunDiff(diff));
    result.vs = std::move(run);
  }
  return result;
}

}  // namespace stepstat
