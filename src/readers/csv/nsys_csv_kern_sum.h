// nsys stats cuda_gpu_kern_sum: per-kernel-name totals. Not a trace (no times of day, no
// launches), but all that `stepstat classify` needs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.h"
#include "readers/kernel_summary.h"
#include "stepstat/status.h"

namespace stepstat {

/// Every row of the report, in file order. Columns by name and unit (Total Time, Instances,
/// Avg, Med, Min, Max, Name); an error names the file, line and column.
Result<std::vector<KernelSumRow>> ReadNsysGpuKernSum(ByteSource& source,
                                                     std::string_view display_name);

}  // namespace stepstat
