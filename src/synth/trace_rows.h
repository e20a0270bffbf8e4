// What every output format of a generated run agrees on: the process, device and stream
// identities nsys would report, and the start order of a step's GPU operations.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "synth/step_timeline.h"

namespace stepstat::synth {

inline constexpr std::string_view kDeviceName = "NVIDIA GB10";
inline constexpr int64_t kDeviceId = 0;
inline constexpr int64_t kContextId = 1;
/// The profiled Python process; it launches everything from its main thread (same id).
inline constexpr int64_t kProcessId = 70'412;
/// The text of each step's NVTX range (--nvtx).
inline constexpr std::string_view kStepRangeName = "denoise_step";

/// nsys numbers PyTorch's default stream 7 and streams created later from 13 on.
inline int64_t StreamId(uint32_t stream) { return stream == 0 ? 7 : 12 + stream; }

/// The step's GPU operations by start, ties in row order, as (start, index): an index below
/// rows.kernels.size() is a kernel, any other is rows.memops[index - kernels.size()].
/// `order` is overwritten (its buffer is reused).
void OrderGpuOpsByStart(const StepRows& rows, std::vector<std::pair<int64_t, uint32_t>>& order);

}  // namespace stepstat::synth
