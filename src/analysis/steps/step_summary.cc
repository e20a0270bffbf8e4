// `summarize --step`: one step of a whole run as the reference summary, with --details from
// a replay of that step's own operations. The replay goes through the very pipeline that
// summarizes a hand-cut trace, so its summary must equal the per-step accumulators'; a
// difference is a bug in one of them, and is reported instead of printing either.
#include "analysis/steps/steps_then.h"
#include "analysis/summary/summarize_replay.h"
#include "analysis/summary/summary_values.h"
#include "stepstat/metrics.h"
#include "stepstat/steps.h"

namespace stepstat {

namespace {

// The integers behind the two summaries (the floating-point fields derive from them), and
// whether each group is there.
bool SameMeasures(const StepStats& a, const StepStats& b) {
  for (const SummaryMetric& metric : kSummaryMetrics) {
    const MetricValue x = metric.value(a), y = metric.value(b);
    if (x.present() != y.present() || x.integer != y.integer) return false;
  }
  if (a.components.size() != b.components.size()) return false;
  for (size_t i = 0; i < a.components.size(); ++i) {
    for (const ComponentMetric& metric : kComponentMetrics) {
      if (metric.value(a.components[i]).integer != metric.value(b.components[i]).integer) {
        return false;
      }
    }
    if (a.components[i].time_ns != b.components[i].time_ns) return false;
  }
  return true;
}

}  // namespace

Result<StepStats> SummarizeStep(const StepsInputs& inputs, const Policy& policy,
                                const StepsOptions& options, std::string_view which,
                                Details* details, ChosenStep* chosen) {
  Result<StepStats> stats = Status::Error("no step chosen");
  auto summarize_one = [&](const StepsReport& report, const StepReplay& replay) -> Status {
    ASSIGN_OR_RETURN(size_t index, ChooseStep(report, which));
    stats = StepStatsOf(report, report.steps[index], policy);
    if (chosen) *chosen = {report.steps[index].index, report.steps[index].name, report.source};
    if (!details) return Status::Ok();
    StepStatsSources sources{report.gpu_trace, report.launch_trace};
    ASSIGN_OR_RETURN(StepStats replayed, SummarizeReplayed(
                                             [&](TraceSink& sink) {
                                               const StepRoute route{index, &sink};
                                               return replay(std::span<const StepRoute>(&route, 1));
                                             },
                                             policy, sources, details));
    // The replay holds the step's own kernels only, so its launch overlap is the step's
    // own-kernels figure; the printed one is against every kernel of the trace.
    StepRecord own = report.steps[index];
    own.totals.launch_overlap_ns = own.totals.launch_own_kernels_overlap_ns;
    if (!SameMeasures(replayed, StepStatsOf(report, own, policy))) {
      return Status::Error("internal error: step " + std::to_string(index) +
                           " summarizes differently when read again; please report this");
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(AnalyzeStepsThen(inputs, policy, options, summarize_one).status());
  return stats;
}

}  // namespace stepstat
