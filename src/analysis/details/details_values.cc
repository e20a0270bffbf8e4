#include "analysis/details/details_values.h"

#include <algorithm>

#include "analysis/details/data_notes.h"
#include "core/true_divide.h"

namespace stepstat {

InputDetails InputDetailsOf(const TraceInput& input, const ReadReport& report) {
  return {input.display_name, std::string(InputKindName(report.kind)),
          report.layout,      report.time_unit,
          report.rows,        report.time_resolution_ns};
}

namespace {

double Percent(int64_t a, int64_t b) { return b == 0 ? 0.0 : TrueDivide(a, b) * 100.0; }

DurationPercentiles PercentilesOf(const DurationHistogram& h) {
  DurationPercentiles p;
  p.count = h.count();
  p.p50_ns = h.Percentile(0.50);
  p.p90_ns = h.Percentile(0.90);
  p.p99_ns = h.Percentile(0.99);
  p.max_ns = h.max();
  return p;
}

std::vector<DeviceDetails> DevicesOf(const DetailsTotals& t, int64_t span_ns) {
  std::vector<DeviceDetails> devices;
  for (size_t i = 0; i < t.devices.size(); ++i) {
    const DeviceTotals& d = t.devices[i];
    DeviceDetails out;
    out.device = d.name;
    out.kernel_count = d.kernel_count;
    out.kernel_time_ns = d.kernel_time_ns;
    out.kernel_union_ns = d.union_ns;
    out.kernel_union_percent_of_span = Percent(d.union_ns, span_ns);
    out.gaps = {d.gaps.count(), d.gaps.total(), d.gaps.maximum()};
    if (d.kernel_count > 0) {
      out.idle_before_first_kernel_ns = d.first_kernel_start_ns - t.first_start_ns;
      out.idle_after_last_kernel_ns = t.last_end_ns - d.last_kernel_end_ns;
    }
    for (const StreamTotals& s : t.streams) {
      if (s.device == i) out.streams.push_back(s.stats);
    }
    std::sort(out.streams.begin(), out.streams.end(),
              [](const StreamDetails& a, const StreamDetails& b) {
                return a.process != b.process ? a.process < b.process : a.stream < b.stream;
              });
    devices.push_back(std::move(out));
  }
  std::sort(devices.begin(), devices.end(),
            [](const DeviceDetails& a, const DeviceDetails& b) { return a.device < b.device; });
  return devices;
}

LaunchPathDetails LaunchPathOf(const DetailsTotals& t) {
  LaunchPathDetails l;
  l.launch_rows = t.launch_rows;
  l.percentile_precision = DurationHistogram::kPrecision;
  l.api_duration = PercentilesOf(t.api_duration);
  l.queue_time = PercentilesOf(t.queue_time);
  l.queue_time_log2_counts = t.queue_time.Log2Counts();
  l.by_api = t.by_api;
  std::sort(l.by_api.begin(), l.by_api.end(), [](const ApiCount& a, const ApiCount& b) {
    return a.count != b.count ? a.count > b.count : a.api < b.api;
  });
  l.graph_launch_calls = t.graph_launch_calls;
  l.graph_launched_kernels = t.graph_launched_kernels;
  return l;
}

}  // namespace

int64_t CountUnmatchedLaunches(std::vector<KernelKey> kernels, std::vector<KernelKey> launches) {
  std::sort(kernels.begin(), kernels.end());
  std::sort(launches.begin(), launches.end());
  int64_t unmatched = 0;
  size_t k = 0;
  for (const KernelKey& launch : launches) {
    while (k < kernels.size() && kernels[k] < launch) ++k;
    if (k < kernels.size() && kernels[k] == launch) {
      ++k;  // each GPU kernel answers one launch row
    } else {
      ++unmatched;
    }
  }
  return unmatched;
}

std::vector<KernelDetails> KernelsByTime(const std::vector<NameTotals>& names, const Policy& policy,
                                         const Classifier& classifier) {
  std::vector<KernelDetails> kernels;
  kernels.reserve(names.size());
  for (const NameTotals& n : names) {
    KernelDetails k;
    k.name = n.name;
    auto component = static_cast<size_t>(classifier.Classify(n.name));
    k.component = component < policy.components.size() ? policy.components[component].name
                                                       : std::string("other");
    k.launches = n.launches;
    k.total_ns = n.total_ns;
    k.mean_ns = n.launches == 0 ? 0.0 : TrueDivide(n.total_ns, n.launches);
    k.max_ns = n.max_ns;
    kernels.push_back(std::move(k));
  }
  std::sort(kernels.begin(), kernels.end(), [](const KernelDetails& a, const KernelDetails& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return kernels;
}

Details MakeDetails(const DetailsTotals& gpu, const DetailsTotals* launches,
                    const LaunchKeyMatcher* matcher, const Policy& policy,
                    const Classifier& classifier, std::vector<InputDetails> inputs) {
  Details d;
  d.span_ns = gpu.operation_count == 0 ? 0 : gpu.last_end_ns - gpu.first_start_ns;
  d.kernel_time_ns = gpu.kernel_time_ns;
  d.kernel_union_ns = gpu.kernel_union_ns;
  d.kernel_union_percent_of_span = Percent(gpu.kernel_union_ns, d.span_ns);
  d.devices = DevicesOf(gpu, d.span_ns);
  for (const auto& [kind, stats] : gpu.memory) d.memory_operations.push_back(stats);

  std::vector<KernelDetails> kernels = KernelsByTime(gpu.names, policy, classifier);
  ClassificationCoverage& c = d.coverage;
  for (const KernelDetails& k : kernels) {
    if (k.component != "other") continue;
    c.other_time_ns += k.total_ns;
    ++c.other_names;
    if (c.top_other.size() < kTopOtherNames) c.top_other.push_back(k);
  }
  c.classified_time_ns = gpu.kernel_time_ns - c.other_time_ns;
  c.classified_percent_of_kernel_time = Percent(c.classified_time_ns, gpu.kernel_time_ns);
  if (kernels.size() > kTopKernels) kernels.resize(kTopKernels);
  d.top_kernels = std::move(kernels);

  const DetailsTotals& launch_side = launches != nullptr ? *launches : gpu;
  if (launch_side.launch_rows > 0) d.launch_path = LaunchPathOf(launch_side);

  DataQuality& q = d.data_quality;
  q.inputs = std::move(inputs);
  q.memory_operations = gpu.memory_operation_count;
  q.zero_duration_kernels = gpu.zero_duration_kernels;
  for (const StreamTotals& s : gpu.streams) {
    q.kernels_overlapping_on_their_stream += s.stats.overlapping_kernels;
  }
  if (matcher != nullptr && matcher->launches() > 0) {
    q.launches_without_gpu_kernel = matcher->unmatched();
  }
  q.devices = static_cast<int64_t>(gpu.devices.size());
  q.processes = static_cast<int64_t>(gpu.processes.size());
  if (!q.inputs.empty()) {
    std::string several = SeveralDevicesNote(q.inputs.front().file, q.devices, q.processes);
    if (!several.empty()) q.notes.push_back(std::move(several));
  }
  for (const InputDetails& input : q.inputs) {
    // Round digits in a file that declares ns are a fixture's or a GPU clock's tick.
    if (input.time_resolution_ns > 1 && input.time_unit != "ns") {
      q.notes.push_back(CoarseTimeNote(input.file, input.time_resolution_ns));
    }
  }
  return d;
}

}  // namespace stepstat
