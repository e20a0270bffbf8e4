// The `--details` sections of the text table.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/table.h"
#include "report/text_escape.h"

namespace stepstat {

namespace {

std::string Percentiles(const DurationPercentiles& p) {
  return FormatMs(p.p50_ns) + " / " + FormatMs(p.p90_ns) + " / " + FormatMs(p.p99_ns) + " / " +
         FormatMs(p.max_ns);
}

// A line of prose under a table: wrapped to the width, continuation lines indented.
std::string Note(const std::string& text, const TextStyle& style) {
  return WrapText(text, style.width, 4) + "\n";
}

std::string BusySection(const Details& d) {
  TextTable t;
  t.Column("kernel busy time", TextTable::kLeft)
      .Column("ms", TextTable::kRight)
      .Column("% of span", TextTable::kRight);
  std::vector<std::string> ms = FormatMsColumn({d.kernel_time_ns, d.kernel_union_ns, d.span_ns});
  t.Row({"sum of kernel durations", ms[0],
         FormatPercent(d.span_ns == 0 ? 0.0
                                      : static_cast<double>(d.kernel_time_ns) /
                                            static_cast<double>(d.span_ns) * 100.0)});
  t.Row({"union (GPU busy with any kernel)", ms[1], FormatPercent(d.kernel_union_percent_of_span)});
  t.Row({"span", ms[2], "100.0"});
  return t.Render();
}

// Columns of a table built row by row whose ms cells are formatted per column at the end.
struct MsColumns {
  std::vector<std::vector<int64_t>> ns;  ///< [ms column][row]
  std::vector<std::vector<std::string>> Format() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& column : ns) out.push_back(FormatMsColumn(column));
    return out;
  }
};

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
  t.Column("device / stream", TextTable::kLeft, ColumnFit{0, 24})
      .Column("kernels", TextTable::kRight)
      .Column("sum ms", TextTable::kRight)
      .Column("union ms", TextTable::kRight)
      .Column("gaps", TextTable::kRight, ColumnFit{3, 0})
      .Column("gap ms", TextTable::kRight)
      .Column("max gap ms", TextTable::kRight, ColumnFit{2, 0})
      .Column("overlapping", TextTable::kRight, ColumnFit{1, 0});
  // Rows first with their ms cells left blank, then each ms column at one precision.
  std::vector<std::vector<std::string>> rows;
  MsColumns ms{std::vector<std::vector<int64_t>>(4)};
  auto add = [&](std::vector<std::string> row, std::initializer_list<int64_t> times) {
    size_t i = 0;
    for (int64_t v : times) ms.ns[i++].push_back(v);
    rows.push_back(std::move(row));
  };
  std::string notes;
  for (const DeviceDetails& dev : d.devices) {
    add({DisplayName(dev.device, 40, style), FormatCount(dev.kernel_count), "", "",
         FormatCount(dev.gaps.count), "", "", ""},
        {dev.kernel_time_ns, dev.kernel_union_ns, dev.gaps.total_ns, dev.gaps.maximum_ns});
    for (const StreamDetails& s : dev.streams) {
      add({"  " + StreamLabel(dev, s), FormatCount(s.kernel_count), "", "",
           FormatCount(s.gaps.count), "", "", FormatCount(s.overlapping_kernels)},
          {s.kernel_time_ns, s.kernel_union_ns, s.gaps.total_ns, s.gaps.maximum_ns});
    }
    notes += Note("  " + DisplayName(dev.device, 40, style) + ": kernels busy " +
                      FormatPercent(dev.kernel_union_percent_of_span) + " % of span; idle " +
                      FormatMs(dev.idle_before_first_kernel_ns) + " ms before the first kernel, " +
                      FormatMs(dev.idle_after_last_kernel_ns) + " ms after the last",
                  style);
  }
  std::vector<std::vector<std::string>> cells = ms.Format();
  for (size_t r = 0; r < rows.size(); ++r) {
    rows[r][2] = cells[0][r];
    rows[r][3] = cells[1][r];
    rows[r][5] = cells[2][r];
    rows[r][6] = cells[3][r];
    t.Row(std::move(rows[r]));
  }
  return t.Render(2, style) + notes;
}

