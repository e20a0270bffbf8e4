// AnalyzeSteps: the passes over the inputs. 1. CPU ranges (an NVTX CSV, or the ranges of a
// SQLite/Kineto file) → step ranges (annotations chosen by their cover of the GPU span, which
// for an NVTX CSV or an SQLite export the accumulation confirms: StepsOfGuessedSpan); without
// any, the kernel sequence → the period detector.
// 2. Launch calls → each call's step and the key → step runs (a kern-exec CSV's runs are
// built by pass 3 instead, as they are used: streamed_key_runs.h). 3. Launch calls and GPU
// operations at once, on two threads → each one's step → the per-step accumulators
// (steps_accumulate.cc). 4. The GPU side again → the residue (steps_residue.cc): it needs
// every step's span. Every pass streams; what stays is one accumulator per step (and,
// for the detector, a bounded prefix of the kernels).
#include "stepstat/steps.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "analysis/details/details_values.h"
#include "analysis/pipeline/start_order.h"
#include "analysis/pipeline/tee_sink.h"
#include "analysis/pipeline/two_sides.h"
#include "analysis/steps/kept_calls_sink.h"
#include "analysis/steps/period/steps_period.h"
#include "analysis/steps/step_filter_sink.h"
#include "analysis/steps/steps_accumulate.h"
#include "analysis/steps/steps_annotations.h"
#include "analysis/steps/steps_attribution.h"
#include "analysis/steps/steps_distribution.h"
#include "analysis/steps/steps_ranges.h"
#include "analysis/steps/steps_residue.h"
#include "analysis/steps/steps_sink.h"
#include "analysis/steps/steps_source.h"
#include "analysis/steps/steps_then.h"
#include "analysis/steps/streamed_key_runs.h"
#include "core/intervals.h"
#include "readers/input_traits.h"

