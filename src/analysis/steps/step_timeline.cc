// The timeline of one step (step_timeline.h): runs per lane, gaps over all lanes, the launch
// calls' union.
#include "analysis/steps/step_timeline.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include "analysis/steps/steps_then.h"

namespace stepstat {

namespace {

bool ByStart(const TimelineOp& a, const TimelineOp& b) {
  return std::tie(a.start_ns, a.end_ns) < std::tie(b.start_ns, b.end_ns);
}

// The component with the most time in a run; memory operations count as their own slot.
class RunWeights {
 public:
  explicit RunWeights(size_t components) : time_(components + 1, 0) {}
  void Reset() { std::fill(time_.begin(), time_.end(), 0); }
  void Add(const TimelineOp& op) { time_[Slot(op.component)] += op.end_ns - op.start_ns; }
  int32_t Dominant() const {
    size_t best = 0;
    for (size_t i = 1; i < time_.size(); ++i) {
      if (time_[i] > time_[best]) best = i;
    }
    return best + 1 == time_.size() ? kTimelineMemoryOp : static_cast<int32_t>(best);
  }

 private:
  size_t Slot(int32_t component) const {
    return component < 0 || static_cast<size_t>(component) + 1 >= time_.size()
               ? time_.size() - 1
               : static_cast<size_t>(component);
  }
  std::vector<int64_t> time_;
};

}  // namespace

std::vector<TimelineRun> MergeRuns(std::span<const TimelineOp> ops, int64_t resolution_ns,
                                   size_t components) {
  std::vector<TimelineRun> runs;
  RunWeights weights(components);
  for (const TimelineOp& op : ops) {
    if (!runs.empty()) {
      TimelineRun& run = runs.back();
      const bool close = op.start_ns - run.end_ns < resolution_ns;
      const bool narrow =
          run.end_ns - run.start_ns < resolution_ns || op.end_ns - op.start_ns < resolution_ns;
      if (close && (narrow || op.component == run.component)) {
        run.end_ns = std::max(run.end_ns, op.end_ns);
        ++run.ops;
        weights.Add(op);
        run.component = weights.Dominant();
        continue;
      }
    }
    weights.Reset();
    weights.Add(op);
    runs.push_back({op.start_ns, op.end_ns, op.component, 1});
  }
  return runs;
}

GapSelection SelectGaps(std::span<const TimelineOp> kernels, const std::vector<std::string>& names,
                        size_t keep) {
  struct Found {
    int64_t start_ns, end_ns;
    uint32_t before, after;
  };
  std::vector<Found> gaps;
  GapSelection out;
  int64_t frontier = 0;
  uint32_t frontier_name = 0;
  bool started = false;
  for (const TimelineOp& k : kernels) {
    if (started && k.start_ns > frontier) {
      gaps.push_back({frontier, k.start_ns, frontier_name, k.name});
      ++out.count;
      out.total_ns += k.start_ns - frontier;
    }
    if (!started || k.end_ns > frontier) {
      frontier = k.end_ns;
      frontier_name = k.name;
      started = true;
    }
  }
  const size_t kept = std::min(keep, gaps.size());
  std::partial_sort(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(kept), gaps.end(),
                    [](const Found& a, const Found& b) {
                      const int64_t la = a.end_ns - a.start_ns, lb = b.end_ns - b.start_ns;
                      return la != lb ? la > lb : a.start_ns < b.start_ns;
                    });
  for (size_t i = 0; i < kept; ++i) {
    out.longest.push_back(
        {gaps[i].start_ns, gaps[i].end_ns, names[gaps[i].before], names[gaps[i].after]});
  }
  return out;
}

int64_t UnionLength(std::span<const TimelineOp> intervals, int64_t low, int64_t high) {
  int64_t total = 0, open_start = 0, open_end = 0;
  bool open = false;
  for (const TimelineOp& i : intervals) {
    const int64_t start = std::max(i.start_ns, low), end = std::min(i.end_ns, high);
    if (end <= start) continue;
    if (open && start <= open_end) {
      open_end = std::max(open_end, end);
      continue;
    }
    if (open) total += open_end - open_start;
    open = true;
    open_start = start;
    open_end = end;
  }
  return open ? total + open_end - open_start : total;
}

TimelineSink::TimelineSink(const Classifier& classifier, size_t components, const StepRecord& step,
                           std::string role)
    : classifier_(classifier), components_(components) {
  timeline_.step = step.index;
  timeline_.step_name = step.name;
  timeline_.role = std::move(role);
  timeline_.start_ns = step.totals.first_start_ns;
  timeline_.end_ns =
      step.totals.operation_count == 0 ? step.totals.first_start_ns : step.totals.last_end_ns;
  timeline_.resolution_ns =
      std::max<int64_t>(1, (timeline_.end_ns - timeline_.start_ns) / kTimelineColumns);
}

void TimelineSink::Rebind(const StringPool& names) {
  if (bound_pool_ == &names) return;
  bound_pool_ = &names;
  name_index_.clear();
  component_.clear();
  lane_keys_.clear();
}

uint32_t TimelineSink::NameOf(NameId id, const StringPool& names) {
  if (id >= name_index_.size()) name_index_.resize(names.size(), -1);
  if (name_index_[id] < 0) {
    name_index_[id] = static_cast<int64_t>(names_.size());
    names_.emplace_back(names.Get(id));
  }
  return static_cast<uint32_t>(name_index_[id]);
}

int32_t TimelineSink::ComponentOf(const GpuOp& op, const StringPool& names) {
  if (op.kind != OpKind::kKernel) return kTimelineMemoryOp;
  if (op.name >= component_.size()) component_.resize(names.size(), -2);
  if (component_[op.name] == -2) component_[op.name] = classifier_.Classify(names.Get(op.name));
  return component_[op.name];
}

size_t TimelineSink::LaneOf(const GpuOp& op, const StringPool& names) {
  for (const LaneKey& key : lane_keys_) {
    if (key.device == op.device && key.pid == op.pid && key.stream == op.stream) return key.lane;
  }
  const std::string_view device = names.Get(op.device);
  size_t lane = lanes_.size();
  for (size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].device == device && lanes_[i].process == op.pid &&
        lanes_[i].stream == op.stream) {
      lane = i;
    }
  }
  if (lane == lanes_.size()) {
    size_t device_order = lanes_.size();
    for (size_t i = 0; i < lanes_.size(); ++i) {
      if (lanes_[i].device == device) {
        device_order = lanes_[i].device_order;
        break;
      }
    }
    lanes_.push_back({std::string(device), op.pid, op.stream, device_order, {}});
  }
  lane_keys_.push_back({op.device, op.pid, op.stream, lane});
  return lane;
}

