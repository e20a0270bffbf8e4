// `stepstat report`: one self-contained HTML page of a run (inline SVG and CSS, no script
// but the embedded summary JSON, no external URL, a Content-Security-Policy that forbids
// everything else). The same inputs give the same bytes.
#pragma once

#include <string>
#include <string_view>

#include "stepstat/engine.h"
#include "stepstat/engine_compare.h"
#include "stepstat/engine_report.h"
#include "stepstat/timeline.h"

namespace stepstat {

/// What the page shows. `summary` must carry details (RunOptions::details); `steps` is
/// optional (null: the run was not cut into steps, `steps_note` says why).
struct HtmlReportInput {
  const SummaryResult* summary = nullptr;
  const StepsResult* steps = nullptr;
  std::string steps_note;
  /// The command that made the page, shown under "How this page was made" (plain text).
  std::string command_line;
  /// `report --vs`: this run (cand) against a base; adds the before/after section and the
  /// diff JSON (DiffToJson) as `<script type="application/json" id="stepstat-diff">`.
  const DiffRun* vs = nullptr;
  /// The timelines of the median and slowest steps (RunReport); none: the section says so.
  const std::vector<StepTimeline>* timelines = nullptr;
  /// Min, Med and StdDev of the listed kernels (RunReport); null: those columns stay empty.
  const std::vector<KernelSpread>* kernel_spreads = nullptr;
};

/// The page. Its `<script type="application/json" id="stepstat-summary">` holds
/// StepStatsWithDetailsToJson of the summary (`summarize --details --format json`), with
/// `<`, `>` and `&` written as \u003c, \u003e, \u0026 so that it parses to the same value.
std::string ReportToHtml(const HtmlReportInput& input);
/// The page of a RunReport result.
std::string ReportToHtml(const ReportResult& report, const std::string& command_line);

/// `diff --format html`: the before/after section of ReportToHtml alone, with the diff JSON
/// embedded as there.
std::string DiffToHtml(const DiffRun& run, const std::string& command_line);

}  // namespace stepstat
