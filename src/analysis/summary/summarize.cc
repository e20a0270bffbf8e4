// The summary pipeline: readers → GpuTotalsSink / LaunchTotalsSink (+ DetailsSink) →
// StepStats. Two files, or the two halves of an nsys SQLite export, are read at once
// through ReadBothSides (two_sides.h states the threads' contract); each side's sinks feed
// only that side of one bounded OverlapMeter, which measures the launch/kernel overlap
// while holding only what one side is ahead of the other, and (--details) one
// LaunchKeyMatcher, which both lock for a batch at a time and never wait in
// (launch_key_matcher.h); the pass owns both and reads them after the join. The start-order stage
// in front of each side's sinks (start_order.h) decides whether they stream or hold. A file that
// holds both sides otherwise (Kineto, a kern-exec trace alone, SQLite under --details) is read on
// one thread into an unbounded meter.
#include <optional>

#include "analysis/details/details_sink.h"
#include "analysis/details/details_values.h"
#include "analysis/details/launch_key_matcher.h"
#include "analysis/pipeline/device_filter_sink.h"
#include "analysis/pipeline/launched_kernels_sink.h"
#include "analysis/pipeline/start_order.h"
#include "analysis/pipeline/tee_sink.h"
#include "analysis/pipeline/two_sides.h"
#include "analysis/summary/summarize_internal.h"
#include "analysis/summary/summarize_replay.h"
#include "analysis/summary/summary_sinks.h"
#include "analysis/summary/summary_values.h"
#include "readers/input_traits.h"
#include "readers/read_sides.h"
#include "stepstat/details.h"
#include "stepstat/step_stats.h"

