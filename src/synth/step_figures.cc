#include "synth/step_figures.h"

#include <algorithm>
#include <vector>

#include "core/intervals.h"

namespace stepstat::synth {

StepFigures MeasureStep(const StepPlan& plan, const StepRows& rows) {
  StepFigures figures;
  int64_t first = INT64_MAX;
  int64_t last = INT64_MIN;
  std::vector<Interval> kernels;
  std::vector<Interval> calls;
  kernels.reserve(rows.kernels.size());
  calls.reserve(rows.kernels.size());
  for (const KernelRow& row : rows.kernels) {
    first = std::min(first, row.start);
    last = std::max(last, row.start + row.duration);
    kernels.push_back({row.start, row.start + row.duration});
    calls.push_back({row.api_start, row.api_start + row.api_duration});
    figures.kernel_time_ns += row.duration;
    int component = static_cast<int>(KindInfo(plan.kernels[row.plan_index].kind).component);
    figures.component_ns[component] += row.duration;
    ++figures.component_launches[component];
  }
  for (const MemopRow& row : rows.memops) {
    first = std::min(first, row.start);
    last = std::max(last, row.start + row.duration);
  }
  figures.kernel_count = static_cast<int64_t>(rows.kernels.size());
  figures.op_count = figures.kernel_count + static_cast<int64_t>(rows.memops.size());
  figures.span_ns = figures.op_count == 0 ? 0 : last - first;

  auto by_start = [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  };
  std::sort(kernels.begin(), kernels.end(), by_start);
  std::sort(calls.begin(), calls.end(), by_start);
  std::vector<Interval> kernel_union = UnionOf(std::move(kernels));
  std::vector<Interval> call_union = UnionOf(std::move(calls));
  GapMeter gaps;
  for (const Interval& component : kernel_union) gaps.Add(component);
  figures.gap_count = gaps.count();
  figures.gap_total_ns = gaps.total();
  figures.gap_max_ns = gaps.maximum();
  figures.api_union_ns = TotalLength(call_union);
  figures.api_overlap_ns = IntersectionLength(call_union, kernel_union);
  return figures;
}

StepFigures ReferenceFigures() {
  StepFigures f;
  f.span_ns = 20'907'172'640;
  f.op_count = 2'803;
  f.kernel_count = 2'744;
  f.kernel_time_ns = 20'895'065'376;
  f.gap_count = 2'743;
  f.gap_total_ns = 11'518'912;
  f.gap_max_ns = 4'797'728;
  f.api_union_ns = 13'065'552'528;
  f.api_overlap_ns = 13'062'771'136;
  f.component_ns = {13'029'238'560, 4'167'855'808, 2'026'853'664,
                    1'084'385'600,  549'298'592,   37'433'152};
  f.component_launches = {250, 200, 800, 202, 100, 1'192};
  return f;
}

std::string DescribeDifferences(const StepFigures& got, const StepFigures& want) {
  std::string out;
  auto check = [&out](std::string_view field, int64_t g, int64_t w) {
    if (g == w) return;
    if (!out.empty()) out += "; ";
    out += std::string(field) + ": got " + std::to_string(g) + ", want " + std::to_string(w);
  };
  check("gpu_span_ns", got.span_ns, want.span_ns);
  check("gpu_operation_count", got.op_count, want.op_count);
  check("kernel_count", got.kernel_count, want.kernel_count);
  check("kernel_time_ns", got.kernel_time_ns, want.kernel_time_ns);
  check("positive_gap_count", got.gap_count, want.gap_count);
  check("gap total_ns", got.gap_total_ns, want.gap_total_ns);
  check("gap maximum_ns", got.gap_max_ns, want.gap_max_ns);
  check("launch_api_union_ns", got.api_union_ns, want.api_union_ns);
  check("launch_api_gpu_overlap_ns", got.api_overlap_ns, want.api_overlap_ns);
  for (int c = 0; c < kComponentCount; ++c) {
    std::string name(ComponentName(static_cast<Component>(c)));
    check(name + " ns", got.component_ns[c], want.component_ns[c]);
    check(name + " launches", got.component_launches[c], want.component_launches[c]);
  }
  return out;
}

}  // namespace stepstat::synth
