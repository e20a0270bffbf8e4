#include "analysis/steps/steps_accumulate.h"

#include <optional>

#include "analysis/pipeline/start_order.h"
#include "analysis/pipeline/tee_sink.h"
#include "analysis/pipeline/two_sides.h"
#include "analysis/steps/step_overlap_meter.h"
#include "analysis/steps/steps_sink.h"
#include "readers/input_traits.h"

namespace stepstat {

namespace {

// A launch call's step, with the plan's bookkeeping done on the call when `bookkeep`.
LaunchStepFn StepOfLaunch(const Plan& plan, bool bookkeep) {
  if (!bookkeep || !plan.on_launch) return plan.launch_step;
  return [&plan](const LaunchCall& call) {
    int32_t step = plan.launch_step(call);
    plan.on_launch(call, step);
    return step;
  };
}

// The plan's bookkeeping alone: on every call (the launch pass of its own that a plan with
// after_launches needs), or on the copy calls only (beside a sink that counts the launches).
class LaunchBookkeepingSink : public TraceSink {
 public:
  enum class Calls { kAll, kCopiesOnly };
  LaunchBookkeepingSink(const Plan& plan, Calls calls)
      : step_of_(StepOfLaunch(plan, true)),
        copies_only_(calls == Calls::kCopiesOnly),
        copy_calls_(plan.copy_calls),
        // Beside another sink (copies only), that sink says what it reads.
        fields_(copies_only_ ? TraceFields::All() : plan.launch_fields) {}
  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    for (const LaunchCall& call : calls) {
      if (!copies_only_ || call.kind == CallKind::kCopy) step_of_(call);
    }
    return Status::Ok();
  }
  TraceFields reads() const override {
    return copy_calls_ ? fields_ | TraceFields{0, TraceFields::kCopyCalls} : fields_;
  }

