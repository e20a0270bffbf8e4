#include "synth/reference_fit.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "synth/step_figures.h"

namespace stepstat::synth {
namespace {

// The queue depths tried: the CUDA launch queue holds on the order of a thousand launches.
constexpr int64_t kMinQueueDepth = 960;
constexpr int64_t kMaxQueueDepth = 1100;
constexpr int64_t kMinHostPace = 250;
constexpr int64_t kMaxHostPace = 4000;
constexpr int64_t kMinKernelNs = 1'024;
constexpr int64_t kMinGapNs = 64;

// Scales values[i] for i in `indices` (all tick multiples) so they sum to `target` exactly.
Status ScaleToTotal(std::vector<int64_t>& values, const std::vector<size_t>& indices,
                    int64_t target, int64_t minimum, std::string_view what) {
  if (indices.empty() || target % kGpuTickNs != 0) {
    return Status::Error("synth: cannot fit " + std::string(what));
  }
  __int128 sum = 0;
  for (size_t i : indices) sum += values[i];
  int64_t total = 0;
  for (size_t i : indices) {
    __int128 scaled = values[i] * static_cast<__int128>(target) / sum;
    values[i] = std::max(minimum, static_cast<int64_t>(scaled) / kGpuTickNs * kGpuTickNs);
    total += values[i];
  }
  // Hand out the rounding residual one tick at a time, cycling through the values.
  int64_t residual = target - total;
  for (size_t k = 0; residual != 0; k = (k + 1) % indices.size()) {
    int64_t& value = values[indices[k]];
    if (residual > 0) {
      value += kGpuTickNs;
      residual -= kGpuTickNs;
    } else if (value - kGpuTickNs >= minimum) {
      value -= kGpuTickNs;
      residual += kGpuTickNs;
    }
  }
  return Status::Ok();
}

Status FitGpuSide(const StepPlan& plan, StepDraw& draw, const StepFigures& want) {
  const size_t n = plan.kernels.size();
  for (int c = 0; c < kComponentCount; ++c) {
    std::vector<size_t> members;
    for (size_t i = 0; i < n; ++i) {
      if (static_cast<int>(KindInfo(plan.kernels[i].kind).component) == c) members.push_back(i);
    }
    RETURN_IF_ERROR(ScaleToTotal(draw.kernel_ns, members, want.component_ns[c], kMinKernelNs,
                                 ComponentName(static_cast<Component>(c))));
  }
  // The host pause is the one long gap; every other kernel follows its predecessor closely.
  std::vector<size_t> ordinary_gaps;
  for (size_t i = 1; i < n; ++i) {
    if (i != plan.host_pause_kernel) ordinary_gaps.push_back(i);
  }
  draw.gap_ns[plan.host_pause_kernel] = want.gap_max_ns;
  RETURN_IF_ERROR(ScaleToTotal(draw.gap_ns, ordinary_gaps, want.gap_total_ns - want.gap_max_ns,
                               kMinGapNs, "the launch gaps"));
  for (size_t i : ordinary_gaps) {
    if (draw.gap_ns[i] >= want.gap_max_ns) return Status::Error("synth: an ordinary gap too long");
  }
  // The span beyond kernels and gaps is memory traffic before the first and after the last
  // kernel; the final read-back absorbs the difference.
  int64_t outside = draw.gap_ns[0];
  for (size_t m = 0; m < plan.memops.size(); ++m) {
    if (plan.memops[m].phase != MemopPhase::kHostPause) {
      outside += draw.memop_gap_ns[m] + draw.memop_ns[m];
    }
  }
  int64_t want_outside = want.span_ns - want.kernel_time_ns - want.gap_total_ns;
  int64_t& last = draw.memop_ns.back();
  if (plan.memops.back().phase != MemopPhase::kAfterKernels ||
      last + want_outside - outside < last / 2) {
    return Status::Error("synth: the memory traffic around the kernels cannot fill the span");
  }
  last += want_outside - outside;
  return Status::Ok();
}

// The last kernel that starts at or before t (kernels in one stream are in time order).
const KernelRow* KernelAt(const StepRows& rows, int64_t t) {
  auto it = std::upper_bound(rows.kernels.begin(), rows.kernels.end(), t,
                             [](int64_t value, const KernelRow& row) { return value < row.start; });
  if (it == rows.kernels.begin()) return nullptr;
  return &*(it - 1);
}

// A blocked call whose first `hiccup` ns lie inside one kernel: starting it later by that
// much removes the same length from the union and from its overlap.
std::optional<size_t> FindHiccupCall(const StepDraw& draw, const StepRows& rows, int64_t hiccup) {
  for (size_t j = 1; j < rows.kernels.size(); ++j) {
    const KernelRow& call = rows.kernels[j];
    if (call.api_duration - draw.call_ns[j] <= hiccup + 1'000) continue;
    const KernelRow* under = KernelAt(rows, call.api_start);
    if (under != nullptr && call.api_start + hiccup < under->start + under->duration) return j;
  }
  return std::nullopt;
}

}  // namespace

Status FitReferenceStep(const StepPlan& plan, StepDraw& draw, TimelineParams& params,
                        StepRows& rows, FitReport* report) {
  const StepFigures want = ReferenceFigures();
  if (plan.kernels.size() != static_cast<size_t>(want.kernel_count) ||
      plan.kernels.size() + plan.memops.size() != static_cast<size_t>(want.op_count) ||
      plan.host_pause_kernel == 0 || params.streams != 1) {
    return Status::Error("synth: the step plan does not have the reference's shape");
  }
  RETURN_IF_ERROR(FitGpuSide(plan, draw, want));

  // The launch-API union ends where the last launch returns, kernel n-1-depth later, so
  // each queue depth puts it near the target in jumps of one kernel (attention: 250 ms).
  // Take the depth that lands closest, then tune the host pace, which moves the union
  // smoothly: more host time between blocked launches is less time blocked in them.
  const int64_t want_outside_kernels = want.api_union_ns - want.api_overlap_ns;
  auto overshoot = [&](int64_t depth, int64_t pace) -> Result<int64_t> {
    params.queue_depth = depth;
    params.host_pace_permille = pace;
    RETURN_IF_ERROR(SimulateStep(plan, draw, params, rows));
    if (rows.gpu_waits_for_cpu != 0) return Status::Error("gpu waits");
    return MeasureStep(plan, rows).api_overlap_ns - want.api_overlap_ns;
  };
  int64_t depth = 0;
  int64_t closest = INT64_MAX;
  for (int64_t d = kMinQueueDepth; d <= kMaxQueueDepth; ++d) {
    Result<int64_t> over = overshoot(d, 1000);
    if (over.ok() && std::abs(*over) < closest) {
      closest = std::abs(*over);
      depth = d;
    }
  }
  if (depth == 0) return Status::Error("synth: the GPU waits for launches at every queue depth");
  // The overshoot falls as the pace rises: find the slowest pace that still overshoots.
  int64_t low = kMinHostPace;   // overshoot >= 0 here
  int64_t high = kMaxHostPace;  // overshoot < 0 here
  Result<int64_t> at_low = overshoot(depth, low);
  Result<int64_t> at_high = overshoot(depth, high);
  if (!at_low.ok() || !at_high.ok() || *at_low < 0 || *at_high >= 0) {
    return Status::Error("synth: the host pace cannot bring the launch overlap to the reference");
  }
  while (high - low > 1) {
    int64_t mid = (low + high) / 2;
    Result<int64_t> over = overshoot(depth, mid);
    if (over.ok() && *over >= 0) {
      low = mid;
    } else {
      high = mid;
    }
  }
  // `rows` now hold the step at that pace; two launch calls absorb what is left.
  ASSIGN_OR_RETURN(int64_t hiccup, overshoot(depth, low));
  StepFigures got = MeasureStep(plan, rows);
  FitReport fit{depth, low, want_outside_kernels - (got.api_union_ns - got.api_overlap_ns), hiccup,
                0};
  std::optional<size_t> hiccup_launch = FindHiccupCall(draw, rows, hiccup);
  if (fit.pause_call_extension_ns < 0 || !hiccup_launch) {
    return Status::Error("synth: the launch calls cannot be trimmed to the reference overlap");
  }
  fit.host_hiccup_launch = *hiccup_launch;

  // The host-pause launch ends just before block 0 starts, in the one long idle gap: starting
  // it earlier adds launch time outside kernels only, as long as it stays in that gap.
  KernelRow& pause_call = rows.kernels[plan.host_pause_kernel];
  const KernelRow& before_pause = rows.kernels[plan.host_pause_kernel - 1];
  int64_t stretched_start = pause_call.api_start - fit.pause_call_extension_ns;
  if (stretched_start < before_pause.start + before_pause.duration ||
      stretched_start < before_pause.api_start + before_pause.api_duration) {
    return Status::Error("synth: the host pause is too short for the reference's launch time");
  }
  pause_call.api_start = stretched_start;
  pause_call.api_duration += fit.pause_call_extension_ns;
  KernelRow& hiccup_call = rows.kernels[fit.host_hiccup_launch];
  hiccup_call.api_start += fit.host_hiccup_ns;
  hiccup_call.api_duration -= fit.host_hiccup_ns;

  std::string differences = DescribeDifferences(MeasureStep(plan, rows), want);
  if (!differences.empty()) {
    return Status::Error("synth: the fitted step misses the reference: " + differences);
  }
  if (report != nullptr) *report = fit;
  return Status::Ok();
}

}  // namespace stepstat::synth
