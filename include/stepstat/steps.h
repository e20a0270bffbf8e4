// Per-step statistics across a whole run: steps cut from NVTX ranges, PyTorch ProfilerStep
// annotations or the repetition of the kernel-name sequence; each GPU operation attributed
// to one step; one reference summary per step and their distribution over the steady state.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/status.h"
#include "stepstat/step_stats.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Where the steps came from.
enum class StepSourceKind {
  kRanges,          ///< CPU ranges (NVTX) whose text matches the --steps regex
  kProfilerStep,    ///< PyTorch `ProfilerStep#N` annotations
  kPeriodDetector,  ///< no annotations: the period of the kernel-name sequence
};
std::string_view StepSourceKindName(StepSourceKind kind);

/// How a GPU operation found its step.
enum class StepAttribution {
  /// The step's CPU range contains the API call that launched the op (same thread, or the
  /// same process when no step range is on the call's thread), joined by correlation id. An
  /// op with no launch record whose id lies between two launches of one step belongs to that
  /// step. A kernel whose id lies in no such run has no launch record the trace holds (its
  /// call came before the capture began): it is no step's, counted apart as
  /// StepsResidue::unlaunched. A copy or memset (whose issuing call no reader records) is
  /// then placed by the time windows below, the last one closed at the end of the last range.
  kLaunchCorrelation,
  /// Same, joined by the kernel's start time (kern-exec CSV rows carry no correlation id); a
  /// kernel of the GPU trace whose start no kern-exec row has is `unlaunched`.
  kLaunchKernelStart,
  /// No launch calls: an op belongs to step k when its GPU start is in
  /// [start of step k, start of step k+1); the last step's window has no end. For ranges the
  /// starts are CPU times (GPU work that lags into the next range goes to the next step);
  /// for detected steps they are the starts of the first kernel of each step.
  kGpuTimeWindow,
};
std::string_view StepAttributionName(StepAttribution attribution);

/// Everything a step source and the attribution need beyond a summary's inputs.
struct StepsInputs {
  SummaryInputs trace;               ///< GPU operations and, optionally, launch calls
  std::optional<TraceInput> ranges;  ///< an nvtx_pushpop_trace / nvtx_gpu_proj_trace CSV
};

/// Resolves `stepstat steps` INPUT arguments: ResolveInputs plus at most one NVTX CSV.
Result<StepsInputs> ResolveStepsInputs(const std::vector<std::string>& args);

struct StepsOptions {
  std::string range_regex;  ///< RE2 search over range text; empty: ProfilerStep# or detector
  /// Cut at the period of the kernel sequence even when the trace carries step annotations
  /// (to compare the two cuts of one run); not with range_regex.
  /// Leading steps whose GPU span differs from the median by more than this fraction are
  /// warm-up (at most half of the steps).
  bool by_period = false;
  double warmup_tolerance = 0.2;
  double slow_factor = 2.0;               ///< a step this many times the steady median is slow
  double dominant_kernel_fraction = 0.5;  ///< one kernel taking more of the span is flagged
  /// How far the GPU reader may run ahead of the launch reader or back, in union components
  /// (16 bytes each): memory against lock traffic. Tests make it tiny to force the readers'
  /// tightest interleavings.
  size_t max_pending_components = size_t{1} << 16;
  /// Join operations to calls keyed by kernel start (a kern-exec CSV) through a pass over the
  /// calls first, as other launch sources are, instead of as both sides stream: the same
  /// answer by the other way (tests compare the two).
  bool launch_pass_first = false;
};

enum StepFlag : uint32_t {
  kStepNoGpuWork = 1u << 0,  ///< no GPU operation was attributed to the step
  kStepDominantKernel =
      1u << 1,             ///< one kernel took more than dominant_kernel_fraction of the span
  kStepSlow = 1u << 2,     ///< span >= slow_factor x the steady-state median
  kStepPartial = 1u << 3,  ///< detector only: the prefix before the first cut or a short tail
};
/// Flag names in bit order, e.g. {"no_gpu_work", "slow"}.
std::vector<std::string_view> StepFlagNames(uint32_t flags);