 private:
  LaunchStepFn step_of_;
  bool copies_only_;
  bool copy_calls_;
  TraceFields fields_;
};

StepAccumulators MakeAccumulators(const Policy& policy, const Classifier& classifier,
                                  const StepsOptions& options, const Plan& plan, bool buffered) {
  return StepAccumulators(
      plan.step_count, [&classifier](std::string_view name) { return classifier.Classify(name); },
      static_cast<int>(policy.components.size()) + 1, options.dominant_kernel_fraction, buffered);
}

// Both readers at once, the launch/kernel overlap measured by a StepOverlapMeter; nullopt
// when the start-order stage stopped a side (then `order` knows where).
Result<std::optional<std::vector<StepTotals>>> AccumulateStreaming(
    const StepsInputs& inputs, const Policy& policy, const Classifier& classifier,
    const StepsOptions& options, const Plan& plan, StepsPasses& passes) {
  const TraceInput& launches = *LaunchSource(inputs);
  if (plan.after_launches) {
    LaunchBookkeepingSink bookkeeping(plan, LaunchBookkeepingSink::Calls::kAll);
    RETURN_IF_ERROR(passes.reads.LaunchSide(launches, bookkeeping).status());
    plan.after_launches();
  }
  StepAccumulators steps = MakeAccumulators(policy, classifier, options, plan, false);
  StepOverlapMeter meter(steps.size(), options.max_pending_components);
  // Its lookups wait on the meter for the calls they need, until both sides are read.
  if (plan.streamed_keys) plan.streamed_keys->Attach(&meter);
  StepOverlapMeter::Producer launch_producer = meter.TakeProducer(StepOverlapMeter::kLaunches);
  steps.UseMeter(meter.TakeProducer(StepOverlapMeter::kKernels));
  std::vector<int64_t> calls(steps.size(), 0);
  std::optional<OrderBreak> gpu_break, launch_break;
  // The whole trace's summary rides on the first such read (summary_alongside.h states why
  // its sinks add no wait): its GPU sink is fed on this thread, its launch sink on the
  // launch thread, each behind its side's start-order stage.
  SummaryAlongside* summary =
      passes.summary != nullptr && passes.summary->Wants(inputs.trace) ? passes.summary : nullptr;
  TraceSink* summary_gpu = summary ? &summary->gpu_side() : nullptr;
  TraceSink* summary_launches = summary ? &summary->launch_side() : nullptr;
  ReadReport gpu_read, launch_read;
  // two_sides.h states the threads' contract: `steps` belongs to this thread (the GPU
  // side); the launch side's sink, with the launch producer, lives on the launch thread.
  SideStatuses statuses = ReadBothSides(
      [&] {
        StepGpuSink gpu_sink(steps, plan.op_step, inputs.trace.gpu.display_name);
        TeeSink both{&gpu_sink, summary_gpu};
        StartOrderSink in_order(both, inputs.trace.gpu.display_name, /*hold=*/false);
        Result<ReadReport> read = passes.reads.GpuSide(inputs.trace.gpu, in_order);
        gpu_break = in_order.broke();
        steps.CloseMeter();
        if (!read.ok()) return read.status();
        gpu_read = std::move(read).value();
        return Status::Ok();
      },
      [&] {
        // The bookkeeping was done by the pass above when the plan needed one.
        StepMeterLaunchSink sink(std::move(launch_producer),
                                 StepOfLaunch(plan, !plan.after_launches), calls,
                                 launches.display_name);
        TeeSink both{&sink, summary_launches};
        StartOrderSink in_order(both, launches.display_name, /*hold=*/false);
        Result<ReadReport> read = passes.reads.LaunchSide(launches, in_order);
        launch_break = in_order.broke();
        if (!read.ok()) return read.status();
        launch_read = std::move(read).value();
        return Status::Ok();
      },
      [&meter] { meter.Abort(); });
  if (plan.streamed_keys) plan.streamed_keys->Freeze();
  passes.order.Learn(gpu_break);
  passes.order.Learn(launch_break);
  if (passes.order.hold()) return std::optional<std::vector<StepTotals>>();
  RETURN_IF_ERROR(FirstFailure(statuses));  // else the reads finished the sinks
  if (summary) summary->Completed(gpu_read, launch_read);
  std::vector<StepTotals> totals = steps.TakeTotals();
  for (size_t i = 0; i < totals.size(); ++i) {
    totals[i].launch_call_count = calls[i];
    totals[i].launch_union_ns = meter.union_length(StepOverlapMeter::kLaunches, i);
    totals[i].launch_overlap_ns = meter.overlap(i);
    totals[i].launch_own_kernels_overlap_ns = meter.own_overlap(i);
  }
  totals.push_back(steps.TakeUnlaunched());
  return std::optional(std::move(totals));
}

// Launch calls first, each step's launch union held (merged exactly in any order), then the
// GPU operations, their kernels held and sorted when `hold`.
Result<std::vector<StepTotals>> AccumulateHolding(const StepsInputs& inputs, const Policy& policy,
                                                  const Classifier& classifier,
                                                  const StepsOptions& options, const Plan& plan,
                                                  StepsPasses& passes, bool hold) {
  StepAccumulators steps = MakeAccumulators(policy, classifier, options, plan, hold);
  if (plan.streamed_keys) plan.streamed_keys->Attach(nullptr);  // filled by the launch pass
  if (plan.launch_step) {
    StepLaunchSink launch_sink(steps, StepOfLaunch(plan, true));
    std::optional<LaunchBookkeepingSink> copies;  // the tee hands copy calls to it alone
    if (plan.copy_calls) copies.emplace(plan, LaunchBookkeepingSink::Calls::kCopiesOnly);
    TeeSink both{&launch_sink, copies ? &*copies : nullptr};
    const TraceInput& source = *LaunchSource(inputs);
    RETURN_IF_ERROR(passes.reads.LaunchSide(source, both).status());  // finishes them
  }
  if (plan.after_launches) plan.after_launches();
  if (plan.streamed_keys) plan.streamed_keys->Freeze();
  StepGpuSink gpu_sink(steps, plan.op_step, inputs.trace.gpu.display_name);
  StartOrderSink in_order(gpu_sink, inputs.trace.gpu.display_name, hold);
  Status read = passes.reads.GpuSide(inputs.trace.gpu, in_order).status();
  passes.order.Learn(in_order.broke());
  RETURN_IF_ERROR(read);  // the read finished the operations
  std::vector<StepTotals> totals = steps.TakeTotals();
  totals.push_back(steps.TakeUnlaunched());
  return totals;
}

}  // namespace

const TraceInput* LaunchSource(const StepsInputs& inputs) {
  if (inputs.trace.launches) return &*inputs.trace.launches;
  InputKind kind = inputs.trace.gpu.kind;
  if (CarriesLaunches(kind)) {
    return &inputs.trace.gpu;
  }
  return nullptr;
}

Result<std::vector<StepTotals>> Accumulate(const StepsInputs& inputs, const Policy& policy,
                                           const Classifier& classifier,
                                           const StepsOptions& options, const Plan& plan,
                                           StepsPasses& passes) {
  // Both sides at once, a kept trace's (Kineto) replayed from what its parse kept.
  if (plan.launch_step && !passes.order.hold()) {
    RETURN_IF_ERROR(passes.reads.Prepare(inputs.trace.gpu));
    RETURN_IF_ERROR(passes.reads.Prepare(*LaunchSource(inputs)));
    ASSIGN_OR_RETURN(std::optional<std::vector<StepTotals>> streamed,
                     AccumulateStreaming(inputs, policy, classifier, options, plan, passes));
    if (streamed) return std::move(*streamed);
  }
  return RunInStartOrder<Result<std::vector<StepTotals>>>(passes.order, [&](bool hold) {
    return AccumulateHolding(inputs, policy, classifier, options, plan, passes, hold);
  });
}

}  // namespace stepstat
