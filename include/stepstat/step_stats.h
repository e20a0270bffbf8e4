// The step summary of ../shared/spec/step-stats.md as plain structs, and the analysis that
// fills them from a trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepstat {

struct LaunchGaps {
  int64_t positive_gap_count = 0;
  int64_t total_ns = 0;
  double average_ns = 0.0;
  int64_t maximum_ns = 0;
};

struct CpuGpuOverlap {
  int64_t launch_api_union_ns = 0;
  int64_t launch_api_gpu_overlap_ns = 0;
  double launch_api_overlap_percent = 0.0;
};

struct ComponentStats {
  std::string name;
  std::string description;
  int64_t time_ns = 0;
  double milliseconds = 0.0;
  double percent_of_kernel_time = 0.0;
  int64_t launches = 0;
};

inline constexpr const char* kCpuGpuOverlapScope =
    "CUDA kernel-launch API intervals intersected with GPU kernel intervals";

struct StepStats {
  std::string source_gpu_trace;
  std::optional<std::string> source_kernel_exec_trace;
  int64_t gpu_span_ns = 0;
  int64_t gpu_operation_count = 0;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  double kernel_busy_percent_of_span = 0.0;
  LaunchGaps launch_gaps;
  std::optional<CpuGpuOverlap> cpu_gpu_overlap;  ///< null without launch calls
  std::vector<ComponentStats> components;        ///< policy order, `other` last
};

}  // namespace stepstat

#include <filesystem>

#include "stepstat/policy.h"
#include "stepstat/read.h"
#include "stepstat/status.h"

namespace stepstat {

/// The files behind one summary: the GPU operations and, optionally, a separate launch
/// source (kern-exec or api trace). SQLite and Kineto files hold both on their own.
struct SummaryInputs {
  TraceInput gpu;
  std::optional<TraceInput> launches;
  /// When not empty: summarize only this device ("NVIDIA GB10 (0)", as the trace names it):
  /// its GPU operations and the launch calls of its kernels, as if the trace held it alone.
  /// Only the whole-trace summary (Summarize, SummarizeWithDetails) applies it.
  std::string device;
};

/// Resolves INPUT arguments: trace files (kind detected from content) or nsys output bases
/// (`<base>` for `<base>_cuda_gpu_trace.csv` and, if present, `<base>_cuda_kern_exec_trace.csv`).
Result<SummaryInputs> ResolveInputs(const std::vector<std::string>& args);

/// Reads the inputs (two files on two threads) and computes the summary under `policy`.
Result<StepStats> Summarize(const SummaryInputs& inputs, const Policy& policy);

/// The devices the GPU side names (SummaryInputs::device's spelling), each once, in order of
/// first appearance; one pass over the GPU operations. A format without device names gives
/// one empty name.
Result<std::vector<std::string>> ListDevices(const SummaryInputs& inputs);

}  // namespace stepstat