/// What one step adds up to (the totals behind the reference summary; StepStatsOf() turns
/// them into its fields with the same arithmetic as `summarize`).
struct StepTotals {
  int64_t operation_count = 0;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  int64_t first_start_ns = 0;  ///< meaningful when operation_count > 0
  int64_t last_end_ns = 0;
  int64_t gap_count = 0;
  int64_t gap_total_ns = 0;
  int64_t gap_max_ns = 0;
  int64_t kernel_busy_ns = 0;              ///< length of the union of this step's kernels
  std::vector<int64_t> component_time_ns;  ///< by classifier index, `other` last
  std::vector<int64_t> component_launches;
  int64_t launch_call_count = 0;
  int64_t launch_union_ns = 0;
  /// This step's launch union ∩ the union of every kernel of the trace, whichever step it
  /// belongs to: the whole-trace overlap's meaning (a pipelined CPU launches step N while
  /// the GPU runs step N-1). Over steps whose launch unions are disjoint, these add up (with
  /// the outside one) to the whole-trace overlap.
  int64_t launch_overlap_ns = 0;
  /// This step's launch union ∩ this step's own kernel union (what a summary of the step's
  /// own launches and operations alone measures).
  int64_t launch_own_kernels_overlap_ns = 0;
  int64_t longest_kernel_ns = 0;
  std::string longest_kernel_name;  ///< set only for steps flagged kStepDominantKernel

  /// First start to last end of the step's operations (0 without any): its `gpu_span_ns`.
  int64_t span_ns() const { return operation_count == 0 ? 0 : last_end_ns - first_start_ns; }
  /// Of that span, the time none of the step's kernels runs: its `gpu_idle_ns`, the one
  /// definition every face shows.
  int64_t gpu_idle_ns() const { return span_ns() - kernel_busy_ns; }
};

struct StepRecord {
  int64_t index = 0;  ///< position in StepsReport::steps, from 0
  std::string name;   ///< range text ("ProfilerStep#12"), or "kernels a..b" for detected steps
  int64_t cpu_start_ns = -1;  ///< the CPU range; -1 for detected steps
  int64_t cpu_end_ns = -1;
  StepTotals totals;
  /// Start to start: the GPU start of the next step with GPU work minus this step's; -1 for
  /// the last such step and for steps without GPU work. Span plus the wait before the next.
  int64_t period_ns = -1;
  bool warmup = false;
  uint32_t flags = 0;  ///< StepFlag bits
};

/// Over the steady-state steps. Quantiles interpolate linearly between order statistics
/// (numpy's default); cv is the population standard deviation over the mean (0 if mean is 0).
struct Distribution {
  std::string metric;  ///< a summary key, e.g. "gpu_span_ns", "components.sage2.milliseconds"
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0, cv = 0;
};

/// GPU time of the run in no step's span, in one of three places.
struct ResiduePart {
  int64_t span_ns = 0;  ///< time in no step's span
  int64_t idle_ns = 0;  ///< of it, time when no kernel ran
  /// Gaps of the whole trace (the summary's launch_gaps) filed here: every gap that is not a
  /// gap of one step's own kernels, i.e. whose two bounding kernels belong to different steps
  /// or to none. Filed by where it lies: before_first when it ends at or before the first
  /// step's GPU start, after_last when it starts at or after the last step's GPU end.
  int64_t gap_count = 0;
  int64_t gap_total_ns = 0;
};

/// Kernels that have no launch record in a trace that has launch calls (StepAttribution):
/// no step absorbs them, so that a step's figures are its own launches' work.
struct UnlaunchedOps {
  int64_t operation_count = 0;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;  ///< summed durations (also in StepsResidue::kernel_time_ns)
  std::vector<int64_t> component_time_ns;  ///< by classifier index, `other` last
  std::vector<int64_t> component_launches;
  int64_t span_ns = 0;  ///< first start to last end of these operations
  int64_t idle_ns = 0;  ///< of that span, time when none of them ran
};

