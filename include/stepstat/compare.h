// `stepstat diff`: did a change help? Two runs ("sides": base and cand) in, one DiffResult
// out: per metric the change with its significance, the components, the kernels that moved,
// whether the two runs can be compared at all, pass/fail gates and a verdict. Δ = cand − base
// everywhere. The statistics are in compare_stats.h; writers at the end of this file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/compare_stats.h"
#include "stepstat/details.h"
#include "stepstat/metrics.h"
#include "stepstat/policy.h"
#include "stepstat/status.h"
#include "stepstat/step_stats.h"
#include "stepstat/steps.h"

namespace stepstat {

// ---- A side: one run, as values per metric ----

struct KernelTotals {
  int64_t count = 0;
  int64_t total_ns = 0;
  std::string component{};  ///< by the side's policy; empty when unknown
  /// Every call's duration as (ns, calls) runs, shortest first; empty when unknown (a JSON
  /// side). What the per-call test of one capture a side reads.
  std::vector<ValueCount> calls{};
};

struct SideMetadata {
  std::string label;         ///< how output names the side: a file name, "@12"
  std::string schema;        ///< what it was read from: "stepstat.summary/1", "stepstat.steps/2"
  std::string policy_name;   ///< empty when unknown (JSON outputs carry only the components)
  std::string policy_hash;   ///< PolicyIdentity(): names and descriptions of the components
  std::string gpu;           ///< empty when unknown
  std::string input_format;  ///< e.g. "nsys_gpu_trace_csv"; empty when unknown
  std::string input_hash;    ///< HashInputFiles() of the input files; empty when unknown
  /// Kernel name → launches and summed time. Empty when the side does not say (a summary
  /// without --details); `kernels_complete` false when it holds only the top names.
  std::map<std::string, KernelTotals> kernels;
  bool kernels_complete = false;
};

/// One metric of a side. `key` is the summary's key path ("gpu_span_ns",
/// "launch_gaps.total_ns", "components.sage2.milliseconds"); `steps` the steady steps'
/// values (empty for a whole-run side); `run` the whole run's value, when known.
struct MetricValues {
  std::string key;
  std::vector<double> steps;
  std::optional<double> run;
};

struct Side {
  SideMetadata meta;
  std::vector<MetricValues> metrics;  ///< in the summary's key order
  const MetricValues* Find(std::string_view key) const;
};

/// A policy as the JSON outputs show it (component names and descriptions, `other` last),
/// hashed (FNV-1a 64, hex): the same for a policy in memory and for the JSON it produced.
std::string PolicyIdentity(const Policy& policy);

/// A whole-run side from a summary; `details` (optional) adds the top kernels and the input
/// format.
Side SideFromSummary(const StepStats& stats, const Policy& policy, const Details* details,
                     std::string label);
/// Every step's values, warm-up steps included, as (step, key, value): what the ledger stores.
struct StepValue {
  int64_t step = 0;
  std::string metric;
  double value = 0;
};
std::vector<StepValue> StepValuesOf(const StepsReport& report, const Policy& policy);
/// A per-step side from a steps report: the steady steps' values of every summary key plus
/// `gpu_idle_ns` and `gpu_period_ns`.
Side SideFromSteps(const StepsReport& report, const Policy& policy, std::string label);
/// Adds per-step values to `side` (steps before `first_steady_step` are warm-up and left out).
void AddStepValues(const std::vector<StepValue>& values, int64_t first_steady_step, Side* side);

/// A side from JSON that stepstat wrote: a summary (`stepstat.summary/1`, with or without
/// details; it carries no "schema" key) or steps (`stepstat.steps/2`). Any other schema, or
/// a newer major version, is an error that says which schemas are read.
Result<Side> SideFromJson(std::string_view json, std::string label);

// ---- The diff ----

/// A metric's unit, kind and worse direction: the registry's (stepstat/metrics.h), or by
/// its key's suffix for a key it does not know.
struct MetricInfo {
  std::string unit;  ///< "ns", "ms", "count", "%"
  MetricKind kind = MetricKind::kTime;
  Worse worse = Worse::kUp;
};
MetricInfo DescribeMetric(std::string_view key);

/// What a row's change amounts to.
enum class Effect {
  kNone,     ///< no change, or not significant (the table shows `~`)
  kWorse,    ///< significant, in the worse direction ("slower" for times)
  kBetter,   ///< significant, in the better direction ("faster" for times)
  kChanged,  ///< significant, for a metric with no better direction
};

struct DiffRow {
  std::string name;  ///< the key path
  std::string unit;
  MetricKind kind = MetricKind::kTime;
  double base = 0;  ///< the median of the steady steps, or the whole run's value
  double cand = 0;
  double delta = 0;                 ///< cand − base
  std::optional<double> delta_pct;  ///< time and count rows; nullopt when base is 0
  std::optional<double> delta_pp;   ///< share rows: percentage points
  int64_t n_base = 1, n_cand = 1;   ///< steps behind base and cand (1: a whole run)
  std::optional<double> p;          ///< the Mann-Whitney p, when tested
  bool significant = false;
  Effect effect = Effect::kNone;
  std::string note;                       ///< e.g. "n=1, no significance test"
  std::optional<SampleComparison> stats;  ///< when both sides have >= min_steps steps
  bool beyond_floor = false;              ///< |Δ %| (shares: |Δ pp|) at least the noise floor
  /// A component's time compared as whole runs, rolled up from its kernels' per-call tests:
  /// the summed per-call part of the kernels that changed significantly beyond the floor.
  std::optional<double> rolled_up_ns;
  bool decides = false;  ///< one of the rows the verdict reads (docs/diff.md, Verdict)
};

enum class KernelChange { kNew, kRemoved, kMore, kFewer, kSlower, kFaster, kSame };
std::string_view KernelChangeName(KernelChange change);

/// One kernel name's change. Δ total = count part + per-call part, exactly:
///   count part    = round((cand count − base count) × base mean per call)  [ns]
///   per-call part = Δ total − count part  (= cand count × Δ mean, up to that rounding)
/// A new kernel's Δ is all count part; a removed one's too (−base total).
struct KernelDiff {
  std::string name;
  KernelTotals base, cand;
  int64_t delta_ns = 0;
  int64_t count_part_ns = 0;
  int64_t per_call_part_ns = 0;
  KernelChange change = KernelChange::kSame;
  std::string component;  ///< the cand's (else the base's) component for it
  /// The per-call test, when both sides kept every call's duration: Mann-Whitney p on the
  /// calls, and Δ mean per call in % of the base's.
  std::optional<double> p;
  std::optional<double> per_call_pct;
  bool significant = false;  ///< p < alpha and |per_call_pct| at least the noise floor
  bool decides = false;      ///< read by the verdict (whole runs only)
};

struct Comparability {
  bool refuse_all = false;         ///< nothing is compared (rows, components, kernels empty)
  bool refuse_components = false;  ///< different policies: components[] left empty
  /// Different programs or policy identities: the verdict is not_comparable and every gate
  /// fails, unless DiffOptions::allow_different. `refusals` says why.
  bool not_comparable = false;
  std::vector<std::string> refusals;
  std::vector<std::string> warnings;
};

// ---- Gates: `--fail-if-slower PCT`, `--fail-if METRIC:LIMIT` ----

struct GateSpec {
  enum class Limit { kPercent, kAbsolute, kPoints, kChanged };
  std::string text;    ///< as given, for messages
  std::string metric;  ///< a key path
  Limit limit = Limit::kChanged;
  /// Signed: +5 fails on a rise beyond 5, −0.5 on a drop beyond 0.5; for kAbsolute in the
  /// metric's own unit (ParseGate converts "+2ms" to 2e6 for a `_ns` key).
  double value = 0;
};
/// "METRIC:LIMIT" with LIMIT `+5%`, `-3%`, `+2ms` (ns, us, ms, s: time metrics), `+10`
/// (counts), `-0.5pp` (shares) or `changed`. A gate fails only on a significant change (for
/// whole runs: one beyond the noise floor) past its limit.
Result<GateSpec> ParseGate(std::string_view spec);
/// `--fail-if-slower PCT`: the step span (the median step's, or the whole run's) up by
/// more than PCT %.
Result<GateSpec> SlowerGate(std::string_view percent);

struct GateResult {
  std::string spec;
  bool passed = true;
  std::string why;
};

// ---- Diff ----

struct DiffOptions {
  int64_t min_steps = 4;  ///< per-step statistics need this many steady steps on each side
  double alpha = 0.05;
  double noise_floor_pct = 2.0;  ///< smaller relative changes are never significant
  double noise_floor_pp = 0.5;   ///< the same for shares, in percentage points
  double confidence = 0.95;
  size_t top_kernels = 10;
  std::vector<GateSpec> gates;
  /// Where noise_floor_pct came from: "configured" (the default), "given" (--noise-floor),
  /// "measured" (the ledger's runs of one code, MeasureRunToRunNoise); `how` says more.
  std::string noise_floor_source = "configured";
  std::string noise_floor_how;
  /// A row moves the verdict only when its |Δ| is at least this share of the base's step
  /// span: a kernel 40 % slower that takes 0.01 % of the step is not a regression.
  double decide_percent_of_span = 0.5;
  /// Judge two different programs or policies anyway (comparability warnings stay).
  bool allow_different = false;
};

// ---- The noise floor, measured from runs of one code ----

/// One recorded run of a label: what code it ran (its commit, its tags) and its step span
/// (the median steady step's, else the whole run's).
struct RunOfCode {
  std::optional<std::string> git_commit;
  std::vector<std::pair<std::string, std::string>> tags;
  double span_ns = 0;
};
struct MeasuredFloor {
  double percent = 0;
  std::string how;  ///< e.g. "1.96·√2 × run-to-run spread 0.21 % (5 runs of 2 commits)"
};
/// The run-to-run noise of repeated runs of the same code, as a floor (docs/diff.md, The
/// noise floor). Runs are grouped by commit, or by the value of one tag key, whichever
/// grouping puts more runs in groups of 3 or more (the commit on a tie); s is the pooled
/// relative standard deviation, Σ (x / group mean − 1)² over Σ (n − 1), and the floor
/// 1.96·√2·s: the 95 % bound of the difference of two runs of that code. Never below
/// `minimum_percent` (three runs can look quieter than they are). nullopt without a group
/// of 3.
std::optional<MeasuredFloor> MeasureNoiseFloor(const std::vector<RunOfCode>& runs,
                                               double minimum_percent = 0.5);

enum class Verdict { kRegression, kImprovement, kMixed, kNeutral, kInconclusive, kNotComparable };
std::string_view VerdictName(Verdict verdict);

struct DiffResult {
  SideMetadata base, cand;
  DiffOptions options;
  std::string headline;             ///< the key the verdict reads: "gpu_span_ns"
  std::vector<DiffRow> rows;        ///< every metric but the components'
  std::vector<DiffRow> components;  ///< components.<name>.{milliseconds,...}
  std::vector<KernelDiff> kernels;  ///< top N by |Δ total|, then any deciding kernel
  Comparability comparability;
  std::vector<GateResult> gates;
  Verdict verdict = Verdict::kInconclusive;
  std::string verdict_reason;
  bool gates_failed() const;
};

/// An error only for a gate naming a metric that neither side has.
Result<DiffResult> Diff(const Side& base, const Side& cand, const DiffOptions& options);

// ---- Writers: DiffResult in, text out ----

inline constexpr std::string_view kDiffSchema = "stepstat.diff/2";
std::string DiffToJson(const DiffResult& diff);
struct DiffTextStyle {
  bool unicode = true;
  bool color = false;  ///< ANSI colors; the words faster/slower stand beside them regardless
  size_t width = 0;    ///< columns to fit; 0: no limit
};
std::string DiffToTable(const DiffResult& diff, const DiffTextStyle& style);
/// For a pull-request comment.
std::string DiffToMarkdown(const DiffResult& diff);

}  // namespace stepstat
