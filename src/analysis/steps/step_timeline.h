// Builds the StepTimeline (stepstat/timeline.h) of one step from a replay of that step's own
// launch calls and operations. It keeps the step's operations (24 bytes each) until Take():
// memory grows with the one step's size, never with the run's length.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stepstat/policy.h"
#include "stepstat/steps.h"
#include "stepstat/timeline.h"
#include "stepstat/trace.h"

namespace stepstat {

/// One operation of a lane: [start_ns, end_ns), its component (kTimelineMemoryOp for memory
/// operations) and its name's index in the builder's own name table.
struct TimelineOp {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int32_t component = 0;
  uint32_t name = 0;
};

/// `ops` sorted by start (one lane's) merged into runs: an operation joins the run before it
/// when it starts less than `resolution_ns` after the run's end and either has the run's
/// component or one of the two is narrower than `resolution_ns`. So every run is at least a
/// column wide or a column away from its neighbours: at most about 2 x span / resolution runs.
/// A run's component is the one with the most time in it (the lowest index on a tie).
/// `components` is the classifier's count (memory operations are counted apart).
std::vector<TimelineRun> MergeRuns(std::span<const TimelineOp> ops, int64_t resolution_ns,
                                   size_t components);

/// The gaps between `kernels` sorted by start (all lanes merged, as a union): the total count
/// and length, and the `keep` longest (longest first; equal lengths earliest first) with the
/// names (from `names`) of the kernel whose end opens each and the one whose start closes it.
struct GapSelection {
  int64_t count = 0;
  int64_t total_ns = 0;
  std::vector<TimelineGap> longest;
};
GapSelection SelectGaps(std::span<const TimelineOp> kernels, const std::vector<std::string>& names,
                        size_t keep);

/// The length of the union of `intervals` sorted by start, each clipped to [low, high).
int64_t UnionLength(std::span<const TimelineOp> intervals, int64_t low, int64_t high);

/// A sink for one step's replay (StepReplay): collects its operations by lane and its launch
/// calls; Take() turns them into the StepTimeline.
class TimelineSink : public TraceSink {
 public:
  TimelineSink(const Classifier& classifier, size_t components, const StepRecord& step,
               std::string role);

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;

  StepTimeline Take(bool has_launches);

 private:
  struct Lane {
    std::string device;
    int64_t process = -1;
    int64_t stream = -1;
    size_t device_order = 0;  // the first lane with this device
    std::vector<TimelineOp> ops;
  };
  // Caches for the names of the pool being read (ids are per pool).
  void Rebind(const StringPool& names);
  size_t LaneOf(const GpuOp& op, const StringPool& names);
  uint32_t NameOf(NameId id, const StringPool& names);
  int32_t ComponentOf(const GpuOp& op, const StringPool& names);

  const Classifier& classifier_;
  size_t components_;
  StepTimeline timeline_;
  std::vector<Lane> lanes_;
  std::vector<std::string> names_;
  std::vector<TimelineOp> calls_;  // [api start, api end)
  const StringPool* bound_pool_ = nullptr;
  std::vector<int64_t> name_index_;  // by NameId: index in names_, -1 unseen
  std::vector<int32_t> component_;   // by NameId: classifier index, -2 unseen
  struct LaneKey {
    NameId device;
    int32_t pid;
    int64_t stream;
    size_t lane;
  };
  std::vector<LaneKey> lane_keys_;
};

}  // namespace stepstat
