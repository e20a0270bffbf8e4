// Writes generated steps as the two nsys CSV reports: `cuda_gpu_trace` (2024+ header, rows
// by start time) and `cuda_kern_exec_trace` (rows by API start), plus nvtx_pushpop_trace.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepstat/status.h"
#include "synth/step_plan.h"
#include "synth/step_timeline.h"
#include "synth/text_out.h"

namespace stepstat::synth {

/// Renders steps of one plan; holds the CSV-quoted names so each is escaped once.
class TraceWriter {
 public:
  explicit TraceWriter(const StepPlan& plan);
  static void GpuTraceHeader(TextOut& out);
  static void KernExecHeader(TextOut& out);
  /// Appends the step's kernels and memory operations, sorted by start.
  Status AppendGpuTrace(const StepRows& rows, TextOut& out);
  /// Appends one row per launch, in launch (API start) order.
  Status AppendKernExec(const StepRows& rows, TextOut& out);
  /// nvtx_pushpop_trace: one "denoise_step" range per step on the launching thread.
  static void NvtxHeader(TextOut& out);
  static Status AppendNvtxStep(int64_t step, int64_t start_ns, int64_t end_ns, TextOut& out);

 private:
  const StepPlan& plan_;
  std::string device_;                               ///< the Device column: "<name> (<id>)"
  std::vector<std::string> quoted_names_;            ///< per Kind
  std::vector<std::pair<int64_t, uint32_t>> order_;  ///< reused: (start, row) for sorting
};

/// `field` as an RFC 4180 CSV field: quoted when it holds a comma, quote or line break.
std::string CsvField(std::string_view field);

}  // namespace stepstat::synth
