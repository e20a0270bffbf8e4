// `summarize --details`: what the reference summary leaves out, as plain structs. Every
// percentage names its denominator in its field name; sums and unions are separate fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stepstat/status.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// Gaps between a set of kernels, walked as the spec's launch_gaps (frontier walk).
struct GapStats {
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t maximum_ns = 0;
};

/// Kernels on one (device, stream).
struct StreamDetails {
  int64_t stream = -1;   ///< -1 when the format does not say
  int64_t process = -1;  ///< the process the stream belongs to; -1 when the format does not say
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;   ///< sum of durations
  int64_t kernel_union_ns = 0;  ///< length of the union of the kernels' intervals
  GapStats gaps;
  int64_t overlapping_kernels = 0;  ///< kernels starting before the stream's previous kernels ended
};

/// Kernels on one device. With the trace's span [span_start, span_end):
/// kernel_union_ns + gaps.total_ns + idle_before_first_kernel_ns + idle_after_last_kernel_ns
/// == the span (when the device has kernels).
struct DeviceDetails {
  std::string device;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  int64_t kernel_union_ns = 0;
  double kernel_union_percent_of_span = 0.0;
  GapStats gaps;
  int64_t idle_before_first_kernel_ns = 0;  ///< from the span's start (any op) to the first kernel
  int64_t idle_after_last_kernel_ns = 0;    ///< from the last kernel's end to the span's end
  std::vector<StreamDetails> streams;       ///< by stream number
};

/// Memory operations of one kind ("memcpy HtoD", "memset", ...).
struct MemoryOpDetails {
  std::string kind;
  int64_t count = 0;
  int64_t time_ns = 0;
  int64_t bytes = 0;               ///< sum over the operations whose size is known
  int64_t unknown_size_count = 0;  ///< operations without a size
};

/// One distinct kernel name.
struct KernelDetails {
  std::string name;
  std::string component;
  int64_t launches = 0;
  int64_t total_ns = 0;
  double mean_ns = 0.0;
  int64_t max_ns = 0;
  /// Filled by ListKernels only (`classify`): the details pass keeps no per-launch durations.
  int64_t min_ns = 0;
  double median_ns = 0.0;  ///< the mean of the two middle durations for an even count
  /// Filled by ListKernels only: every launch's duration as (duration ns, launches) runs,
  /// shortest first; what `diff` compares per call between two captures.
  std::vector<std::pair<int64_t, int64_t>> duration_runs{};
};

/// Percentiles of a duration distribution kept in a log-linear histogram (see `precision`).
struct DurationPercentiles {
  int64_t count = 0;
  int64_t p50_ns = 0;
  int64_t p90_ns = 0;
  int64_t p99_ns = 0;
  int64_t max_ns = 0;  ///< exact
};

struct ApiCount {
  std::string api;
  int64_t count = 0;
};

/// The CPU side: how long launch calls take and how long kernels wait in the queue.
struct LaunchPathDetails {
  int64_t launch_rows = 0;
  std::string percentile_precision;
  DurationPercentiles api_duration;
  DurationPercentiles queue_time;  ///< from the API call's end to the kernel's start
  /// The queue times in powers of two, exact: [0] zero, [k] in [2^(k-1), 2^k) ns (the
  /// histogram behind the percentiles, summed; not in the JSON).
  std::vector<int64_t> queue_time_log2_counts;
  std::vector<ApiCount> by_api;    ///< rows per launch API name, most first
  int64_t graph_launch_calls = 0;  ///< CUDA-graph launches: one API call, many kernels
  int64_t graph_launched_kernels = 0;
};

struct ClassificationCoverage {
  int64_t classified_time_ns = 0;  ///< kernel time outside `other`
  double classified_percent_of_kernel_time = 0.0;
  int64_t other_time_ns = 0;
  int64_t other_names = 0;               ///< distinct kernel names in `other`
  std::vector<KernelDetails> top_other;  ///< by time, at most kTopOtherNames
};

/// What a reader saw in one input file.
struct InputDetails {
  std::string file;
  std::string kind;
  std::string layout;
  std::string time_unit;
  int64_t rows = 0;
  int64_t time_resolution_ns = 0;  ///< the step start times move in (1000: µs); 0 unknown
};

struct DataQuality {
  std::vector<InputDetails> inputs;
  int64_t memory_operations = 0;
  int64_t zero_duration_kernels = 0;
  int64_t kernels_overlapping_on_their_stream = 0;
  /// Launch rows whose (kernel start, kernel duration) matches no GPU-trace kernel; null
  /// without launch rows that carry a kernel side.
  std::optional<int64_t> launches_without_gpu_kernel;
  int64_t devices = 0;    ///< GPUs the GPU operations ran on
  int64_t processes = 0;  ///< processes they belong to; 0 when the format does not say
  /// One line per caveat on the figures above (several GPUs in one file, coarse timestamps).
  std::vector<std::string> notes;
};

inline constexpr size_t kTopKernels = 20;
inline constexpr size_t kTopOtherNames = 10;

struct Details {
  int64_t span_ns = 0;
  int64_t kernel_time_ns = 0;   ///< sum, as kernel_time_ns in the summary
  int64_t kernel_union_ns = 0;  ///< whole trace, all devices and streams merged
  double kernel_union_percent_of_span = 0.0;
  std::vector<DeviceDetails> devices;              ///< in order of first appearance
  std::vector<MemoryOpDetails> memory_operations;  ///< by kind name
  std::vector<KernelDetails> top_kernels;          ///< by total time, at most kTopKernels
  ClassificationCoverage coverage;
  std::optional<LaunchPathDetails> launch_path;  ///< null without launch rows
  DataQuality data_quality;
};

/// Summarize (step_stats.h) that also fills `details`, in the same pass over the inputs.
Result<StepStats> SummarizeWithDetails(const SummaryInputs& inputs, const Policy& policy,
                                       Details& details);

/// Every distinct kernel name of the GPU side of `inputs` with its component under
/// `policy`, launches and times, by total time (most first). For writing policies.
Result<std::vector<KernelDetails>> ListKernels(const SummaryInputs& inputs, const Policy& policy);

/// Nsight's distribution columns of one kernel name (cuda_gpu_kern_sum's Min, Med, StdDev).
struct KernelSpread {
  std::string name;
  int64_t min_ns = 0;
  double median_ns = 0.0;  ///< the mean of the two middle durations for an even count
  double stddev_ns = 0.0;  ///< sample standard deviation (n - 1), 0 for a single launch
};

/// The exact spreads of `names` (in the order the trace first shows them; names it lacks are
/// left out), from one read of the GPU side that keeps the durations of those names alone:
/// memory grows with their distinct durations (at most 16 bytes a launch), not with the
/// rest of the trace. For the page's top kernels (a few dozen names).
Result<std::vector<KernelSpread>> KernelSpreadsOf(const SummaryInputs& inputs,
                                                  const std::vector<std::string>& names);

/// ListKernels without each name's minimum and median (left 0): its memory grows with the
/// distinct names, not with the launches, so a summary can afford it on any trace.
Result<std::vector<KernelDetails>> ListKernelTotals(const SummaryInputs& inputs,
                                                    const Policy& policy);

/// The same from an nsys cuda_gpu_kern_sum report (`input.kind` kNsysGpuKernSumCsv), whose
/// rows already hold each name's instances, total, average, median, minimum and maximum.
Result<std::vector<KernelDetails>> ListKernelsOfSummary(const TraceInput& input,
                                                        const Policy& policy);

}  // namespace stepstat