namespace stepstat {

namespace {

// What the residue pass already handed to the early routes (StepsEarlyRoutes): their GPU
// operations, and what the GPU side held; and, when the launch side was read beside that
// pass, each early step's launch calls, kept until the replay hands them over.
struct EarlyRead {
  std::vector<StepRoute> routes;  // empty: no early routes, the replay reads both sides
  ReadReport gpu;
  std::optional<ReadReport> launches;  // set: the launch side was read beside the residue pass
  std::vector<StepRoute> kept;         // each such step, into a KeptCallsSink of `keepers`
  std::vector<std::unique_ptr<KeptCallsSink>> keepers;
};

bool SameRoutes(std::span<const StepRoute> a, std::span<const StepRoute> b) {
  return std::equal(
      a.begin(), a.end(), b.begin(), b.end(),
      [](const StepRoute& x, const StepRoute& y) { return x.step == y.step && x.sink == y.sink; });
}

// Reads the routes' steps again as `plan` attributes them, in one read of each input: their
// launch calls, then their GPU operations (unless the residue pass handed those over
// already, `early`); then finishes each route's sink, as one read of a hand-cut trace would
// (TraceSink's contract).
Result<std::vector<InputDetails>> ReplaySteps(const StepsInputs& inputs, const Plan& plan,
                                              std::span<const StepRoute> routes,
                                              const EarlyRead& early, TraceReads& reads) {
  const bool gpu_done = !early.routes.empty();
  if (gpu_done && !SameRoutes(routes, early.routes)) {
    return Status::Error("internal error: a replay of other routes than the early ones");
  }
  std::vector<InputDetails> read;
  const TraceInput* launches = plan.launch_step ? LaunchSource(inputs) : nullptr;
  if (launches && early.launches) {
    for (const StepRoute& route : routes) {
      auto kept = std::find_if(early.kept.begin(), early.kept.end(),
                               [&route](const StepRoute& k) { return k.step == route.step; });
      if (kept == early.kept.end()) {
        return Status::Error("internal error: a replay of a step whose calls were not kept");
      }
      RETURN_IF_ERROR(early.keepers[size_t(kept - early.kept.begin())]->HandTo(*route.sink));
    }
    if (launches != &inputs.trace.gpu) read.push_back(InputDetailsOf(*launches, *early.launches));
  } else if (launches) {
    StepFilterSink calls(routes, plan.launch_step, nullptr);
    ASSIGN_OR_RETURN(ReadReport report, reads.LaunchSide(*launches, calls));
    if (launches != &inputs.trace.gpu) read.push_back(InputDetailsOf(*launches, report));
  }
  if (gpu_done) {
    read.insert(read.begin(), InputDetailsOf(inputs.trace.gpu, early.gpu));
  } else {
    StepFilterSink ops(routes, nullptr, plan.op_step);
    ASSIGN_OR_RETURN(ReadReport report, reads.GpuSide(inputs.trace.gpu, ops));
    read.insert(read.begin(), InputDetailsOf(inputs.trace.gpu, report));
  }
  for (const StepRoute& route : routes) RETURN_IF_ERROR(route.sink->OnFinish());
  return read;
}

// The last steps: the report's warm-up, flags and distribution (from the totals alone),
// the residue pass (handing the early routes, if any, their GPU operations on the way),
// then `then` with a replay while the attribution is still at hand.
Status Conclude(const StepsInputs& inputs, const Plan& plan, const Policy& policy,
                const StepsOptions& options, const StepsConsumer& then,
                const StepsEarlyRoutes& early, StepsPasses& passes, StepsReport& report) {
  FinishStepsReport(report, policy, options);
  EarlyRead early_read;
  std::optional<StepFilterSink> early_ops;
  std::optional<TeeSink> riders;
  std::function<TraceSink*()> alongside;
  if ((then && early) || passes.summary || passes.kernels) {
    // Asked at each start of the residue pass: the early routes' sink, the summary's kernel
    // spreads (summary_alongside.h) and the kernel listing (kernel_spreads.h), each fresh.
    alongside = [&]() -> TraceSink* {
      TraceSink* routes = nullptr;
      if (then && early) {
        early_read.routes = early(report);
        if (!early_read.routes.empty()) {
          early_ops.emplace(early_read.routes, nullptr, plan.op_step);
          routes = &*early_ops;
        }
      }
      TraceSink* spreads = passes.summary ? passes.summary->SpreadsSink() : nullptr;
      TraceSink* kernels = passes.kernels ? &passes.kernels->Fresh() : nullptr;
      riders.emplace({routes, spreads, kernels});
      return &*riders;
    };
  }
  // The early steps' launch calls are read beside the residue pass, on a second thread, when
  // they come from a CSV file of their own: the replay then reads nothing. (An SQLite export
  // or a Kineto trace is one file for both sides, and a Kineto input's parse is kept in
  // TraceReads, which is not for two threads.)
  const TraceInput* launches = plan.launch_step ? LaunchSource(inputs) : nullptr;
  if (then && early && launches && launches != &inputs.trace.gpu &&
      !ParsedOnceAndReplayed(launches->kind) && !ReadByQueries(launches->kind)) {
    // Which steps: the routes' sinks are thrown away, the residue pass asks for fresh ones.
    for (const StepRoute& route : early(report)) {
      early_read.keepers.push_back(std::make_unique<KeptCallsSink>());
      early_read.kept.push_back({route.step, early_read.keepers.back().get()});
    }
  }
  if (!early_read.kept.empty()) {
    // two_sides.h states the threads' contract. This thread runs the residue pass (its
    // sinks, the early routes' sinks, the summary's spreads); the launch thread owns the
    // kept calls (`keepers`) and its StepFilterSink, and calls plan.launch_step, which the
    // residue pass does not (as in the steps' accumulation, where the two sides run the same
    // way).
    // Nothing couples the two sides (no meter): neither waits but the join, so `abort` has
    // nothing to release.
    Result<StepsResidue> residue = Status::Error("not run");
    Result<ReadReport> launch_read = Status::Error("not run");
    SideStatuses statuses = ReadBothSides(
        [&] {
          residue = MeasureResidue(inputs, plan, report, passes, alongside, &early_read.gpu);
          return residue.status();
        },
        [&] {
          StepFilterSink calls(early_read.kept, plan.launch_step, nullptr);
          launch_read = passes.reads.LaunchSide(*launches, calls);
          return launch_read.status();
        },
        [] {});
    RETURN_IF_ERROR(FirstFailure(statuses));
    report.residue = std::move(residue).value();
    early_read.launches = std::move(launch_read).value();
  } else {
    ASSIGN_OR_RETURN(report.residue,
                     MeasureResidue(inputs, plan, report, passes, alongside, &early_read.gpu));
  }
  if (!then) return Status::Ok();
  StepReplay replay = [&](std::span<const StepRoute> routes) {
    return ReplaySteps(inputs, plan, routes, early_read, passes.reads);
  };
  return then(report, replay);
}

// Accumulate's totals into the report: one per step, the outside one, the unlaunched one.
Status TakeTotals(std::vector<StepTotals> totals, std::string_view gpu_trace, StepsReport& report) {
  const size_t steps = report.steps.size();
  for (size_t i = 0; i < steps; ++i) report.steps[i].totals = std::move(totals[i]);
  report.outside = std::move(totals[steps]);
  StepTotals& unlaunched = totals[steps + 1];
  UnlaunchedOps& u = report.residue.unlaunched;  // the residue pass adds span and idle
  u.operation_count = unlaunched.operation_count;
  u.kernel_count = unlaunched.kernel_count;
  u.kernel_time_ns = unlaunched.kernel_time_ns;
  u.component_time_ns = std::move(unlaunched.component_time_ns);
  u.component_launches = std::move(unlaunched.component_launches);
  int64_t of_no_step = 0;  // the residue's kernel time, once the residue pass has run
  if (__builtin_add_overflow(report.outside.kernel_time_ns, u.kernel_time_ns, &of_no_step)) {
    return ErrorAt(gpu_trace, 0, "summed kernel time overflows 64-bit nanoseconds");
  }
  return Status::Ok();
}

// Keys that join a GPU op to its launch call: correlation ids when the launch source has
// them, else kernel start times. Decided by the first call that carries either.
struct KeyChoice {
  enum Kind { kUnknown, kCorrelation, kKernelStart } kind = kUnknown;
  int64_t Of(const LaunchCall& call) {
    if (kind == kUnknown) {
      if (call.correlation_id >= 0)
        kind = kCorrelation;
      else if (call.kernel_start_ns >= 0)
        kind = kKernelStart;
    }
    return kind == kCorrelation   ? call.correlation_id
           : kind == kKernelStart ? call.kernel_start_ns
                                  : -1;
  }
  int64_t Of(const GpuOp& op) const {
    return kind == kCorrelation ? op.correlation_id : kind == kKernelStart ? op.start_ns : -1;
  }
};

// The GPU span of every operation the accumulation saw: each is in one of `totals` (a
// step's, the outside one, the unlaunched one). Sets `ops` to their count.
Interval GpuSpanOf(const std::vector<StepTotals>& totals, int64_t& ops) {
  Interval span{0, 0};
  ops = 0;
  for (const StepTotals& t : totals) {
    if (t.operation_count == 0) continue;
    span.start = ops == 0 ? t.first_start_ns : std::min(span.start, t.first_start_ns);
    span.end = ops == 0 ? t.last_end_ns : std::max(span.end, t.last_end_ns);
    ops += t.operation_count;
  }
  return span;
}

// Given when the ranges were chosen against a guess of the GPU span: told the exact span
// (first start, last end, operations) once the accumulation saw every operation, it says
// whether the choice holds, and completes `report` (its reason) if so.
using ChoiceCheck = std::function<bool(const Interval& span, int64_t ops, StepsReport& report)>;

// The steps of `ranges`. With `check`, nullopt when the check refuses the choice or a pass
// before it fails: the caller then starts over, and a failure says itself again there.
Result<std::optional<StepsReport>> FromRanges(
    const StepsInputs& inputs, const Policy& policy, const Classifier& classifier,
    const StepsOptions& options, const StepsConsumer& then, const StepsEarlyRoutes& early,
    std::vector<StepRange> ranges, StepsPasses& passes, StepsReport report,
    const ChoiceCheck& check = nullptr) {
  report.steps.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    StepRecord r;
    r.index = static_cast<int64_t>(i);
    r.name = ranges[i].name;
    r.cpu_start_ns = ranges[i].start_ns;
    r.cpu_end_ns = ranges[i].end_ns;
    report.steps.push_back(std::move(r));
  }
  std::vector<int64_t> starts;
  starts.reserve(ranges.size());
  for (const StepRange& r : ranges) starts.push_back(r.start_ns);
  WindowStepFinder windows(starts);
  auto by_window = [&windows](const GpuOp& op) { return windows.StepOf(op.start_ns); };
  // For copies and memsets whose key is in no run (one before a step's first kernel, when
  // keys are kernel start times): the same windows, closed at the end of the last range. No
  // reader records the calls that issue them, so lacking one says nothing of their step.
  int64_t last_end = 0;
  for (const StepRange& r : ranges) last_end = std::max(last_end, r.end_ns);
  WindowStepFinder closed_windows(std::move(starts), last_end);

