#include "analysis/step_stats_sink.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace stepstat {

namespace {

// Both operands are non-negative (readers guarantee it).
bool AddChecked(int64_t& total, int64_t value) {
  if (value > std::numeric_limits<int64_t>::max() - total) return false;
  total += value;
  return true;
}

}  // namespace

StepStatsSink::StepStatsSink(std::string source_name, const Classifier& classifier,
                             OverlapMeter& meter, bool assume_sorted)
    : source_name_(std::move(source_name)),
      classifier_(classifier),
      meter_(meter),
      assume_sorted_(assume_sorted) {
  gpu_.component_time_ns.assign(static_cast<size_t>(classifier.other_index()) + 1, 0);
  gpu_.component_launches.assign(gpu_.component_time_ns.size(), 0);
}

int StepStatsSink::ComponentOf(NameId name, const StringPool& names) {
  if (name >= component_by_name_.size()) component_by_name_.resize(names.size(), -1);
  int32_t& cached = component_by_name_[name];
  if (cached < 0) cached = classifier_.Classify(names.Get(name));
  return cached;
}

void StepStatsSink::AddKernelComponent(const Interval& component) {
  gaps_.Add(component);
  QueueForMeter(OverlapMeter::kA, component);
}

void StepStatsSink::QueueForMeter(OverlapMeter::Side side, const Interval& component) {
  std::vector<Interval>& queue = meter_queue_[side];
  queue.push_back(component);
  if (queue.size() >= kMeterBatch) FlushMeterQueue(side);
}

void StepStatsSink::FlushMeterQueue(OverlapMeter::Side side) {
  meter_.Add(side, meter_queue_[side]);
  meter_queue_[side].clear();
}

void StepStatsSink::AddLaunchComponent(const Interval& component) {
  // Components are disjoint and lie in [0, INT64_MAX], so their sum cannot overflow.
  launch_.union_ns += component.length();
  QueueForMeter(OverlapMeter::kB, component);
}

Status StepStatsSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  if (meter_.aborted()) return Status::Error("cancelled");
  for (const GpuOp& op : ops) {
    int64_t end = op.end_ns();
    if (gpu_.operation_count == 0) {
      gpu_.first_start_ns = op.start_ns;
      gpu_.last_end_ns = end;
    } else {
      gpu_.first_start_ns = std::min(gpu_.first_start_ns, op.start_ns);
      gpu_.last_end_ns = std::max(gpu_.last_end_ns, end);
    }
    ++gpu_.operation_count;
    if (op.kind != OpKind::kKernel) continue;

    ++gpu_.kernel_count;
    int component = ComponentOf(op.name, names);
    // A component's time is part of the kernel time, so one check covers both.
    if (!AddChecked(gpu_.kernel_time_ns, op.duration_ns)) {
      return ErrorAt(source_name_, op.line, "summed kernel time overflows 64-bit nanoseconds");
    }
    gpu_.component_time_ns[component] += op.duration_ns;
    ++gpu_.component_launches[component];

    if (!assume_sorted_) {
      kernel_intervals_.push_back({op.start_ns, end});
    } else if (!kernel_union_.InOrder(op.start_ns)) {
      unsorted_ = true;
      return Status::Error("kernels are not sorted by start");
    } else if (auto closed = kernel_union_.Add(op.start_ns, end)) {
      AddKernelComponent(*closed);
    }
  }
  return Status::Ok();
}

Status StepStatsSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) {
  if (meter_.aborted()) return Status::Error("cancelled");
  for (const LaunchCall& call : calls) {
    ++launch_.call_count;
    int64_t end = call.api_end_ns();
    if (!assume_sorted_) {
      launch_intervals_.push_back({call.api_start_ns, end});
    } else if (!launch_union_.InOrder(call.api_start_ns)) {
      unsorted_ = true;
      return Status::Error("launch calls are not sorted by start");
    } else if (auto closed = launch_union_.Add(call.api_start_ns, end)) {
      AddLaunchComponent(*closed);
    }
  }
  return Status::Ok();
}

void StepStatsSink::Finish() {
  if (!assume_sorted_) {
    for (const Interval& c : UnionOf(std::move(kernel_intervals_))) AddKernelComponent(c);
    for (const Interval& c : UnionOf(std::move(launch_intervals_))) AddLaunchComponent(c);
    kernel_intervals_ = {};
    launch_intervals_ = {};
  }
  if (auto last = kernel_union_.Finish()) AddKernelComponent(*last);
  if (auto last = launch_union_.Finish()) AddLaunchComponent(*last);
  FlushMeterQueue(OverlapMeter::kA);
  FlushMeterQueue(OverlapMeter::kB);
  gpu_.gap_count = gaps_.count();
  gpu_.gap_total_ns = gaps_.total();
  gpu_.gap_max_ns = gaps_.maximum();
}

}  // namespace stepstat