/// What makes the steps tile the run. With S the sum over steps of each field:
///   span:        S(span) + residue spans − steps_overlap_ns = gpu_span_ns
///   idle:        S(span − kernel_busy) + residue idle − steps_overlap_ns
///                + concurrent_step_kernels_ns − outside_kernels_in_steps_ns
///                = gpu_span_ns − busy time of the union of every kernel
///   gaps:        S(gaps) − filled_step_gap_* + residue gaps = launch_gaps (count and total)
///   kernel time: S(kernel_time) + kernel_time_ns = kernel_time_ns
/// The four correction terms are 0 when steps follow each other on the GPU (no two steps'
/// spans overlap and no kernel outside the steps runs within one).
struct StepsResidue {
  int64_t gpu_span_ns = 0;  ///< the whole trace's, as `summarize` reports it
  ResiduePart before_first, between_steps, after_last;
  int64_t kernel_time_ns = 0;  ///< kernels of no step: those outside every step and unlaunched
  /// Of the operations of no step, those without a launch record (their time and gaps are
  /// filed above with the rest, by where they lie).
  UnlaunchedOps unlaunched;
  /// Time in two or more steps' spans, counted once per extra step.
  int64_t steps_overlap_ns = 0;
  /// Busy time counted by two or more steps' own kernel unions (their kernels ran at once).
  int64_t concurrent_step_kernels_ns = 0;
  /// Busy time of kernels of no step within steps' spans, while no step's kernel ran.
  int64_t outside_kernels_in_steps_ns = 0;
  /// Gaps of a step's own kernels that are no gap of the whole trace: other kernels ran in them.
  int64_t filled_step_gap_count = 0;
  int64_t filled_step_gap_ns = 0;
};

struct StepsReport {
  StepSourceKind source = StepSourceKind::kPeriodDetector;
  std::string source_detail;  ///< the regex, "ProfilerStep#N", or the detected period
  std::string source_reason;  ///< why this source: one line for stderr
  StepAttribution attribution = StepAttribution::kGpuTimeWindow;
  std::string gpu_trace;
  std::optional<std::string> launch_trace;  ///< null when the overlap is unknown
  std::optional<std::string> range_trace;
  std::vector<StepRecord> steps;
  StepTotals outside;  ///< operations launched outside every step (not the unlaunched ones)
  StepsResidue residue;
  int64_t warmup_count = 0;
  int64_t steady_count = 0;
  int64_t median_step = -1;  ///< the steady step whose span is closest to the median
  std::vector<Distribution> steady_state;
};

/// Reads the inputs (a few streaming passes), cuts steps, attributes every GPU operation.
Result<StepsReport> AnalyzeSteps(const StepsInputs& inputs, const Policy& policy,
                                 const StepsOptions& options);

/// The reference summary of one step, as `summarize` would print it for a hand-cut trace.
StepStats StepStatsOf(const StepsReport& report, const StepRecord& step, const Policy& policy);

/// The warning a face prints when some kernels had no launch record (residue.unlaunched),
/// without the "stepstat: warning: " prefix; nullopt when every one had.
std::optional<std::string> UnlaunchedWarning(const StepsReport& report);

/// "median" (the median_step) or a step index; an error names the valid range.
Result<size_t> ChooseStep(const StepsReport& report, std::string_view which);

/// Which step `summarize --step` printed: `--step median` names none by itself.
struct ChosenStep {
  int64_t index = 0;  ///< StepRecord::index
  std::string name;   ///< StepRecord::name
  StepSourceKind source = StepSourceKind::kPeriodDetector;
};
/// One line for stderr: "step 7 (ProfilerStep#557, from profiler_step annotations)".
std::string DescribeChosenStep(const ChosenStep& step);

/// `summarize --step`: the reference summary of one step (`which` as for ChooseStep) and,
/// when `details` is not null, its details, computed from that step's own operations as for a
/// capture cut by hand around it. The summary is StepStatsOf's; a replay that disagrees with
/// it is reported as an internal error rather than printed. `chosen`, when not null, gets
/// the step.
Result<StepStats> SummarizeStep(const StepsInputs& inputs, const Policy& policy,
                                const StepsOptions& options, std::string_view which,
                                Details* details, ChosenStep* chosen = nullptr);

}  // namespace stepstat

namespace stepstat {

/// The steps report as JSON, printed as Python's json.dumps(report, indent=2) would (plus a
/// final newline): per-step summaries with the reference keys, then the steady state.
std::string StepsToJson(const StepsReport& report, const Policy& policy);
/// The same, handed to `write` in pieces of about a megabyte as it is written: a run of
/// 100k steps is 160 MB of JSON, which need not sit in memory.
void WriteStepsJson(const StepsReport& report, const Policy& policy,
                    const std::function<void(std::string_view)>& write);
/// One aligned text row per step, then the steady-state distribution. With `width` (> 0)
/// the least important columns are left out and long names elided to fit that many columns.
/// `unicode`: the ellipsis is "…", else "...".
std::string StepsToTable(const StepsReport& report, const Policy& policy, size_t width = 0,
                         bool unicode = true);
/// The same as GitHub Markdown tables.
std::string StepsToMarkdown(const StepsReport& report, const Policy& policy);

}  // namespace stepstat
