// Sides from the analyses' own structs (what the engine returns), keyed as the summary JSON.
#include <fmt/format.h>

#include "compare/policy_identity.h"
#include "stepstat/compare.h"
#include "stepstat/metrics.h"

namespace stepstat {
namespace {

/// (key, value) of every summary figure the registry declares, in its order.
std::vector<std::pair<std::string, double>> SummaryMeasures(const StepStats& stats) {
  std::vector<std::pair<std::string, double>> out;
  for (const SummaryMetric& metric : kSummaryMetrics) {
    const MetricValue value = metric.value(stats);
    if (value.present()) out.push_back({std::string(metric.key), value.AsDouble()});
  }
  for (const ComponentStats& c : stats.components) {
    for (const ComponentMetric& metric : kComponentMetrics) {
      out.push_back(
          {fmt::format("components.{}.{}", c.name, metric.leaf), metric.value(c).AsDouble()});
    }
  }
  return out;
}

MetricValues& MetricOf(Side* side, const std::string& key) {
  for (MetricValues& metric : side->metrics) {
    if (metric.key == key) return metric;
  }
  side->metrics.push_back({key, {}, std::nullopt});
  return side->metrics.back();
}

}  // namespace

std::string PolicyIdentity(const Policy& policy) {
  std::vector<std::pair<std::string, std::string>> components;
  for (const ComponentRule& rule : policy.components) {
    components.emplace_back(rule.name, rule.description);
  }
  components.emplace_back("other", policy.other_description);
  return ComponentsIdentity(components);
}

std::string ComponentsIdentity(const std::vector<std::pair<std::string, std::string>>& components) {
  uint64_t hash = 14695981039346656037ull;
  auto add = [&](std::string_view text) {
    for (char c : text) hash = (hash ^ uint8_t(c)) * 1099511628211ull;
    hash = (hash ^ 0u) * 1099511628211ull;
  };
  for (const auto& [name, description] : components) add(name), add(description);
  return fmt::format("{:016x}", hash);
}

Side SideFromSummary(const StepStats& stats, const Policy& policy, const Details* details,
                     std::string label) {
  Side side;
  side.meta.label = std::move(label);
  side.meta.schema = "stepstat.summary/1";
  side.meta.policy_name = policy.name;
  side.meta.policy_hash = PolicyIdentity(policy);
  for (auto& [key, value] : SummaryMeasures(stats)) side.metrics.push_back({key, {}, value});
  if (details) {
    for (const KernelDetails& k : details->top_kernels) {
      side.meta.kernels[k.name] = {k.launches, k.total_ns, k.component, {}};
    }
    if (!details->data_quality.inputs.empty()) {
      side.meta.input_format = details->data_quality.inputs.front().kind;
    }
  }
  return side;
}

std::vector<StepValue> StepValuesOf(const StepsReport& report, const Policy& policy) {
  std::vector<StepValue> values;
  for (const StepRecord& step : report.steps) {
    const StepStats stats = StepStatsOf(report, step, policy);
    for (auto& [key, value] : SummaryMeasures(stats)) {
      values.push_back({step.index, std::move(key), value});
    }
    for (std::string_view key : kStepMetricsInDiff) {
      const MetricValue value = FindStepMetric(key)->value(step, stats);
      if (value.present()) values.push_back({step.index, std::string(key), value.AsDouble()});
    }
  }
  return values;
}

void AddStepValues(const std::vector<StepValue>& values, int64_t first_steady_step, Side* side) {
  // A step without GPU work has no span worth a sample: its zeros would drag every median.
  std::map<int64_t, bool> idle_steps;
  for (const StepValue& v : values) {
    if (v.metric == "gpu_operation_count") idle_steps[v.step] = v.value == 0;
  }
  for (const StepValue& v : values) {
    if (v.step < first_steady_step || idle_steps[v.step]) continue;
    MetricOf(side, v.metric).steps.push_back(v.value);
  }
}

Side SideFromSteps(const StepsReport& report, const Policy& policy, std::string label) {
  Side side;
  side.meta.label = std::move(label);
  side.meta.schema = "stepstat.steps/2";
  side.meta.policy_name = policy.name;
  side.meta.policy_hash = PolicyIdentity(policy);
  AddStepValues(StepValuesOf(report, policy), report.warmup_count, &side);  // warm-up leads
  return side;
}

}  // namespace stepstat
