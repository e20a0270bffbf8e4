#include "report/json_writer.h"
#include "stepstat/report.h"
#include "stepstat/steps.h"

namespace stepstat {

namespace {

void WriteGaps(JsonWriter& j, const GapStats& g) {
  j.Key("gaps")
      .BeginObject()
      .Field("count", g.count)
      .Field("total_ns", g.total_ns)
      .Field("maximum_ns", g.maximum_ns)
      .EndObject();
}

void WritePercentiles(JsonWriter& j, std::string_view key, const DurationPercentiles& p) {
  j.Key(key)
      .BeginObject()
      .Field("count", p.count)
      .Field("p50_ns", p.p50_ns)
      .Field("p90_ns", p.p90_ns)
      .Field("p99_ns", p.p99_ns)
      .Field("max_ns", p.max_ns)
      .EndObject();
}

void WriteKernels(JsonWriter& j, std::string_view key, const std::vector<KernelDetails>& kernels) {
  j.Key(key).BeginArray();
  for (const KernelDetails& k : kernels) {
    j.BeginObject()
        .Field("name", k.name)
        .Field("component", k.component)
        .Field("launches", k.launches)
        .Field("total_ns", k.total_ns)
        .Field("mean_ns", k.mean_ns)
        .Field("max_ns", k.max_ns)
        .EndObject();
  }
  j.EndArray();
}

void WriteDevices(JsonWriter& j, const std::vector<DeviceDetails>& devices) {
  j.Key("devices").BeginArray();
  for (const DeviceDetails& d : devices) {
    j.BeginObject()
        .Field("device", d.device)
        .Field("kernel_count", d.kernel_count)
        .Field("kernel_time_ns", d.kernel_time_ns)
        .Field("kernel_union_ns", d.kernel_union_ns)
        .Field("kernel_union_percent_of_span", d.kernel_union_percent_of_span);
    WriteGaps(j, d.gaps);
    j.Field("idle_before_first_kernel_ns", d.idle_before_first_kernel_ns)
        .Field("idle_after_last_kernel_ns", d.idle_after_last_kernel_ns);
    j.Key("streams").BeginArray();
    for (const StreamDetails& s : d.streams) {
      j.BeginObject().Field("stream", s.stream).Key("process");
      if (s.process >= 0) {
        j.Int(s.process);
      } else {
        j.Null();
      }
      j.Field("kernel_count", s.kernel_count)
          .Field("kernel_time_ns", s.kernel_time_ns)
          .Field("kernel_union_ns", s.kernel_union_ns);
      WriteGaps(j, s.gaps);
      j.Field("overlapping_kernels", s.overlapping_kernels).EndObject();
    }
    j.EndArray().EndObject();
  }
  j.EndArray();
}

void WriteLaunchPath(JsonWriter& j, const std::optional<LaunchPathDetails>& launch) {
  j.Key("launch_path");
  if (!launch) {
    j.Null();
    return;
  }
  j.BeginObject()
      .Field("launch_rows", launch->launch_rows)
      .Field("percentile_precision", launch->percentile_precision);
  WritePercentiles(j, "api_duration", launch->api_duration);
  WritePercentiles(j, "queue_time", launch->queue_time);
  j.Key("rows_by_api").BeginObject();
  for (const ApiCount& a : launch->by_api) j.Field(a.api, a.count);
  j.EndObject()
      .Key("cuda_graph_launches")
      .BeginObject()
      .Field("calls", launch->graph_launch_calls)
      .Field("kernels", launch->graph_launched_kernels)
      .EndObject()
      .EndObject();
}

void WriteDataQuality(JsonWriter& j, const DataQuality& q) {
  j.Key("data_quality").BeginObject().Key("inputs").BeginArray();
  for (const InputDetails& i : q.inputs) {
    j.BeginObject()
        .Field("file", i.file)
        .Field("kind", i.kind)
        .Field("layout", i.layout)
        .Field("time_unit", i.time_unit)
        .Field("rows", i.rows)
        .Field("time_resolution_ns", i.time_resolution_ns)
        .EndObject();
  }
  j.EndArray()
      .Field("memory_operations", q.memory_operations)
      .Field("zero_duration_kernels", q.zero_duration_kernels)
      .Field("kernels_overlapping_on_their_stream", q.kernels_overlapping_on_their_stream)
      .Key("launch_rows_without_gpu_kernel");
  if (q.launches_without_gpu_kernel) {
    j.Int(*q.launches_without_gpu_kernel);
  } else {
    j.Null();
  }
  j.Field("devices", q.devices).Field("processes", q.processes).Key("notes").BeginArray();
  for (const std::string& note : q.notes) j.String(note);
  j.EndArray().EndObject();
}

std::string DetailsToJson(const Details& d) {
  JsonWriter j;
  j.BeginObject()
      .Field("span_ns", d.span_ns)
      .Field("kernel_time_ns", d.kernel_time_ns)
      .Field("kernel_union_ns", d.kernel_union_ns)
      .Field("kernel_union_percent_of_span", d.kernel_union_percent_of_span);
  WriteDevices(j, d.devices);
  j.Key("memory_operations").BeginArray();
  for (const MemoryOpDetails& m : d.memory_operations) {
    j.BeginObject()
        .Field("kind", m.kind)
        .Field("count", m.count)
        .Field("time_ns", m.time_ns)
        .Field("bytes", m.bytes)
        .Field("unknown_size_count", m.unknown_size_count)
        .EndObject();
  }
  j.EndArray();
  WriteKernels(j, "top_kernels", d.top_kernels);
  const ClassificationCoverage& c = d.coverage;
  j.Key("classification_coverage")
      .BeginObject()
      .Field("classified_time_ns", c.classified_time_ns)
      .Field("classified_percent_of_kernel_time", c.classified_percent_of_kernel_time)
      .Field("other_time_ns", c.other_time_ns)
      .Field("other_names", c.other_names);
  WriteKernels(j, "top_other", c.top_other);
  j.EndObject();
  WriteLaunchPath(j, d.launch_path);
  WriteDataQuality(j, d.data_quality);
  j.EndObject();
  return std::move(j).Take();
}

// `json` (an object the reference writer printed) with `"key": inner` added as its last key,
// `inner` indented one level (JSON strings hold no raw newlines, so re-indenting line by
// line is safe): the keys before it stay byte for byte.
std::string WithLastKey(std::string json, std::string_view key, std::string_view inner) {
  std::string_view closing = "\n}\n";
  if (json.size() < closing.size() || !json.ends_with(closing)) return json;
  json.resize(json.size() - closing.size());
  json += ",\n  \"";
  json += key;
  json += "\": ";
  for (char c : inner) {
    json += c;
    if (c == '\n') json += "  ";
  }
  json += "\n}\n";
  return json;
}

}  // namespace

std::string StepStatsWithDetailsToJson(const StepStats& stats, const Details& details) {
  return WithLastKey(StepStatsToJson(stats), "details", DetailsToJson(details));
}

std::string WithChosenStep(std::string summary_json, const ChosenStep& step) {
  JsonWriter j;
  j.BeginObject()
      .Field("index", step.index)
      .Field("name", step.name)
      .Field("source", StepSourceKindName(step.source))
      .EndObject();
  return WithLastKey(std::move(summary_json), "step", std::move(j).Take());
}

}  // namespace stepstat
