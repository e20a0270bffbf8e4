// The whole trace's summary riding on the steps' passes (summary_alongside.h), for the
// commands that want both: report (with details) and record. What the summary reads is the
// trace without its step ranges; whether it can ride is decided before any trace is read.
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "engine/engine_inputs.h"
#include "engine/engine_steps.h"
#include "readers/input_traits.h"
#include "stepstat/platform.h"

namespace stepstat {

namespace {

bool IsStepRangesFile(const TraceInput& input) {
  Result<InputKind> kind = input.bytes ? DetectInputKindOfBytes(*input.bytes, input.display_name)
                                       : DetectInputKind(input.path, input.display_name);
  return kind.ok() && IsStepRanges(*kind);
}

// An nsys CSV pair or a trace whose parse is kept (Kineto), the whole trace, every device.
// Else (SQLite, a GPU trace alone, --device) the summary reads the trace itself;
// `replayed` says whether its reader parses it whole and keeps it (a Kineto trace with
// --device: TraceReads can replay the steps' parse to the summary's own read).
bool SummaryCanRide(const RunOptions& summary_options, bool& replayed) {
  replayed = false;
  if (!summary_options.step.empty()) return false;
  Result<SummaryInputs> trace = ResolveSummaryInputs(summary_options);
  if (!trace.ok()) return false;
  replayed = ParsedOnceAndReplayed(trace->gpu.kind);
  trace->device = summary_options.device;
  return SummaryAlongside::Fits(*trace);
}

}  // namespace

RunOptions SummaryOptions(const RunOptions& run, bool details) {
  RunOptions summary = run;
  summary.details = details;
  summary.inputs.clear();
  summary.input_bytes.clear();
  for (const std::filesystem::path& path : run.inputs) {
    if (!IsStepRangesFile({path, PathToUtf8(path)})) summary.inputs.push_back(path);
  }
  for (const InputBytes& bytes : run.input_bytes) {
    TraceInput input{{}, bytes.name};
    input.bytes = bytes.bytes;
    if (!IsStepRangesFile(input)) summary.input_bytes.push_back(bytes);
  }
  return summary;
}

std::unique_ptr<SummaryAlongside> StartSummaryRide(const RunOptions& summary_options,
                                                   std::optional<SummaryRun>& prepared,
                                                   bool* replayed) {
  bool kept = false;
  const bool rides = SummaryCanRide(summary_options, kept);
  if (replayed) *replayed = kept;
  if (!rides) return nullptr;
  Result<SummaryRun> run = PrepareSummary(summary_options, /*plan_reads=*/false);
  if (!run.ok()) return nullptr;
  // The sinks keep references to the prepared inputs and policy: they live in `prepared`.
  prepared = std::move(run).value();
  Result<std::unique_ptr<SummaryAlongside>> created =
      SummaryAlongside::Create(prepared->inputs.trace, prepared->policy);
  if (!created.ok()) return nullptr;
  return std::move(created).value();
}

std::optional<Result<SummaryResult>> FinishSummaryRide(const RunOptions& summary_options,
                                                       std::optional<SummaryRun>& prepared,
                                                       SummaryAlongside& alongside,
                                                       std::vector<KernelSpread>* spreads) {
  std::optional<SummaryAlongside::Summary> rode = alongside.Take();
  if (!rode || !prepared) return std::nullopt;
  if (spreads) *spreads = std::move(rode->spreads);
  // The whole trace of a CSV pair, as RunSummary's own pass counts it: the policy hint
  // needs no read of its own either.
  return FinishSummary(summary_options, std::move(*prepared), std::move(rode->stats),
                       std::move(rode->details), &rode->kernel_totals);
}

}  // namespace stepstat
