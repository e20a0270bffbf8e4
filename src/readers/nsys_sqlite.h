// Reader for `nsys export --type sqlite` files: kernels, memcpys and memsets from the
// CUPTI_ACTIVITY_KIND_* tables, and kernel-launch API calls from CUPTI_ACTIVITY_KIND_RUNTIME
// joined to their kernels the way nsys's cuda_kern_exec_trace report joins them.
#pragma once

#include <filesystem>
#include <string_view>

#include "stepstat/read.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Reads GPU ops (sorted by start) then launch calls (sorted by API start) into `sink`.
/// The database is opened read-only and immutable. GpuOp::line and LaunchCall::line carry the
/// row's rowid in its table. Memory: one small record per kernel (for the launch join).
Result<ReadReport> ReadNsysSqlite(const std::filesystem::path& path, std::string_view display_name,
                                  TraceSink& sink);

}  // namespace stepstat
