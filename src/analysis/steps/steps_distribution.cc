#include "analysis/steps/steps_distribution.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "stepstat/metrics.h"

namespace stepstat {

namespace {

int64_t SpanOf(const StepRecord& step) { return step.totals.span_ns(); }

double MedianOf(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return Quantile(values, 0.5);
}

Distribution Describe(std::string metric, std::vector<double> values) {
  Distribution d;
  d.metric = std::move(metric);
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.median = Quantile(values, 0.5);
  d.p10 = Quantile(values, 0.1);
  d.p90 = Quantile(values, 0.9);
  d.min = values.front();
  d.max = values.back();
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  double variance = 0;
  for (double v : values) variance += (v - mean) * (v - mean);
  variance /= static_cast<double>(values.size());
  // Identical values vary by nothing, whatever rounding the mean picked up.
  d.cv = mean == 0 || d.min == d.max ? 0.0 : std::sqrt(variance) / mean;
  return d;
}

// A policy with the same components but no descriptions: the per-step summaries made for
// the distribution then allocate nothing per component.
Policy NamesOnly(const Policy& policy) {
  Policy light;
  for (const ComponentRule& rule : policy.components) {
    ComponentRule r;
    r.name = rule.name;
    light.components.push_back(std::move(r));
  }
  light.other_description.clear();
  return light;
}

}  // namespace

double Quantile(std::span<const double> sorted, double q) {
  double position = q * static_cast<double>(sorted.size() - 1);
  size_t below = static_cast<size_t>(std::floor(position));
  if (below + 1 >= sorted.size()) return sorted.back();
  double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[below + 1] - sorted[below]) * fraction;
}

void FinishStepsReport(StepsReport& report, const Policy& policy, const StepsOptions& options) {
  std::vector<StepRecord>& steps = report.steps;
  std::vector<double> complete_spans;
  for (const StepRecord& s : steps) {
    if (!(s.flags & kStepPartial) && s.totals.operation_count > 0) {
      complete_spans.push_back(static_cast<double>(SpanOf(s)));
    }
  }
  double overall_median = MedianOf(complete_spans);
  for (size_t i = 0; i < steps.size() && 2 * i < steps.size(); ++i) {
    const StepRecord& s = steps[i];
    double span = static_cast<double>(SpanOf(s));
    bool deviates = std::abs(span - overall_median) > options.warmup_tolerance * overall_median;
    bool leading_partial = (s.flags & kStepPartial) && i == 0;
    if (!deviates && !leading_partial && s.totals.operation_count > 0) break;
    steps[i].warmup = true;
  }

  std::vector<const StepRecord*> steady;
  for (const StepRecord& s : steps) {
    if (!s.warmup && !(s.flags & kStepPartial)) steady.push_back(&s);
  }
  std::vector<double> steady_spans;
  steady_spans.reserve(steady.size());
  for (const StepRecord* s : steady) steady_spans.push_back(static_cast<double>(SpanOf(*s)));
  double steady_median = MedianOf(steady_spans);

  report.warmup_count = 0;
  for (StepRecord& s : steps) {
    report.warmup_count += s.warmup;
    if (s.totals.operation_count == 0) s.flags |= kStepNoGpuWork;
    if (!s.totals.longest_kernel_name.empty()) s.flags |= kStepDominantKernel;
    if (!steady.empty() && steady_median > 0 &&
        static_cast<double>(SpanOf(s)) >= options.slow_factor * steady_median) {
      s.flags |= kStepSlow;
    }
  }
  report.steady_count = static_cast<int64_t>(steady.size());
  report.median_step = -1;
  double best = 0;
  for (const StepRecord* s : steady) {
    double distance = std::abs(static_cast<double>(SpanOf(*s)) - steady_median);
    if (report.median_step < 0 || distance < best) report.median_step = s->index, best = distance;
  }

  // One column of values per metric, in summary key order.
  Policy light = NamesOnly(policy);
  std::vector<std::pair<std::string, std::vector<double>>> columns;
  auto column = [&](size_t i, auto&& name) -> std::vector<double>& {
    if (i >= columns.size()) columns.push_back({std::string(name()), {}});
    return columns[i].second;
  };
  for (const StepRecord* s : steady) {
    StepStats st = StepStatsOf(report, *s, light);
    size_t i = 0;
    auto add = [&](std::string_view name, double v) {
      column(i++, [name] { return std::string(name); }).push_back(v);
    };
    for (const SummaryMetric& metric : kSummaryMetrics) {
      const MetricValue value = metric.value(st);
      if (value.present()) add(metric.key, value.AsDouble());
    }
    for (const ComponentStats& c : st.components) {
      for (const ComponentMetric& metric : kComponentMetrics) {
        if (!metric.in_steady_state) continue;
        column(i++, [&] {
          return "components." + c.name + "." + std::string(metric.leaf);
        }).push_back(metric.value(c).AsDouble());
      }
    }
  }
  report.steady_state.clear();
  for (auto& [name, values] : columns)
    report.steady_state.push_back(Describe(name, std::move(values)));
}

}  // namespace stepstat
