// Readers of nsys stats CSV reports: cuda_gpu_trace (gputrace) → GpuOp, cuda_kern_exec_trace
// and cuda_api_trace → LaunchCall. Each pushes batches into the sink; a sink error stops
// reading and is returned.
#pragma once

#include <string_view>

#include "io/byte_source.h"
#include "stepstat/read.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Rows per batch handed to the sink.
inline constexpr size_t kReaderBatchRows = 4096;

Result<ReadReport> ReadNsysGpuTrace(ByteSource& source, std::string_view display_name,
                                    TraceSink& sink);
Result<ReadReport> ReadNsysKernExecTrace(ByteSource& source, std::string_view display_name,
                                         TraceSink& sink);
Result<ReadReport> ReadNsysApiTrace(ByteSource& source, std::string_view display_name,
                                    TraceSink& sink);

}  // namespace stepstat
