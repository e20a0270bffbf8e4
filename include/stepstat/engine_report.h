// `stepstat report`'s engine call: everything the HTML page (html_report.h) draws, read in
// one call that the CLI and the Python module share.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "stepstat/engine.h"
#include "stepstat/engine_compare.h"
#include "stepstat/timeline.h"

namespace stepstat {

struct ReportRunOptions {
  /// The run, as RunSteps takes it (an NVTX CSV among the inputs cuts steps; the summary
  /// reads the others). `details` is implied.
  RunOptions run;
  /// Before and after: a base side as `diff` takes one (trace files, a stepstat JSON, a
  /// ledger reference); empty: none. This run is the candidate.
  std::vector<std::string> vs;
  /// The ledger that `vs` references resolve in (only opened when one is a reference).
  std::filesystem::path ledger;
};

struct ReportResult {
  SummaryResult summary;             ///< with details
  std::optional<StepsResult> steps;  ///< null when the run could not be cut into steps
  std::string steps_note;            ///< why not, when null
  /// The median step's and the slowest steady step's timelines (one when they are the same
  /// step; none without steps).
  std::vector<StepTimeline> timelines;
  std::optional<DiffRun> vs;  ///< with ReportRunOptions::vs
  /// Min, Med and StdDev of the kernels the summary's details list (top kernels, top
  /// unclassified), exact, from a read that keeps those names' durations alone.
  std::vector<KernelSpread> kernel_spreads;
};

/// The summary with details and the steps with their timelines, read at once on two threads;
/// then the before/after when asked. A run that cannot be cut into steps is no error unless
/// `run.steps.range_regex` asked for steps; the summary's errors always are.
Result<ReportResult> RunReport(const ReportRunOptions& options);

}  // namespace stepstat
