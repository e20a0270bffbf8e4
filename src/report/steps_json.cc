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
  json.Key("gpu_start_ns");
  s.gpu_operation_count == 0 ? json.Null() : json.Int(step.totals.first_start_ns);
  WriteStepStatsMeasures(json, s, /*overlap_scope=*/false);
  json.EndObject();
}

}  // namespace

void WriteStepsJson(const StepsReport& report, const Policy& policy,
                    const std::function<void(std::string_view)>& write) {
  JsonWriter json;
  json.DrainTo(write);
  json.BeginObject();
  // Bumped when a field is renamed or removed; docs/schemas.md lists each version.
  json.Field("schema", "stepstat.steps/1");
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
      .Field("kernel_time_ns", report.outside.kernel_time_ns)
      .EndObject();

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