  Plan plan;
  plan.step_count = ranges.size();
  plan.op_step = by_window;
  const TraceInput* launches = LaunchSource(inputs);
  LaunchStepFinder finder(ranges);
  KeyChoice keys;
  StepKeyRuns runs;
  StreamedKeyRuns streamed_keys;
  KeyChoice decided;  // streamed: the keys a pass over the calls first would have chosen
  int64_t attributed_calls = 0;
  std::atomic<int64_t> copy_calls = 0;  // streamed: never written (a copy call refuses it)
  // The plan's launch side. `streamed`: the key → step runs are built by the accumulation's
  // own launch side as the GPU side uses them (streamed_key_runs.h), for calls keyed by
  // their kernel's start (a kern-exec CSV); else by a launch pass first.
  auto with_launches = [&](bool streamed) {
    keys = KeyChoice();
    decided = KeyChoice();
    if (streamed) keys.kind = KeyChoice::kKernelStart;
    runs = StepKeyRuns();
    attributed_calls = 0;
    copy_calls = 0;
    plan.launch_step = [&finder](const LaunchCall& call) {
      return finder.StepOf(call.pid, call.tid, call.api_start_ns);
    };
    // Copy and memset calls join their operations to a step as launches join kernels.
    plan.copy_calls = true;
    plan.on_launch = [&, streamed](const LaunchCall& call, int32_t step) {
      const int64_t key = keys.Of(call);
      if (streamed) {
        decided.Of(call);
        if (call.kind == CallKind::kCopy || call.correlation_id >= 0) {
          streamed_keys.Refuse();  // joined otherwise than by kernel start: not streamed
        } else if (key >= 0) {
          streamed_keys.Add(key, step, call.api_start_ns);
        }
        attributed_calls += call.kind != CallKind::kCopy && step != kNoStep;
        return;
      }
      if (key >= 0) runs.Add(key, step);
      if (call.kind == CallKind::kCopy) {
        copy_calls += key >= 0;
      } else {
        attributed_calls += step != kNoStep;
      }
    };
    plan.streamed_keys = streamed ? &streamed_keys : nullptr;
    plan.after_launches = streamed ? std::function<void()>() : [&runs] { runs.Freeze(); };
    // The call's process, thread and API start (its range) and its keys.
    plan.launch_fields = {0, TraceFields::kApiStart | TraceFields::kCallPid |
                                 TraceFields::kCallTid | TraceFields::kCallCorrelation |
                                 TraceFields::kKernelStart};
    plan.op_step = [&, streamed](const GpuOp& op) {
      int64_t key = keys.Of(op);
      int32_t step = key < 0 ? kUnknownKey : streamed ? streamed_keys.Find(key) : runs.Find(key);
      if (step != kUnknownKey) return step;
      // An operation with a key but no call around it: its call is not in the trace (queued
      // before the capture began). A step's window would hand it work it never launched
      // (issue 30), so it is counted apart. A copy is judged so only when the launch trace
      // records copy calls at all (docs/steps.md, "Which step an operation belongs to").
      if (key >= 0 && (op.kind == OpKind::kKernel || copy_calls > 0)) return kUnlaunched;
      return closed_windows.StepOf(op.start_ns);
    };
  };
  const bool streamed = launches != nullptr && LaunchesKeyedByKernelStart(launches->kind) &&
                        !options.launch_pass_first;
  if (launches) with_launches(streamed);
  Result<std::vector<StepTotals>> accumulated =
      Accumulate(inputs, policy, classifier, options, plan, passes);
  if (streamed && (!streamed_keys.trustworthy() || decided.kind != KeyChoice::kKernelStart)) {
    // The calls broke what streaming the runs needs (or carry other keys, or none): a launch
    // pass first after all, which gives the answer (or the error) the streamed read would
    // have had to.
    with_launches(false);
    accumulated = Accumulate(inputs, policy, classifier, options, plan, passes);
  }
  if (!accumulated.ok() && check) return std::optional<StepsReport>();
  ASSIGN_OR_RETURN(std::vector<StepTotals> totals, std::move(accumulated));
  report.attribution = keys.kind == KeyChoice::kCorrelation   ? StepAttribution::kLaunchCorrelation
                       : keys.kind == KeyChoice::kKernelStart ? StepAttribution::kLaunchKernelStart
                                                              : StepAttribution::kGpuTimeWindow;
  if (launches && (attributed_calls == 0 || keys.kind == KeyChoice::kUnknown)) {
    // No launch call fell in a step range (or none can be joined): GPU time windows it is,
    // and no per-step launch overlap.
    plan.launch_step = nullptr;
    plan.on_launch = nullptr;
    plan.copy_calls = false;
    plan.after_launches = nullptr;
    plan.streamed_keys = nullptr;
    plan.launch_fields = TraceFields::All();
    plan.op_step = by_window;
    report.attribution = StepAttribution::kGpuTimeWindow;
    accumulated = Accumulate(inputs, policy, classifier, options, plan, passes);
    if (!accumulated.ok() && check) return std::optional<StepsReport>();
    ASSIGN_OR_RETURN(totals, std::move(accumulated));
    launches = nullptr;
  }
  if (check) {
    int64_t ops = 0;
    const Interval span = GpuSpanOf(totals, ops);
    if (!check(span, ops, report)) return std::optional<StepsReport>();
  }
  if (launches) report.launch_trace = launches->display_name;
  Status taken = TakeTotals(std::move(totals), inputs.trace.gpu.display_name, report);
  if (!taken.ok() && check) return std::optional<StepsReport>();
  RETURN_IF_ERROR(taken);
  SetPeriods(report);
  RETURN_IF_ERROR(Conclude(inputs, plan, policy, options, then, early, passes, report));
  return std::optional(std::move(report));
}

Result<StepsReport> FromKernelPeriod(const StepsInputs& inputs, const Policy& policy,
                                     const Classifier& classifier, const StepsOptions& options,
                                     const StepsConsumer& then, const StepsEarlyRoutes& early,
                                     StepsPasses& passes, StepsReport report) {
  // The detector copes with any order itself (by (start, end), finer than start order); the
  // stage only watches, so that the passes after it hold at once when order broke.
  ASSIGN_OR_RETURN(DetectedSteps detected, DetectStepsByPeriod([&](TraceSink& sink) {
                     StartOrderSink watched(sink, inputs.trace.gpu.display_name,
                                            passes.order.hold(), /*stop_at_break=*/false);
                     Status read = passes.reads.GpuSide(inputs.trace.gpu, watched).status();
                     passes.order.Learn(watched.broke());
                     return read;
                   }));
  if (!detected.found) {
    const std::string why =
        detected.refused.empty() ? std::string("no repeating kernel sequence") : detected.refused;
    return ErrorAt(inputs.trace.gpu.display_name, 0,
                   "no step annotations, and " + why + "; give an NVTX trace and --steps REGEX");
  }
  report.source_detail = "period of " + std::to_string(detected.period) + " kernels";
  report.source_reason =
      (report.source_reason.empty() ? std::string("steps: no step annotations in the trace")
                                    : report.source_reason) +
      "; the kernel sequence repeats every " + std::to_string(detected.period) + " kernels";
  const std::vector<size_t>& firsts = detected.first_kernels;
  for (size_t i = 0; i < firsts.size(); ++i) {
    size_t first = firsts[i];
    size_t end = i + 1 < firsts.size() ? firsts[i + 1] : detected.kernel_count;
    StepRecord r;
    r.index = static_cast<int64_t>(i);
    r.name = "kernels " + std::to_string(first) + ".." + std::to_string(end - 1);
    bool first_or_last = i == 0 || i + 1 == firsts.size();
    // A warm-up prefix or a cut-off tail: fewer kernels than a step by more than noise.
    size_t short_by = std::max<size_t>(1, detected.period / 100);
    if (first_or_last && end - first + short_by <= detected.period) r.flags |= kStepPartial;
    report.steps.push_back(std::move(r));
  }
  std::vector<int64_t> starts = std::move(detected.starts_ns);

  WindowStepFinder windows(std::move(starts));
  Plan plan;
  plan.step_count = report.steps.size();
  plan.op_step = [&windows](const GpuOp& op) { return windows.StepOf(op.start_ns); };
  const TraceInput* launches = LaunchSource(inputs);
  int64_t joined = 0;
  if (launches) {
    // A launch belongs to the step of the kernel it launched.
    plan.launch_step = [&windows](const LaunchCall& call) {
      return call.kernel_start_ns < 0 ? kNoStep : windows.StepOf(call.kernel_start_ns);
    };
    plan.on_launch = [&joined](const LaunchCall& call, int32_t) {
      joined += call.kernel_start_ns >= 0;
    };
  }
  ASSIGN_OR_RETURN(std::vector<StepTotals> totals,
                   Accumulate(inputs, policy, classifier, options, plan, passes));
  if (launches && joined > 0) report.launch_trace = launches->display_name;
  RETURN_IF_ERROR(TakeTotals(std::move(totals), inputs.trace.gpu.display_name, report));
  SetPeriods(report);
  RETURN_IF_ERROR(Conclude(inputs, plan, policy, options, then, early, passes, report));
  return report;
}

// Ranges read without the GPU operations (an NVTX CSV beside the GPU trace, an SQLite
// export's NVTX table alone): rather than read the GPU side once only for its span, the annotation
// is chosen against the ranges' own extent, and the steps' accumulation, which sees every
// operation, measures the exact span. The same choice under it: the steps stand, as the choice made
// against the exact span would have cut them. Else nullopt, the exact span now known to
// `annotations` (unless a pass failed): the caller chooses again, without a read for the span.
Result<std::optional<StepsReport>> StepsOfGuessedSpan(
    const StepsInputs& inputs, const Policy& policy, const Classifier& classifier,
    const StepsOptions& options, const StepsConsumer& then, const StepsEarlyRoutes& early,
    const TraceInput& range_file, StepsPasses& passes, AnnotationStats& annotations,
    const StepsReport& report) {
  std::optional<AnnotationChoice> guess = annotations.Best(annotations.range_extent_ns());
  if (!guess) return std::optional<StepsReport>();
  ASSIGN_OR_RETURN(std::optional<std::vector<StepRange>> ranges,
                   RangesOf(*guess, range_file, passes));
  if (!ranges || ranges->empty()) return std::optional<StepsReport>();
  StepsReport guessed = report;
  guessed.range_trace = range_file.display_name;
  guessed.source = StepSourceKind::kRanges;
  guessed.source_detail = guess->pattern;
  const size_t count = ranges->size();
  ChoiceCheck check = [&](const Interval& span, int64_t ops, StepsReport& out) {
    annotations.SetGpuSpan(span.start, span.end, ops);
    if (!annotations.has_gpu_span()) return false;
    std::optional<AnnotationChoice> exact = annotations.Best(annotations.gpu_span_ns());
    if (!exact || exact->pattern != guess->pattern) return false;
    out.source_reason = AnnotatedReason(*exact, count);
    return true;
  };
  return FromRanges(inputs, policy, classifier, options, then, early, std::move(*ranges), passes,
                    std::move(guessed), check);
}

}  // namespace

