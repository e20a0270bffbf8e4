// The small public pieces of steps.h: names, one step's summary, --step.
#include <charconv>
#include <cstdio>

#include "analysis/summary/summary_values.h"
#include "stepstat/steps.h"

namespace stepstat {

std::string_view StepSourceKindName(StepSourceKind kind) {
  switch (kind) {
    case StepSourceKind::kRanges: return "nvtx_ranges";
    case StepSourceKind::kProfilerStep: return "profiler_step";
    case StepSourceKind::kPeriodDetector: return "kernel_period";
  }
  return "unknown";
}

std::string_view StepAttributionName(StepAttribution attribution) {
  switch (attribution) {
    case StepAttribution::kLaunchCorrelation: return "launch_correlation_id";
    case StepAttribution::kLaunchKernelStart: return "launch_kernel_start";
    case StepAttribution::kGpuTimeWindow: return "gpu_time_window";
  }
  return "unknown";
}

std::vector<std::string_view> StepFlagNames(uint32_t flags) {
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {kStepNoGpuWork, "no_gpu_work"},
      {kStepDominantKernel, "dominant_kernel"},
      {kStepSlow, "slow"},
      {kStepPartial, "partial"},
  };
  std::vector<std::string_view> names;
  for (auto [bit, name] : kNames) {
    if (flags & bit) names.push_back(name);
  }
  return names;
}

StepStats StepStatsOf(const StepsReport& report, const StepRecord& step, const Policy& policy) {
  const StepTotals& t = step.totals;
  GpuTotals gpu;
  gpu.operation_count = t.operation_count;
  gpu.kernel_count = t.kernel_count;
  gpu.kernel_time_ns = t.kernel_time_ns;
  gpu.first_start_ns = t.first_start_ns;
  gpu.last_end_ns = t.last_end_ns;
  gpu.gap_count = t.gap_count;
  gpu.gap_total_ns = t.gap_total_ns;
  gpu.gap_max_ns = t.gap_max_ns;
  gpu.component_time_ns = t.component_time_ns;
  gpu.component_launches = t.component_launches;
  std::optional<LaunchOverlapTotals> overlap;
  if (report.launch_trace) overlap = LaunchOverlapTotals{t.launch_union_ns, t.launch_overlap_ns};
  return MakeStepStats(policy, gpu, overlap, {report.gpu_trace, report.launch_trace});
}

Result<size_t> ChooseStep(const StepsReport& report, std::string_view which) {
  if (report.steps.empty()) return Status::Error("--step: the trace has no steps");
  if (which == "median") {
    if (report.median_step < 0) return Status::Error("--step median: no steady-state step");
    return static_cast<size_t>(report.median_step);
  }
  size_t index = 0;
  auto [end, error] = std::from_chars(which.data(), which.data() + which.size(), index);
  if (error != std::errc() || end != which.data() + which.size() || index >= report.steps.size()) {
    return Status::Error("--step: expected 'median' or a step index from 0 to " +
                         std::to_string(report.steps.size() - 1) + ", got '" + std::string(which) +
                         "'");
  }
  return index;
}

std::string DescribeChosenStep(const ChosenStep& step) {
  const std::string_view kind = StepSourceKindName(step.source);
  const std::string from = step.source == StepSourceKind::kPeriodDetector
                               ? "the " + std::string(kind) + " detector"
                               : std::string(kind) + " annotations";
  return "step " + std::to_string(step.index) + " (" + step.name + ", from " + from + ")";
}

std::optional<std::string> UnlaunchedWarning(const StepsReport& report) {
  const UnlaunchedOps& u = report.residue.unlaunched;
  if (u.operation_count == 0) return std::nullopt;
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", static_cast<double>(u.kernel_time_ns) / 1e6);
  return std::to_string(u.operation_count) +
         " GPU operations have no launch record (queued before the capture began?); " + ms +
         " ms of kernel time, counted apart as `unlaunched`, not in any step";
}

}  // namespace stepstat
