// StepsToJson: per-step reference summaries and their steady-state distribution.
#include "report/json_writer.h"
#include "report/step_stats_json.h"
#include "stepstat/steps.h"

namespace stepstat {

namespace {

void WriteStep(JsonWriter& json, const StepsReport& report, const StepRecord& step,
               const Policy& policy) {
  StepStats s = StepStatsOf(report, step, policy);
  json.BeginObject().Field("index", step.index).Field("name", step.name);
  json.Key("cpu_start_ns");
  step.cpu_start_ns < 0 ? json.Null() : json.Int(step.cpu_start_ns);
  json.Key("cpu_end_ns");
  step.cpu_end_ns < 0 ? json.Null() : json.Int(step.cpu_end_ns);
  json.Field("warmup", step.warmup);
  json.Key("flags").BeginArray();
  for (std::string_view flag : StepFlagNames(step.flags)) json.String(flag);
  json.EndArray();
  json.Key("dominant_kernel");
  if (step.flags & kStepDominantKernel) {
    json.BeginObject()
        .Field("name", step.totals.longest_kernel_name)
        .Field("duration_ns", step.totals.longest_kernel_ns)
        .EndObject();
  } else {
    json.Null();
  }
  for (const StepMetric& metric : kStepMetrics) {
    if (!metric.in_json) continue;
    WriteMetricValue(json.Key(metric.key), metric.value(step, s));
  }
  WriteStepStatsMeasures(json, s, /*overlap_scope=*/false);
  json.Key("launch_api_own_kernels_overlap_ns");
  report.launch_trace ? json.Int(step.totals.launch_own_kernels_overlap_ns) : json.Null();
  json.EndObject();
}

void WriteResiduePart(JsonWriter& json, std::string_view key, const ResiduePart& part) {
  json.Key(key)
      .BeginObject()
      .Field("span_ns", part.span_ns)
      .Field("idle_ns", part.idle_ns)
      .Field("gap_count", part.gap_count)
      .Field("gap_total_ns", part.gap_total_ns)
      .EndObject();
}

// What the steps leave of the whole trace; steps.h (StepsResidue) states the sums.
void WriteResidue(JsonWriter& json, const StepsResidue& r) {
  json.Key("residue").BeginObject().Field("gpu_span_ns", r.gpu_span_ns);
  WriteResiduePart(json, "before_first_step", r.before_first);
  WriteResiduePart(json, "between_steps", r.between_steps);
  WriteResiduePart(json, "after_last_step", r.after_last);
  json.Field("kernel_time_ns", r.kernel_time_ns);
  json.Key("unlaunched")
      .BeginObject()
      .Field("gpu_operation_count", r.unlaunched.operation_count)
      .Field("kernel_count", r.unlaunched.kernel_count)
      .Field("kernel_time_ns", r.unlaunched.kernel_time_ns)
      .Field("span_ns", r.unlaunched.span_ns)
      .Field("idle_ns", r.unlaunched.idle_ns)
      .EndObject();
  json.Field("steps_overlap_ns", r.steps_overlap_ns)
      .Field("concurrent_step_kernels_ns", r.concurrent_step_kernels_ns)
      .Field("outside_kernels_in_steps_ns", r.outside_kernels_in_steps_ns)
      .Field("filled_step_gap_count", r.filled_step_gap_count)
      .Field("filled_step_gap_ns", r.filled_step_gap_ns)
      .EndObject();
}

}  // namespace

void WriteStepsJson(const StepsReport& report, const Policy& policy,
                    const std::function<void(std::string_view)>& write) {
  JsonWriter json;
  json.DrainTo(write);
  json.BeginObject();
  // Bumped when a field is renamed or removed; docs/schemas.md lists each version.
  json.Field("schema", "stepstat.steps/2");
  json.Key("step_source")
      .BeginObject()
      .Field("kind", StepSourceKindName(report.source))
      .Field("detail", report.source_detail)
      .Field("attribution", StepAttributionName(report.attribution))
      .Field("range_trace", report.range_trace)
      .EndObject();
  json.Field("source_gpu_trace", report.gpu_trace)
      .Field("source_kernel_exec_trace", report.launch_trace)
      .Field("step_count", static_cast<int64_t>(report.steps.size()))
      .Field("warmup_step_count", report.warmup_count)
      .Field("steady_step_count", report.steady_count);
  json.Key("median_step");
  report.median_step < 0 ? json.Null() : json.Int(report.median_step);

  json.Key("steps").BeginArray();
  for (const StepRecord& step : report.steps) WriteStep(json, report, step, policy);
  json.EndArray();

  json.Key("steady_state").BeginObject();
  for (const Distribution& d : report.steady_state) {
    json.Key(d.metric)
        .BeginObject()
        .Field("median", d.median)
        .Field("p10", d.p10)
        .Field("p90", d.p90)
        .Field("min", d.min)
        .Field("max", d.max)
        .Field("cv", d.cv)
        .EndObject();
  }
  json.EndObject();

  json.Key("outside_steps")
      .BeginObject()
      .Field("gpu_operation_count", report.outside.operation_count)
      .Field("kernel_count", report.outside.kernel_count)
      .Field("kernel_time_ns", report.outside.kernel_time_ns);
  json.Key("launch_api_union_ns");
  report.launch_trace ? json.Int(report.outside.launch_union_ns) : json.Null();
  json.Key("launch_api_gpu_overlap_ns");
  report.launch_trace ? json.Int(report.outside.launch_overlap_ns) : json.Null();
  json.EndObject();
  WriteResidue(json, report.residue);

  json.Key("classification_policy").BeginObject();
  for (const ComponentRule& rule : policy.components) json.Field(rule.name, rule.description);
  json.Field("other", policy.other_description);
  json.EndObject();

  json.EndObject();
  std::string tail = std::move(json).Take();
  tail += '\n';
  write(tail);
}

std::string StepsToJson(const StepsReport& report, const Policy& policy) {
  std::string text;
  WriteStepsJson(report, policy, [&text](std::string_view piece) { text += piece; });
  return text;
}

}  // namespace stepstat