Status TimelineSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  Rebind(names);
  for (const GpuOp& op : ops) {
    Lane& lane = lanes_[LaneOf(op, names)];
    lane.ops.push_back({op.start_ns, op.end_ns(), ComponentOf(op, names), NameOf(op.name, names)});
  }
  return Status::Ok();
}

Status TimelineSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) {
  for (const LaunchCall& call : calls)
    calls_.push_back({call.api_start_ns, call.api_end_ns(), 0, 0});
  return Status::Ok();
}

StepTimeline TimelineSink::Take(bool has_launches) {
  StepTimeline out = std::move(timeline_);
  std::stable_sort(lanes_.begin(), lanes_.end(), [](const Lane& a, const Lane& b) {
    return std::tie(a.device_order, a.process, a.stream) <
           std::tie(b.device_order, b.process, b.stream);
  });
  std::vector<TimelineOp> kernels;
  for (Lane& lane : lanes_) {
    std::sort(lane.ops.begin(), lane.ops.end(), ByStart);
    TimelineLane drawn{lane.device, lane.process, lane.stream, 0, 0, 0, {}};
    for (const TimelineOp& op : lane.ops) {
      if (op.component == kTimelineMemoryOp) {
        ++drawn.memory_op_count;
      } else {
        ++drawn.kernel_count;
        kernels.push_back(op);
      }
    }
    drawn.busy_ns = UnionLength(lane.ops, out.start_ns, out.end_ns);
    drawn.runs = MergeRuns(lane.ops, out.resolution_ns, components_);
    out.lanes.push_back(std::move(drawn));
    std::vector<TimelineOp>().swap(lane.ops);
  }
  std::sort(kernels.begin(), kernels.end(), ByStart);
  out.kernel_busy_ns = UnionLength(kernels, out.start_ns, out.end_ns);
  GapSelection gaps = SelectGaps(kernels, names_, kTimelineGaps);
  out.gap_count = gaps.count;
  out.gap_total_ns = gaps.total_ns;
  out.longest_gaps = std::move(gaps.longest);

  out.has_launches = has_launches;
  std::sort(calls_.begin(), calls_.end(), ByStart);
  out.launch_calls = static_cast<int64_t>(calls_.size());
  out.launch_union_ns = UnionLength(calls_, out.start_ns, out.end_ns);
  out.launch_outside_span_ns = UnionLength(calls_, std::numeric_limits<int64_t>::min(),
                                           std::numeric_limits<int64_t>::max()) -
                               out.launch_union_ns;
  std::vector<TimelineOp> clipped;
  for (const TimelineOp& call : calls_) {
    const int64_t start = std::max(call.start_ns, out.start_ns);
    const int64_t end = std::min(call.end_ns, out.end_ns);
    if (start < end) clipped.push_back({start, end, 0, 0});
  }
  // One colour: merging by closeness alone (the component test always passes).
  out.launch_runs = MergeRuns(clipped, out.resolution_ns, 1);
  return out;
}

