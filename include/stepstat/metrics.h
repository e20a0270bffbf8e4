// The metric registry: every figure of the step summary, and of a step, declared once with
// its key, unit, kind, which way is worse, the label a person reads and how it prints. The
// faces walk it: the summary and steps JSON, the steady-state distribution, diff's sides
// and rows, the ledger's step values, the ranks CSV, the replay check of `summarize --step`,
// the steps table's columns, the history table's cells and the summary's overview (text
// and markdown, by the lines declared here). A new figure is one entry here plus its
// accumulator; a face that lists figures by hand is a bug waiting for the next one. Definitions:
// docs/summary.md and docs/steps.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "stepstat/step_stats.h"
#include "stepstat/steps.h"

namespace stepstat {

enum class MetricKind { kTime, kCount, kShare };
/// Which way is worse. Times, gaps and idle up: worse. Busy % of span up: better (the GPU
/// idles less). Counts and shares of kernel time: neither, only "changed".
enum class Worse { kUp, kDown, kNeither };

/// One figure's value: an integer (exact, as JSON prints it), a real, or absent (its group
/// is null, e.g. cpu_gpu_overlap without a launch source).
struct MetricValue {
  std::optional<int64_t> integer;
  std::optional<double> real;
  bool present() const { return integer || real; }
  double AsDouble() const { return integer ? static_cast<double>(*integer) : real.value_or(0); }
};

/// A figure of the summary (StepStats). `key` is its JSON path: "group.leaf" inside a group
/// object, a bare leaf at the top.
struct SummaryMetric {
  std::string_view key;
  std::string_view unit;  ///< "ns", "count", "%"
  MetricKind kind;
  Worse worse;
  std::string_view label;        ///< what a person reads
  int decimals;                  ///< in tables: ns print as ms with this many decimals
  std::string_view rank_column;  ///< its column in the ranks CSV; empty: not there
  MetricValue (*value)(const StepStats&);

