// The steps: every step as a stacked column, the distribution of the steady steps' spans, and
// the slowest steps with what changed most against the median step.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "report/html/html_escape.h"
#include "report/html/page_parts.h"
#include "report/html/svg_charts.h"
#include "report/table.h"

namespace stepstat::html {

namespace {

constexpr size_t kSlowestSteps = 5;

bool IsSteady(const StepRecord& step) { return !step.warmup && !(step.flags & kStepPartial); }

int64_t ComponentTime(const StepRecord& step, size_t component) {
  const std::vector<int64_t>& times = step.totals.component_time_ns;
  return component < times.size() ? times[component] : 0;
}

std::string StepLabel(const StepRecord& step) {
  return "step " + std::to_string(step.index) + " (" + step.name + ")";
}

std::string StepFlagsText(const StepRecord& step) {
  std::string out = step.warmup ? "warm-up" : "";
  for (std::string_view flag : StepFlagNames(step.flags)) {
    out += (out.empty() ? "" : ", ") + std::string(flag);
  }
  return out;
}

std::string ColumnsFigure(const StepsReport& report, const StepStats& stats) {
  const size_t count = stats.components.size();
  std::vector<Column> columns;
  HtmlTable table;
  table.Column("step").Column("name", HtmlTable::kText).Column("span");
  for (const ComponentStats& component : stats.components) table.Column(component.name);
  table.Column("idle").Column("flags", HtmlTable::kText);
  for (const StepRecord& step : report.steps) {
    Column column;
    column.muted = !IsSteady(step);
    std::vector<std::string> row = {std::to_string(step.index), EscapeHtml(step.name),
                                    Ms(step.totals.span_ns())};
    for (size_t c = 0; c < count; ++c) {
      const int64_t time = ComponentTime(step, c);
      column.segments.push_back(
          {static_cast<double>(time) / 1e6, ComponentClass(c, count),
           StepLabel(step) + ": " + stats.components[c].name + " " + Ms(time)});
      row.push_back(Ms(time));
    }
    column.segments.push_back({static_cast<double>(step.totals.gpu_idle_ns()) / 1e6,
                               std::string(kIdleClass),
                               StepLabel(step) + ": idle " + Ms(step.totals.gpu_idle_ns())});
    row.push_back(Ms(step.totals.gpu_idle_ns()));
    row.push_back(EscapeHtml(StepFlagsText(step)));
    columns.push_back(std::move(column));
    table.Row(std::move(row));
  }
  const std::string desc = std::to_string(report.steps.size()) + " steps, " +
                           std::to_string(report.warmup_count) +
                           " warm-up (greyed); each column is one step's kernel time by "
                           "component plus its idle time";
  const std::string svg =
      StackedColumnsSvg({"steps-columns", "Every step's time by component", desc}, columns, "ms");
  const std::string caption =
      "One column per step, in run order: its kernel time by component (summed over kernels) "
      "plus its idle time (the step's span minus the union of its kernels). Warm-up and "
      "partial steps are greyed.";
  return "<h3>Every step</h3>\n" + Legend(stats, true) +
         Figure(svg, EscapeHtml(caption),
                "<details><summary>Every step as a table</summary>\n" + table.Render() +
                    "</details>\n");
}

std::string HistogramFigure(const StepsReport& report, const Distribution& span) {
  std::vector<double> values;
  for (const StepRecord& step : report.steps) {
    if (IsSteady(step)) values.push_back(static_cast<double>(step.totals.span_ns()));
  }
  const std::vector<Marker> markers = {{span.median, "median " + Ms(span.median)},
                                       {span.p90, "p90 " + Ms(span.p90)}};
  const std::string desc = std::to_string(values.size()) + " steady steps: median " +
                           Ms(span.median) + ", p90 " + Ms(span.p90) + ", min " + Ms(span.min) +
                           ", max " + Ms(span.max);
  const std::string svg =
      HistogramSvg({"steps-histogram", "Step time distribution (steady steps)", desc}, values,
                   markers, HistogramScale{});
  HtmlTable table;
  table.Column("steady steps").Column("min").Column("p10").Column("median").Column("p90");
  table.Column("max").Column("cv");
  char cv[32];
  std::snprintf(cv, sizeof cv, "%.3f", span.cv);
  table.Row({std::to_string(values.size()), Ms(span.min), Ms(span.p10), Ms(span.median),
             Ms(span.p90), Ms(span.max), cv});
  const std::string caption =
      "Count of steady steps (warm-up and partial steps left out) by GPU span, first kernel "
      "start to last end, in 20 equal bins; dashed lines at the median and p90.";
  return "<h3>Step time</h3>\n" + Figure(svg, EscapeHtml(caption), table.Render());
}

std::string SlowestTable(const StepsReport& report, const StepStats& stats) {
  if (report.median_step < 0 || static_cast<size_t>(report.median_step) >= report.steps.size()) {
    return "";
  }
  const StepRecord& median = report.steps[static_cast<size_t>(report.median_step)];
  std::vector<const StepRecord*> order;
  for (const StepRecord& step : report.steps) order.push_back(&step);
  std::stable_sort(order.begin(), order.end(), [](const StepRecord* a, const StepRecord* b) {
    return a->totals.span_ns() > b->totals.span_ns();
  });
  order.resize(std::min(order.size(), kSlowestSteps));
  HtmlTable table;
  table.Column("step").Column("name", HtmlTable::kText).Column("span").Column("Δ vs median step");
  table.Column("largest change vs median step", HtmlTable::kText).Column("flags", HtmlTable::kText);
  for (const StepRecord* step : order) {
    // The part (a component, or idle) whose time moved most against the median step.
    std::string part = "idle";
    int64_t change = step->totals.gpu_idle_ns() - median.totals.gpu_idle_ns();
    for (size_t c = 0; c < stats.components.size(); ++c) {
      const int64_t delta = ComponentTime(*step, c) - ComponentTime(median, c);
      if (std::llabs(delta) > std::llabs(change)) {
        change = delta;
        part = stats.components[c].name;
      }
    }
    const int64_t span_delta = step->totals.span_ns() - median.totals.span_ns();
    const bool is_median = step == &median;
    table.Row({std::to_string(step->index), EscapeHtml(step->name), Ms(step->totals.span_ns()),
               is_median ? "" : (span_delta >= 0 ? "+" : "") + Ms(span_delta),
               is_median ? "(the median step)"
                         : EscapeHtml(part + " " + (change >= 0 ? "+" : "") + Ms(change)),
               EscapeHtml(StepFlagsText(*step))});
  }
  return "<h3>Slowest steps</h3>\n<p class=\"note\">Against the median step, " +
         EscapeHtml(StepLabel(median)) + ", " + Ms(median.totals.span_ns()) + ".</p>\n" +
         table.Render();
}

}  // namespace

std::string StepsSection(const PageData& data) {
  if (data.steps == nullptr) {
    return Section("steps", "Steps", "<p class=\"note\">" + EscapeHtml(data.steps_note) + "</p>\n");
  }
  const StepsReport& report = data.steps->report;
  std::string body = ColumnsFigure(report, data.summary.stats);
  for (const Distribution& distribution : report.steady_state) {
    if (distribution.metric == "gpu_span_ns" && report.steady_count > 0) {
      body += HistogramFigure(report, distribution);
    }
  }
  body += SlowestTable(report, data.summary.stats);
  return Section("steps", "Steps", body);
}

}  // namespace stepstat::html
