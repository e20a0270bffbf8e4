// The engine: one call per question a face asks (the CLI, the diff command, the Python
// module, the HTML report). Each call takes RunOptions and returns plain structs that the
// caller owns: no callbacks, no views into the inputs, nothing printed. A face chooses
// flags and writers (report.h, steps.h, output.h); everything between is here: choosing the
// policy, resolving INPUT names, the input checks, the analysis.
//
//   RunOptions options;
//   options.inputs = {"run"};  // run_cuda_gpu_trace.csv (+ run_cuda_kern_exec_trace.csv)
//   Result<SummaryResult> summary = RunSummary(options);
//   if (summary.ok()) std::fputs(StepStatsToJson(summary->stats).c_str(), stdout);
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/policy_coverage.h"
#include "stepstat/progress.h"
#include "stepstat/read.h"
#include "stepstat/report.h"
#include "stepstat/status.h"
#include "stepstat/step_stats.h"
#include "stepstat/steps.h"

namespace stepstat {

/// An input handed over in memory: `name` stands for it in messages and `source_*` fields
/// (and, with a ".nsys-rep" ending, is refused as one). CSV and Kineto JSON, plain or
/// compressed; an nsys SQLite export or .nsys-rep is read by path only and is refused here.
/// The bytes are not copied (a Kineto trace excepted: simdjson needs padding after it):
/// they must stay valid until the Run* call returns. Results never point into them.
struct InputBytes {
  std::string name;
  std::string_view bytes;
};

/// What to read and how. New fields come with defaults that keep today's behaviour.
struct RunOptions {
  /// Trace files (kind detected from content), or nsys output bases: `run` stands for
  /// run_cuda_gpu_trace.csv and, if present, run_cuda_kern_exec_trace.csv. RunSteps and
  /// RunSummary with `step` also take an NVTX CSV (nvtx_pushpop_trace) among them.
  std::vector<std::filesystem::path> inputs;
  /// Inputs in memory, taken after `inputs`, in the same roles.
  std::vector<InputBytes> input_bytes;
  /// A policy TOML file, or the name of a built-in policy when no such file exists; empty:
  /// kDefaultPolicyName.
  std::string policy;
  /// When not empty and an existing file: refused if it is one of the inputs (by any name:
  /// links followed), so that writing a result there cannot destroy its trace.
  std::filesystem::path output;
  /// When set, the call counts its reads there while it runs (progress.h): the face reads it
  /// from another thread. Must outlive the call. One meter at a time per process: a call
  /// given another meter while one is in use runs uncounted.
  ProgressMeter* progress = nullptr;

  // RunSummary.
  /// Fill SummaryResult::details (a second set of figures from the same pass).
  bool details = false;
  /// Fill SummaryResult::union_busy_percent, the busy % of the union of all kernels (needs
  /// the details pass; tables show it beside the summed busy %).
  bool union_busy = false;
  /// Fill RunContext::policy_hint. Off where nobody will print it: a summary of one device
  /// or one step reads the trace's kernel names again for it.
  bool policy_hint = true;
  /// Summarize one step of a whole run: its index, or "median" (the steady step closest to
  /// the median span). Empty: the whole trace. Steps are cut as `steps` says.
  std::string step;

  /// RunSummary of the whole trace: only this device ("NVIDIA GB10 (0)", as the trace names
  /// it; ListTraceDevices lists them): its GPU operations and the launch calls of its
  /// kernels, with the device's own span, gaps and unions. Empty: every device. Not with
  /// `step`.
  std::string device;

  /// How RunSteps (and RunSummary with `step`) cut and judge steps.
  StepsOptions steps;

  // RunKernels.
  /// Keep only the names that fall into `other`.
  bool unmatched_only = false;
};

/// Where each input ended up.
enum class InputRole { kGpuOperations, kLaunches, kStepRanges };

/// One resolved input, described (it never points at the caller's bytes).
struct ResolvedInput {
  std::string name;            ///< how messages and `source_*` fields name it
  std::filesystem::path path;  ///< empty when it was handed over in memory
  InputKind kind{};
  InputRole role = InputRole::kGpuOperations;
};

/// What every result shares: the policy applied, the inputs read, and what the input
/// checks found (one line each, without a "stepstat: warning: " prefix; a face prints
/// them, the library does not).
struct RunContext {
  Policy policy;
  std::vector<ResolvedInput> inputs;
  std::vector<std::string> warnings;
  /// The GPUs the input checks saw (every format; see InputCheckReport::devices).
  std::vector<std::string> devices;
  /// RunSummary and RunKernels: set when the policy leaves more than
  /// kPolicyHintOtherPercent of the kernel time in `other` and a built-in policy leaves less
  /// (a face prints PolicyHint::Message(); failing to compute one is not an error).
  std::optional<PolicyHint> policy_hint;
};

struct SummaryResult {
  RunContext context;
  StepStats stats;
  std::optional<Details> details;            ///< with RunOptions::details
  std::optional<double> union_busy_percent;  ///< with RunOptions::details or union_busy
  std::optional<ChosenStep> step;            ///< with RunOptions::step: the step summarized
};

/// The whole run cut into steps. `report` holds every step (about 1.3 KB each: 100k steps
/// peak near 140 MiB in all); its JSON is larger (~1.6 KB per step), so write it with
/// WriteStepsJson (steps.h), which hands it out in pieces, rather than StepsToJson.
struct StepsResult {
  RunContext context;
  StepsReport report;  ///< the steps, the residue, the step source and why it was chosen
};

/// `classify`: every distinct kernel name of the GPU side with its component.
struct KernelsResult {
  RunContext context;
  KernelListing listing;  ///< filtered by RunOptions::unmatched_only; totals are before it
};

/// The reference summary of the whole trace (or of one step), with details on request.
Result<SummaryResult> RunSummary(const RunOptions& options);

/// Per-step statistics across a whole run.
Result<StepsResult> RunSteps(const RunOptions& options);

/// Kernel names with their components, launches and times, by total time. Takes a trace,
/// or an nsys cuda_gpu_kern_sum CSV given on its own. Runs no input checks.
Result<KernelsResult> RunKernels(const RunOptions& options);

/// The policy RunOptions::policy names (see there): for a face that lists or checks it.
Result<Policy> ChoosePolicy(std::string_view choice);

}  // namespace stepstat
