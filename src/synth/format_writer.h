// The output formats of `stepstat synth`. The generator (synth.cc) produces one step at a
// time; a FormatWriter turns each step into rows of its files, so every format of one run
// holds the same operations, launches and step ranges.
#pragma once

#include <cstdint>
#include <memory>

#include "stepstat/status.h"
#include "stepstat/synth.h"
#include "synth/step_plan.h"
#include "synth/step_timeline.h"

namespace stepstat::synth {

class FormatWriter {
 public:
  virtual ~FormatWriter() = default;
  /// The step's GPU operations and kernel-launch calls.
  virtual Status AppendStep(const StepRows& rows) = 0;
  /// One step's CPU range (--nvtx only), in step order, each after its step's rows.
  virtual Status AppendStepRange(int64_t step, int64_t start_ns, int64_t end_ns) = 0;
  /// Completes the files and renames them into place; sets the paths and `bytes` of `result`.
  /// Without Commit(), destruction removes everything written.
  virtual Status Commit(SynthResult& result) = 0;
};

/// The nsys CSV pair (+ nvtx_pushpop_trace with --nvtx). `plan` must outlive the writer.
Result<std::unique_ptr<FormatWriter>> OpenCsvWriter(const StepPlan& plan,
                                                    const SynthOptions& options);
/// <base>.sqlite shaped like `nsys export --type sqlite`. `plan` must outlive the writer.
Result<std::unique_ptr<FormatWriter>> OpenSqliteWriter(const StepPlan& plan,
                                                       const SynthOptions& options);
/// <base>.pt.trace.json shaped like a PyTorch profiler (Kineto) trace.
Result<std::unique_ptr<FormatWriter>> OpenKinetoWriter(const StepPlan& plan,
                                                       const SynthOptions& options);

}  // namespace stepstat::synth
