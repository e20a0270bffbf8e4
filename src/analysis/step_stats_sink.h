// StepStatsSink: the streaming accumulator behind the step summary. It keeps counters, per
// component sums and the kernel and launch unions; memory grows with distinct names, not
// rows, as long as the input arrives sorted by start (as nsys writes it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/intervals.h"
#include "core/overlap_meter.h"
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
};

/// What the launch side adds up to.
struct LaunchTotals {
  int64_t call_count = 0;
  int64_t union_ns = 0;
};

class StepStatsSink : public TraceSink {
 public:
  /// With `assume_sorted`, out-of-order input stops the pass (unsorted() turns true) so the
  /// caller can run again without it; otherwise intervals are buffered and sorted at Finish.
  /// Kernel union components go to `meter` side A, launch union components to side B.
  /// `source_name` names the file in messages.
  StepStatsSink(std::string source_name, const Classifier& classifier, OverlapMeter& meter,
                bool assume_sorted);

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;

  /// Ends the stream: closes the open union components (feeding the meter). Call once,
  /// after the reader succeeded; the meter's sides are closed by the caller.
  void Finish();

  bool unsorted() const { return unsorted_; }
  const GpuTotals& gpu() const { return gpu_; }
  const LaunchTotals& launch() const { return launch_; }

 private:
  int ComponentOf(NameId name, const StringPool& names);
  void AddKernelComponent(const Interval& component);
  void AddLaunchComponent(const Interval& component);
  // Components reach the meter in batches: one lock per batch, not per component.
  void QueueForMeter(OverlapMeter::Side side, const Interval& component);
  void FlushMeterQueue(OverlapMeter::Side side);
  static constexpr size_t kMeterBatch = 1024;
  std::vector<Interval> meter_queue_[2];

  std::string source_name_;
  const Classifier& classifier_;
  OverlapMeter& meter_;
  bool assume_sorted_;
  bool unsorted_ = false;

  GpuTotals gpu_;
  LaunchTotals launch_;
  std::vector<int32_t> component_by_name_;  ///< -1: not classified yet

  SortedUnion kernel_union_;
  SortedUnion launch_union_;
  GapMeter gaps_;
  // Only without assume_sorted: every interval, sorted at Finish.
  std::vector<Interval> kernel_intervals_;
  std::vector<Interval> launch_intervals_;
};

}  // namespace stepstat