std::string MemorySection(const Details& d) {
  TextTable t;
  t.Column("memory operation", TextTable::kLeft)
      .Column("count", TextTable::kRight)
      .Column("ms", TextTable::kRight)
      .Column("bytes", TextTable::kRight)
      .Column("size unknown", TextTable::kRight);
  std::vector<int64_t> times;
  for (const MemoryOpDetails& m : d.memory_operations) times.push_back(m.time_ns);
  std::vector<std::string> ms = FormatMsColumn(times);
  for (size_t i = 0; i < d.memory_operations.size(); ++i) {
    const MemoryOpDetails& m = d.memory_operations[i];
    t.Row({EscapeForTerminal(m.kind), FormatCount(m.count), ms[i], FormatBytes(m.bytes),
           FormatCount(m.unknown_size_count)});
  }
  if (t.empty()) return "  no memory operations\n";
  return t.Render();
}

std::string KernelRows(const std::vector<KernelDetails>& kernels, int64_t kernel_time_ns,
                       const TextStyle& style) {
  TextTable t;
  t.Column("ms", TextTable::kRight)
      .Column("% of summed kernel time", TextTable::kRight, ColumnFit{1, 0})
      .Column("launches", TextTable::kRight)
      .Column("mean ms", TextTable::kRight, ColumnFit{3, 0})
      .Column("max ms", TextTable::kRight, ColumnFit{2, 0})
      .Column("component", TextTable::kLeft)
      .Column("name", TextTable::kLeft, ColumnFit{0, 30});
  MsColumns ms{std::vector<std::vector<int64_t>>(3)};
  for (const KernelDetails& k : kernels) {
    ms.ns[0].push_back(k.total_ns);
    ms.ns[1].push_back(std::llround(k.mean_ns));
    ms.ns[2].push_back(k.max_ns);
  }
  std::vector<std::vector<std::string>> cells = ms.Format();
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelDetails& k = kernels[i];
    double percent = kernel_time_ns == 0 ? 0.0
                                         : static_cast<double>(k.total_ns) /
                                               static_cast<double>(kernel_time_ns) * 100.0;
    // Without a width the name is cut at 80 columns; with one the table elides it to fit.
    std::string name =
        style.width == 0 ? DisplayName(k.name, 80, style) : EscapeForTerminal(k.name);
    t.Row({cells[0][i], FormatPercent(percent), FormatCount(k.launches), cells[1][i], cells[2][i],
           DisplayName(k.component, 24, style), std::move(name)});
  }
  return t.Render(2, style);
}

std::string LaunchSection(const LaunchPathDetails& l, const TextStyle& style) {
  TextTable t;
  t.Column("launch path", TextTable::kLeft)
      .Column("count", TextTable::kRight)
      .Column("p50 / p90 / p99 / max ms", TextTable::kLeft);
  t.Row({"API call duration", FormatCount(l.api_duration.count), Percentiles(l.api_duration)});
  t.Row({"queue time", FormatCount(l.queue_time.count), Percentiles(l.queue_time)});
  std::string out = t.Render();
  out += Note("  queue time: from the launch call's end to its kernel's start; percentiles: " +
                  l.percentile_precision,
              style);
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
  inputs.Column("input", TextTable::kLeft, ColumnFit{0, 30})
      .Column("kind", TextTable::kLeft)
      .Column("layout", TextTable::kLeft, ColumnFit{2, 0})
      .Column("time unit", TextTable::kLeft, ColumnFit{1, 0})
      .Column("resolution ns", TextTable::kRight, ColumnFit{3, 0})
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
  return inputs.Render(2, style) + counts.Render() + notes;
}

}  // namespace

std::string DetailsToTable(const Details& d, const TextStyle& style) {
  std::string out;
  out += "Kernel busy time\n" + BusySection(d) + "\n";
  out += "Devices and streams (gaps: idle time between kernels)\n" + DeviceSection(d, style) + "\n";
  out += "Memory operations\n" + MemorySection(d) + "\n";
  out += "Top kernels by time\n" + KernelRows(d.top_kernels, d.kernel_time_ns, style) + "\n";
  const ClassificationCoverage& c = d.coverage;
  out += Note("Classification coverage: " + FormatPercent(c.classified_percent_of_kernel_time) +
                  " % of summed kernel time is outside `other` (" + FormatCount(c.other_names) +
                  " names, " + FormatMs(c.other_time_ns) + " ms in `other`)",
              style);
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