Result<StepsReport> AnalyzeSteps(const StepsInputs& inputs, const Policy& policy,
                                 const StepsOptions& options) {
  return AnalyzeStepsThen(inputs, policy, options, nullptr);
}

Result<StepsReport> AnalyzeStepsThen(const StepsInputs& inputs, const Policy& policy,
                                     const StepsOptions& options, const StepsConsumer& then,
                                     const StepsEarlyRoutes& early, SummaryAlongside* summary,
                                     KernelsAlongside* kernels, TraceReads* reads) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  StepsReport report;
  report.gpu_trace = inputs.trace.gpu.display_name;
  StepsPasses passes(reads);  // how the passes read the inputs, what they learn of their order
  passes.summary = summary;
  passes.kernels = kernels;

  const bool by_regex = !options.range_regex.empty();
  if (by_regex && options.by_period) {
    return Status::Error("--steps and --by-period choose two different cuts; give one");
  }
  const TraceInput* range_file = options.by_period                            ? nullptr
                                 : inputs.ranges                              ? &*inputs.ranges
                                 : HoldsLaunchesAndOps(inputs.trace.gpu.kind) ? &inputs.trace.gpu
                                                                              : nullptr;
  if (by_regex && !range_file) {
    return Status::Error(
        "--steps needs CPU ranges: give an nvtx_pushpop_trace CSV, an nsys SQLite export or a "
        "PyTorch profiler trace");
  }
  std::vector<StepRange> ranges;
  // The GPU span the annotations are chosen by passes by with the ranges of a file parsed
  // whole anyway (Kineto); else the ranges are read alone (an SQLite export's GPU tables are
  // not scanned for them) and the span is the accumulation's (StepsOfGuessedSpan).
  AnnotationStats annotations(range_file && ParsedOnceAndReplayed(range_file->kind));
  if (range_file) {
    ASSIGN_OR_RETURN(std::unique_ptr<RangeCollector> collector,
                     RangeCollector::Create(by_regex ? options.range_regex : kProfilerStepPattern));
    TeeSink both{collector.get(), by_regex ? nullptr : &annotations};
    RETURN_IF_ERROR(passes.reads.Whole(*range_file, both).status());
    ranges = collector->TakeSteps();
    if (ranges.empty() && by_regex) {
      std::string message = "no CPU range matches '" + options.range_regex + "' (" +
                            std::to_string(collector->ranges_seen()) + " ranges";
      const std::vector<std::string>& samples = collector->sample_names();
      for (size_t i = 0; i < samples.size(); ++i) {
        message += (i == 0 ? ", e.g. '" : "', '") + samples[i];
        if (i + 1 == samples.size()) message += "'";
      }
      return ErrorAt(range_file->display_name, 0, message + ")");
    }
    if (!ranges.empty()) report.range_trace = range_file->display_name;
  }

  if (!ranges.empty()) {
    report.source = by_regex ? StepSourceKind::kRanges : StepSourceKind::kProfilerStep;
    report.source_detail = by_regex ? options.range_regex : std::string("ProfilerStep#N");
    report.source_reason =
        by_regex ? "steps: " + std::to_string(ranges.size()) + " CPU ranges matching --steps '" +
                       options.range_regex + "'"
                 : "steps: " + std::to_string(ranges.size()) +
                       " PyTorch ProfilerStep#N annotations, the trace's own step marks";
    ASSIGN_OR_RETURN(std::optional<StepsReport> steps,
                     FromRanges(inputs, policy, classifier, options, then, early, std::move(ranges),
                                passes, std::move(report)));
    return std::move(*steps);
  }
  if (range_file && !by_regex && !annotations.has_gpu_span()) {
    ASSIGN_OR_RETURN(std::optional<StepsReport> guessed,
                     StepsOfGuessedSpan(inputs, policy, classifier, options, then, early,
                                        *range_file, passes, annotations, report));
    if (guessed) return std::move(*guessed);
  }
  if (range_file && !by_regex) {
    ASSIGN_OR_RETURN(std::optional<AnnotatedSteps> annotated,
                     AnnotatedStepsOf(inputs, *range_file, passes, annotations));
    if (annotated && !annotated->ranges.empty()) {
      report.range_trace = range_file->display_name;
      report.source = StepSourceKind::kRanges;
      report.source_detail = annotated->pattern;
      report.source_reason = annotated->reason;
      ASSIGN_OR_RETURN(std::optional<StepsReport> steps,
                       FromRanges(inputs, policy, classifier, options, then, early,
                                  std::move(annotated->ranges), passes, std::move(report)));
      return std::move(*steps);
    }
    if (annotated) report.source_reason = annotated->reason;
  }
  if (options.by_period) report.source_reason = "steps: the kernel period, as --by-period asks";
  report.source = StepSourceKind::kPeriodDetector;
  report.attribution = StepAttribution::kGpuTimeWindow;
  return FromKernelPeriod(inputs, policy, classifier, options, then, early, passes,
                          std::move(report));
}

}  // namespace stepstat
