// The engine's calls for "did my change help?": a diff of two runs, and the run history
// (record, history, baselines) on a ledger. Like engine.h, each takes options and returns
// plain structs; the statistics are compare.h's, the storage ledger.h's, and a face only
// chooses flags and writers.
//
//   DiffRunOptions options;
//   options.base = {"before"};  // an nsys base, a .sqlite, a Kineto trace, a stepstat JSON, @ID
//   options.cand = {"after"};
//   Result<DiffRun> run = RunDiff(options);
//   if (run.ok()) std::fputs(DiffToJson(run->diff).c_str(), stdout);
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepstat/compare.h"
#include "stepstat/engine.h"
#include "stepstat/ledger.h"
#include "stepstat/status.h"

namespace stepstat {

/// One side as a face names it: trace INPUTs as RunSteps takes them (an nsys base also picks
/// up BASE_nvtx_pushpop_trace.csv when it exists), one summary or steps JSON that stepstat
/// wrote, or one ledger reference (`@ID`, `@latest`, `@prev`, `label:L`, `baseline:NAME`).
/// A trace side is cut into steps when it has at least DiffOptions::min_steps steady steps,
/// else summarized whole (n = 1); its kernel table comes with it.
struct DiffRunOptions {
  std::vector<std::string> base;
  std::vector<std::string> cand;
  /// For trace sides: the policy, how steps are cut (`steps.range_regex`), the output to
  /// refuse. Its `inputs` are ignored.
  RunOptions run;
  DiffOptions diff;
  /// The ledger that references resolve in; only opened when a side is a reference.
  std::filesystem::path ledger;
};

struct DiffRun {
  DiffResult diff;
  /// What reading the sides found (input checks, a side cut differently than asked), one
  /// line each, without a "stepstat: warning: " prefix.
  std::vector<std::string> warnings;
  /// The two sides as compared (per-step values when cut into steps), for a face that draws
  /// their distributions (the HTML page).
  Side base_side, cand_side;
};

Result<DiffRun> RunDiff(const DiffRunOptions& options);

struct RecordOptions {
  std::vector<std::string> inputs;  ///< trace INPUTs, as for a diff side
  RunOptions run;                   ///< policy and step cutting, as for a diff side
  std::string label;                ///< empty: the first input's base name
  std::vector<std::pair<std::string, std::string>> tags;
  std::string note;
  std::string tool_version;
  std::filesystem::path ledger;
  DiffOptions diff;  ///< for the line against the previous run of the label
};

struct RecordRun {
  Recorded recorded;
  std::string label;
  /// The same label's previous run and the diff against it, when there is one.
  std::optional<RunInfo> previous;
  std::optional<DiffResult> vs_previous;
  std::vector<std::string> warnings;
};

Result<RecordRun> RunRecord(const RecordOptions& options);

struct HistoryOptions {
  std::filesystem::path ledger;
  std::string label_glob = "*";
  /// Key paths to show; empty: gpu_span_ns.
  std::vector<std::string> metrics;
  /// Also judge each run against the previous run of its label.
  bool judge = false;
  /// Keep only the runs judged a regression against the previous run of their label
  /// (implies `judge`; the deltas and sparklines still come from every run).
  bool regressions_only = false;
  DiffOptions diff;
};

struct HistoryValue {
  std::string metric;
  std::optional<double> value;  ///< the median of the steady steps, else the whole run's
  std::optional<double> delta_vs_previous;
  std::optional<double> delta_vs_best;  ///< against the best earlier-or-equal run of the label
};

struct HistoryRow {
  RunInfo run;
  std::vector<HistoryValue> values;  ///< in HistoryOptions::metrics order
  /// With `judge`: the verdict against the previous run of the label.
  std::optional<Verdict> verdict;
};

struct History {
  std::vector<std::string> metrics;
  std::vector<HistoryRow> rows;  ///< oldest first
  /// Per label, per metric: the value of every run of the label, oldest first (before any
  /// filter), for the sparklines.
  std::map<std::string, std::vector<std::vector<double>>> series;
};

Result<History> RunHistory(const HistoryOptions& options);

// History's writers. A sparkline per label and metric draws its runs' values, oldest first.
inline constexpr std::string_view kHistorySchema = "stepstat.history/1";
std::string HistoryToJson(const History& history);
std::string HistoryToCsv(const History& history);
/// Times (`_ns` keys) in milliseconds; `unicode` draws the sparklines with block characters,
/// else with ASCII.
std::string HistoryToTable(const History& history, bool unicode);

}  // namespace stepstat
