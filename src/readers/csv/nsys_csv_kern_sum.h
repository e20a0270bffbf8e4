// nsys stats cuda_gpu_kern_sum: per-kernel-name totals. Not a trace (no times of day, no
// launches), but all that `stepstat classify` needs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.h"
#include "stepstat/status.h"

namespace stepstat {

struct KernelSumRow {
  std::string name;
  int64_t instances = 0;
  int64_t total_ns = 0;
  double mean_ns = 0.0;    ///< as printed (nsys rounds it to 0.1 ns)
  double median_ns = 0.0;  ///< as printed
  int64_t min_ns = 0;
  int64_t max_ns = 0;
};

/// Every row of the report, in file order. Columns by name and unit (Total Time, Instances,
/// Avg, Med, Min, Max, Name); an error names the file, line and column.
Result<std::vector<KernelSumRow>> ReadNsysGpuKernSum(ByteSource& source,
                                                     std::string_view display_name);

}  // namespace stepstat
