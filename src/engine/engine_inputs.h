// RunOptions' inputs → the files (or bytes) of one run, in their roles; the refusal of an
// output that is one of them; how results describe them. What every Run* call does first.
#pragma once

#include <filesystem>
#include <vector>

#include "stepstat/engine.h"
#include "stepstat/status.h"
#include "stepstat/step_stats.h"
#include "stepstat/steps.h"

namespace stepstat {

/// The inputs of a summary (RunSummary without a step).
Result<SummaryInputs> ResolveSummaryInputs(const RunOptions& options);

/// The inputs of a steps run: a summary's inputs plus at most one NVTX CSV.
Result<StepsInputs> ResolveStepsRunInputs(const RunOptions& options);

/// The inputs of RunKernels: a cuda_gpu_kern_sum CSV given on its own, or a summary's.
Result<SummaryInputs> ResolveKernelsInputs(const RunOptions& options);

/// The files a run reads (inputs in memory have none): for RefuseOutputOverInput. A
/// .nsys-rep is read through the SQLite export beside it, which counts too.
std::vector<std::filesystem::path> InputFiles(const StepsInputs& inputs);

/// An error when `output` (not empty) is an existing file that is one of `inputs` after
/// following links: the result must never overwrite the trace it was computed from.
Status RefuseOutputOverInput(const std::filesystem::path& output,
                             const std::vector<std::filesystem::path>& inputs);

/// The inputs as a result describes them.
std::vector<ResolvedInput> DescribeInputs(const StepsInputs& inputs);

}  // namespace stepstat
