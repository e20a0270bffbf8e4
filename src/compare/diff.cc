// Diff(): rows, components, kernels, gates and the verdict. The verdict reads one number, the
// step span (the median steady step's, or the whole run's): the time a user waits for. The
// other rows explain it.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "compare/diff_internal.h"

namespace stepstat {
namespace {

constexpr std::string_view kHeadline = "gpu_span_ns";

void Judge(const DiffResult& diff, const DiffRow* span, Verdict* verdict, std::string* reason) {
  if (diff.comparability.refuse_all) {
    *verdict = Verdict::kInconclusive;
    *reason = diff.comparability.refusals.front();
    return;
  }
  if (!span) {
    *verdict = Verdict::kInconclusive;
    *reason = "the step span was not compared";
    return;
  }
  std::string change = span->delta_pct ? fmt::format("{:+.1f} %", *span->delta_pct)
                                       : fmt::format("{:+g} ns", span->delta);
  if (span->effect == Effect::kWorse || span->effect == Effect::kBetter) {
    *verdict = span->effect == Effect::kWorse ? Verdict::kRegression : Verdict::kImprovement;
    *reason = fmt::format("step span {} ({})", change,
                          span->p ? fmt::format("p = {:.3g}", *span->p) : span->note);
    return;
  }
  bool beyond_floor =
      !span->delta_pct || std::abs(*span->delta_pct) >= diff.options.noise_floor_pct;
  if (span->p && *span->p >= diff.options.alpha && beyond_floor) {
    *verdict = Verdict::kInconclusive;
    *reason = fmt::format("step span {} but p = {:.3g} >= {}: too noisy to tell; more steps?",
                          change, *span->p, diff.options.alpha);
    return;
  }
  *verdict = Verdict::kNeutral;
  *reason = fmt::format("step span {}, within the {} % noise floor{}", change,
                        diff.options.noise_floor_pct,
                        span->p ? fmt::format(" (p = {:.3g})", *span->p) : "");
}

}  // namespace

Result<DiffResult> Diff(const Side& base, const Side& cand, const DiffOptions& options) {
  DiffResult diff;
  diff.base = base.meta;
  diff.cand = cand.meta;
  diff.options = options;
  diff.headline = std::string(kHeadline);
  diff.comparability = AssessComparability(base, cand);

  std::vector<DiffRow> all;  // components too, for the gates, even when refused
  size_t different_forms = 0;
  for (const MetricValues& b : base.metrics) {
    const MetricValues* c = cand.Find(b.key);
    if (!c) continue;
    if (auto row = CompareMetric(b, *c, options)) {
      all.push_back(std::move(*row));
    } else {
      ++different_forms;
    }
  }
  if (different_forms > 0) {
    diff.comparability.warnings.push_back(fmt::format(
        "{} metrics not compared: per-step values on one side, whole-run values on the other",
        different_forms));
  }
  std::string components_refused = "different policies";
  if (!diff.comparability.refuse_all) {
    for (const DiffRow& row : all) {
      if (!row.name.starts_with("components.")) {
        diff.rows.push_back(row);
      } else if (!diff.comparability.refuse_components) {
        diff.components.push_back(row);
      }
    }
    diff.kernels = DiffKernels(base.meta, cand.meta, options.top_kernels);
  }

  for (const GateSpec& gate : options.gates) {
    const DiffRow* row = nullptr;
    for (const DiffRow& r : all) {
      if (r.name == gate.metric) row = &r;
    }
    if (!row && !base.Find(gate.metric) && !cand.Find(gate.metric)) {
      return Status::Error(
          fmt::format("gate \"{}\": neither side has a metric {} (keys are summary key paths, e.g. "
                      "gpu_span_ns, launch_gaps.total_ns, components.<name>.milliseconds)",
                      gate.text, gate.metric));
    }
    std::string refused = "it is not in both sides in the same form";
    if (diff.comparability.refuse_all) {
      row = nullptr;
      refused = diff.comparability.refusals.front();
    } else if (diff.comparability.refuse_components && gate.metric.starts_with("components.")) {
      row = nullptr;
      refused = components_refused;
    }
    diff.gates.push_back(EvaluateGate(gate, row, refused));
  }

  const DiffRow* span = nullptr;
  for (const DiffRow& row : diff.rows) {
    if (row.name == kHeadline) span = &row;
  }
  Judge(diff, span, &diff.verdict, &diff.verdict_reason);
  return diff;
}

}  // namespace stepstat
