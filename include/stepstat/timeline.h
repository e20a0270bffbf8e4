// The timeline of one step, ready to draw: a lane per (device, process, stream) with the
// step's operations merged into runs no narrower than a drawing column, the CPU's launch
// calls as one lane, and the step's longest GPU idle gaps with the kernels around them.
// Its size is bounded by the drawing width, not by the step's operation count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepstat/policy.h"
#include "stepstat/status.h"
#include "stepstat/steps.h"

namespace stepstat {

/// The columns a timeline is drawn in: operations closer than span / kTimelineColumns are
/// merged into one run, so a lane holds at most about 2 x kTimelineColumns runs.
inline constexpr int64_t kTimelineColumns = 1000;
/// The longest gaps a timeline lists.
inline constexpr size_t kTimelineGaps = 5;
/// A run's component for memory operations (memcpy, memset), which no policy classifies.
inline constexpr int32_t kTimelineMemoryOp = -1;

/// Consecutive operations of one lane drawn as one shape: [start_ns, end_ns) covers them
/// all; `component` is the classifier index (policy order, `other` last) with the most
/// time among them, or kTimelineMemoryOp.
struct TimelineRun {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int32_t component = 0;
  int64_t ops = 0;
};

struct TimelineLane {
  std::string device;
  int64_t process = -1;  ///< -1 when the format does not say
  int64_t stream = -1;   ///< -1 when the format does not say
  int64_t kernel_count = 0;
  int64_t memory_op_count = 0;
  int64_t busy_ns = 0;            ///< the union of the lane's operations within the step's span
  std::vector<TimelineRun> runs;  ///< by start
};

/// A stretch of the step's span in which no kernel of the step ran on any lane.
struct TimelineGap {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string kernel_before;  ///< the kernel whose end opens the gap (the last to finish)
  std::string kernel_after;   ///< the kernel whose start closes it
};

struct StepTimeline {
  int64_t step = 0;  ///< StepRecord::index
  std::string step_name;
  std::string role;                 ///< "median step", "slowest steady step"
  int64_t start_ns = 0;             ///< the step's GPU span: its first operation's start
  int64_t end_ns = 0;               ///< and its last operation's end
  int64_t resolution_ns = 1;        ///< one drawing column: span / kTimelineColumns, at least 1
  std::vector<TimelineLane> lanes;  ///< by device (first seen), process, stream
  int64_t kernel_busy_ns = 0;       ///< the union of the step's kernels over all lanes
  int64_t gap_count = 0;            ///< gaps between the step's kernels (all lanes merged)
  int64_t gap_total_ns = 0;
  std::vector<TimelineGap> longest_gaps;  ///< at most kTimelineGaps: longest first, then earliest
  /// The CPU side: the union of the step's launch API calls, clipped to the span.
  int64_t launch_calls = 0;
  int64_t launch_union_ns = 0;           ///< within the span
  int64_t launch_outside_span_ns = 0;    ///< the union's part before or after the span
  std::vector<TimelineRun> launch_runs;  ///< component unused (0)
  bool has_launches = false;             ///< the inputs hold launch calls
};

/// AnalyzeSteps, plus the timelines of the median step and of the slowest steady step (the
/// slowest of all when none is steady; one timeline when it is the median step), from one
/// more read of the inputs that keeps only those two steps' operations.
Result<StepsReport> AnalyzeStepsWithTimelines(const StepsInputs& inputs, const Policy& policy,
                                              const StepsOptions& options,
                                              std::vector<StepTimeline>& timelines);

}  // namespace stepstat