  std::string_view group() const {
    size_t dot = key.find('.');
    return dot == std::string_view::npos ? std::string_view() : key.substr(0, dot);
  }
  std::string_view leaf() const {
    size_t dot = key.find('.');
    return dot == std::string_view::npos ? key : key.substr(dot + 1);
  }
};

/// A figure of each component, keyed "components.<name>.<leaf>".
struct ComponentMetric {
  std::string_view leaf;
  std::string_view unit;
  MetricKind kind;
  Worse worse;
  bool in_steady_state;  ///< in the steps' steady-state distribution
  int decimals;          ///< in tables
  MetricValue (*value)(const ComponentStats&);
};

/// A figure only a step has (the steps JSON writes those `in_json` before the summary's
/// figures).
struct StepMetric {
  std::string_view key;
  std::string_view unit;
  MetricKind kind;
  Worse worse;
  int decimals;  ///< in tables, as SummaryMetric::decimals
  bool in_json;  ///< false: a figure of the tables only, implied by the JSON's
  MetricValue (*value)(const StepRecord&, const StepStats&);
};

namespace metric_detail {
inline MetricValue Int(int64_t v) { return {v, std::nullopt}; }
inline MetricValue Real(double v) { return {std::nullopt, v}; }
inline MetricValue Absent() { return {}; }
}  // namespace metric_detail

/// In the summary JSON's key order (../shared/spec/step-stats.md).
inline constexpr SummaryMetric kSummaryMetrics[] = {
    {"gpu_span_ns", "ns", MetricKind::kTime, Worse::kUp, "GPU span", 3, "gpu_span_ns",
     [](const StepStats& s) { return metric_detail::Int(s.gpu_span_ns); }},
    {"gpu_operation_count", "count", MetricKind::kCount, Worse::kNeither, "GPU operations", 0,
     "gpu_operation_count",
     [](const StepStats& s) { return metric_detail::Int(s.gpu_operation_count); }},
    {"kernel_count", "count", MetricKind::kCount, Worse::kNeither, "kernels", 0, "kernel_count",
     [](const StepStats& s) { return metric_detail::Int(s.kernel_count); }},
    {"kernel_time_ns", "ns", MetricKind::kTime, Worse::kUp, "kernel time (sum)", 3,
     "kernel_time_ns", [](const StepStats& s) { return metric_detail::Int(s.kernel_time_ns); }},
    // Up is better: the same work with less idle.
    {"kernel_busy_percent_of_span", "%", MetricKind::kShare, Worse::kDown,
     "kernel time (sum), % of span", 1, "kernel_busy_percent_of_span",
     [](const StepStats& s) { return metric_detail::Real(s.kernel_busy_percent_of_span); }},
    {"launch_gaps.positive_gap_count", "count", MetricKind::kCount, Worse::kUp,
     "idle gaps between kernels", 0, "positive_gap_count",
     [](const StepStats& s) { return metric_detail::Int(s.launch_gaps.positive_gap_count); }},
    {"launch_gaps.total_ns", "ns", MetricKind::kTime, Worse::kUp, "idle gaps, total", 3,
     "gap_total_ns", [](const StepStats& s) { return metric_detail::Int(s.launch_gaps.total_ns); }},
    {"launch_gaps.average_ns", "ns", MetricKind::kTime, Worse::kUp, "idle gaps, average", 3, "",
     [](const StepStats& s) { return metric_detail::Real(s.launch_gaps.average_ns); }},
    {"launch_gaps.maximum_ns", "ns", MetricKind::kTime, Worse::kUp, "idle gaps, longest", 3,
     "gap_maximum_ns",
     [](const StepStats& s) { return metric_detail::Int(s.launch_gaps.maximum_ns); }},
    {"cpu_gpu_overlap.launch_api_union_ns", "ns", MetricKind::kTime, Worse::kUp,
     "launch API time (union)", 3, "launch_api_union_ns",
     [](const StepStats& s) {
       return s.cpu_gpu_overlap ? metric_detail::Int(s.cpu_gpu_overlap->launch_api_union_ns)
                                : metric_detail::Absent();
     }},
    // The launch path's overlap with GPU work is neither good nor bad on its own.
    {"cpu_gpu_overlap.launch_api_gpu_overlap_ns", "ns", MetricKind::kTime, Worse::kNeither,
     "launch API time during GPU kernels", 3, "launch_api_gpu_overlap_ns",
     [](const StepStats& s) {
       return s.cpu_gpu_overlap ? metric_detail::Int(s.cpu_gpu_overlap->launch_api_gpu_overlap_ns)
                                : metric_detail::Absent();
     }},
    {"cpu_gpu_overlap.launch_api_overlap_percent", "%", MetricKind::kShare, Worse::kNeither,
     "launch API time during GPU kernels, % of launch API time", 1, "",
     [](const StepStats& s) {
       return s.cpu_gpu_overlap ? metric_detail::Real(s.cpu_gpu_overlap->launch_api_overlap_percent)
                                : metric_detail::Absent();
     }},
};

/// The group objects of the summary JSON that say what they measure.
inline constexpr std::string_view GroupScope(std::string_view group) {
  return group == "cpu_gpu_overlap" ? std::string_view(kCpuGpuOverlapScope) : std::string_view();
}

/// In the summary JSON's order inside each component's object. More launches can be a split
/// kernel or a new feature, so counts and shares are only "changed".
inline constexpr ComponentMetric kComponentMetrics[] = {
    {"milliseconds", "ms", MetricKind::kTime, Worse::kUp, true, 3,
     [](const ComponentStats& c) { return metric_detail::Real(c.milliseconds); }},
    {"percent_of_kernel_time", "%", MetricKind::kShare, Worse::kNeither, false, 1,
     [](const ComponentStats& c) { return metric_detail::Real(c.percent_of_kernel_time); }},
    {"launches", "count", MetricKind::kCount, Worse::kNeither, false, 0,
     [](const ComponentStats& c) { return metric_detail::Int(c.launches); }},
};

/// In the steps JSON's order, before the summary's figures.
inline constexpr StepMetric kStepMetrics[] = {
    {"gpu_start_ns", "ns", MetricKind::kTime, Worse::kNeither, 3, true,
     [](const StepRecord& step, const StepStats& s) {
       return s.gpu_operation_count == 0 ? metric_detail::Absent()
                                         : metric_detail::Int(step.totals.first_start_ns);
     }},
    {"gpu_period_ns", "ns", MetricKind::kTime, Worse::kUp, 3, true,
     [](const StepRecord& step, const StepStats&) {
       return step.period_ns < 0 ? metric_detail::Absent() : metric_detail::Int(step.period_ns);
     }},
    {"gpu_idle_ns", "ns", MetricKind::kTime, Worse::kUp, 3, true,
     [](const StepRecord& step, const StepStats&) {
       return metric_detail::Int(step.totals.gpu_idle_ns());
     }},
    // The GPU's busy share of the step: its span less its idle. The summed busy % passes 100
    // with concurrent streams; this one cannot.
    {"kernel_union_percent_of_span", "%", MetricKind::kShare, Worse::kDown, 1, false,
     [](const StepRecord& step, const StepStats& s) {
       return s.gpu_span_ns <= 0
                  ? metric_detail::Absent()
                  : metric_detail::Real(100.0 * static_cast<double>(step.totals.kernel_busy_ns) /
                                        static_cast<double>(s.gpu_span_ns));
     }},
};

/// A figure column of the per-step table (`steps`): a step figure or a summary figure of
/// each step, by key. On a narrow terminal the column of the highest `drop` goes first (0:
/// always shown): those that others imply (gaps and kernel time follow from idle time and
/// busy %) before the span and busy %.
struct StepsTableColumn {
  std::string_view key;
  std::string_view header;
  int drop;
};

/// In the table's order, after the step's index and name, before its top component.
inline constexpr StepsTableColumn kStepsTableColumns[] = {
    {"gpu_span_ns", "span ms", 0},
    {"gpu_period_ns", "period ms", 9},
    {"kernel_count", "kernels", 5},
    {"kernel_time_ns", "kernel ms", 7},
    {"kernel_busy_percent_of_span", "busy % (sum)", 10},
    {"kernel_union_percent_of_span", "busy % (union)", 0},
    {"launch_gaps.positive_gap_count", "gaps", 8},
    {"launch_gaps.total_ns", "gap ms", 3},
    {"launch_gaps.maximum_ns", "max gap ms", 6},
    {"cpu_gpu_overlap.launch_api_overlap_percent", "launch overlap %", 4},
};

/// A figure the summary's tables show that its JSON implies or its details hold.
struct SummaryTableFigure {
  std::string_view key;
  std::string_view unit;
  MetricValue (*value)(const StepStats&, const std::optional<double>& union_busy_percent);
};

inline constexpr SummaryTableFigure kSummaryTableFigures[] = {
    {"memory_operation_count", "count",
     [](const StepStats& s, const std::optional<double>&) {
       return metric_detail::Int(s.gpu_operation_count - s.kernel_count);
     }},
    // The union of the kernels over the span (Details::kernel_union_percent_of_span).
    {"kernel_union_percent_of_span", "%",
     [](const StepStats&, const std::optional<double>& union_busy_percent) {
       return union_busy_percent ? metric_detail::Real(*union_busy_percent)
                                 : metric_detail::Absent();
     }},
};

/// A line of the summary's overview: `label`, then `value` and `note`, templates in which
/// `{key}` is a figure (kSummaryMetrics, kSummaryTableFigures) printed by its unit: a count
/// with thousands separators, a share with 1 decimal, a time in ms (report/overview_cells.h
/// says how many decimals). A line naming an absent figure is left out; a line with
/// `if_absent` is shown only when that figure is absent.
struct OverviewLine {
  std::string_view label;
  std::string_view value;
  std::string_view note;
  std::string_view if_absent;
};

/// The overview of the text table (`summarize`): label, value, note.
inline constexpr OverviewLine kSummaryTableOverview[] = {
    {"GPU span", "{gpu_span_ns} ms", "first op start to last op end", ""},
    {"GPU operations", "{gpu_operation_count}",
     "{kernel_count} kernels, {memory_operation_count} memory operations", ""},
    {"kernel time (sum)", "{kernel_time_ns} ms",
     "{kernel_busy_percent_of_span} % of span (a sum: can pass 100)", ""},
    {"GPU busy (union)", "{kernel_union_percent_of_span} %", "of span with any kernel running", ""},
    {"idle gaps between kernels", "{launch_gaps.total_ns} ms",
     "{launch_gaps.positive_gap_count} gaps, longest {launch_gaps.maximum_ns} ms", ""},
    {"launch API time (union)", "{cpu_gpu_overlap.launch_api_union_ns} ms",
     "CPU time inside kernel-launch calls", ""},
    {"  of it during GPU kernels", "{cpu_gpu_overlap.launch_api_gpu_overlap_ns} ms",
     "{cpu_gpu_overlap.launch_api_overlap_percent} % of launch API time", ""},
    {"launch API time", "-", "no launch trace given", "cpu_gpu_overlap.launch_api_union_ns"},
};

/// The overview of the markdown (`--format markdown`): label, value.
inline constexpr OverviewLine kSummaryMarkdownOverview[] = {
    {"GPU span", "{gpu_span_ns} ms", "", ""},
    {"GPU operations", "{gpu_operation_count}", "", ""},
    {"kernels", "{kernel_count}", "", ""},
    {"kernel time (sum)", "{kernel_time_ns} ms", "", ""},
    {"kernel time (sum), % of span", "{kernel_busy_percent_of_span}", "", ""},
    {"GPU busy (union of kernels), % of span", "{kernel_union_percent_of_span}", "", ""},
    {"idle gaps between kernels",
     "{launch_gaps.positive_gap_count} gaps, {launch_gaps.total_ns} ms, longest "
     "{launch_gaps.maximum_ns} ms",
     "", ""},
    {"launch API time (union)", "{cpu_gpu_overlap.launch_api_union_ns} ms", "", ""},
    {"launch API time during GPU kernels, % of launch API time",
     "{cpu_gpu_overlap.launch_api_overlap_percent}", "", ""},
};

/// The step figures `diff` compares and the ledger keeps, in the order diff's rows list them
/// (after the summary's figures). Where a step starts is no figure to compare.
inline constexpr std::string_view kStepMetricsInDiff[] = {"gpu_idle_ns", "gpu_period_ns"};

/// The step figure of that key, or nullptr.
inline const StepMetric* FindStepMetric(std::string_view key) {
  for (const StepMetric& m : kStepMetrics) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

/// The summary figure of that key, or nullptr.
inline const SummaryMetric* FindSummaryMetric(std::string_view key) {
  for (const SummaryMetric& m : kSummaryMetrics) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

/// How a table prints a figure: its unit and decimals.
struct FigurePrecision {
  std::string_view unit;
  int decimals;
};

/// The precision of the figure of `key`: a summary or step figure, or a component's
/// ("components.<name>.<leaf>"); nullopt for a key no declaration holds.
inline std::optional<FigurePrecision> PrecisionOf(std::string_view key) {
  if (const SummaryMetric* m = FindSummaryMetric(key)) return FigurePrecision{m->unit, m->decimals};
  if (const StepMetric* m = FindStepMetric(key)) return FigurePrecision{m->unit, m->decimals};
  constexpr std::string_view kComponents = "components.";
  if (key.starts_with(kComponents)) {
    std::string_view leaf = key.substr(key.rfind('.') + 1);
    for (const ComponentMetric& m : kComponentMetrics) {
      if (m.leaf == leaf) return FigurePrecision{m.unit, m.decimals};
    }
  }
  return std::nullopt;
}

}  // namespace stepstat
