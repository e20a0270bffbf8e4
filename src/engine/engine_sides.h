// A trace read as one side of a comparison, shared by RunDiff and RunRecord: its steps (when
// it has them), its kernel table and, on request, its whole-run summary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepstat/compare.h"
#include "stepstat/engine.h"
#include "stepstat/ledger.h"
#include "stepstat/status.h"

namespace stepstat {

/// How a side is named: the first input's base name ("run" for run_cuda_gpu_trace.csv,
/// run.sqlite or run.pt.trace.json.gz).
std::string LabelOf(const std::vector<std::string>& args);

struct TraceRun {
  /// The steady steps' values when the run has steps, else the whole run's; the kernel
  /// table (complete) and the input format.
  Side side;
  Policy policy;
  std::optional<StepsReport> steps;   ///< when the run was cut into steps
  std::vector<ResolvedInput> inputs;  ///< the trace files (not the step ranges)
  std::vector<std::string> devices;   ///< as the input checks saw them (RunContext::devices)
  std::vector<std::string> warnings;
  /// Asked for (ReadTraceRun's `whole_run`): RunSummary over `inputs`, when it rode on the
  /// steps' passes, replayed their parse (a Kineto trace) or was the side; unset: run it.
  std::optional<SummaryResult> whole_run;
  /// Asked for (`hash_inputs`): HashInputFiles(inputs), as the ledger keeps it.
  std::string input_hash;
};

/// Reads `run.inputs` (INPUT arguments) as a side: RunSteps over them with their step ranges,
/// falling back to RunSummary when no steady step comes out; then RunKernels. With
/// `whole_run`, the whole run's summary too where it costs no read (TraceRun::whole_run).
/// With `hash_inputs`, the trace files' hash (when every input is a file), computed beside
/// the steps' reads where the files are known before them (input_hash_beside.h).
Result<TraceRun> ReadTraceRun(const RunOptions& run, const std::vector<std::string>& args,
                              bool whole_run = false, bool hash_inputs = false);

/// Steady steps behind the side's span (0 for a whole-run side).
int64_t SteadySteps(const Side& side);
bool HasRunValues(const Side& side);
/// Adds the whole run's values (RunSummary over `run.inputs`) to a side read in steps.
Status AddRunValues(const RunOptions& run, Side* side);

/// When `options` holds the configured floor and the ledger has 3 or more runs of one code
/// for `label` (MeasureNoiseFloor), sets the floor measured from them and says so.
Status ApplyMeasuredFloor(Ledger& ledger, const std::string& label, DiffOptions* options);

/// The label of ledger run `id`; empty when there is none.
Result<std::string> LabelOfRun(Ledger& ledger, int64_t id);

}  // namespace stepstat
