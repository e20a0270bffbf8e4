#include "analysis/steps/steps_sink.h"

#include <algorithm>
#include <utility>

#include "analysis/pipeline/two_sides.h"
#include "analysis/steps/steps_attribution.h"
#include "analysis/summary/op_totals.h"

namespace stepstat {

namespace {

// A streaming pass is fed in start order (the start-order stage, start_order.h, sees to it):
// a row out of order here is a bug, not input.
constexpr std::string_view kPastTheStage =
    "internal error: a row out of start order passed the stage";

}  // namespace

StepAccumulators::StepAccumulators(size_t steps, ClassifyFn classify, int component_count,
                                   double dominant_kernel_fraction, bool buffer_kernels)
    : steps_(steps + 1),
      classify_(std::move(classify)),
      component_count_(component_count),
      dominant_kernel_fraction_(dominant_kernel_fraction),
      buffer_kernels_(buffer_kernels) {
  for (Step& s : steps_) {
    s.totals.component_time_ns.assign(static_cast<size_t>(component_count), 0);
    s.totals.component_launches.assign(static_cast<size_t>(component_count), 0);
  }
  unlaunched_.component_time_ns.assign(static_cast<size_t>(component_count), 0);
  unlaunched_.component_launches.assign(static_cast<size_t>(component_count), 0);
}

int StepAccumulators::ComponentOf(NameId name, const StringPool& names) {
  if (pool_ != &names) {  // a new reader: its ids mean other names
    pool_ = &names;
    component_by_name_.clear();
  }
  if (name >= component_by_name_.size()) component_by_name_.resize(names.size(), -1);
  int32_t& cached = component_by_name_[name];
  if (cached < 0) cached = classify_(names.Get(name));
  return std::clamp(cached, 0, component_count_ - 1);
}

void StepAccumulators::AddLaunch(int32_t step, const LaunchCall& call) {
  Step& s = At(step);
  ++s.totals.launch_call_count;
  int64_t start = call.api_start_ns, end = call.api_end_ns();
  if (s.launches_unsorted) {
    s.launch_buffer.push_back({start, end});
  } else if (!s.launch_union.InOrder(start)) {
    s.launches_unsorted = true;
    if (auto open = s.launch_union.Finish()) s.launch_components.push_back(*open);
    // The components closed so far are a union of what came before; re-sort them with the rest.
    s.launch_buffer = std::move(s.launch_components);
    s.launch_components.clear();
    s.launch_buffer.push_back({start, end});
  } else if (auto closed = s.launch_union.Add(start, end)) {
    s.launch_components.push_back(*closed);
  }
}

void StepAccumulators::FinishLaunches() {
  for (Step& s : steps_) {
    if (s.launches_unsorted) {
      s.launch_components = UnionOf(std::move(s.launch_buffer));
      s.launch_buffer = {};
    } else if (auto last = s.launch_union.Finish()) {
      s.launch_components.push_back(*last);
    }
    for (const Interval& c : s.launch_components) s.totals.launch_union_ns += c.length();
    has_launches_ = has_launches_ || !s.launch_components.empty();
  }
}

void StepAccumulators::AddKernelComponent(Step& s, const Interval& k) {
  s.gaps.Add(k);
  s.totals.kernel_busy_ns += k.length();
  std::vector<Interval>& launches = s.launch_components;
  size_t& cursor = s.launch_cursor;
  while (cursor < launches.size() && launches[cursor].end <= k.start) ++cursor;
  for (size_t j = cursor; j < launches.size() && launches[j].start < k.end; ++j) {
    s.totals.launch_own_kernels_overlap_ns +=
        std::min(launches[j].end, k.end) - std::max(launches[j].start, k.start);
  }
}

void StepAccumulators::AddToGpuUnion(const Interval& kernel) {
  if (!gpu_unsorted_ && !gpu_union_.InOrder(kernel.start)) {
    gpu_unsorted_ = true;
    if (auto open = gpu_union_.Finish()) gpu_components_.push_back(*open);
  }
  if (gpu_unsorted_) {
    gpu_components_.push_back(kernel);
  } else if (auto closed = gpu_union_.Add(kernel.start, kernel.end)) {
    gpu_components_.push_back(*closed);
  }
}

Status StepAccumulators::AddOp(int32_t step, const GpuOp& op, const StringPool& names,
                               std::string_view source_name) {
  if (step == kUnlaunched) return AddUnlaunched(op, names, source_name);
  Step& s = At(step);
  StepTotals& t = s.totals;
  RETURN_IF_ERROR(AddGpuOp(t, op, source_name,
                           [&](const GpuOp& kernel) { return ComponentOf(kernel.name, names); }));
  if (op.kind != OpKind::kKernel) return Status::Ok();
  const int64_t end = op.end_ns();
  if (op.duration_ns > t.longest_kernel_ns) {
    t.longest_kernel_ns = op.duration_ns;
    s.longest_kernel = op.name;
    if (!longest_names_.count(op.name)) longest_names_.emplace(op.name, names.Get(op.name));
  }

  if (meter_.open()) {
    meter_batch_.push_back({static_cast<size_t>(&s - steps_.data()), {op.start_ns, end}});
  } else if (has_launches_) {
    AddToGpuUnion({op.start_ns, end});
  }
  if (buffer_kernels_) {
    s.kernel_buffer.push_back({op.start_ns, end});
  } else if (!s.kernel_union.InOrder(op.start_ns)) {
    return ErrorAt(source_name, op.line, kPastTheStage);
  } else if (auto closed = s.kernel_union.Add(op.start_ns, end)) {
    AddKernelComponent(s, *closed);
  }
  return Status::Ok();
}

// No step's totals (the residue counts them), but a kernel of the trace still: the steps'
// launches overlap it as the whole trace's summary measures. The meter files it with the
// outside slot, whose own-kernels overlap no report shows.
Status StepAccumulators::AddUnlaunched(const GpuOp& op, const StringPool& names,
                                       std::string_view source_name) {
  RETURN_IF_ERROR(AddGpuOp(unlaunched_, op, source_name,
                           [&](const GpuOp& kernel) { return ComponentOf(kernel.name, names); }));
  if (op.kind != OpKind::kKernel) return Status::Ok();
  if (meter_.open()) {
    meter_batch_.push_back({steps_.size() - 1, {op.start_ns, op.end_ns()}});
  } else if (has_launches_) {
    AddToGpuUnion({op.start_ns, op.end_ns()});
  }
  return Status::Ok();
}

Status StepAccumulators::FlushMeter(std::string_view source_name) {
  if (meter_.cancelled()) return CancelledByOtherSide();
  if (meter_batch_.empty()) return Status::Ok();
  bool in_order = meter_.Add(meter_batch_);
  meter_batch_.clear();
  if (in_order) return Status::Ok();
  return ErrorAt(source_name, 0, kPastTheStage);
}

void StepAccumulators::FinishOps() {
  std::vector<Interval> gpu;
  if (!meter_.open() && has_launches_) {
    if (auto open = gpu_union_.Finish()) gpu_components_.push_back(*open);
    gpu = UnionOf(std::move(gpu_components_));
    gpu_components_ = {};
  }
  for (Step& s : steps_) {
    if (buffer_kernels_) {
      for (const Interval& c : UnionOf(std::move(s.kernel_buffer))) AddKernelComponent(s, c);
    } else if (auto last = s.kernel_union.Finish()) {
      AddKernelComponent(s, *last);
    }
    SetGaps(s.totals, s.gaps);
    if (!gpu.empty()) s.totals.launch_overlap_ns = IntersectionLength(s.launch_components, gpu);
    s.launch_components = {};
    s.kernel_buffer = {};
    StepTotals& t = s.totals;
    int64_t span = t.operation_count ? t.last_end_ns - t.first_start_ns : 0;
    if (t.kernel_count > 0 && static_cast<double>(t.longest_kernel_ns) >
                                  dominant_kernel_fraction_ * static_cast<double>(span)) {
      t.longest_kernel_name = longest_names_[s.longest_kernel];
    }
  }
}

std::vector<StepTotals> StepAccumulators::TakeTotals() {
  std::vector<StepTotals> totals;
  totals.reserve(steps_.size());
  for (Step& s : steps_) totals.push_back(std::move(s.totals));
  steps_.clear();
  return totals;
}

StepTotals StepAccumulators::TakeUnlaunched() { return std::move(unlaunched_); }

Status StepLaunchSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) {
  for (const LaunchCall& call : calls) steps_.AddLaunch(step_of_(call), call);
  return Status::Ok();
}

Status StepLaunchSink::OnFinish() {
  steps_.FinishLaunches();
  return Status::Ok();
}

Status StepGpuSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  for (const GpuOp& op : ops) RETURN_IF_ERROR(steps_.AddOp(step_of_(op), op, names, source_name_));
  return steps_.FlushMeter(source_name_);
}

Status StepGpuSink::OnFinish() {
  steps_.FinishOps();
  return Status::Ok();
}

Status StepMeterLaunchSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) {
  if (meter_.cancelled()) return CancelledByOtherSide();
  batch_.clear();
  for (const LaunchCall& call : calls) {
    int32_t step = step_of_(call);
    size_t slot = step < 0 ? calls_.size() - 1 : static_cast<size_t>(step);
    ++calls_[slot];
    batch_.push_back({slot, {call.api_start_ns, call.api_end_ns()}});
  }
  if (meter_.Add(batch_)) return Status::Ok();
  return ErrorAt(source_name_, 0, kPastTheStage);
}

}  // namespace stepstat
