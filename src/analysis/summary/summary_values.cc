#include "analysis/summary/summary_values.h"

#include "core/true_divide.h"

namespace stepstat {

namespace {

// `a / b * 100` exactly as the reference's Python evaluates it; 0.0 when b is 0.
double Percent(int64_t a, int64_t b) { return b == 0 ? 0.0 : TrueDivide(a, b) * 100.0; }

}  // namespace

StepStats MakeStepStats(const Policy& policy, const GpuTotals& gpu,
                        const std::optional<LaunchOverlapTotals>& overlap,
                        const StepStatsSources& sources) {
  StepStats s;
  s.source_gpu_trace = sources.gpu_trace;
  s.source_kernel_exec_trace = sources.kernel_exec_trace;
  s.gpu_operation_count = gpu.operation_count;
  s.gpu_span_ns = gpu.operation_count == 0 ? 0 : gpu.last_end_ns - gpu.first_start_ns;
  s.kernel_count = gpu.kernel_count;
  s.kernel_time_ns = gpu.kernel_time_ns;
  s.kernel_busy_percent_of_span = Percent(gpu.kernel_time_ns, s.gpu_span_ns);

  s.launch_gaps.positive_gap_count = gpu.gap_count;
  s.launch_gaps.total_ns = gpu.gap_total_ns;
  s.launch_gaps.maximum_ns = gpu.gap_max_ns;
  s.launch_gaps.average_ns = gpu.gap_count == 0 ? 0.0 : TrueDivide(gpu.gap_total_ns, gpu.gap_count);

  if (overlap) {
    CpuGpuOverlap o;
    o.launch_api_union_ns = overlap->union_ns;
    o.launch_api_gpu_overlap_ns = overlap->overlap_ns;
    o.launch_api_overlap_percent = Percent(overlap->overlap_ns, overlap->union_ns);
    s.cpu_gpu_overlap = o;
  }

  size_t count = policy.components.size() + 1;
  for (size_t i = 0; i < count; ++i) {
    ComponentStats c;
    bool is_other = i == policy.components.size();
    c.name = is_other ? "other" : policy.components[i].name;
    c.description = is_other ? policy.other_description : policy.components[i].description;
    c.time_ns = i < gpu.component_time_ns.size() ? gpu.component_time_ns[i] : 0;
    c.launches = i < gpu.component_launches.size() ? gpu.component_launches[i] : 0;
    // Python: ns / 1e6, an int converted to float then divided.
    c.milliseconds = static_cast<double>(c.time_ns) / 1e6;
    c.percent_of_kernel_time = Percent(c.time_ns, gpu.kernel_time_ns);
    s.components.push_back(std::move(c));
  }
  return s;
}

}  // namespace stepstat
