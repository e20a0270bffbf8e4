// Per-step accumulators: the step summary's counters, sums, gaps and launch/kernel overlap
// for every step at once, fed one launch call or GPU operation at a time with the step it
// belongs to. Kernels sorted by start stream (one open union component per step); when the
// start-order stage (start_order.h) found the input out of order, the pass runs with
// `buffer_kernels`, which keeps every kernel interval and sorts at FinishOps. Launch calls
// out of order within a step are merged exactly at FinishLaunches either way.
// Each step's launch union is measured against the union of every kernel (whichever step it
// belongs to) and, apart, against the step's own kernel union.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/steps/step_overlap_meter.h"
#include "core/intervals.h"
#include "stepstat/steps.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Component index of a kernel name (`other` is component_count - 1).
using ClassifyFn = std::function<int(std::string_view)>;

class StepAccumulators {
 public:
  /// `steps` steps plus one more for the operations that belong to none (index kNoStep),
  /// and apart, the kernels without a launch record (kUnlaunched).
  StepAccumulators(size_t steps, ClassifyFn classify, int component_count,
                   double dominant_kernel_fraction, bool buffer_kernels);

  /// Measure the launch overlap with a meter whose kernel side `kernels` feeds (one slot per
  /// step and one for the outside) instead of holding the launch unions: AddLaunch is then
  /// not used, and the launch totals come from the meter once both sides are closed.
  void UseMeter(StepOverlapMeter::Producer kernels) { meter_ = std::move(kernels); }
  /// Hands the kernels added since the last call to the meter; an (internal) error when
  /// they are not in start order across steps, CancelledByOtherSide() when the launch side
  /// failed.
  Status FlushMeter(std::string_view source_name);
  /// No more kernels for the meter (also when the read failed: releases the launch side).
  void CloseMeter() { meter_.Close(); }

  /// Launch calls first (all of them), then FinishLaunches(), then GPU operations.
  void AddLaunch(int32_t step, const LaunchCall& call);
  void FinishLaunches();
  /// `source_name` names the file in the overflow message. With a meter, call FlushMeter
  /// after each batch. A kUnlaunched op goes to no step's totals (the residue counts it).
  Status AddOp(int32_t step, const GpuOp& op, const StringPool& names,
               std::string_view source_name);
  /// Closes every step; TakeTotals() then returns them (the last is the outside one).
  void FinishOps();
  std::vector<StepTotals> TakeTotals();
  /// The kUnlaunched operations' counts and times (AddGpuOp's; no unions, gaps or calls).
  StepTotals TakeUnlaunched();

  size_t size() const { return steps_.size(); }

 private:
  struct Step {
    StepTotals totals;
    SortedUnion kernel_union;
    GapMeter gaps;
    std::vector<Interval> kernel_buffer;  // only with buffer_kernels
    SortedUnion launch_union;
    bool launches_unsorted = false;
    std::vector<Interval> launch_buffer;
    std::vector<Interval> launch_components;  // this step's launch union, consumed in order
    size_t launch_cursor = 0;
    NameId longest_kernel = 0;
  };
  void AddToGpuUnion(const Interval& kernel);
  Status AddUnlaunched(const GpuOp& op, const StringPool& names, std::string_view source_name);
  Step& At(int32_t step) {
    return steps_[step < 0 ? steps_.size() - 1 : static_cast<size_t>(step)];
  }
  int ComponentOf(NameId name, const StringPool& names);
  static void AddKernelComponent(Step& s, const Interval& component);

  std::vector<Step> steps_;
  StepTotals unlaunched_;
  ClassifyFn classify_;
  int component_count_;
  double dominant_kernel_fraction_;
  bool buffer_kernels_;
  const StringPool* pool_ = nullptr;
  std::vector<int32_t> component_by_name_;
  std::unordered_map<NameId, std::string> longest_names_;  // ids that were some step's longest
  StepOverlapMeter::Producer meter_;                       // closed (a no-op) unless UseMeter
  // Without a meter: the union of every kernel, for the launch overlap. Components while the
  // kernels come in start order; once one does not, every later interval raw (UnionOf sorts).
  SortedUnion gpu_union_;
  std::vector<Interval> gpu_components_;
  bool gpu_unsorted_ = false;
  bool has_launches_ = false;  // some step holds launch components (set by FinishLaunches)
  std::vector<StepOverlapMeter::Tagged> meter_batch_;
};

/// A launch call's step, a GPU operation's step.
using LaunchStepFn = std::function<int32_t(const LaunchCall&)>;
using OpStepFn = std::function<int32_t(const GpuOp&)>;

/// Feeds launch calls (ignoring everything else) into the accumulators.
class StepLaunchSink : public TraceSink {
 public:
  StepLaunchSink(StepAccumulators& steps, LaunchStepFn step_of)
      : steps_(steps), step_of_(std::move(step_of)) {}
  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;
  /// Every launch call is in: closes the steps' launch unions (FinishLaunches).
  Status OnFinish() override;

 private:
  StepAccumulators& steps_;
  LaunchStepFn step_of_;
};

/// Feeds launch calls straight to the meter's launch side, counting them per step slot.
class StepMeterLaunchSink : public TraceSink {
 public:
  /// `calls` has one slot per meter step; `step_of` returns a step or kNoStep (the last slot).
  StepMeterLaunchSink(StepOverlapMeter::Producer launches, LaunchStepFn step_of,
                      std::vector<int64_t>& calls, std::string source_name)
      : meter_(std::move(launches)),
        step_of_(std::move(step_of)),
        calls_(calls),
        source_name_(std::move(source_name)) {}
  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;

 private:
  StepOverlapMeter::Producer meter_;
  LaunchStepFn step_of_;
  std::vector<int64_t>& calls_;
  std::string source_name_;
  std::vector<StepOverlapMeter::Tagged> batch_;
};

/// Feeds GPU operations (ignoring everything else) into the accumulators.
class StepGpuSink : public TraceSink {
 public:
  StepGpuSink(StepAccumulators& steps, OpStepFn step_of, std::string source_name)
      : steps_(steps), step_of_(std::move(step_of)), source_name_(std::move(source_name)) {}
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  /// Every operation is in: closes the steps' kernel unions (FinishOps).
  Status OnFinish() override;

 private:
  StepAccumulators& steps_;
  OpStepFn step_of_;
  std::string source_name_;
};

}  // namespace stepstat
