// StepStatsToJson: the summary of ../../shared/spec/step-stats.md, keys in the spec's order.
#include "report/step_stats_json.h"

#include "stepstat/metrics.h"
#include "stepstat/report.h"

namespace stepstat {

void WriteMetricValue(JsonWriter& json, const MetricValue& value) {
  if (value.integer) {
    json.Int(*value.integer);
  } else if (value.real) {
    json.Double(*value.real);
  } else {
    json.Null();
  }
}

void WriteStepStatsMeasures(JsonWriter& json, const StepStats& stats, bool overlap_scope) {
  // The registry in order; a group's object opens at its first figure, and a group whose
  // figures are absent is null.
  std::string_view open_group;
  bool group_null = false;
  for (const SummaryMetric& metric : kSummaryMetrics) {
    const std::string_view group = metric.group();
    const MetricValue value = metric.value(stats);
    if (group != open_group || group.empty()) {
      if (!open_group.empty() && !group_null) json.EndObject();
      open_group = group;
      group_null = false;
      if (!group.empty()) {
        json.Key(group);
        if (!value.present()) {
          json.Null();
          group_null = true;
          continue;
        }
        json.BeginObject();
        if (overlap_scope && !GroupScope(group).empty()) json.Field("scope", GroupScope(group));
      }
    }
    if (group_null) continue;
    WriteMetricValue(json.Key(metric.leaf()), value);
  }
  if (!open_group.empty() && !group_null) json.EndObject();

  json.Key("components").BeginObject();
  for (const ComponentStats& component : stats.components) {
    json.Key(component.name).BeginObject();
    for (const ComponentMetric& metric : kComponentMetrics) {
      WriteMetricValue(json.Key(metric.leaf), metric.value(component));
    }
    json.EndObject();
  }
  json.EndObject();
}

void WriteStepStatsFields(JsonWriter& json, const StepStats& stats) {
  json.Field("source_gpu_trace", stats.source_gpu_trace)
      .Field("source_kernel_exec_trace", stats.source_kernel_exec_trace);
  WriteStepStatsMeasures(json, stats, /*overlap_scope=*/true);

  json.Key("classification_policy").BeginObject();
  for (const ComponentStats& component : stats.components) {
    json.Field(component.name, component.description);
  }
  json.EndObject();
}

std::string StepStatsToJson(const StepStats& stats) {
  JsonWriter json;
  json.BeginObject();
  WriteStepStatsFields(json, stats);
  json.EndObject();
  std::string text = std::move(json).Take();
  text += '\n';
  return text;
}

}  // namespace stepstat
