#include "engine/engine_sides.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

#include "engine/engine_steps.h"
#include "engine/input_hash_beside.h"
#include "readers/nsys_base.h"
#include "stepstat/platform.h"

namespace stepstat {

namespace {

namespace fs = std::filesystem;

bool SameFiles(const std::vector<ResolvedInput>& a, const std::vector<ResolvedInput>& b) {
  return std::equal(
      a.begin(), a.end(), b.begin(), b.end(), [](const ResolvedInput& x, const ResolvedInput& y) {
        return x.name == y.name && x.path == y.path && x.kind == y.kind && x.role == y.role;
      });
}

// The files a trace side will read, as far as they are known before any is opened: an nsys
// base's GPU and launch traces, or one file given alone. Empty when not known (several files
// given, bytes in memory): the hash is then computed after the steps.
std::vector<fs::path> FilesBeforeReading(const std::vector<std::string>& args) {
  if (args.size() != 1) return {};
  const NsysBaseFiles base = FindNsysBaseFiles(args.front());
  if (base.gpu_trace) {
    std::vector<fs::path> files = {PathFromUtf8(*base.gpu_trace)};
    if (base.launches) files.push_back(PathFromUtf8(*base.launches));
    return files;
  }
  std::error_code ec;
  const fs::path file = PathFromUtf8(args.front());
  if (fs::is_regular_file(file, ec)) return {file};
  return {};
}

// The whole run's summary values of `run.inputs`, as a side.
Result<Side> WholeRunSide(const RunOptions& run, std::string label) {
  ASSIGN_OR_RETURN(SummaryResult summary, RunSummary(run));
  return SideFromSummary(summary.stats, summary.context.policy, nullptr, std::move(label));
}

}  // namespace

std::string LabelOf(const std::vector<std::string>& args) {
  return args.empty() ? "" : RunNameOf(PathToUtf8(PathFromUtf8(args.front()).filename()));
}

Result<TraceRun> ReadTraceRun(const RunOptions& run, const std::vector<std::string>& args,
                              bool whole_run, bool hash_inputs) {
  TraceRun trace;
  InputHashBeside hash(hash_inputs ? FilesBeforeReading(args) : std::vector<fs::path>());
  const std::string label = LabelOf(args);
  RunOptions stepped = run;  // an nsys base's NVTX report beside it cuts the steps
  stepped.inputs = PathsFromUtf8(args);
  // The kernel table rides on the steps' residue pass where it can (no read of its own), and
  // so does the whole-run summary when asked for.
  std::optional<std::vector<KernelDetails>> listed;
  RunOptions summary_options;
  std::optional<SummaryRun> prepared;
  std::unique_ptr<SummaryAlongside> alongside;
  bool replayed = false;  // a summary can replay the steps' parse of the trace
  if (whole_run) {
    summary_options = SummaryOptions(stepped, /*details=*/false);
    summary_options.output.clear();
    alongside = StartSummaryRide(summary_options, prepared, &replayed);
  }
  // What the steps parse whole (a Kineto trace) is kept for the summaries below.
  TraceReads reads;
  Result<StepsResult> steps = RunStepsDrawing(stepped, nullptr, alongside.get(), &listed, &reads);
  if (steps.ok() && alongside) {
    std::optional<Result<SummaryResult>> rode =
        FinishSummaryRide(summary_options, prepared, *alongside, nullptr);
    if (rode && rode->ok()) trace.whole_run = std::move(*rode).value();
  }
  if (steps.ok()) {
    trace.side = SideFromSteps(steps->report, steps->context.policy, label);
    for (const ResolvedInput& input : steps->context.inputs) {
      if (input.role != InputRole::kStepRanges) trace.inputs.push_back(input);
    }
    trace.warnings = std::move(steps->context.warnings);
    trace.devices = std::move(steps->context.devices);
    trace.policy = std::move(steps->context.policy);
    trace.steps = std::move(steps->report);
  }
  RunOptions files = run;  // the trace files alone: what a summary and the kernels read
  if (trace.steps) {
    for (const ResolvedInput& input : trace.inputs) files.inputs.push_back(input.path);
  } else {
    files.inputs = PathsFromUtf8(args);
  }
  if (!trace.steps || SteadySteps(trace.side) == 0) {
    // No steps (a capture cut by hand, or no period): the side is the run as a whole.
    ASSIGN_OR_RETURN(SummaryResult summary, RunSummaryReading(files, &reads));
    if (whole_run) trace.whole_run = summary;
    trace.side = SideFromSummary(summary.stats, summary.context.policy, nullptr, label);
    trace.inputs = std::move(summary.context.inputs);
    trace.warnings = std::move(summary.context.warnings);
    trace.devices = std::move(summary.context.devices);
    trace.policy = std::move(summary.context.policy);
    trace.steps.reset();
  }
  // The GPU model, for the comparability check: "NVIDIA GB10 (0)" → "NVIDIA GB10".
  for (const std::string& device : trace.devices) {
    std::string model = device;
    if (size_t open = model.rfind(" ("); open != std::string::npos && model.ends_with(')')) {
      model.resize(open);
    }
    if (trace.side.meta.gpu.find(model) != std::string::npos) continue;
    trace.side.meta.gpu += (trace.side.meta.gpu.empty() ? "" : ", ") + model;
  }
  // A summary that rode on the steps stands for RunSummary(files) only over the same files.
  if (trace.whole_run && !SameFiles(trace.whole_run->context.inputs, trace.inputs)) {
    trace.whole_run.reset();
  }
  // Nor did it ride, but the steps' parse replays to it: no read of its own either.
  if (whole_run && !trace.whole_run && replayed) {
    ASSIGN_OR_RETURN(SummaryResult summary, RunSummaryReading(files, &reads));
    trace.whole_run = std::move(summary);
  }
  files.output.clear();  // refused already
  std::vector<KernelDetails> kernels;
  if (trace.steps && listed) {
    kernels = std::move(*listed);
  } else {
    ASSIGN_OR_RETURN(KernelsResult listing, RunKernels(files));
    kernels = std::move(listing.listing.kernels);
  }
  for (KernelDetails& k : kernels) {
    std::vector<ValueCount> calls;
    calls.reserve(k.duration_runs.size());
    for (auto [ns, times] : k.duration_runs) calls.push_back({double(ns), times});
    trace.side.meta.kernels[k.name] = {k.launches, k.total_ns, std::move(k.component),
                                       std::move(calls)};
  }
  trace.side.meta.kernels_complete = true;
  if (!trace.inputs.empty()) {
    trace.side.meta.input_format = std::string(InputKindName(trace.inputs.front().kind));
  }
  std::vector<fs::path> files_read;
  for (const ResolvedInput& input : trace.inputs) files_read.push_back(input.path);
  const bool all_files = std::none_of(files_read.begin(), files_read.end(),
                                      [](const fs::path& file) { return file.empty(); });
  if (hash_inputs && all_files) {
    ASSIGN_OR_RETURN(trace.input_hash, hash.Take(files_read));
  }
  return trace;
}

int64_t SteadySteps(const Side& side) {
  const MetricValues* span = side.Find("gpu_span_ns");
  return span ? static_cast<int64_t>(span->steps.size()) : 0;
}

bool HasRunValues(const Side& side) {
  const MetricValues* span = side.Find("gpu_span_ns");
  return span && span->run.has_value();
}

Status AddRunValues(const RunOptions& run, Side* side) {
  ASSIGN_OR_RETURN(Side whole, WholeRunSide(run, side->meta.label));
  for (MetricValues& values : whole.metrics) {
    bool found = false;
    for (MetricValues& mine : side->metrics) {
      if (mine.key != values.key) continue;
      mine.run = values.run;
      found = true;
    }
    if (!found) side->metrics.push_back(std::move(values));
  }
  return Status::Ok();
}

}  // namespace stepstat
