// The `--details` sections of the text table.
#include <algorithm>
#include <cmath>
#include <string>

#include "report/table.h"
#include "report/text_escape.h"

namespace stepstat {

namespace {

std::string Percentiles(const DurationPercentiles& p) {
  return FormatMs(p.p50_ns) + " / " + FormatMs(p.p90_ns) + " / " + FormatMs(p.p99_ns) + " / " +
         FormatMs(p.max_ns);
}

std::string BusySection(const Details& d) {
  TextTable t;
  t.Column("kernel busy time", TextTable::kLeft)
      .Column("ms", TextTable::kRight)
      .Column("% of span", TextTable::kRight);
  t.Row({"sum of kernel durations", FormatMs(d.kernel_time_ns),
         FormatPercent(d.span_ns == 0 ? 0.0
                                      : static_cast<double>(d.kernel_time_ns) /
                                            static_cast<double>(d.span_ns) * 100.0)});
  t.Row({"union (GPU busy with any kernel)", FormatMs(d.kernel_union_ns),
         FormatPercent(d.kernel_union_percent_of_span)});
  t.Row({"span", FormatMs(d.span_ns), "100.0"});
  return t.Render();
}

// "stream 7"; with the process when the device's streams belong to several (ranks sharing
// a GPU, or ranks on several machines each seeing its GPU 0).
std::string StreamLabel(const DeviceDetails& device, const StreamDetails& s) {
  std::string label = "stream " + (s.stream < 0 ? std::string("?") : std::to_string(s.stream));
  bool several = std::any_of(device.streams.begin(), device.streams.end(),
                             [&](const StreamDetails& o) { return o.process != s.process; });
  if (several) label += s.process < 0 ? ", pid ?" : ", pid " + std::to_string(s.process);
  return label;
}

std::string DeviceSection(const Details& d, const TextStyle& style) {
  TextTable t;
  t.Column("device / stream", TextTable::kLeft)
      .Column("kernels", TextTable::kRight)
      .Column("sum ms", TextTable::kRight)
      .Column("union ms", TextTable::kRight)
      .Column("gaps", TextTable::kRight)
      .Column("gap ms", TextTable::kRight)
      .Column("max gap ms", TextTable::kRight)
      .Column("overlapping", TextTable::kRight);
  std::string notes;
  for (const DeviceDetails& dev : d.devices) {
    t.Row({DisplayName(dev.device, 40, style), FormatCount(dev.kernel_count),
           FormatMs(dev.kernel_time_ns), FormatMs(dev.kernel_union_ns), FormatCount(dev.gaps.count),
           FormatMs(dev.gaps.total_ns), FormatMs(dev.gaps.maximum_ns), ""});
    for (const StreamDetails& s : dev.streams) {
      t.Row({"  " + StreamLabel(dev, s), FormatCount(s.kernel_count), FormatMs(s.kernel_time_ns),
             FormatMs(s.kernel_union_ns), FormatCount(s.gaps.count), FormatMs(s.gaps.total_ns),
             FormatMs(s.gaps.maximum_ns), FormatCount(s.overlapping_kernels)});
    }
    notes += "  " + DisplayName(dev.device, 40, style) + ": kernels busy " +
             FormatPercent(dev.kernel_union_percent_of_span) + " % of span; idle " +
             FormatMs(dev.idle_before_first_kernel_ns) + " ms before the first kernel, " +
             FormatMs(dev.idle_after_last_kernel_ns) + " ms after the last\n";
  }
  return t.Render() + notes;
}

std::string MemorySection(const Details& d) {
  TextTable t;
  t.Column("memory operation", TextTable::kLeft)
      .Column("count", TextTable::kRight)
      .Column("ms", TextTable::kRight)
      .Column("bytes", TextTable::kRight)
      .Column("size unknown", TextTable::kRight);
  for (const MemoryOpDetails& m : d.memory_operations) {
    t.Row({EscapeForTerminal(m.kind), FormatCount(m.count), FormatMs(m.time_ns),
           FormatBytes(m.bytes), FormatCount(m.unknown_size_count)});
  }
  if (t.empty()) return "  no memory operations\n";
  return t.Render();
}

std::string KernelRows(const std::vector<KernelDetails>& kernels, int64_t kernel_time_ns,
                       const TextStyle& style) {
  TextTable t;
  t.Column("ms", TextTable::kRight)
      .Column("% of summed kernel time", TextTable::kRight)
      .Column("launches", TextTable::kRight)
      .Column("mean ms", TextTable::kRight)
      .Column("max ms", TextTable::kRight)
      .Column("component", TextTable::kLeft)
      .Column("name", TextTable::kLeft);
  for (const KernelDetails& k : kernels) {
    double percent = kernel_time_ns == 0 ? 0.0
                                         : static_cast<double>(k.total_ns) /
                                               static_cast<double>(kernel_time_ns) * 100.0;
    t.Row({FormatMs(k.total_ns), FormatPercent(percent), FormatCount(k.launches),
           FormatMs(std::llround(k.mean_ns)), FormatMs(k.max_ns),
           DisplayName(k.component, 24, style), DisplayName(k.name, 80, style)});
  }
  return t.Render();
}

std::string LaunchSection(const LaunchPathDetails& l, const TextStyle& style) {
  TextTable t;
  t.Column("launch path", TextTable::kLeft)
      .Column("count", TextTable::kRight)
      .Column("p50 / p90 / p99 / max ms", TextTable::kLeft);
  t.Row({"API call duration", FormatCount(l.api_duration.count), Percentiles(l.api_duration)});
  t.Row({"queue time (API end to kernel start)", FormatCount(l.queue_time.count),
         Percentiles(l.queue_time)});
  std::string out = t.Render();
  out += "  percentiles: " + l.percentile_precision + "\n";
  TextTable apis;
  apis.Column("launch API", TextTable::kLeft).Column("rows", TextTable::kRight);
  for (const ApiCount& a : l.by_api)
    apis.Row({DisplayName(a.api, 60, style), FormatCount(a.count)});
  out += apis.Render();
  out += "  CUDA-graph launches: " + FormatCount(l.graph_launch_calls) + " calls, " +
         FormatCount(l.graph_launched_kernels) + " kernels\n";
  return out;
}

std::string QualitySection(const Details& d, const TextStyle& style) {
  TextTable inputs;
  inputs.Column("input", TextTable::kLeft)
      .Column("kind", TextTable::kLeft)
      .Column("layout", TextTable::kLeft)
      .Column("time unit", TextTable::kLeft)
      .Column("resolution ns", TextTable::kRight)
      .Column("rows", TextTable::kRight);
  for (const InputDetails& i : d.data_quality.inputs) {
    inputs.Row({DisplayName(i.file, 60, style), EscapeForTerminal(i.kind),
                EscapeForTerminal(i.layout), EscapeForTerminal(i.time_unit),
                FormatCount(i.time_resolution_ns), FormatCount(i.rows)});
  }
  const DataQuality& q = d.data_quality;
  TextTable counts;
  counts.Column("", TextTable::kLeft).Column("", TextTable::kRight);
  counts.Row({"memory operations", FormatCount(q.memory_operations)});
  counts.Row({"zero-duration kernels", FormatCount(q.zero_duration_kernels)});
  counts.Row(
      {"kernels overlapping on their stream", FormatCount(q.kernels_overlapping_on_their_stream)});
  counts.Row({"launch rows without a GPU kernel", q.launches_without_gpu_kernel
                                                      ? FormatCount(*q.launches_without_gpu_kernel)
                                                      : std::string("-")});
  counts.Row({"devices", FormatCount(q.devices)});
  counts.Row({"processes", q.processes > 0 ? FormatCount(q.processes) : std::string("-")});
  std::string notes;
  for (const std::string& note : q.notes) notes += "  note: " + EscapeForTerminal(note) + "\n";
  return inputs.Render() + counts.Render() + notes;
}

}  // namespace

std::string DetailsToTable(const Details& d, const TextStyle& style) {
  std::string out;
  out += "Kernel busy time\n" + BusySection(d) + "\n";
  out += "Devices and streams (gaps: idle time between kernels)\n" + DeviceSection(d, style) + "\n";
  out += "Memory operations\n" + MemorySection(d) + "\n";
  out += "Top kernels by time\n" + KernelRows(d.top_kernels, d.kernel_time_ns, style) + "\n";
  const ClassificationCoverage& c = d.coverage;
  out += "Classification coverage: " + FormatPercent(c.classified_percent_of_kernel_time) +
         " % of summed kernel time is outside `other` (" + FormatCount(c.other_names) + " names, " +
         FormatMs(c.other_time_ns) + " ms in `other`)\n";
  if (!c.top_other.empty()) out += KernelRows(c.top_other, d.kernel_time_ns, style);
  out += "\n";
  if (d.launch_path) {
    out += "Launch path\n" + LaunchSection(*d.launch_path, style) + "\n";
  } else {
    out += "Launch path: no launch rows\n\n";
  }
  out += "Data quality\n" + QualitySection(d, style);
  return out;
}

}  // namespace stepstat
