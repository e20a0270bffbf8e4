// Reader for `nsys export --type sqlite` files: kernels, memcpys and memsets from the
// CUPTI_ACTIVITY_KIND_* tables, and kernel-launch API calls from CUPTI_ACTIVITY_KIND_RUNTIME
// joined to their kernels the way nsys's cuda_kern_exec_trace report joins them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "readers/read_sides.h"
#include "stepstat/read.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Reads GPU ops (sorted by start) then launch calls (sorted by API start) into `sink`.
/// The database is opened read-only and immutable. GpuOp::line and LaunchCall::line carry the
/// row's rowid in its table. Memory: one small record per kernel (for the launch join).
Result<ReadReport> ReadNsysSqlite(const std::filesystem::path& path, std::string_view display_name,
                                  TraceSink& sink);

/// The GPU half of ReadNsysSqlite (GPU ops, then NVTX ranges), without the per-kernel
/// records of the launch join: for a caller that reads the launch half on another thread.
/// Memory does not grow with the trace.
Result<ReadReport> ReadNsysSqliteGpuSide(const std::filesystem::path& path,
                                         std::string_view display_name, TraceSink& sink,
                                         TableScan scan = TableScan::kChecked);

/// The launch half of ReadNsysSqlite on its own connection: the same joined launch calls
/// (one per launched kernel) in API start order, merge-joined in correlation-id order per
/// process so that memory does not grow with the trace. Calls whose correlation order strays
/// far from their start order reach `sink` out of order (a sorted-input sink then says so).
/// ReadReport::rows counts the joinable launch calls read.
Result<ReadReport> ReadNsysSqliteLaunchSide(const std::filesystem::path& path,
                                            std::string_view display_name, TraceSink& sink,
                                            TableScan scan = TableScan::kChecked);

/// How many distinct devices and processes the first `rows` kernels of the export ran on
/// (0 for a column the export lacks): a bounded look, for saying that a file holds several.
struct KernelPlaces {
  int64_t devices = 0;
  int64_t processes = 0;
  /// The sampled kernels' devices as the reader names them ("NVIDIA GB10 (0)": the name
  /// TARGET_INFO_GPU gives the id), by id; at most 64.
  std::vector<std::string> device_names;
};
Result<KernelPlaces> SampleNsysSqliteKernelPlaces(const std::filesystem::path& path,
                                                  std::string_view display_name, int64_t rows);

}  // namespace stepstat
