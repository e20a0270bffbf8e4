// The step boundaries of a run without annotations, from its GPU operations: the kernel
// sequence with the idle time and host transfers before each kernel, fed to the streaming
// period detector. Memory is bounded by the detector's prefix when the GPU trace is sorted
// by start (as nsys writes it); an unsorted trace is read again, buffered and sorted.
#pragma once

#include <functional>

#include "analysis/steps/period/period_stream.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Detected steps must hold this many whole periods, else they are refused (`refused`).
inline constexpr size_t kMinWholeSteps = 3;

/// `read_gpu_ops` reads the GPU trace into the sink it is given (it may be called twice).
Result<DetectedSteps> DetectStepsByPeriod(const std::function<Status(TraceSink&)>& read_gpu_ops);

}  // namespace stepstat
