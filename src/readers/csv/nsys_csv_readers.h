// Readers of nsys stats CSV reports: cuda_gpu_trace (gputrace) → GpuOp, cuda_kern_exec_trace
// and cuda_api_trace → LaunchCall. Each pushes batches into the sink; a sink error stops
// reading and is returned.
#pragma once

#include <cstdint>
#include <string_view>

#include "io/byte_source.h"
#include "stepstat/read.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Rows per batch handed to the sink.
inline constexpr size_t kReaderBatchRows = 4096;

/// How the cuda_gpu_trace and cuda_kern_exec_trace readers read rows: `fast` walks each
/// plain row once (FastRowPlan) and reads any other row by the checked path; otherwise every
/// row takes the checked path. Tests compare the two; `fast_rows`, when given, counts the
/// rows the fast walk read.
struct CsvRowWalk {
  bool fast = true;
  int64_t* fast_rows = nullptr;
};

Result<ReadReport> ReadNsysGpuTrace(ByteSource& source, std::string_view display_name,
                                    TraceSink& sink, CsvRowWalk walk = {});
Result<ReadReport> ReadNsysKernExecTrace(ByteSource& source, std::string_view display_name,
                                         TraceSink& sink, CsvRowWalk walk = {});
Result<ReadReport> ReadNsysApiTrace(ByteSource& source, std::string_view display_name,
                                    TraceSink& sink);

}  // namespace stepstat
