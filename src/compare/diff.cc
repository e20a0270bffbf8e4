// Diff(): rows, components, kernels, gates and the verdict (diff_verdict.cc). With one
// capture a side the kernels' per-call tests are the only statistics there are, so the
// components' whole-run rows are rolled up from them here.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare/diff_internal.h"

namespace stepstat {
namespace {

constexpr std::string_view kHeadline = "gpu_span_ns";
constexpr std::string_view kComponentPrefix = "components.";
constexpr std::string_view kComponentTime = ".milliseconds";

/// components.<name>.milliseconds → <name>; empty for any other key.
std::string_view ComponentOfTimeRow(std::string_view key) {
  if (!key.starts_with(kComponentPrefix) || !key.ends_with(kComponentTime)) return {};
  key.remove_prefix(kComponentPrefix.size());
  key.remove_suffix(kComponentTime.size());
  return key;
}

/// What one ns of the kernel table is worth in the rows' scale: the rows' kernel time over
/// the table's (1 for whole runs; about 1/steps when the rows are a median step). The cand's:
/// a kernel's per-call part is counted over the cand's calls.
double KernelScale(const SideMetadata& cand, const std::vector<DiffRow>& rows) {
  double table = 0;
  for (const auto& [name, totals] : cand.kernels) table += double(totals.total_ns);
  for (const DiffRow& row : rows) {
    if (row.name == "kernel_time_ns" && table > 0 && row.cand > 0) return row.cand / table;
  }
  return 1;
}

/// Each component's time row gets its kernels' per-call change: r = Σ per-call parts of its
/// kernels whose calls changed significantly beyond the floor, over what the cand's calls of
/// the component would have taken at the base's speed (its cand time minus those parts);
/// rolled_up_ns = r × the row's base. Both sums are over the cand's calls, so captures of
/// different lengths compare alike. The row is beyond the floor when |r| is.
void RollUpComponents(const std::vector<KernelDiff>& kernels, const SideMetadata& cand,
                      const DiffOptions& options, std::vector<DiffRow>* components) {
  for (DiffRow& row : *components) {
    std::string_view component = ComponentOfTimeRow(row.name);
    if (component.empty()) continue;
    double changed_ns = 0, cand_ns = 0;
    bool any_tested = false;
    for (const KernelDiff& k : kernels) {
      if (k.component != component || !k.p) continue;
      any_tested = true;
      if (k.significant) changed_ns += double(k.per_call_part_ns);
    }
    for (const auto& [name, totals] : cand.kernels) {
      if (totals.component == component) cand_ns += double(totals.total_ns);
    }
    const double at_base_speed = cand_ns - changed_ns;
    if (!any_tested || at_base_speed <= 0 || row.base <= 0) continue;
    const double change = changed_ns / at_base_speed;
    row.rolled_up_ns = change * row.base * 1e6;  // the row is in ms
    row.beyond_floor = std::abs(change) * 100 >= options.noise_floor_pct;
    row.significant = changed_ns != 0 && row.beyond_floor;
    row.effect = !row.significant ? Effect::kNone
                 : changed_ns > 0 ? Effect::kWorse
                                  : Effect::kBetter;
    row.note = "rolled up from its kernels' per-call tests";
  }
}

/// A side's metadata as the result keeps it: the kernel table without each call's duration
/// (read from the sides, never shown), so the calls are not copied only to be dropped.
SideMetadata ShownMetadata(const SideMetadata& side) {
  SideMetadata shown;
  shown.label = side.label;
  shown.schema = side.schema;
  shown.policy_name = side.policy_name;
  shown.policy_hash = side.policy_hash;
  shown.gpu = side.gpu;
  shown.input_format = side.input_format;
  shown.input_hash = side.input_hash;
  shown.kernels_complete = side.kernels_complete;
  for (const auto& [name, totals] : side.kernels) {
    shown.kernels[name] = {totals.count, totals.total_ns, totals.component, {}};
  }
  return shown;
}

/// The top N kernels by |Δ total|, and any kernel the verdict read below them.
void KeepShownKernels(size_t top, std::vector<KernelDiff>* kernels) {
  std::vector<KernelDiff> kept;
  for (size_t i = 0; i < kernels->size(); ++i) {
    if (i < top || (*kernels)[i].decides) kept.push_back(std::move((*kernels)[i]));
  }
  *kernels = std::move(kept);
}

}  // namespace

Result<DiffResult> Diff(const Side& base, const Side& cand, const DiffOptions& options) {
  DiffResult diff;
  diff.base = ShownMetadata(base.meta);
  diff.cand = ShownMetadata(cand.meta);
  diff.options = options;
  diff.headline = std::string(kHeadline);
  diff.comparability = AssessComparability(base, cand, options.allow_different);

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
  const DiffRow* span = nullptr;
  for (const DiffRow& row : all) {
    if (row.name == kHeadline) span = &row;
  }
  const bool whole_runs = span && !span->p;
  if (!diff.comparability.refuse_all) {
    diff.kernels = DiffKernels(base.meta, cand.meta, options);
    if (whole_runs) {
      std::vector<DiffRow> components;
      for (const DiffRow& row : all) {
        if (row.name.starts_with(kComponentPrefix)) components.push_back(row);
      }
      RollUpComponents(diff.kernels, cand.meta, options, &components);
      size_t next = 0;
      for (DiffRow& row : all) {
        if (row.name.starts_with(kComponentPrefix)) row = components[next++];
      }
    }
    for (const DiffRow& row : all) {
      if (!row.name.starts_with(kComponentPrefix)) {
        diff.rows.push_back(row);
      } else if (!diff.comparability.refuse_components) {
        diff.components.push_back(row);
      }
    }
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
    if (diff.comparability.refuse_all || diff.comparability.not_comparable) {
      row = nullptr;
      refused = "not comparable: " + diff.comparability.refusals.front();
    } else if (diff.comparability.refuse_components && gate.metric.starts_with(kComponentPrefix)) {
      row = nullptr;
      refused = "different policies";
    }
    diff.gates.push_back(EvaluateGate(gate, row, refused, options.alpha));
  }

  Judge(&diff, whole_runs, KernelScale(cand.meta, all));
  KeepShownKernels(options.top_kernels, &diff.kernels);
  return diff;
}

}  // namespace stepstat
