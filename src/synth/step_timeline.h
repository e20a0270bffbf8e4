// One step on the clock: random draws for every duration, gap and CPU delay of a step, and the
// simulation that turns them into GPU intervals and launch-API intervals.
//
// The launch model: one CPU thread launches in plan order. Each launch call costs call_ns;
// between calls the host spends host_ns (in the blocks scaled by host_pace_permille). The
// launch queue holds queue_depth launches, so launch i cannot return before kernel
// i - queue_depth has finished (plus wake_ns): once the CPU runs far enough ahead, every call
// blocks inside some kernel. A kernel starts after the previous work on its stream (plus its
// gap) and after its launch reached the GPU (API end + queue_latency_ns); with several
// streams, side-stream work may start as soon as the kernel launched before it has started,
// so it overlaps that kernel. Before the plan's host-pause kernel the host is busy elsewhere:
// that kernel's launch is timed so it arrives exactly when the pause gap has passed.
#pragma once

#include <cstdint>
#include <vector>

#include "stepstat/status.h"
#include "synth/prng.h"
#include "synth/step_plan.h"

namespace stepstat::synth {

/// GPU timestamps on a GB10 tick in 32 ns steps.
inline constexpr int64_t kGpuTickNs = 32;

struct StepDraw {
  std::vector<int64_t> kernel_ns;         ///< per planned kernel
  std::vector<int64_t> gap_ns;            ///< idle time on its stream before each kernel
  std::vector<int64_t> host_ns;           ///< host time before each launch call
  std::vector<int64_t> call_ns;           ///< launch call cost when it does not block
  std::vector<int64_t> wake_ns;           ///< delay from a freed queue slot to the call's return
  std::vector<int64_t> queue_latency_ns;  ///< launch → earliest kernel start
  std::vector<int64_t> memop_ns;          ///< per planned memop
  std::vector<int64_t>
      memop_gap_ns;  ///< before each memop (the first pause/after ones: from the last kernel)
  int64_t first_launch_offset_ns = 0;  ///< first launch call start minus first GPU op start
  int64_t extra_correlation_ids = 0;   ///< seed for the CorrId skips of other API calls
};

/// Draws a step. `pace_permille` scales every GPU duration (1000: the reference pace) so
/// consecutive steps differ a little.
StepDraw DrawStep(const StepPlan& plan, Prng& prng, int64_t pace_permille);

struct KernelRow {
  int64_t start = 0;
  int64_t duration = 0;
  int64_t api_start = 0;
  int64_t api_duration = 0;
  int64_t correlation_id = 0;
  uint32_t plan_index = 0;
  uint32_t stream = 0;  ///< 0 = the main stream
};

struct MemopRow {
  int64_t start = 0;
  int64_t duration = 0;
  int64_t correlation_id = 0;
  uint32_t plan_index = 0;  ///< into StepPlan::memops
  uint32_t stream = 0;
};

struct StepRows {
  std::vector<KernelRow> kernels;  ///< in launch order
  std::vector<MemopRow> memops;    ///< in plan order
  int64_t end_ns = 0;              ///< end of the step's last GPU operation
  int64_t next_correlation_id = 0;
  int64_t gpu_waits_for_cpu = 0;  ///< kernels (not the host-pause one) that waited for their launch
};

struct TimelineParams {
  int64_t gpu_origin_ns = 0;  ///< start of the step's first memory operation
  int64_t queue_depth = 1024;
  int64_t host_pace_permille = 1000;  ///< scales host time between launches in the blocks
  int streams = 1;
  int64_t first_correlation_id = 1;
};

/// Lays the step out on the clock; `rows` is overwritten (its buffers are reused). Fails when
/// the draws cannot make a consistent step (a host-pause launch before its predecessor).
Status SimulateStep(const StepPlan& plan, const StepDraw& draw, const TimelineParams& params,
                    StepRows& rows);

/// Rounds up to the GPU tick.
inline int64_t RoundToTick(int64_t ns) { return (ns + kGpuTickNs - 1) / kGpuTickNs * kGpuTickNs; }

}  // namespace stepstat::synth
