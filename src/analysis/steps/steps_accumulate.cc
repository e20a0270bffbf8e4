#include "analysis/steps/steps_accumulate.h"

#include <optional>

#include "analysis/pipeline/launched_kernels_sink.h"
#include "analysis/pipeline/start_order.h"
#include "analysis/pipeline/two_sides.h"
#include "analysis/steps/step_overlap_meter.h"
#include "analysis/steps/steps_sink.h"
#include "readers/nsys_sqlite.h"

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

// The launch pass of its own that a plan with after_launches needs: bookkeeping only.
class LaunchBookkeepingSink : public TraceSink {
 public:
  explicit LaunchBookkeepingSink(const Plan& plan) : step_of_(StepOfLaunch(plan, true)) {}
  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    for (const LaunchCall& call : calls) step_of_(call);
    return Status::Ok();
  }

 private:
  LaunchStepFn step_of_;
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
    const StepsOptions& options, const Plan& plan, StartOrder& order) {
  const TraceInput& launches = *LaunchSource(inputs);
  if (plan.after_launches) {
    LaunchBookkeepingSink bookkeeping(plan);
    RETURN_IF_ERROR(ReadLaunchSide(launches, bookkeeping).status());
    plan.after_launches();
  }
  StepAccumulators steps = MakeAccumulators(policy, classifier, options, plan, false);
  StepOverlapMeter meter(steps.size(), options.max_pending_components);
  StepOverlapMeter::Producer launch_producer = meter.TakeProducer(StepOverlapMeter::kLaunches);
  steps.UseMeter(meter.TakeProducer(StepOverlapMeter::kKernels));
  std::vector<int64_t> calls(steps.size(), 0);
  std::optional<OrderBreak> gpu_break, launch_break;
  // two_sides.h states the threads' contract: `steps` belongs to this thread (the GPU
  // side); the launch side's sink, with the launch producer, lives on the launch thread.
  SideStatuses statuses = ReadBothSides(
      [&] {
        StepGpuSink gpu_sink(steps, plan.op_step, inputs.trace.gpu.display_name);
        StartOrderSink in_order(gpu_sink, inputs.trace.gpu.display_name, /*hold=*/false);
        Status read = ReadGpuSide(inputs.trace.gpu, in_order).status();
        gpu_break = in_order.broke();
        steps.CloseMeter();
        return read;
      },
      [&] {
        // The bookkeeping was done by the pass above when the plan needed one.
        StepMeterLaunchSink sink(std::move(launch_producer),
                                 StepOfLaunch(plan, !plan.after_launches), calls,
                                 launches.display_name);
        StartOrderSink in_order(sink, launches.display_name, /*hold=*/false);
        Status read = ReadLaunchSide(launches, in_order).status();
        launch_break = in_order.broke();
        return read;
      },
      [&meter] { meter.Abort(); });
  order.Learn(gpu_break);
  order.Learn(launch_break);
  if (order.hold()) return std::optional<std::vector<StepTotals>>();
  RETURN_IF_ERROR(FirstFailure(statuses));  // else the reads finished the sinks
  std::vector<StepTotals> totals = steps.TakeTotals();
  for (size_t i = 0; i < totals.size(); ++i) {
    totals[i].launch_call_count = calls[i];
    totals[i].launch_union_ns = meter.union_length(StepOverlapMeter::kLaunches, i);
    totals[i].launch_overlap_ns = meter.overlap(i);
    totals[i].launch_own_kernels_overlap_ns = meter.own_overlap(i);
  }
  return std::optional(std::move(totals));
}

// Launch calls first, each step's launch union held (merged exactly in any order), then the
// GPU operations, their kernels held and sorted when `hold`.
Result<std::vector<StepTotals>> AccumulateHolding(const StepsInputs& inputs, const Policy& policy,
                                                  const Classifier& classifier,
                                                  const StepsOptions& options, const Plan& plan,
                                                  StartOrder& order, bool hold) {
  StepAccumulators steps = MakeAccumulators(policy, classifier, options, plan, hold);
  if (plan.launch_step) {
    StepLaunchSink launch_sink(steps, StepOfLaunch(plan, true));
    const TraceInput& source = *LaunchSource(inputs);
    RETURN_IF_ERROR(ReadLaunchSide(source, launch_sink).status());  // finishes launches
  }
  if (plan.after_launches) plan.after_launches();
  StepGpuSink gpu_sink(steps, plan.op_step, inputs.trace.gpu.display_name);
  StartOrderSink in_order(gpu_sink, inputs.trace.gpu.display_name, hold);
  Status read = ReadGpuSide(inputs.trace.gpu, in_order).status();
  order.Learn(in_order.broke());
  RETURN_IF_ERROR(read);  // the read finished the operations
  return steps.TakeTotals();
}

}  // namespace

bool HoldsLaunchesAndOps(InputKind kind) {
  return kind == InputKind::kNsysSqlite || kind == InputKind::kKinetoJson;
}

const TraceInput* LaunchSource(const StepsInputs& inputs) {
  if (inputs.trace.launches) return &*inputs.trace.launches;
  InputKind kind = inputs.trace.gpu.kind;
  if (HoldsLaunchesAndOps(kind) || kind == InputKind::kNsysKernExecTraceCsv) {
    return &inputs.trace.gpu;
  }
  return nullptr;
}

Result<ReadReport> ReadGpuSide(const TraceInput& input, TraceSink& sink) {
  if (input.kind == InputKind::kNsysSqlite) {
    return ReadNsysSqliteGpuSide(input.path, input.display_name, sink);
  }
  LaunchedKernelsSink launched(sink, /*forward_launch_calls=*/false);
  TraceSink& target =
      input.kind == InputKind::kNsysKernExecTraceCsv ? static_cast<TraceSink&>(launched) : sink;
  return ReadInput(input, target);
}

Result<ReadReport> ReadLaunchSide(const TraceInput& input, TraceSink& sink) {
  if (input.kind == InputKind::kNsysSqlite) {
    return ReadNsysSqliteLaunchSide(input.path, input.display_name, sink);
  }
  return ReadInput(input, sink);
}

Result<std::vector<StepTotals>> Accumulate(const StepsInputs& inputs, const Policy& policy,
                                           const Classifier& classifier,
                                           const StepsOptions& options, const Plan& plan,
                                           StartOrder& order) {
  // A Kineto file would be parsed whole for each side.
  if (plan.launch_step && !order.hold() && inputs.trace.gpu.kind != InputKind::kKinetoJson) {
    ASSIGN_OR_RETURN(std::optional<std::vector<StepTotals>> streamed,
                     AccumulateStreaming(inputs, policy, classifier, options, plan, order));
    if (streamed) return std::move(*streamed);
  }
  return RunInStartOrder<Result<std::vector<StepTotals>>>(order, [&](bool hold) {
    return AccumulateHolding(inputs, policy, classifier, options, plan, order, hold);
  });
}

}  // namespace stepstat
