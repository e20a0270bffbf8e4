// StepStatsToJson: the summary of ../../shared/spec/step-stats.md, keys in the spec's order.
#include "report/step_stats_json.h"

#include "stepstat/report.h"

namespace stepstat {

void WriteStepStatsMeasures(JsonWriter& json, const StepStats& stats, bool overlap_scope) {
  json.Field("gpu_span_ns", stats.gpu_span_ns)
      .Field("gpu_operation_count", stats.gpu_operation_count)
      .Field("kernel_count", stats.kernel_count)
      .Field("kernel_time_ns", stats.kernel_time_ns)
      .Field("kernel_busy_percent_of_span", stats.kernel_busy_percent_of_span);

  json.Key("launch_gaps")
      .BeginObject()
      .Field("positive_gap_count", stats.launch_gaps.positive_gap_count)
      .Field("total_ns", stats.launch_gaps.total_ns)
      .Field("average_ns", stats.launch_gaps.average_ns)
      .Field("maximum_ns", stats.launch_gaps.maximum_ns)
      .EndObject();

  json.Key("cpu_gpu_overlap");
  if (const std::optional<CpuGpuOverlap>& overlap = stats.cpu_gpu_overlap) {
    json.BeginObject();
    if (overlap_scope) json.Field("scope", kCpuGpuOverlapScope);
    json.Field("launch_api_union_ns", overlap->launch_api_union_ns)
        .Field("launch_api_gpu_overlap_ns", overlap->launch_api_gpu_overlap_ns)
        .Field("launch_api_overlap_percent", overlap->launch_api_overlap_percent)
        .EndObject();
  } else {
    json.Null();
  }

  json.Key("components").BeginObject();
  for (const ComponentStats& component : stats.components) {
    json.Key(component.name)
        .BeginObject()
        .Field("milliseconds", component.milliseconds)
        .Field("percent_of_kernel_time", component.percent_of_kernel_time)
        .Field("launches", component.launches)
        .EndObject();
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