namespace {

int64_t SpanOf(const StepRecord& step) {
  return step.totals.operation_count == 0 ? 0
                                          : step.totals.last_end_ns - step.totals.first_start_ns;
}

// The slowest steady step (warm-up and partial steps are expected to be slow); the slowest
// of all when none is steady. The first of equal spans.
int64_t SlowestStep(const StepsReport& report) {
  int64_t slowest = -1;
  for (const bool steady_only : {true, false}) {
    for (const StepRecord& step : report.steps) {
      if (steady_only && (step.warmup || (step.flags & kStepPartial))) continue;
      if (slowest < 0 || SpanOf(step) > SpanOf(report.steps[static_cast<size_t>(slowest)])) {
        slowest = step.index;
      }
    }
    if (slowest >= 0) break;
  }
  return slowest;
}

}  // namespace

Result<StepsReport> AnalyzeStepsWithTimelines(const StepsInputs& inputs, const Policy& policy,
                                              const StepsOptions& options,
                                              std::vector<StepTimeline>& timelines) {
  return AnalyzeStepsDrawing(inputs, policy, options, timelines, nullptr);
}

Result<StepsReport> AnalyzeStepsDrawing(const StepsInputs& inputs, const Policy& policy,
                                        const StepsOptions& options,
                                        std::vector<StepTimeline>& timelines,
                                        SummaryAlongside* summary, TraceReads* reads) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  const size_t components = policy.components.size() + 1;
  // The two steps are known once the steps' figures are (before the residue pass), so that
  // pass hands them their GPU operations and the replay reads only the launch side.
  std::vector<std::unique_ptr<TimelineSink>> sinks;
  std::vector<StepRoute> routes;
  auto choose = [&](const StepsReport& report) -> std::vector<StepRoute> {
    sinks.clear();  // called again when the residue pass starts over: fresh sinks
    routes.clear();
    std::vector<std::pair<int64_t, std::string>> chosen;
    if (report.median_step >= 0) chosen.emplace_back(report.median_step, "median step");
    const int64_t slowest = SlowestStep(report);
    if (slowest >= 0 && slowest != report.median_step) {
      const StepRecord& step = report.steps[static_cast<size_t>(slowest)];
      chosen.emplace_back(slowest, step.warmup || (step.flags & kStepPartial)
                                       ? "slowest step"
                                       : "slowest steady step");
    }
    for (const auto& [index, role] : chosen) {
      const StepRecord& step = report.steps[static_cast<size_t>(index)];
      if (step.totals.operation_count == 0) continue;
      sinks.push_back(std::make_unique<TimelineSink>(classifier, components, step, role));
      routes.push_back({static_cast<size_t>(index), sinks.back().get()});
    }
    return routes;
  };
  auto draw = [&](const StepsReport& report, const StepReplay& replay) -> Status {
    if (routes.empty()) return Status::Ok();
    RETURN_IF_ERROR(replay(routes).status());
    for (auto& sink : sinks) timelines.push_back(sink->Take(report.launch_trace.has_value()));
    return Status::Ok();
  };
  return AnalyzeStepsThen(inputs, policy, options, draw, choose, summary, nullptr, reads);
}

}  // namespace stepstat
