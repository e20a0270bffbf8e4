// The summary pipeline: readers → GpuTotalsSink / LaunchTotalsSink (+ DetailsSink) →
// StepStats. Two files, or the two halves of an nsys SQLite export, are read at once
// through ReadBothSides (two_sides.h states the threads' contract); each side's sinks feed
// only that side of one bounded OverlapMeter, which measures the launch/kernel overlap
// while holding only what one side is ahead of the other. A file that holds both sides
// otherwise (Kineto, a kern-exec trace alone, SQLite under --details) is read on one thread
// into an unbounded meter.
#include <optional>

#include "analysis/details/details_sink.h"
#include "analysis/details/details_values.h"
#include "analysis/pipeline/launched_kernels_sink.h"
#include "analysis/pipeline/tee_sink.h"
#include "analysis/pipeline/two_sides.h"
#include "analysis/summary/summarize_internal.h"
#include "analysis/summary/summarize_replay.h"
#include "analysis/summary/summary_sinks.h"
#include "analysis/summary/summary_values.h"
#include "readers/nsys_sqlite.h"
#include "stepstat/details.h"
#include "stepstat/step_stats.h"

namespace stepstat {

namespace {

// What of a file one side reads.
enum class Part { kWhole, kSqliteGpuHalf, kSqliteLaunchHalf };

Result<ReadReport> ReadPart(const TraceInput& input, Part part, TraceSink& sink) {
  switch (part) {
    case Part::kSqliteGpuHalf: return ReadNsysSqliteGpuSide(input.path, input.display_name, sink);
    case Part::kSqliteLaunchHalf:
      return ReadNsysSqliteLaunchSide(input.path, input.display_name, sink);
    case Part::kWhole: break;
  }
  return ReadInput(input, sink);
}

// What a side leaves for the caller: written by the side's own thread before it returns,
// read by the caller after the join.
struct SideResult {
  ReadReport report;
  bool unsorted = false;
  std::optional<GpuTotals> gpu;
  std::optional<LaunchTotals> launch;
  std::optional<DetailsTotals> details;
};

// One side's read: the sinks are made here, on the thread that feeds them, and die here,
// which closes their meter sides on every path. A null producer means "not this side".
Status ReadSide(const TraceInput& input, Part part, const Classifier& classifier,
                bool assume_sorted, std::optional<OverlapMeter::Producer> kernels,
                std::optional<OverlapMeter::Producer> launches, bool details, bool match_launches,
                SideResult& out) {
  std::optional<GpuTotalsSink> gpu;
  std::optional<LaunchTotalsSink> launch;
  std::optional<DetailsSink> details_sink;
  if (kernels) gpu.emplace(input.display_name, classifier, std::move(*kernels), assume_sorted);
  if (launches) launch.emplace(std::move(*launches), assume_sorted);
  if (details) details_sink.emplace(input.display_name, assume_sorted, match_launches);
  TeeSink tee{gpu ? &*gpu : nullptr, launch ? &*launch : nullptr,
              details_sink ? &*details_sink : nullptr};
  // A kern-exec trace read as the GPU side stands in for the GPU trace (and, on one thread,
  // supplies the launch calls too).
  LaunchedKernelsSink launched_kernels(tee, /*forward_launch_calls=*/launch.has_value());
  TraceSink& sink = gpu && input.kind == InputKind::kNsysKernExecTraceCsv
                        ? static_cast<TraceSink&>(launched_kernels)
                        : static_cast<TraceSink&>(tee);
  Result<ReadReport> read = ReadPart(input, part, sink);
  out.unsorted = (gpu && gpu->unsorted()) || (launch && launch->unsorted()) ||
                 (details_sink && details_sink->unsorted());
  RETURN_IF_ERROR(read.status());  // the read finished the sinks (TraceSink's contract)
  out.report = read.value();
  if (gpu) out.gpu = gpu->totals();
  if (launch) out.launch = launch->totals();
  if (details_sink) out.details = details_sink->totals();
  return Status::Ok();
}

struct Pass {
  bool unsorted = false;
  Result<StepStats> stats = Status::Error("not run");
};

// `details` is null when not asked for.
Pass RunPass(const SummaryInputs& inputs, const Policy& policy, const Classifier& classifier,
             bool assume_sorted, Details* details, const PipelineLimits& limits) {
  // One thread reading both halves of an SQLite export would hold all of one side in the
  // meter (and a record per kernel for the join): read the halves on two threads instead.
  // --details keeps the one-thread read, whose per-input report it prints.
  const bool split_sqlite =
      !inputs.launches && inputs.gpu.kind == InputKind::kNsysSqlite && details == nullptr;
  const TraceInput* launch_input = split_sqlite      ? &inputs.gpu
                                   : inputs.launches ? &*inputs.launches
                                                     : nullptr;
  const bool two_sides = launch_input != nullptr;
  // Matching launch rows to kernels keeps a key per row: only when a launch side can exist.
  const bool match_launches = two_sides || inputs.gpu.kind != InputKind::kNsysGpuTraceCsv;
  const bool want_details = details != nullptr;
  OverlapMeter meter(two_sides ? limits.max_pending_components : 0);
  SideResult gpu_side;
  SideResult launch_side;
  OverlapMeter::Producer kernels = meter.TakeProducer(OverlapMeter::kA);
  OverlapMeter::Producer launches = meter.TakeProducer(OverlapMeter::kB);
  Status failure;
  if (two_sides) {
    // Each producer moves into its side's sinks on that side's thread.
    SideStatuses statuses = ReadBothSides(
        [&] {
          return ReadSide(inputs.gpu, split_sqlite ? Part::kSqliteGpuHalf : Part::kWhole,
                          classifier, assume_sorted, std::move(kernels), std::nullopt, want_details,
                          match_launches, gpu_side);
        },
        [&] {
          return ReadSide(*launch_input, split_sqlite ? Part::kSqliteLaunchHalf : Part::kWhole,
                          classifier, assume_sorted, std::nullopt, std::move(launches),
                          want_details, match_launches, launch_side);
        },
        [&meter] { meter.Abort(); });
    failure = FirstFailure(statuses);
  } else {  // one thread, unbounded meter: it feeds both sides
    failure = ReadSide(inputs.gpu, Part::kWhole, classifier, assume_sorted, std::move(kernels),
                       std::move(launches), want_details, match_launches, gpu_side);
  }

  Pass pass;
  pass.unsorted = gpu_side.unsorted || launch_side.unsorted;
  if (pass.unsorted) return pass;
  if (!failure.ok()) {
    pass.stats = failure;
    return pass;
  }
  if (gpu_side.gpu->operation_count == 0) {
    pass.stats = ErrorAt(inputs.gpu.display_name, 0, "no GPU operations in the trace");
    return pass;
  }

  StepStatsSources sources;
  sources.gpu_trace = inputs.gpu.display_name;
  const LaunchTotals& launch = two_sides ? *launch_side.launch : *gpu_side.launch;
  if (inputs.launches) {
    sources.kernel_exec_trace = inputs.launches->display_name;
  } else if (launch.call_count > 0) {
    sources.kernel_exec_trace = inputs.gpu.display_name;  // one file holds both sides
  }
  std::optional<LaunchOverlapTotals> overlap;
  if (sources.kernel_exec_trace) overlap = LaunchOverlapTotals{launch.union_ns, meter.overlap()};
  pass.stats = MakeStepStats(policy, *gpu_side.gpu, overlap, sources);
  if (details) {
    std::vector<InputDetails> read = {InputDetailsOf(inputs.gpu, gpu_side.report)};
    if (inputs.launches) read.push_back(InputDetailsOf(*inputs.launches, launch_side.report));
    *details = MakeDetails(*gpu_side.details, inputs.launches ? &*launch_side.details : nullptr,
                           policy, classifier, std::move(read));
  }
  return pass;
}

// One pass over a replayed trace; `unsorted` when it must run again buffered.
Pass ReplayPass(const TraceReplay& replay, const Policy& policy, const Classifier& classifier,
                const StepStatsSources& sources, bool assume_sorted, Details* details) {
  OverlapMeter meter;  // one thread feeds both sides: unbounded, holding one step at most
  GpuTotalsSink gpu(sources.gpu_trace, classifier, meter.TakeProducer(OverlapMeter::kA),
                    assume_sorted);
  LaunchTotalsSink launch(meter.TakeProducer(OverlapMeter::kB), assume_sorted);
  std::optional<DetailsSink> details_sink;
  if (details) details_sink.emplace(sources.gpu_trace, assume_sorted, /*match_launches=*/true);
  TeeSink tee{&gpu, &launch, details_sink ? &*details_sink : nullptr};
  Result<std::vector<InputDetails>> read = replay(tee);
  Pass pass;
  pass.unsorted = gpu.unsorted() || launch.unsorted() || (details_sink && details_sink->unsorted());
  if (pass.unsorted) return pass;
  if (!read.ok()) {  // else the replay finished the sinks
    pass.stats = read.status();
    return pass;
  }
  std::optional<LaunchOverlapTotals> overlap;  // (a step without GPU work sums to zeros)
  if (sources.kernel_exec_trace) {
    overlap = LaunchOverlapTotals{launch.totals().union_ns, meter.overlap()};
  }
  pass.stats = MakeStepStats(policy, gpu.totals(), overlap, sources);
  if (details) {
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

Result<StepStats> SummarizeWith(const SummaryInputs& inputs, const Policy& policy, Details* details,
                                const PipelineLimits& limits) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  // nsys writes rows sorted by start, so the first pass streams in bounded memory; only
  // input that turns out unsorted pays for a second pass that buffers and sorts.
  Pass pass = RunPass(inputs, policy, classifier, /*assume_sorted=*/true, details, limits);
  if (pass.unsorted) {
    pass = RunPass(inputs, policy, classifier, /*assume_sorted=*/false, details, limits);
  }
  return std::move(pass.stats);
}

Result<StepStats> Summarize(const SummaryInputs& inputs, const Policy& policy) {
  return SummarizeWith(inputs, policy, nullptr, PipelineLimits{});
}

Result<StepStats> SummarizeWithDetails(const SummaryInputs& inputs, const Policy& policy,
                                       Details& details) {
  return SummarizeWith(inputs, policy, &details, PipelineLimits{});
}

}  // namespace stepstat
