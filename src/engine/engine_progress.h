// What each Run* call plans to read, for the progress meter's total (stepstat/progress.h):
// the passes each pipeline makes over each input, as tests/read_count_test.cc counts them.
// A pass the plan does not foresee (rows out of order read once more) only makes the total
// grow when it begins; planning too many passes only leaves the line short of its total.
#pragma once

#include <filesystem>

#include "stepstat/engine.h"
#include "stepstat/steps.h"

namespace stepstat {

enum class PlannedRun { kSummary, kOneStep, kSteps, kKernels };

/// Adds to the installed meter the bytes `run` will read of `inputs` to their ends.
/// Does nothing without a meter, or on a thread whose caller planned already.
void PlanReads(const StepsInputs& inputs, PlannedRun run);

/// Bytes of the trace files an INPUT argument stands for (an nsys base: its GPU trace and
/// launch trace), for a caller that plans many runs before they resolve their inputs.
uint64_t InputArgumentBytes(const std::filesystem::path& input);

/// While it lives, PlanReads on this thread does nothing: its caller planned the runs it
/// makes (ranks plans every trace up front, each on a worker thread of its pool).
class PlannedByCaller {
 public:
  PlannedByCaller();
  ~PlannedByCaller();
  PlannedByCaller(const PlannedByCaller&) = delete;
  PlannedByCaller& operator=(const PlannedByCaller&) = delete;

 private:
  bool was_;
};

}  // namespace stepstat
