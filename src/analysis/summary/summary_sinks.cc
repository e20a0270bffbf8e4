#include "analysis/summary/summary_sinks.h"

#include <algorithm>
#include <utility>

#include "analysis/pipeline/two_sides.h"
#include "analysis/summary/op_totals.h"

namespace stepstat {

namespace {

// Union components are built here in order; the meter refusing them is a bug, not input.
Status OutOfOrder() { return Status::Error("internal error: union components out of order"); }

// Streaming sinks are fed in start order (the start-order stage, start_order.h, sees to it):
// a row out of order here is a bug, not input.
Status NotInStartOrder(std::string_view source, int64_t line) {
  return ErrorAt(source, line, "internal error: a row out of start order passed the stage");
}

}  // namespace

bool ComponentBatcher::Flush() {
  bool in_order = producer_.Add(batch_);
  batch_.clear();
  return in_order;
}

bool ComponentBatcher::Close() {
  bool in_order = Flush();
  producer_.Close();
  return in_order;
}

GpuTotalsSink::GpuTotalsSink(std::string source_name, const Classifier& classifier,
                             OverlapMeter::Producer kernels, bool assume_sorted)
    : source_name_(std::move(source_name)),
      classifier_(classifier),
      meter_(std::move(kernels)),
      assume_sorted_(assume_sorted) {
  totals_.component_time_ns.assign(static_cast<size_t>(classifier.other_index()) + 1, 0);
  totals_.component_launches.assign(totals_.component_time_ns.size(), 0);
}

int GpuTotalsSink::CountKernel(const GpuOp& kernel, const StringPool& names) {
  if (kernel.name >= slot_by_name_.size()) slot_by_name_.resize(names.size());
  NameSlot& slot = slot_by_name_[kernel.name];
  if (slot.component < 0) {  // a name's first kernel: classified once, its string kept once
    slot.component = classifier_.Classify(names.Get(kernel.name));
    slot.index = static_cast<int32_t>(totals_.kernel_names.size());
    totals_.kernel_names.push_back({std::string(names.Get(kernel.name)), 0, 0});
  }
  GpuTotals::NameTotal& total = totals_.kernel_names[static_cast<size_t>(slot.index)];
  ++total.launches;
  // No overflow: AddGpuOp checked the sum of all kernels' time first.
  total.time_ns += kernel.duration_ns;
  return slot.component;
}

Status GpuTotalsSink::AddKernelComponent(const Interval& component) {
  gaps_.Add(component);
  return meter_.Add(component) ? Status::Ok() : OutOfOrder();
}

Status GpuTotalsSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  if (meter_.cancelled()) return CancelledByOtherSide();
  for (const GpuOp& op : ops) {
    RETURN_IF_ERROR(AddGpuOp(totals_, op, source_name_,
                             [&](const GpuOp& kernel) { return CountKernel(kernel, names); }));
    if (op.kind != OpKind::kKernel) continue;
    const int64_t end = op.end_ns();
    if (!assume_sorted_) {
      kernel_intervals_.push_back({op.start_ns, end});
    } else if (!kernel_union_.InOrder(op.start_ns)) {
      return NotInStartOrder(source_name_, op.line);
    } else if (auto closed = kernel_union_.Add(op.start_ns, end)) {
      RETURN_IF_ERROR(AddKernelComponent(*closed));
    }
  }
  return Status::Ok();
}

Status GpuTotalsSink::OnFinish() {
  if (!assume_sorted_) {
    for (const Interval& c : UnionOf(std::exchange(kernel_intervals_, {}))) {
      RETURN_IF_ERROR(AddKernelComponent(c));
    }
  }
  if (auto last = kernel_union_.Finish()) RETURN_IF_ERROR(AddKernelComponent(*last));
  if (!meter_.Close()) return OutOfOrder();
  SetGaps(totals_, gaps_);
  return Status::Ok();
}

LaunchTotalsSink::LaunchTotalsSink(OverlapMeter::Producer launches, bool assume_sorted)
    : meter_(std::move(launches)), assume_sorted_(assume_sorted) {}

Status LaunchTotalsSink::AddLaunchComponent(const Interval& component) {
  // Components are disjoint and lie in [0, INT64_MAX], so their sum cannot overflow.
  totals_.union_ns += component.length();
  return meter_.Add(component) ? Status::Ok() : OutOfOrder();
}

Status LaunchTotalsSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) {
  if (meter_.cancelled()) return CancelledByOtherSide();
  for (const LaunchCall& call : calls) {
    ++totals_.call_count;
    int64_t end = call.api_end_ns();
    if (!assume_sorted_) {
      launch_intervals_.push_back({call.api_start_ns, end});
    } else if (!launch_union_.InOrder(call.api_start_ns)) {
      return NotInStartOrder("launch calls", call.line);
    } else if (auto closed = launch_union_.Add(call.api_start_ns, end)) {
      RETURN_IF_ERROR(AddLaunchComponent(*closed));
    }
  }
  return Status::Ok();
}

Status LaunchTotalsSink::OnFinish() {
  if (!assume_sorted_) {
    for (const Interval& c : UnionOf(std::exchange(launch_intervals_, {}))) {
      RETURN_IF_ERROR(AddLaunchComponent(c));
    }
  }
  if (auto last = launch_union_.Finish()) RETURN_IF_ERROR(AddLaunchComponent(*last));
  return meter_.Close() ? Status::Ok() : OutOfOrder();
}

std::vector<KernelDetails> KernelTotalsOf(const GpuTotals& gpu) {
  std::vector<KernelDetails> kernels;
  kernels.reserve(gpu.kernel_names.size());
  for (const GpuTotals::NameTotal& n : gpu.kernel_names) {
    KernelDetails& k = kernels.emplace_back();
    k.name = n.name;
    k.launches = n.launches;
    k.total_ns = n.time_ns;
  }
  return kernels;
}

}  // namespace stepstat
