#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "report/overview_cells.h"
#include "report/table.h"
#include "report/text_escape.h"
#include "stepstat/report.h"

namespace stepstat {

namespace {

using Cells = std::vector<std::string>;

// `align` per column: 'l' or 'r'.
std::string Table(const Cells& header, const std::string& align, const std::vector<Cells>& rows) {
  auto line = [](const Cells& cells) {
    std::string out = "|";
    for (const std::string& c : cells) out += " " + c + " |";
    return out + "\n";
  };
  std::string out = line(header) + "|";
  for (char a : align) out += a == 'r' ? " ---: |" : " --- |";
  out += "\n";
  for (const Cells& row : rows) out += line(row);
  return out;
}

std::string Code(std::string_view name) { return EscapeForMarkdown(name); }

std::string Percentiles(const DurationPercentiles& p) {
  return FormatMs(p.p50_ns) + " / " + FormatMs(p.p90_ns) + " / " + FormatMs(p.p99_ns) + " / " +
         FormatMs(p.max_ns);
}

std::string KernelTable(const std::vector<KernelDetails>& kernels) {
  std::vector<Cells> rows;
  rows.reserve(kernels.size());
  for (const KernelDetails& k : kernels) {
    rows.push_back({FormatMs(k.total_ns), FormatCount(k.launches),
                    FormatMs(std::llround(k.mean_ns)), FormatMs(k.max_ns), Code(k.component),
                    Code(k.name)});
  }
  return Table({"ms", "launches", "mean ms", "max ms", "component", "name"}, "rrrrll", rows);
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

std::string DetailsMarkdown(const Details& d) {
  std::string out;
  out += "\n### Kernel busy time\n\n";
  out += Table({"", "ms", "% of span"}, "lrr",
               {{"union of kernel intervals", FormatMs(d.kernel_union_ns),
                 FormatPercent(d.kernel_union_percent_of_span)},
                {"sum of kernel durations", FormatMs(d.kernel_time_ns),
                 FormatPercent(d.span_ns == 0 ? 0.0
                                              : static_cast<double>(d.kernel_time_ns) /
                                                    static_cast<double>(d.span_ns) * 100.0)},
                {"span", FormatMs(d.span_ns), "100.0"}});

  out += "\n### Devices and streams\n\n";
  std::vector<Cells> rows;
  for (const DeviceDetails& dev : d.devices) {
    rows.push_back({Code(dev.device), FormatCount(dev.kernel_count), FormatMs(dev.kernel_time_ns),
                    FormatMs(dev.kernel_union_ns), FormatCount(dev.gaps.count),
                    FormatMs(dev.gaps.total_ns), ""});
    for (const StreamDetails& s : dev.streams) {
      rows.push_back({StreamLabel(dev, s), FormatCount(s.kernel_count), FormatMs(s.kernel_time_ns),
                      FormatMs(s.kernel_union_ns), FormatCount(s.gaps.count),
                      FormatMs(s.gaps.total_ns), FormatCount(s.overlapping_kernels)});
    }
  }
  out += Table(
      {"device / stream", "kernels", "sum ms", "union ms", "gaps", "gap ms", "overlapping kernels"},
      "lrrrrrr", rows);

  if (!d.memory_operations.empty()) {
    out += "\n### Memory operations\n\n";
    rows.clear();
    for (const MemoryOpDetails& m : d.memory_operations) {
      rows.push_back({Code(m.kind), FormatCount(m.count), FormatMs(m.time_ns), FormatBytes(m.bytes),
                      FormatCount(m.unknown_size_count)});
    }
    out += Table({"kind", "count", "ms", "bytes", "size unknown"}, "lrrrr", rows);
  }

  out += "\n### Top kernels by time\n\n" + KernelTable(d.top_kernels);
  const ClassificationCoverage& c = d.coverage;
  out += "\n### Classification coverage\n\n" + FormatPercent(c.classified_percent_of_kernel_time) +
         " % of summed kernel time is outside `other`; " + FormatCount(c.other_names) +
         " names and " + FormatMs(c.other_time_ns) + " ms are in `other`.\n";
  if (!c.top_other.empty()) out += "\n" + KernelTable(c.top_other);

  if (d.launch_path) {
    const LaunchPathDetails& l = *d.launch_path;
    out += "\n### Launch path\n\n";
    out += Table(
        {"", "count", "p50 / p90 / p99 / max ms"}, "lrl",
        {{"API call duration", FormatCount(l.api_duration.count), Percentiles(l.api_duration)},
         {"queue time", FormatCount(l.queue_time.count), Percentiles(l.queue_time)}});
    out += "\nPercentiles: " + l.percentile_precision +
           ". CUDA-graph launches: " + FormatCount(l.graph_launch_calls) + " calls, " +
           FormatCount(l.graph_launched_kernels) + " kernels.\n\n";
    rows.clear();
    for (const ApiCount& a : l.by_api) rows.push_back({Code(a.api), FormatCount(a.count)});
    out += Table({"launch API", "rows"}, "lr", rows);
  }

  const DataQuality& q = d.data_quality;
  out += "\n### Data quality\n\n";
  rows.clear();
  for (const InputDetails& i : q.inputs) {
    rows.push_back({Code(i.file), Code(i.kind), Code(i.layout), Code(i.time_unit),
                    FormatCount(i.time_resolution_ns), FormatCount(i.rows)});
  }
  out += Table({"input", "kind", "layout", "time unit", "resolution ns", "rows"}, "llllrr", rows);
  out += "\n" + Table({"check", "count"}, "lr",
                      {{"memory operations", FormatCount(q.memory_operations)},
                       {"zero-duration kernels", FormatCount(q.zero_duration_kernels)},
                       {"kernels overlapping on their stream",
                        FormatCount(q.kernels_overlapping_on_their_stream)},
                       {"launch rows without a GPU kernel",
                        q.launches_without_gpu_kernel ? FormatCount(*q.launches_without_gpu_kernel)
                                                      : std::string("n/a")},
                       {"devices", FormatCount(q.devices)},
                       {"processes", q.processes > 0 ? FormatCount(q.processes) : "n/a"}});
  for (const std::string& note : q.notes) out += "\n> " + Code(note) + "\n";
  return out;
}

}  // namespace

std::string StepStatsToMarkdown(const StepStats& s, const Details* details,
                                std::optional<double> union_busy_percent) {
  std::string out = "### Step summary: " + Code(s.source_gpu_trace) + "\n\n";
  // Its lines and their figures: the registry's (stepstat/metrics.h).
  std::vector<Cells> rows;
  for (std::array<std::string, 3>& row :
       OverviewRows(kSummaryMarkdownOverview, s, union_busy_percent)) {
    rows.push_back({std::move(row[0]), std::move(row[1])});
  }
  out += Table({"metric", "value"}, "lr", rows);

  out += "\n### Components\n\n";
  rows.clear();
  std::vector<int64_t> times;
  for (const ComponentStats& c : s.components) times.push_back(c.time_ns);
  std::vector<std::string> ms = FormatMsColumn(times);
  for (size_t i = 0; i < s.components.size(); ++i) {
    const ComponentStats& c = s.components[i];
    rows.push_back({Code(c.name), ms[i], FormatPercent(c.percent_of_kernel_time),
                    FormatCount(c.launches), Code(c.description)});
  }
  out += Table({"component", "ms", "% of summed kernel time", "launches", "description"}, "lrrrl",
               rows);
  if (details != nullptr) out += DetailsMarkdown(*details);
  return out;
}

}  // namespace stepstat