namespace stepstat {

namespace {

// What of a file one side reads: all of it, or one of the sides of a file that has them.
enum class Part { kWhole, kGpuSide, kLaunchSide };

// `reads`: when not null, what reads a whole input, or a side of one it keeps (the
// command's shared TraceReads).
Result<ReadReport> ReadPart(const TraceInput& input, Part part, TraceSink& sink,
                            TableScan scan = TableScan::kChecked, TraceReads* reads = nullptr) {
  if (reads && reads->Keeps(input) && part != Part::kWhole) {
    return part == Part::kGpuSide ? reads->GpuSide(input, sink) : reads->LaunchSide(input, sink);
  }
  switch (part) {
    case Part::kGpuSide: return ReadGpuSide(input, sink, scan);
    case Part::kLaunchSide: return ReadLaunchSide(input, sink, scan);
    case Part::kWhole: break;
  }
  return reads ? reads->Whole(input, sink) : ReadInput(input, sink);
}

// What a side leaves for the caller: written by the side's own thread before it returns,
// read by the caller after the join.
struct SideResult {
  ReadReport report;
  std::optional<OrderBreak> order_break;  ///< where the start-order stage stopped the read
  std::optional<GpuTotals> gpu;
  std::optional<LaunchTotals> launch;
  std::optional<DetailsTotals> details;
};

// One side's read: the sinks are made here, on the thread that feeds them, and die here,
// which closes their meter sides on every path. A null producer means "not this side".
// `hold`: the run found the input out of start order, so the sinks hold and sort. `device`:
// when not empty, only that device's operations and launches reach the sinks.
Status ReadSide(const TraceInput& input, Part part, TableScan scan, const std::string& device,
                const Classifier& classifier, bool hold,
                std::optional<OverlapMeter::Producer> kernels,
                std::optional<OverlapMeter::Producer> launches, bool details,
                LaunchKeyMatcher* matcher, SideResult& out, TraceReads* reads = nullptr) {
  std::optional<GpuTotalsSink> gpu;
  std::optional<LaunchTotalsSink> launch;
  std::optional<DetailsSink> details_sink;
  if (kernels) gpu.emplace(input.display_name, classifier, std::move(*kernels), !hold);
  if (launches) launch.emplace(std::move(*launches), !hold);
  if (details) details_sink.emplace(input.display_name, !hold, matcher);
  TeeSink tee{gpu ? &*gpu : nullptr, launch ? &*launch : nullptr,
              details_sink ? &*details_sink : nullptr};
  DeviceFilterSink one_device(tee, device, input.display_name);
  TraceSink& analyses = device.empty() ? static_cast<TraceSink&>(tee) : one_device;
  StartOrderSink in_order(analyses, input.display_name, hold);
  // A kern-exec trace read as the GPU side stands in for the GPU trace (and, on one thread,
  // supplies the launch calls too).
  LaunchedKernelsSink launched_kernels(in_order, /*forward_launch_calls=*/launch.has_value());
  TraceSink& sink = gpu && OpsAreItsLaunchRows(input.kind)
                        ? static_cast<TraceSink&>(launched_kernels)
                        : static_cast<TraceSink&>(in_order);
  Result<ReadReport> read = ReadPart(input, part, sink, scan, reads);
  out.order_break = in_order.broke();
  RETURN_IF_ERROR(read.status());  // the read finished the sinks (TraceSink's contract)
  out.report = read.value();
  if (gpu) out.gpu = gpu->totals();
  if (launch) out.launch = launch->totals();
  if (details_sink) out.details = details_sink->totals();
  return Status::Ok();
}

// The data-quality note of a run whose input broke start order.
void NoteOrderBreak(const StartOrder& order, Details& details) {
  if (order.first_break()) {
    details.data_quality.notes.push_back(OrderBreakNote(*order.first_break()));
  }
}

// One thread reading both sides of one file (an SQLite export) would hold all of one side in the
// meter (and a record per kernel for the join): read the halves on two threads instead.
// --details keeps the one-thread read, whose per-input report it prints.
bool ReadsTwoSidesOfOneFile(const SummaryInputs& inputs, const Details* details) {
  return !inputs.launches && ReadByQueries(inputs.gpu.kind) && details == nullptr;
}

// One pass; `details` and `kernel_totals` are null when not asked for. `scan`: how the
// halves of a split SQLite export are read.
Result<StepStats> RunPass(const SummaryInputs& inputs, const Policy& policy,
                          const Classifier& classifier, StartOrder& order, bool hold,
                          Details* details, const PipelineLimits& limits, TableScan scan,
                          std::vector<KernelDetails>* kernel_totals, TraceReads* reads) {
  // A kept trace (Kineto, trace_reads.h) replays its two sides on two threads too: on one,
  // every kernel would wait in the meter and the launch-key matcher for the launches that
  // come after all of them.
  const bool kept_sides =
      !inputs.launches && reads != nullptr && ParsedOnceAndReplayed(inputs.gpu.kind);
  if (kept_sides) RETURN_IF_ERROR(reads->Prepare(inputs.gpu));
  const bool two_sides_of_one_file = ReadsTwoSidesOfOneFile(inputs, details) || kept_sides;
  const TraceInput* launch_input = two_sides_of_one_file ? &inputs.gpu
                                   : inputs.launches     ? &*inputs.launches
                                                         : nullptr;
  const bool two_sides = launch_input != nullptr;
  if (!inputs.device.empty() && inputs.launches &&
      LaunchesLackTheirKernels(inputs.launches->kind)) {
    return ErrorAt(inputs.launches->display_name, 0,
                   "a cuda_api_trace does not say which device a launch's kernel ran on, so "
                   "its launches cannot be split by device: export cuda_kern_exec_trace");
  }
  // Launch rows are matched to kernels only when a launch side can exist; the two sides'
  // sinks share the matcher (launch_key_matcher.h states its threads' contract). An SQLite
  // export's launch rows come from its reader's join, which gives each kernel to one row.
  const bool want_details = details != nullptr;
  std::optional<LaunchKeyMatcher> matcher;
  if (want_details && (two_sides || !IsGpuOperationsCsv(inputs.gpu.kind))) {
    matcher.emplace(/*rows_join_their_kernels=*/ReadByQueries(inputs.gpu.kind));
  }
  LaunchKeyMatcher* shared = matcher ? &*matcher : nullptr;
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
          return ReadSide(inputs.gpu, two_sides_of_one_file ? Part::kGpuSide : Part::kWhole, scan,
                          inputs.device, classifier, hold, std::move(kernels), std::nullopt,
                          want_details, shared, gpu_side, reads);
        },
        [&] {
          return ReadSide(*launch_input, two_sides_of_one_file ? Part::kLaunchSide : Part::kWhole,
                          scan, inputs.device, classifier, hold, std::nullopt, std::move(launches),
                          want_details, shared, launch_side, reads);
        },
        [&meter] { meter.Abort(); });
    failure = FirstFailure(statuses);
  } else {  // one thread, unbounded meter: it feeds both sides
    failure =
        ReadSide(inputs.gpu, Part::kWhole, TableScan::kChecked, inputs.device, classifier, hold,
                 std::move(kernels), std::move(launches), want_details, shared, gpu_side, reads);
  }
  order.Learn(gpu_side.order_break);
  order.Learn(launch_side.order_break);
  RETURN_IF_ERROR(failure);
  if (gpu_side.gpu->operation_count == 0) {
    return ErrorAt(inputs.gpu.display_name, 0,
                   inputs.device.empty() ? "no GPU operations in the trace"
                                         : "no GPU operations on device " + inputs.device);
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
  Result<StepStats> stats = MakeStepStats(policy, *gpu_side.gpu, overlap, sources);
  if (kernel_totals) *kernel_totals = KernelTotalsOf(*gpu_side.gpu);
  if (details) {
    std::vector<InputDetails> read = {InputDetailsOf(inputs.gpu, gpu_side.report)};
    if (inputs.launches) read.push_back(InputDetailsOf(*inputs.launches, launch_side.report));
    // The launch path from the launch side's sink (a file of its own, or a kept trace's
    // calls read apart); one file is one input.
    *details = MakeDetails(*gpu_side.details, launch_side.details ? &*launch_side.details : nullptr,
                           shared, policy, classifier, std::move(read));
    NoteOrderBreak(order, *details);
  }
  return stats;
}

