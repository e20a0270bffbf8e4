// Passes on the launch calls and GPU operations of one step and drops the rest: a whole
// run read through it looks like a trace cut by hand around that step.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

class StepFilterSink : public TraceSink {
 public:
  /// Either function may be empty: nothing of that kind belongs to the step.
  StepFilterSink(TraceSink& inner, int32_t step,
                 std::function<int32_t(const LaunchCall&)> launch_step,
                 std::function<int32_t(const GpuOp&)> op_step)
      : inner_(inner),
        step_(step),
        launch_step_(std::move(launch_step)),
        op_step_(std::move(op_step)) {}

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    if (!op_step_) return Status::Ok();
    return Forward(ops, op_step_, ops_,
                   [&](std::span<const GpuOp> kept) { return inner_.OnGpuOps(kept, names); });
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    if (!launch_step_) return Status::Ok();
    return Forward(calls, launch_step_, calls_, [&](std::span<const LaunchCall> kept) {
      return inner_.OnLaunchCalls(kept, names);
    });
  }
  // Not passed on: a step is read from two files (its launch calls, then its operations),
  // each read finishing this filter; the step's replay finishes the inner sink once, after
  // both (ReplayStep).
  Status OnFinish() override { return Status::Ok(); }

 private:
  template <typename Row, typename StepOf, typename Emit>
  Status Forward(std::span<const Row> rows, const StepOf& step_of, std::vector<Row>& kept,
                 const Emit& emit) {
    kept.clear();
    for (const Row& row : rows) {
      if (step_of(row) == step_) kept.push_back(row);
    }
    return kept.empty() ? Status::Ok() : emit(std::span<const Row>(kept));
  }

  TraceSink& inner_;
  int32_t step_;
  std::function<int32_t(const LaunchCall&)> launch_step_;
  std::function<int32_t(const GpuOp&)> op_step_;
  std::vector<LaunchCall> calls_;  // reused batches
  std::vector<GpuOp> ops_;
};

}  // namespace stepstat
