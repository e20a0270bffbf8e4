// The residue of the steps: the GPU time of the run that no step's span covers (before the
// first step, between steps, after the last), its idle time and the whole-trace gaps that
// are no step's own, plus the corrections for steps that overlap on the GPU, so that the
// per-step figures and the residue add up exactly to the whole-trace summary (StepsResidue).
//
// It needs every step's span, known only once every operation was attributed, so it is one
// more streaming pass over the GPU side: memory grows with the steps, not the trace.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "analysis/steps/steps_accumulate.h"
#include "core/intervals.h"
#include "stepstat/steps.h"

namespace stepstat {

/// Fed GPU operations in start order, each with its step (kNoStep: none; kUnlaunched: none,
/// and counted apart).
class ResidueMeter {
 public:
  /// `report`'s steps, outside totals and unlaunched counts (residue.unlaunched) must be
  /// final; it must outlive the meter.
  explicit ResidueMeter(const StepsReport& report);

  bool InOrder(int64_t start) const { return !seen_ || start >= last_start_; }
  /// Requires InOrder(op.start).
  void Add(int32_t step, const Interval& op, bool kernel);
  StepsResidue Finish();

 private:
  struct PendingGap {
    Interval gap;
    bool matched = false;  // it is a gap of one step's own kernels
  };
  struct OwnUnion {
    bool seen = false;
    int64_t end = 0;
  };
  void AddUnlaunched(const Interval& op);
  void CloseGpuComponent(const Interval& component);
  void FinishStartGroup();
  ResiduePart& PartOf(const Interval& gap);

  const StepsReport& report_;
  std::vector<Interval> spans_;  // union of the steps' spans, in order
  bool seen_ = false;
  int64_t last_start_ = 0;
  int64_t first_start_ = 0, last_end_ = 0;
  // The union of every kernel: its open component and frontier (latest end).
  std::optional<Interval> gpu_open_;
  std::optional<int64_t> group_start_;
  std::optional<PendingGap> pending_gap_;
  std::vector<OwnUnion> own_;
  SortedUnion step_kernels_;
  SortedUnion unlaunched_union_;
  bool unlaunched_seen_ = false;
  int64_t unlaunched_busy_ = 0, unlaunched_first_ = 0, unlaunched_last_end_ = 0;
  int64_t step_kernels_busy_ = 0;
  size_t span_cursor_ = 0;
  int64_t busy_in_spans_ = 0;
  int64_t busy_before_ = 0, busy_between_ = 0, busy_after_ = 0;
  StepsResidue residue_;
};

/// Runs the residue pass over the GPU side as `op_step` attributes it (every operation
/// held and sorted when the passes found the input out of start order). `alongside`, when
/// set, is asked for a sink at each start of the read (the read may start over, held, when
/// it meets rows out of start order) that sees every batch as read, before the start-order
/// stage; `gpu_read`, when set, gets what the GPU side held.
Result<StepsResidue> MeasureResidue(const StepsInputs& inputs, const Plan& plan,
                                    const StepsReport& report, StepsPasses& passes,
                                    const std::function<TraceSink*()>& alongside = nullptr,
                                    ReadReport* gpu_read = nullptr);

/// Sets each step's period_ns from the GPU starts of the steps with GPU work.
void SetPeriods(StepsReport& report);

}  // namespace stepstat
