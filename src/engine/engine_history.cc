// RunRecord and RunHistory: runs into the ledger (the summary JSON verbatim and every step's
// values) and back out as a history, each run judged against the previous one of its label.
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "engine/engine_sides.h"
#include "stepstat/compare_stats.h"
#include "stepstat/engine_compare.h"
#include "stepstat/report.h"

namespace stepstat {

namespace {

// The value a history shows for a run: the median of its steady steps, else the whole run's.
std::optional<double> ValueOf(const Side& side, const std::string& metric) {
  const MetricValues* values = side.Find(metric);
  if (!values) return std::nullopt;
  if (!values->steps.empty()) return Median(values->steps);
  return values->run;
}

// Whether `a` is better than `b` for the metric; nullopt when it has no better direction.
std::optional<bool> Better(const std::string& metric, double a, double b) {
  switch (DescribeMetric(metric).worse) {
    case Worse::kUp: return a < b;
    case Worse::kDown: return a > b;
    case Worse::kNeither: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

Result<RecordRun> RunRecord(const RecordOptions& options) {
  RecordRun result;
  result.label = options.label.empty() ? LabelOf(options.inputs) : options.label;
  ASSIGN_OR_RETURN(TraceRun trace, ReadTraceRun(options.run, options.inputs, /*whole_run=*/true,
                                                /*hash_inputs=*/true));
  result.warnings = std::move(trace.warnings);

  RunOptions files = options.run;
  for (const ResolvedInput& input : trace.inputs) files.inputs.push_back(input.path);
  files.output.clear();
  if (!trace.whole_run) {
    ASSIGN_OR_RETURN(trace.whole_run, RunSummary(files));
  }
  const SummaryResult& summary = *trace.whole_run;

  RecordRequest request;
  request.label = result.label;
  request.summary_json = StepStatsToJson(summary.stats);
  if (trace.steps) {
    request.steps = StepValuesOf(*trace.steps, trace.policy);
    request.warmup_steps = trace.steps->warmup_count;
  }
  request.gpu = trace.side.meta.gpu;  // the model, as the diff's sides carry it
  request.policy_name = trace.policy.name;
  request.kernels = trace.side.meta.kernels;
  request.policy_hash = PolicyIdentity(trace.policy);
  request.input_hash = std::move(trace.input_hash);
  request.tool_version = options.tool_version;
  std::error_code ec;
  request.git_commit = GitCommitOf(std::filesystem::current_path(ec));
  request.tags = options.tags;
  request.note = options.note;

  ASSIGN_OR_RETURN(Ledger ledger, Ledger::Open(options.ledger, {.create = true}));
  ASSIGN_OR_RETURN(result.recorded, ledger.Record(request));
  ASSIGN_OR_RETURN(result.previous, ledger.PreviousRun(result.label, result.recorded.run_id));
  if (result.previous) {
    ASSIGN_OR_RETURN(Side before, ledger.LoadRunAsSide(result.previous->id));
    ASSIGN_OR_RETURN(Side now, ledger.LoadRunAsSide(result.recorded.run_id));
    DiffOptions judged = options.diff;
    RETURN_IF_ERROR(ApplyMeasuredFloor(ledger, result.label, &judged));
    ASSIGN_OR_RETURN(DiffResult diff, Diff(before, now, judged));
    result.vs_previous = std::move(diff);
  }
  return result;
}

Result<History> RunHistory(const HistoryOptions& options) {
  History history;
  history.metrics = options.metrics;
  if (history.metrics.empty()) history.metrics = {"gpu_span_ns"};
  ASSIGN_OR_RETURN(Ledger ledger, Ledger::Open(options.ledger));
  ASSIGN_OR_RETURN(std::vector<RunInfo> runs, ledger.ListRuns(options.label_glob));

  struct LabelState {
    DiffOptions judged;  // the options with the label's measured floor, when it has one
    std::optional<Side> previous;
    std::map<std::string, double> previous_value, best_value;
  };
  std::map<std::string, LabelState> labels;
  for (RunInfo& run : runs) {
    ASSIGN_OR_RETURN(Side side, ledger.LoadRunAsSide(run.id));
    auto [found, first] = labels.try_emplace(run.label);
    LabelState& state = found->second;
    if (first) {
      state.judged = options.diff;
      RETURN_IF_ERROR(ApplyMeasuredFloor(ledger, run.label, &state.judged));
    }
    HistoryRow row;
    for (const std::string& metric : history.metrics) {
      HistoryValue value{metric, ValueOf(side, metric), std::nullopt, std::nullopt};
      if (value.value) {
        double now = *value.value;
        if (auto before = state.previous_value.find(metric); before != state.previous_value.end()) {
          value.delta_vs_previous = now - before->second;
        }
        auto best = state.best_value.find(metric);
        std::optional<bool> better = best == state.best_value.end()
                                         ? std::optional(true)
                                         : Better(metric, now, best->second);
        if (better.value_or(false)) state.best_value[metric] = now;
        if (better.has_value()) value.delta_vs_best = now - state.best_value[metric];
        state.previous_value[metric] = now;
      }
      row.values.push_back(std::move(value));
    }
    auto& series = history.series[run.label];
    series.resize(history.metrics.size());
    for (size_t m = 0; m < row.values.size(); ++m) {
      if (row.values[m].value) series[m].push_back(*row.values[m].value);
    }
    if ((options.judge || options.regressions_only) && state.previous) {
      ASSIGN_OR_RETURN(DiffResult diff, Diff(*state.previous, side, state.judged));
      row.verdict = diff.verdict;
    }
    state.previous = std::move(side);
    row.run = std::move(run);
    // A mixed verdict has a row that regressed too: "by any row".
    const bool regressed = row.verdict == Verdict::kRegression || row.verdict == Verdict::kMixed;
    if (!options.regressions_only || regressed) {
      history.rows.push_back(std::move(row));
    }
  }
  return history;
}

}  // namespace stepstat