// One pass over a replayed trace.
Result<StepStats> ReplayPass(const TraceReplay& replay, const Policy& policy,
                             const Classifier& classifier, const StepStatsSources& sources,
                             StartOrder& order, bool hold, Details* details) {
  OverlapMeter meter;  // one thread feeds both sides: unbounded, holding one step at most
  GpuTotalsSink gpu(sources.gpu_trace, classifier, meter.TakeProducer(OverlapMeter::kA), !hold);
  LaunchTotalsSink launch(meter.TakeProducer(OverlapMeter::kB), !hold);
  std::optional<DetailsSink> details_sink;
  LaunchKeyMatcher matcher;  // one thread: it only ever holds what one step leaves unmatched
  if (details) details_sink.emplace(sources.gpu_trace, !hold, &matcher);
  TeeSink tee{&gpu, &launch, details_sink ? &*details_sink : nullptr};
  StartOrderSink in_order(tee, sources.gpu_trace, hold);
  Result<std::vector<InputDetails>> read = replay(in_order);
  order.Learn(in_order.broke());
  RETURN_IF_ERROR(read.status());              // else the replay finished the sinks
  std::optional<LaunchOverlapTotals> overlap;  // (a step without GPU work sums to zeros)
  if (sources.kernel_exec_trace) {
    overlap = LaunchOverlapTotals{launch.totals().union_ns, meter.overlap()};
  }
  Result<StepStats> stats = MakeStepStats(policy, gpu.totals(), overlap, sources);
  if (details) {
    *details = MakeDetails(details_sink->totals(), nullptr, &matcher, policy, classifier,
                           std::move(read.value()));
    NoteOrderBreak(order, *details);
  }
  return stats;
}

}  // namespace

Result<StepStats> SummarizeReplayed(const TraceReplay& replay, const Policy& policy,
                                    const StepStatsSources& sources, Details* details) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  StartOrder order;
  return RunInStartOrder<Result<StepStats>>(order, [&](bool hold) {
    return ReplayPass(replay, policy, classifier, sources, order, hold, details);
  });
}

Result<StepStats> SummarizeWith(const SummaryInputs& inputs, const Policy& policy, Details* details,
                                const PipelineLimits& limits,
                                std::vector<KernelDetails>* kernel_totals, TraceReads* reads) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  StartOrder order;
  return RunInStartOrder<Result<StepStats>>(order, [&](bool hold) -> Result<StepStats> {
    if (ReadsTwoSidesOfOneFile(inputs, details)) {
      // The halves read as stored first (one walk of each table less). Whatever stops that
      // pass, whether a table too far out of order for the reorder window or an error in the
      // file, the pass is run again checked, so that the answer and the error are exactly
      // those of a checked read; the first pass leaves no trace (its own StartOrder, its own
      // sinks, nothing printed; the rerun overwrites kernel_totals).
      StartOrder as_stored_order = order;
      Result<StepStats> stats = RunPass(inputs, policy, classifier, as_stored_order, hold, details,
                                        limits, TableScan::kAsStored, kernel_totals, nullptr);
      if (stats.ok()) {
        order = as_stored_order;
        return stats;
      }
    }
    return RunPass(inputs, policy, classifier, order, hold, details, limits, TableScan::kChecked,
                   kernel_totals, reads);
  });
}

Result<std::vector<std::string>> ListDevices(const SummaryInputs& inputs) {
  DeviceNamesSink names;
  // A kern-exec trace alone: its kernel columns are the GPU side.
  LaunchedKernelsSink launched_kernels(names, /*forward_launch_calls=*/false);
  TraceSink& sink = OpsAreItsLaunchRows(inputs.gpu.kind) ? static_cast<TraceSink&>(launched_kernels)
                                                         : static_cast<TraceSink&>(names);
  const Part part = ReadByQueries(inputs.gpu.kind) ? Part::kGpuSide : Part::kWhole;
  RETURN_IF_ERROR(ReadPart(inputs.gpu, part, sink).status());
  return names.devices();
}

Result<StepStats> Summarize(const SummaryInputs& inputs, const Policy& policy) {
  return SummarizeWith(inputs, policy, nullptr, PipelineLimits{});
}

Result<StepStats> SummarizeWithDetails(const SummaryInputs& inputs, const Policy& policy,
                                       Details& details) {
  return SummarizeWith(inputs, policy, &details, PipelineLimits{});
}

}  // namespace stepstat
