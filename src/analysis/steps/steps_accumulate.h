// The passes that add up every step once steps are known: how each launch call and GPU
// operation finds its step (a Plan), and the reads that feed the per-step accumulators.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/details/kernel_spreads.h"
#include "analysis/pipeline/start_order.h"
#include "analysis/pipeline/trace_reads.h"
#include "analysis/steps/streamed_key_runs.h"
#include "analysis/summary/summary_alongside.h"
#include "stepstat/policy.h"
#include "stepstat/steps.h"

namespace stepstat {

struct Plan {
  size_t step_count = 0;
  std::function<int32_t(const LaunchCall&)> launch_step;  // empty: no launch pass
  // Optional: bookkeeping on each call of the launch pass (not on replays); it runs on the
  // launch reader's thread unless after_launches is set.
  std::function<void(const LaunchCall&, int32_t)> on_launch;
  // Whether on_launch sees the copy and memset calls too (CallKind::kCopy, with the step
  // launch_step gives them): bookkeeping only, never counted as a step's launches.
  bool copy_calls = false;
  std::function<int32_t(const GpuOp&)> op_step;
  // Optional: GPU operations find their step only once every launch call was seen (the
  // key → step runs); the launch bookkeeping then gets a pass of its own first.
  std::function<void()> after_launches;
  // Optional: the key → step runs op_step looks up, built by on_launch on the accumulation's
  // own launch side while its GPU side reads (streamed_key_runs.h): no launch pass first.
  // The accumulation lets the runs wait on its meter while both sides read, and freezes them
  // once every call is in.
  StreamedKeyRuns* streamed_keys = nullptr;
  // What launch_step and on_launch read of a call: that pass of its own reads only those
  // fields (a CSV reader then skips the rest; the names cost the most to parse).
  TraceFields launch_fields = TraceFields::All();
};

/// The file that holds launch calls, if any.
const TraceInput* LaunchSource(const StepsInputs& inputs);

/// What the passes of one steps run share: how they read the inputs (a Kineto trace parsed
/// once, trace_reads.h) and what they learned of their start order (start_order.h).
struct StepsPasses {
  /// With `shared`, the passes read through it (the caller's, kept after the steps for its
  /// other engine calls); else through a TraceReads of their own.
  explicit StepsPasses(TraceReads* shared = nullptr) : reads(shared ? *shared : own_reads) {}
  StepsPasses(const StepsPasses&) = delete;
  StepsPasses& operator=(const StepsPasses&) = delete;

 private:
  TraceReads own_reads;

 public:
  TraceReads& reads;
  StartOrder order;
  /// Optional (`stepstat report`): the whole trace's summary, fed by the first pass that
  /// reads both sides at once in start order, and its kernels' spreads by the residue pass
  /// (summary_alongside.h). Not owned.
  SummaryAlongside* summary = nullptr;
  /// Optional (a diff or record side): the kernel listing, fed by the residue pass
  /// (kernel_spreads.h). Not owned.
  KernelsAlongside* kernels = nullptr;
};

/// One StepTotals per step of `plan`, then one for the operations outside every step, then
/// one for those the plan calls kUnlaunched (steps_attribution.h; counts and times only).
/// Launch calls and GPU operations are read at once on two threads (a Kineto trace's
/// replayed from its kept parse), the overlap measured as they pass, so memory is bounded by
/// the steps; input out of start order holds each step's launch union between a launch pass
/// and a GPU pass (and holds kernels, as the passes' StartOrder says).
/// The first streaming read also feeds `passes.summary` (when set), and tells it when both
/// sides were read whole in start order.
Result<std::vector<StepTotals>> Accumulate(const StepsInputs& inputs, const Policy& policy,
                                           const Classifier& classifier,
                                           const StepsOptions& options, const Plan& plan,
                                           StepsPasses& passes);

}  // namespace stepstat
