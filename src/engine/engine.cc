// The Run* calls: each does in one order what every face needs (policy, inputs, the refusal
// of an output over an input, the input checks, the analysis) and returns plain structs.
// The order is the CLI's, so that the first error a run meets is the one it has always said.
#include "stepstat/engine.h"

#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "analysis/steps/steps_then.h"
#include "analysis/summary/summarize_internal.h"
#include "engine/engine_inputs.h"
#include "engine/engine_progress.h"
#include "engine/engine_steps.h"
#include "io/read_progress.h"
#include "readers/input_traits.h"
#include "stepstat/input_checks.h"
#include "stepstat/platform.h"

namespace stepstat {

namespace {

// The policy, the inputs described, the output refused over them, and (unless `check` is
// false) the input checks' warnings.
Result<RunContext> Prepare(const RunOptions& options, const StepsInputs& inputs, bool check) {
  RETURN_IF_ERROR(RefuseOutputOverInput(options.output, InputFiles(inputs)));
  RunContext context;
  context.inputs = DescribeInputs(inputs);
  if (check) {
    InputCheckOptions check_options;
    check_options.note_several_devices = options.device.empty();
    ASSIGN_OR_RETURN(InputCheckReport checks, CheckInputs(inputs.trace, check_options));
    context.warnings = std::move(checks.warnings);
    context.devices = std::move(checks.devices);
  }
  return context;
}

StepsInputs WithoutRanges(SummaryInputs trace) {
  StepsInputs inputs;
  inputs.trace = std::move(trace);
  return inputs;
}

}  // namespace

Result<Policy> ChoosePolicy(std::string_view choice) {
  if (choice.empty()) return BuiltinPolicy(kDefaultPolicyName);
  std::error_code ec;
  if (!std::filesystem::exists(PathFromUtf8(choice), ec)) {
    std::string names;
    for (std::string_view name : BuiltinPolicyNames()) {
      if (name == choice) return BuiltinPolicy(name);
      names += (names.empty() ? "" : ", ") + std::string(name);
    }
    // Neither a file nor a built-in name: a typo of either, so say what the names are.
    return ErrorAt(choice, 0,
                   "no such policy file, and no built-in policy of that name (built-in: " + names +
                       "; `stepstat policies` describes them)");
  }
  return LoadPolicyFile(PathFromUtf8(choice));
}

Result<SummaryRun> PrepareSummary(const RunOptions& options, bool plan_reads) {
  ASSIGN_OR_RETURN(Policy policy, ChoosePolicy(options.policy));
  if (!options.device.empty() && !options.step.empty()) {
    return Status::Error("one device of one step is not supported yet: give --device or --step");
  }
  StepsInputs inputs;
  if (options.step.empty()) {
    ASSIGN_OR_RETURN(SummaryInputs trace, ResolveSummaryInputs(options));
    trace.device = options.device;
    inputs = WithoutRanges(std::move(trace));
  } else {
    ASSIGN_OR_RETURN(inputs, ResolveStepsRunInputs(options));
  }
  if (plan_reads) {
    PlanReads(inputs, options.step.empty() ? PlannedRun::kSummary : PlannedRun::kOneStep);
  }
  ASSIGN_OR_RETURN(RunContext context, Prepare(options, inputs, /*check=*/true));
  return SummaryRun{std::move(policy), std::move(inputs), std::move(context)};
}

Result<SummaryResult> FinishSummary(const RunOptions& options, SummaryRun run,
                                    Result<StepStats> stats, Details details,
                                    const std::vector<KernelDetails>* kernel_totals) {
  if (!stats.ok()) return stats.status();
  // On the whole trace, also for one step: the policy is chosen for the run.
  if (options.policy_hint) {
    if (auto hint =
            SuggestBuiltinPolicy(run.policy, stats.value(), run.inputs.trace, kernel_totals);
        hint.ok()) {
      run.context.policy_hint = std::move(hint).value();
    }
  }
  SummaryResult result;
  run.context.policy = std::move(run.policy);
  result.context = std::move(run.context);
  result.stats = std::move(stats).value();
  if (options.details || options.union_busy) {
    result.union_busy_percent = details.kernel_union_percent_of_span;
  }
  if (options.details) result.details = std::move(details);
  return result;
}

Result<SummaryResult> RunSummary(const RunOptions& options) {
  return RunSummaryReading(options, nullptr);
}

Result<SummaryResult> RunSummaryReading(const RunOptions& options, TraceReads* reads) {
  ProgressScope progress(options.progress);
  ASSIGN_OR_RETURN(SummaryRun run, PrepareSummary(options, /*plan_reads=*/false));
  // What is replayed is read already: planned by the call that parsed it.
  if (!reads || !reads->Keeps(run.inputs.trace.gpu)) {
    PlanReads(run.inputs, options.step.empty() ? PlannedRun::kSummary : PlannedRun::kOneStep);
  }

  // Details and the union busy % come from one pass, the same as the summary's.
  const bool details_pass = options.details || options.union_busy;
  Details details;
  // The policy hint's coverage from the summary's own pass when that pass counts every
  // kernel the hint's own read would: not for one step or one device, nor for a kern-exec
  // trace read alone (the summary drops a row with a duration but no kernel start, the
  // kernel listing counts it). Else the hint reads the trace's kernel names again.
  std::vector<KernelDetails> kernel_totals;
  const bool whole_trace = options.step.empty() && options.device.empty() &&
                           !OpsAreItsLaunchRows(run.inputs.trace.gpu.kind);
  Result<StepStats> stats = Status::Error("not run");
  ChosenStep chosen;
  if (!options.step.empty()) {
    stats = SummarizeStep(run.inputs, run.policy, options.steps, options.step,
                          details_pass ? &details : nullptr, &chosen);
  } else {
    stats = SummarizeWith(run.inputs.trace, run.policy, details_pass ? &details : nullptr,
                          PipelineLimits{}, &kernel_totals, reads);
  }
  Result<SummaryResult> result =
      FinishSummary(options, std::move(run), std::move(stats), std::move(details),
                    whole_trace ? &kernel_totals : nullptr);
  if (result.ok() && !options.step.empty()) result->step = std::move(chosen);
  return result;
}

Result<StepsResult> RunSteps(const RunOptions& options) {
  return RunStepsDrawing(options, nullptr, nullptr);
}

Result<StepsResult> RunStepsDrawing(const RunOptions& options, std::vector<StepTimeline>* timelines,
                                    SummaryAlongside* summary,
                                    std::optional<std::vector<KernelDetails>>* kernels,
                                    TraceReads* reads) {
  ProgressScope progress(options.progress);
  ASSIGN_OR_RETURN(Policy policy, ChoosePolicy(options.policy));
  ASSIGN_OR_RETURN(StepsInputs inputs, ResolveStepsRunInputs(options));
  PlanReads(inputs, PlannedRun::kSteps);
  ASSIGN_OR_RETURN(RunContext context, Prepare(options, inputs, /*check=*/true));
  // The kernel listing rides on the residue pass where that pass reads GPU operations (a
  // kern-exec trace read as the GPU side has launch rows: RunKernels reads it then).
  std::unique_ptr<KernelsAlongside> listing;
  if (kernels && !timelines && !OpsAreItsLaunchRows(inputs.trace.gpu.kind)) {
    ASSIGN_OR_RETURN(listing, KernelsAlongside::Create(policy));
  }
  ASSIGN_OR_RETURN(
      StepsReport report,
      timelines ? AnalyzeStepsDrawing(inputs, policy, options.steps, *timelines, summary, reads)
                : AnalyzeStepsThen(inputs, policy, options.steps, nullptr, nullptr, summary,
                                   listing.get(), reads));
  if (listing) *kernels = listing->Take();
  if (auto unlaunched = UnlaunchedWarning(report)) context.warnings.push_back(*unlaunched);
  StepsResult result;
  context.policy = std::move(policy);
  result.context = std::move(context);
  result.report = std::move(report);
  return result;
}

Result<KernelsResult> RunKernels(const RunOptions& options) {
  ProgressScope progress(options.progress);
  ASSIGN_OR_RETURN(Policy policy, ChoosePolicy(options.policy));
  ASSIGN_OR_RETURN(SummaryInputs trace, ResolveKernelsInputs(options));
  StepsInputs inputs = WithoutRanges(std::move(trace));
  PlanReads(inputs, PlannedRun::kKernels);
  ASSIGN_OR_RETURN(RunContext context, Prepare(options, inputs, /*check=*/false));
  const TraceInput& gpu = inputs.trace.gpu;
  ASSIGN_OR_RETURN(std::vector<KernelDetails> kernels, IsKernelSummary(gpu.kind)
                                                           ? ListKernelsOfSummary(gpu, policy)
                                                           : ListKernels(inputs.trace, policy));
  if (auto hint = SuggestBuiltinPolicy(policy, kernels); hint.ok()) {
    context.policy_hint = std::move(hint).value();
  }
  KernelsResult result;
  KernelListing& listing = result.listing;
  listing.source = gpu.display_name;
  listing.policy = policy.name;
  listing.unmatched_only = options.unmatched_only;
  listing.distinct_names = static_cast<int64_t>(kernels.size());
  for (KernelDetails& k : kernels) {
    listing.kernel_time_ns += k.total_ns;
    if (!options.unmatched_only || k.component == "other") listing.kernels.push_back(std::move(k));
  }
  context.policy = std::move(policy);
  result.context = std::move(context);
  return result;
}

}  // namespace stepstat
