// The pipeline: readers → StepStatsSink(s) → StepStats. A separate launch file is read on a
// second thread, and so is the launch half of an nsys SQLite export (on its own connection);
// both feed one OverlapMeter, which measures the launch/kernel overlap while holding only
// what one side is ahead of the other.
#include <optional>
#include <thread>

#include "analysis/details_sink.h"
#include "analysis/details_values.h"
#include "analysis/launched_kernels_sink.h"
#include "analysis/step_stats_sink.h"
#include "analysis/step_stats_values.h"
#include "analysis/summarize_replay.h"
#include "analysis/tee_sink.h"
#include "readers/nsys_sqlite.h"
#include "stepstat/details.h"
#include "stepstat/step_stats.h"

namespace stepstat {

namespace {

// How far one reader may run ahead of the other, in union components (16 bytes each).
constexpr size_t kMaxPendingComponents = 1 << 16;

// What of a file one thread reads.
enum class Part { kWhole, kSqliteGpuHalf, kSqliteLaunchHalf };

Result<ReadReport> ReadPart(const TraceInput& input, Part part, TraceSink& sink) {
  switch (part) {
    case Part::kSqliteGpuHalf: return ReadNsysSqliteGpuSide(input.path, input.display_name, sink);
    case Part::kSqliteLaunchHalf:
      return ReadNsysSqliteLaunchSide(input.path, input.display_name, sink);
    case Part::kWhole: break;
  }
  return ReadInput(input.path, input.display_name, input.kind, sink);
}

struct FileRun {
  std::optional<StepStatsSink> sink;
  std::optional<DetailsSink> details;  ///< only under --details
  Status status;
  ReadReport report;
};

// `as_gpu_side`: the file is the summary's GPU input. Only then may a kern-exec trace stand
// in for the GPU trace; as the second file of a pair it supplies launch calls alone (each
// side of the OverlapMeter must be fed by one thread, in order).
void ReadInto(const TraceInput& input, bool as_gpu_side, Part part, FileRun& run) {
  TeeSink tee{&*run.sink, run.details ? &*run.details : nullptr};
  LaunchedKernelsSink launched_kernels(tee, /*forward_launch_calls=*/true);
  TraceSink& sink = as_gpu_side && input.kind == InputKind::kNsysKernExecTraceCsv
                        ? static_cast<TraceSink&>(launched_kernels)
                        : static_cast<TraceSink&>(tee);
  Result<ReadReport> read = ReadPart(input, part, sink);
  if (!read.ok()) {
    run.status = read.status();
    return;
  }
  run.report = read.value();
  run.sink->Finish();
  if (run.details) run.details->Finish();
}

struct Pass {
  bool unsorted = false;
  Result<StepStats> stats = Status::Error("not run");
};

// `details` is null when not asked for.
Pass RunPass(const SummaryInputs& inputs, const Policy& policy, const Classifier& classifier,
             bool assume_sorted, Details* details) {
  // One thread reading both halves of an SQLite export would hold all of one side in the
  // meter (and a record per kernel for the join): read the halves on two threads instead.
  // --details keeps the one-thread read, whose per-input report it prints.
  const bool split_sqlite =
      !inputs.launches && inputs.gpu.kind == InputKind::kNsysSqlite && details == nullptr;
  const TraceInput* launch_input = split_sqlite      ? &inputs.gpu
                                   : inputs.launches ? &*inputs.launches
                                                     : nullptr;
  bool two_threads = launch_input != nullptr;
  OverlapMeter meter(two_threads ? kMaxPendingComponents : 0);
  FileRun gpu_run;
  FileRun launch_run;
  gpu_run.sink.emplace(inputs.gpu.display_name, classifier, meter, assume_sorted);
  // Matching launch rows to kernels keeps a key per row: only when a launch side can exist.
  bool match_launches = two_threads || inputs.gpu.kind != InputKind::kNsysGpuTraceCsv;
  if (details) gpu_run.details.emplace(inputs.gpu.display_name, assume_sorted, match_launches);

  std::thread launch_thread;
  if (two_threads) {
    launch_run.sink.emplace(launch_input->display_name, classifier, meter, assume_sorted);
    if (details) {
      launch_run.details.emplace(launch_input->display_name, assume_sorted, match_launches);
    }
    launch_thread = std::thread([&] {
      ReadInto(*launch_input, /*as_gpu_side=*/false,
               split_sqlite ? Part::kSqliteLaunchHalf : Part::kWhole, launch_run);
      if (!launch_run.status.ok()) meter.Abort();
      meter.Close(OverlapMeter::kB);
    });
  }
  ReadInto(inputs.gpu, /*as_gpu_side=*/true, split_sqlite ? Part::kSqliteGpuHalf : Part::kWhole,
           gpu_run);
  if (!gpu_run.status.ok()) meter.Abort();
  meter.Close(OverlapMeter::kA);
  if (!two_threads) meter.Close(OverlapMeter::kB);
  if (launch_thread.joinable()) launch_thread.join();

  Pass pass;
  pass.unsorted = gpu_run.sink->unsorted() || (two_threads && launch_run.sink->unsorted()) ||
                  (gpu_run.details && gpu_run.details->unsorted());
  if (pass.unsorted) return pass;
  // Report the failure that caused the other side's "cancelled", not the cancellation.
  for (FileRun* run : {&gpu_run, &launch_run}) {
    if (run->sink && !run->status.ok() && run->status.message() != "cancelled") {
      pass.stats = run->status;
      return pass;
    }
  }
  if (gpu_run.sink->gpu().operation_count == 0) {
    pass.stats = ErrorAt(inputs.gpu.display_name, 0, "no GPU operations in the trace");
    return pass;
  }

  StepStatsSources sources;
  sources.gpu_trace = inputs.gpu.display_name;
  LaunchTotals launches = two_threads ? launch_run.sink->launch() : gpu_run.sink->launch();
  if (inputs.launches) {
    sources.kernel_exec_trace = inputs.launches->display_name;
  } else if (launches.call_count > 0) {
    sources.kernel_exec_trace = inputs.gpu.display_name;  // one file holds both sides
  }
  std::optional<LaunchOverlapTotals> overlap;
  if (sources.kernel_exec_trace) overlap = LaunchOverlapTotals{launches.union_ns, meter.overlap()};
  pass.stats = MakeStepStats(policy, gpu_run.sink->gpu(), overlap, sources);
  if (details) {
    std::vector<InputDetails> read = {InputDetailsOf(inputs.gpu, gpu_run.report)};
    if (inputs.launches) read.push_back(InputDetailsOf(*inputs.launches, launch_run.report));
    *details = MakeDetails(gpu_run.details->totals(),
                           inputs.launches ? &launch_run.details->totals() : nullptr, policy,
                           classifier, std::move(read));
  }
  return pass;
}

// One pass over a replayed trace; `unsorted` when it must run again buffered.
Pass ReplayPass(const TraceReplay& replay, const Policy& policy, const Classifier& classifier,
                const StepStatsSources& sources, bool assume_sorted, Details* details) {
  OverlapMeter meter;  // one thread feeds both sides: unbounded, holding one step at most
  StepStatsSink sink(sources.gpu_trace, classifier, meter, assume_sorted);
  std::optional<DetailsSink> details_sink;
  if (details) details_sink.emplace(sources.gpu_trace, assume_sorted, /*match_launches=*/true);
  TeeSink tee{&sink, details_sink ? &*details_sink : nullptr};
  Result<std::vector<InputDetails>> read = replay(tee);
  Pass pass;
  pass.unsorted = sink.unsorted() || (details_sink && details_sink->unsorted());
  if (pass.unsorted) return pass;
  if (!read.ok()) {
    pass.stats = read.status();
    return pass;
  }
  sink.Finish();
  meter.Close(OverlapMeter::kA);
  meter.Close(OverlapMeter::kB);
  std::optional<LaunchOverlapTotals> overlap;  // (a step without GPU work sums to zeros)
  if (sources.kernel_exec_trace) {
    overlap = LaunchOverlapTotals{sink.launch().union_ns, meter.overlap()};
  }
  pass.stats = MakeStepStats(policy, sink.gpu(), overlap, sources);
  if (details) {
    details_sink->Finish();
    *details =
        MakeDetails(details_sink->totals(), nullptr, policy, classifier, std::move(read.value()));
  }
  return pass;
}

}  // namespace

Result<StepStats> SummarizeReplayed(const TraceReplay& replay, const Policy& policy,
                                    const StepStatsSources& sources, Details* details) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  Pass pass = ReplayPass(replay, policy, classifier, sources, /*assume_sorted=*/true, details);
  if (pass.unsorted) {
    pass = ReplayPass(replay, policy, classifier, sources, /*assume_sorted=*/false, details);
  }
  return std::move(pass.stats);
}

namespace {

Result<StepStats> SummarizeInto(const SummaryInputs& inputs, const Policy& policy,
                                Details* details) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  // nsys writes rows sorted by start, so the first pass streams in bounded memory; only
  // input that turns out unsorted pays for a second pass that buffers and sorts.
  Pass pass = RunPass(inputs, policy, classifier, /*assume_sorted=*/true, details);
  if (pass.unsorted) pass = RunPass(inputs, policy, classifier, /*assume_sorted=*/false, details);
  return std::move(pass.stats);
}

}  // namespace

Result<StepStats> Summarize(const SummaryInputs& inputs, const Policy& policy) {
  return SummarizeInto(inputs, policy, nullptr);
}

Result<StepStats> SummarizeWithDetails(const SummaryInputs& inputs, const Policy& policy,
                                       Details& details) {
  return SummarizeInto(inputs, policy, &details);
}

}  // namespace stepstat
