// The GPU and CPU sides: busy time per stream and device, the launch path, the kernels that
// take the time (and those the policy leaves in `other`), then the definitions and the
// command line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "report/html/html_escape.h"
#include "report/html/page_parts.h"
#include "report/html/svg_charts.h"
#include "report/table.h"

namespace stepstat::html {

namespace {

std::string StreamName(const DeviceDetails& device, const StreamDetails& stream) {
  return device.device + " stream " + (stream.stream < 0 ? "?" : std::to_string(stream.stream));
}

const KernelSpread* SpreadOf(const PageData& data, const std::string& name) {
  if (data.kernel_spreads == nullptr) return nullptr;
  for (const KernelSpread& spread : *data.kernel_spreads) {
    if (spread.name == name) return &spread;
  }
  return nullptr;
}

// Nsight's cuda_gpu_kern_sum columns (in ms rather than ns), plus the component. The unit
// sits in the headers, as Nsight's does: ten columns leave the names room only without it.
HtmlTable KernelTable(const PageData& data, const std::vector<KernelDetails>& kernels,
                      int64_t kernel_time_ns) {
  auto ms = [](double ns) { return FormatMs(static_cast<int64_t>(std::llround(ns))); };
  HtmlTable table;
  table.Column("Time (%)").Column("Total Time (ms)").Column("Instances").Column("Avg (ms)");
  table.Column("Med (ms)").Column("Min (ms)").Column("Max (ms)").Column("StdDev (ms)");
  table.Column("component", HtmlTable::kText).Column("Name", HtmlTable::kText);
  for (const KernelDetails& kernel : kernels) {
    const KernelSpread* spread = SpreadOf(data, kernel.name);
    table.Row({FormatPercent(PercentOf(static_cast<double>(kernel.total_ns),
                                       static_cast<double>(kernel_time_ns))),
               FormatMs(kernel.total_ns), FormatCount(kernel.launches), ms(kernel.mean_ns),
               spread ? ms(spread->median_ns) : "", spread ? FormatMs(spread->min_ns) : "",
               FormatMs(kernel.max_ns), spread ? ms(spread->stddev_ns) : "",
               EscapeHtml(kernel.component), NameCell(kernel.name)});
  }
  return table;
}

std::string PercentilesRows(const DurationPercentiles& percentiles, std::vector<BarRow>* rows,
                            std::string_view what) {
  const double top = static_cast<double>(std::max<int64_t>(1, percentiles.max_ns));
  const std::pair<std::string_view, int64_t> points[] = {{"p50", percentiles.p50_ns},
                                                         {"p90", percentiles.p90_ns},
                                                         {"p99", percentiles.p99_ns},
                                                         {"max", percentiles.max_ns}};
  std::string desc;
  for (const auto& [name, ns] : points) {
    rows->push_back({std::string(what) + " " + std::string(name), Ms(ns),
                     static_cast<double>(ns) / top, "bar"});
    desc += std::string(name) + " " + Ms(ns) + "; ";
  }
  return desc;
}

// A duration for a bin edge: ns, µs or ms with three significant digits at most.
std::string EdgeText(int64_t ns) {
  char buffer[32];
  if (ns < 1000) return std::to_string(ns) + " ns";
  const bool micro = ns < 1'000'000;
  const double value = static_cast<double>(ns) / (micro ? 1e3 : 1e6);
  std::snprintf(buffer, sizeof buffer, value < 10 ? "%.2f" : value < 100 ? "%.1f" : "%.0f", value);
  return std::string(buffer) + (micro ? " µs" : " ms");
}

// The queue latencies in powers of two (exact counts from the details pass's fixed
// histogram), the bins holding the median and p90 marked.
std::string QueueHistogram(const LaunchPathDetails& launch) {
  const std::vector<int64_t>& counts = launch.queue_time_log2_counts;
  size_t first = 0;
  while (first < counts.size() && counts[first] == 0) ++first;
  if (first == counts.size()) return "";
  const int64_t total = launch.queue_time.count;
  const int64_t tallest = *std::max_element(counts.begin(), counts.end());
  auto low_of = [](size_t bin) { return bin == 0 ? int64_t{0} : int64_t{1} << (bin - 1); };
  auto holds = [&](size_t bin, int64_t value) {
    return value >= low_of(bin) && (bin == 0 ? value == 0 : value < (int64_t{1} << bin));
  };
  std::vector<BarRow> rows;
  HtmlTable table;
  table.Column("queue latency", HtmlTable::kText).Column("launches").Column("share");
  table.Column("share up to here").Column("holds", HtmlTable::kText);
  int64_t cumulative = 0;
  for (size_t bin = first; bin < counts.size(); ++bin) {
    const std::string range =
        bin == 0 ? "0 ns" : EdgeText(low_of(bin)) + " to " + EdgeText((int64_t{1} << bin) - 1);
    std::string marks;
    if (holds(bin, launch.queue_time.p50_ns)) marks = "median";
    if (holds(bin, launch.queue_time.p90_ns)) marks += marks.empty() ? "p90" : ", p90";
    cumulative += counts[bin];
    const double share = PercentOf(static_cast<double>(counts[bin]), static_cast<double>(total));
    std::string label = range;
    if (!marks.empty()) label += " (" + marks + ")";
    rows.push_back({std::move(label), FormatCount(counts[bin]) + " (" + Percent(share) + ")",
                    static_cast<double>(counts[bin]) / static_cast<double>(tallest),
                    marks.empty() ? "bar" : "mark-bin"});
    table.Row({EscapeHtml(range), FormatCount(counts[bin]), Percent(share),
               Percent(PercentOf(static_cast<double>(cumulative), static_cast<double>(total))),
               EscapeHtml(marks)});
  }
  const std::string desc = FormatCount(total) + " launches; median " +
                           Ms(launch.queue_time.p50_ns) + ", p90 " + Ms(launch.queue_time.p90_ns) +
                           ", max " + Ms(launch.queue_time.max_ns);
  const std::string svg =
      BarRowsSvg({"launch-queue-histogram", "Queue latency histogram", desc}, rows);
  const std::string caption =
      "Every joined launch's queue latency (its launch call's end to its kernel's start) in "
      "bins that double in width; each bar is the bin's launches as a share of the fullest "
      "bin, the text their share of all " +
      FormatCount(total) + " launches. The bins holding the median (" +
      Ms(launch.queue_time.p50_ns) + ") and p90 (" + Ms(launch.queue_time.p90_ns) +
      ") are dark and named. The counts are exact; the percentiles come from the finer "
      "histogram above.";
  return "<h3>Queue latency histogram</h3>\n" + Figure(svg, EscapeHtml(caption), table.Render());
}

}  // namespace

std::string StreamsSection(const PageData& data) {
  const Details& details = data.details;
  std::vector<BarRow> rows;
  HtmlTable table;
  table.Column("device / stream", HtmlTable::kText).Column("kernels").Column("kernel time (sum)");
  table.Column("busy (union)")
      .Column("busy % of span (union)")
      .Column("gaps")
      .Column("idle in gaps");
  table.Column("overlapping kernels");
  std::string desc;
  for (const DeviceDetails& device : details.devices) {
    table.Row({"<strong>" + EscapeHtml(device.device) + "</strong> (all streams)",
               FormatCount(device.kernel_count), Ms(device.kernel_time_ns),
               Ms(device.kernel_union_ns), Percent(device.kernel_union_percent_of_span),
               FormatCount(device.gaps.count), Ms(device.gaps.total_ns), ""});
    desc += device.device + ": busy " + Percent(device.kernel_union_percent_of_span) +
            " of the span (union); ";
    for (const StreamDetails& stream : device.streams) {
      const double share = PercentOf(static_cast<double>(stream.kernel_union_ns),
                                     static_cast<double>(details.span_ns));
      rows.push_back({StreamName(device, stream), Percent(share), share / 100.0, "bar"});
      table.Row({EscapeHtml(StreamName(device, stream)), FormatCount(stream.kernel_count),
                 Ms(stream.kernel_time_ns), Ms(stream.kernel_union_ns), Percent(share),
                 FormatCount(stream.gaps.count), Ms(stream.gaps.total_ns),
                 FormatCount(stream.overlapping_kernels)});
    }
  }
  const std::string svg =
      BarRowsSvg({"streams-busy", "Busy time per stream, as a share of the span", desc}, rows);
  const std::string caption =
      "Each bar: the union of one stream's kernels over the whole run's GPU span (" +
      Ms(details.span_ns) +
      "). The table gives the summed kernel time beside the union: a sum over concurrent "
      "kernels can pass the union.";
  return Section("streams", "Streams and devices",
                 Figure(svg, EscapeHtml(caption), table.Render()));
}

std::string LaunchSection(const PageData& data) {
  if (!data.details.launch_path) {
    return Section("launch-path", "Launch path",
                   "<p class=\"note\">No launch trace among the inputs: the CPU side is "
                   "unknown.</p>\n");
  }
  const LaunchPathDetails& launch = *data.details.launch_path;
  std::vector<BarRow> rows;
  std::string desc = "queue latency: " + PercentilesRows(launch.queue_time, &rows, "queue");
  HtmlTable table;
  table.Column("what", HtmlTable::kText).Column("count").Column("p50").Column("p90");
  table.Column("p99").Column("max");
  const std::pair<std::string_view, const DurationPercentiles*> measures[] = {
      {"queue latency (launch call end to kernel start)", &launch.queue_time},
      {"launch API call duration", &launch.api_duration}};
  for (const auto& [what, p] : measures) {
    table.Row({EscapeHtml(what), FormatCount(p->count), Ms(p->p50_ns), Ms(p->p90_ns), Ms(p->p99_ns),
               Ms(p->max_ns)});
  }
  const std::string svg = BarRowsSvg({"launch-queue", "Queue latency percentiles", desc}, rows);
  const std::string caption =
      "Time from the end of each kernel's launch call to the kernel's start, as percentiles of " +
      FormatCount(launch.queue_time.count) + " launches, each bar a share of the maximum (" +
      Ms(launch.queue_time.max_ns) + "). Percentiles come from a log-linear histogram (" +
      launch.percentile_precision + "); the maximum is exact.";
  HtmlTable apis;
  apis.Column("launch API", HtmlTable::kText).Column("calls");
  for (const ApiCount& api : launch.by_api) apis.Row({EscapeHtml(api.api), FormatCount(api.count)});
  std::string graphs;
  if (launch.graph_launch_calls > 0) {
    graphs = "<p class=\"note\">" + FormatCount(launch.graph_launch_calls) +
             " CUDA-graph launches started " + FormatCount(launch.graph_launched_kernels) +
             " kernels.</p>\n";
  }
  return Section("launch-path", "Launch path",
                 Figure(svg, EscapeHtml(caption), table.Render()) + apis.Render() + graphs +
                     QueueHistogram(launch));
}

std::string KernelsSection(const PageData& data) {
  const Details& details = data.details;
  const ClassificationCoverage& coverage = details.coverage;
  std::string body =
      "<p class=\"note\">The " + std::to_string(details.top_kernels.size()) +
      " kernels with the most time, in the columns of Nsight's cuda_gpu_kern_sum (times in "
      "ms; Med the middle launch, or the mean of the two middle ones; StdDev the sample "
      "standard deviation, as nsys prints them) plus the component. Time (%) is of the "
      "summed kernel time, " +
      EscapeHtml(Ms(details.kernel_time_ns)) + ".</p>\n" +
      KernelTable(data, details.top_kernels, details.kernel_time_ns).Render();
  body += "<h3>Top unclassified kernels</h3>\n<p class=\"note\">" +
          EscapeHtml(FormatCount(coverage.other_names) + " distinct names, " +
                     Ms(coverage.other_time_ns) + " (" +
                     Percent(100.0 - coverage.classified_percent_of_kernel_time) +
                     " of the kernel time), fall into `other`: add patterns for these to the "
                     "policy.") +
          "</p>\n";
  if (!coverage.top_other.empty()) {
    body += KernelTable(data, coverage.top_other, details.kernel_time_ns).Render();
  }
  return Section("top-kernels", "Top kernels", body);
}

std::string DefinitionsSection(const PageData& data) {
  static constexpr std::pair<std::string_view, std::string_view> kTerms[] = {
      {"span", "first GPU operation start to last GPU operation end"},
      {"kernel time (sum)", "the kernels' durations added up; concurrent kernels count twice"},
      {"busy (union)",
       "the length of the union of the kernels' intervals: time when at least "
       "one kernel ran"},
      {"idle", "span minus busy (union): time when no kernel ran"},
      {"gap", "a stretch between kernels with no kernel running"},
      {"launch overlap",
       "the share of the time spent in CUDA kernel-launch API calls during "
       "which a kernel ran on the GPU"},
      {"component",
       "the first policy component whose pattern matches the kernel name; "
       "unmatched kernels are `other`"},
      {"warm-up",
       "leading steps whose span differs from the median by more than the warm-up "
       "tolerance (at most half the steps)"},
      {"steady steps",
       "the steps that are neither warm-up nor partial; medians and p90 are "
       "over these"},
      {"median step", "the steady step whose span is closest to the median span"},
      {"p90", "the 90th percentile, interpolated linearly between steps (numpy's default)"},
      {"queue latency", "from the end of a kernel's launch call to the kernel's start"},
  };
  std::string body = "<dl class=\"facts\">\n";
  for (const auto& [term, meaning] : kTerms) {
    body += "<dt>" + EscapeHtml(term) + "</dt><dd>" + EscapeHtml(meaning) + "</dd>\n";
  }
  body += "</dl>\n<h3>How this page was made</h3>\n<pre><code>" + EscapeHtml(data.command_line) +
          "</code></pre>\n<p class=\"note\">The summary below the page (the JSON block with id "
          "stepstat-summary) is what <code>stepstat summarize --details --format json</code> "
          "prints for the same inputs and policy.</p>\n";
  return Section("definitions", "Definitions", body);
}

}  // namespace stepstat::html
