// Passes on the launch calls and GPU operations of chosen steps, each step's to its own sink,
// and drops the rest: a whole run read through it looks, to each sink, like a trace cut by
// hand around its step. Several steps share one read of the inputs.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

/// One step and the sink that receives its rows.
struct StepRoute {
  size_t step = 0;
  TraceSink* sink = nullptr;
};

class StepFilterSink : public TraceSink {
 public:
  /// Either function may be empty: nothing of that kind belongs to any step.
  StepFilterSink(std::span<const StepRoute> routes,
                 std::function<int32_t(const LaunchCall&)> launch_step,
                 std::function<int32_t(const GpuOp&)> op_step)
      : launch_step_(std::move(launch_step)), op_step_(std::move(op_step)) {
    for (const StepRoute& route : routes) {
      routes_.push_back({static_cast<int32_t>(route.step), route.sink, {}, {}});
    }
  }

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    if (!op_step_) return Status::Ok();
    for (Route& route : routes_) route.ops.clear();
    for (const GpuOp& op : ops) {
      if (Route* route = RouteOf(op_step_(op))) route->ops.push_back(op);
    }
    for (Route& route : routes_) {
      if (!route.ops.empty()) RETURN_IF_ERROR(route.sink->OnGpuOps(route.ops, names));
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    if (!launch_step_) return Status::Ok();
    for (Route& route : routes_) route.calls.clear();
    for (const LaunchCall& call : calls) {
      if (Route* route = RouteOf(launch_step_(call))) route->calls.push_back(call);
    }
    for (Route& route : routes_) {
      if (!route.calls.empty()) RETURN_IF_ERROR(route.sink->OnLaunchCalls(route.calls, names));
    }
    return Status::Ok();
  }
  // Not passed on: a step is read from two files (its launch calls, then its operations),
  // each read finishing this filter; the replay finishes each inner sink once, after both
  // (ReplaySteps).
  Status OnFinish() override { return Status::Ok(); }

 private:
  struct Route {
    int32_t step;
    TraceSink* sink;
    std::vector<LaunchCall> calls;  // reused batches
    std::vector<GpuOp> ops;
  };

  // A handful of routes (one or two steps): a linear look-up beats any index.
  Route* RouteOf(int32_t step) {
    for (Route& route : routes_) {
      if (route.step == step) return &route;
    }
    return nullptr;
  }

  std::function<int32_t(const LaunchCall&)> launch_step_;
  std::function<int32_t(const GpuOp&)> op_step_;
  std::vector<Route> routes_;
};

}  // namespace stepstat
