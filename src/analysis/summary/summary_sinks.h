// The streaming accumulators behind the step summary, one per side of a trace: the GPU side
// (counters, per-component sums, gaps, the kernel union) and the launch side (the launch
// union). Each feeds only its own side of the launch/kernel OverlapMeter, through the one
// producer it owns, so the thread that reads a side writes that side alone. Memory grows
// with distinct names, not rows, as long as the input arrives sorted by start (as nsys
// writes it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/intervals.h"
#include "core/overlap_meter.h"
#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/trace.h"

namespace stepstat {

/// What the GPU side of a trace adds up to.
struct GpuTotals {
  int64_t operation_count = 0;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  int64_t first_start_ns = 0;  ///< min start over all ops; meaningful when operation_count > 0
  int64_t last_end_ns = 0;     ///< max end over all ops
  int64_t gap_count = 0;
  int64_t gap_total_ns = 0;
  int64_t gap_max_ns = 0;
  std::vector<int64_t> component_time_ns;  ///< by classifier index, `other` last
  std::vector<int64_t> component_launches;
  /// Each distinct kernel name once, in order of first appearance, with its launches and
  /// summed time (each at most kernel_time_ns): what another policy's coverage needs, so
  /// the policy hint need not read the trace again.
  struct NameTotal {
    std::string name;
    int64_t launches = 0;
    int64_t time_ns = 0;
  };
  std::vector<NameTotal> kernel_names;
};

/// What the launch side adds up to.
struct LaunchTotals {
  int64_t call_count = 0;
  int64_t union_ns = 0;
};

/// Hands union components to one side of the meter in batches: one lock per batch.
class ComponentBatcher {
 public:
  explicit ComponentBatcher(OverlapMeter::Producer producer) : producer_(std::move(producer)) {}
  /// False when the meter found the components out of order (a bug upstream).
  bool Add(const Interval& component) {
    batch_.push_back(component);
    return batch_.size() < kBatch || Flush();
  }
  bool Flush();
  /// Flushes and closes the side (also done by the destructor, on any path).
  bool Close();
  bool cancelled() const { return producer_.cancelled(); }

 private:
  static constexpr size_t kBatch = 1024;
  OverlapMeter::Producer producer_;
  std::vector<Interval> batch_;
};

/// Each distinct kernel name of `gpu` with its launches and total_ns (the other fields
/// left empty), in order of first appearance: what a policy's coverage needs
/// (SuggestBuiltinPolicy) without reading the trace again.
std::vector<KernelDetails> KernelTotalsOf(const GpuTotals& gpu);

/// The GPU side: launch calls are ignored.
class GpuTotalsSink : public TraceSink {
 public:
  /// With `assume_sorted`, kernels must come in start order (the start-order stage,
  /// start_order.h, decides it); otherwise intervals are buffered and sorted at OnFinish.
  /// Kernel union components go to `kernels`. `source_name` names the file in messages.
  GpuTotalsSink(std::string source_name, const Classifier& classifier,
                OverlapMeter::Producer kernels, bool assume_sorted);

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }

  /// Closes the open union component and the meter side (after a failed read the
  /// destructor closes the side).
  Status OnFinish() override;
  /// An operation's interval, kind and name (AddGpuOp, CountKernel).
  TraceFields reads() const override {
    return {TraceFields::kOpStart | TraceFields::kOpDuration | TraceFields::kOpName, 0};
  }

  const GpuTotals& totals() const { return totals_; }

 private:
  // The kernel's component; also adds it to its name's totals.
  int CountKernel(const GpuOp& kernel, const StringPool& names);
  Status AddKernelComponent(const Interval& component);

  std::string source_name_;
  const Classifier& classifier_;
  ComponentBatcher meter_;
  bool assume_sorted_;
  GpuTotals totals_;
  struct NameSlot {
    int32_t component = -1;  ///< -1: not seen yet
    int32_t index = -1;      ///< into totals_.kernel_names
  };
  std::vector<NameSlot> slot_by_name_;  ///< by NameId
  SortedUnion kernel_union_;
  GapMeter gaps_;
  std::vector<Interval> kernel_intervals_;  ///< only without assume_sorted, sorted at OnFinish
};

/// The launch side: GPU operations are ignored.
class LaunchTotalsSink : public TraceSink {
 public:
  /// As GpuTotalsSink; launch union components go to `launches`.
  LaunchTotalsSink(OverlapMeter::Producer launches, bool assume_sorted);

  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;
  Status OnFinish() override;
  /// A call's API interval.
  TraceFields reads() const override {
    return {0, TraceFields::kApiStart | TraceFields::kApiDuration};
  }

  const LaunchTotals& totals() const { return totals_; }

 private:
  Status AddLaunchComponent(const Interval& component);

  ComponentBatcher meter_;
  bool assume_sorted_;
  LaunchTotals totals_;
  SortedUnion launch_union_;
  std::vector<Interval> launch_intervals_;  ///< only without assume_sorted
};

}  // namespace stepstat
