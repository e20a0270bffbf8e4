// A kernel summary (per-kernel-name totals, not a trace: no times of day, no launches), all
// that `stepstat classify` needs, read without knowing its format (today nsys stats
// cuda_gpu_kern_sum, csv/nsys_csv_kern_sum.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepstat/read.h"
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

/// Every row of a kernel-summary input, in file order; an error names the file, line and
/// column.
Result<std::vector<KernelSumRow>> ReadKernelSummary(const TraceInput& input);

}  // namespace stepstat
