#include "engine/engine_progress.h"

#include <string>
#include <system_error>

#include "io/read_progress.h"
#include "readers/input_traits.h"
#include "readers/nsys_base.h"
#include "stepstat/platform.h"

namespace stepstat {

namespace {

namespace fs = std::filesystem;

thread_local bool planned_by_caller = false;

uint64_t FileBytes(const fs::path& path) {
  std::error_code ec;
  if (path.empty() || !fs::is_regular_file(path, ec)) return 0;
  const uintmax_t size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

// Whole reads of one input by `run`. CSV GPU traces: the summary's pass; steps cut by the
// kernel period read them three times (detection, accumulation, residue), by NVTX ranges
// twice (accumulation, residue: the accumulation measures the span the ranges are chosen
// by; ranges that do not qualify leave the kernel period to cut, after a pass for the span),
// and once more to replay one step. Launch CSVs: once beside the GPU side, once
// more first when NVTX ranges assign launches to steps and the calls are joined to their
// kernels by correlation id (a kern-exec CSV's, joined by kernel start, stream beside the
// GPU side: streamed_key_runs.h). A Kineto trace is parsed once
// whatever the passes (trace_reads.h). SQLite reads the pages its queries need, a share of
// the file not known before: nothing planned; each open counts
// (readers/sqlite/sqlite_progress_vfs.h).
int WholeReads(const TraceInput& input, InputRole role, bool has_ranges, PlannedRun run) {
  if (ParsedOnceAndReplayed(input.kind)) return 1;
  if (ReadByQueries(input.kind) || ExportedBeforeReading(input.kind)) return 0;
  const int replay = run == PlannedRun::kOneStep ? 1 : 0;
  switch (role) {
    case InputRole::kGpuOperations:
      if (run != PlannedRun::kSteps && run != PlannedRun::kOneStep) return 1;
      return (has_ranges ? 2 : 3) + replay;
    case InputRole::kLaunches:
      if (run == PlannedRun::kKernels) return 0;  // classify reads the GPU side alone
      if (run == PlannedRun::kSummary) return 1;
      return (has_ranges && !LaunchesKeyedByKernelStart(input.kind) ? 2 : 1) + replay;
    case InputRole::kStepRanges: return 1;
  }
  return 0;
}

}  // namespace

void PlanReads(const StepsInputs& inputs, PlannedRun run) {
  ProgressMeter* meter = InstalledProgress();
  if (meter == nullptr || planned_by_caller) return;
  const bool has_ranges = inputs.ranges.has_value();
  uint64_t bytes = 0;
  const TraceInput& gpu = inputs.trace.gpu;
  bytes += FileBytes(gpu.path) * WholeReads(gpu, InputRole::kGpuOperations, has_ranges, run);
  if (inputs.trace.launches) {
    const TraceInput& launches = *inputs.trace.launches;
    bytes += FileBytes(launches.path) * WholeReads(launches, InputRole::kLaunches, has_ranges, run);
  }
  if (inputs.ranges) {
    bytes += FileBytes(inputs.ranges->path) *
             WholeReads(*inputs.ranges, InputRole::kStepRanges, has_ranges, run);
  }
  meter->AddPlanned(bytes);
}

uint64_t InputArgumentBytes(const fs::path& input) {
  std::error_code ec;
  if (fs::is_regular_file(input, ec)) return FileBytes(input);
  // As ResolveInputs finds a base's files: its GPU trace and launch trace.
  const NsysBaseFiles base = FindNsysBaseFiles(PathToUtf8(input));
  uint64_t bytes = 0;
  for (const auto& file : {base.gpu_trace, base.launches}) {
    if (file) bytes += FileBytes(PathFromUtf8(*file));
  }
  return bytes;
}

PlannedByCaller::PlannedByCaller() : was_(planned_by_caller) { planned_by_caller = true; }
PlannedByCaller::~PlannedByCaller() { planned_by_caller = was_; }

}  // namespace stepstat
