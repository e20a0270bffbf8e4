// Whether two runs can be compared at all. Refusals stop rows that would mislead (a policy
// change moves kernels between components; a side without kernels has nothing to compare);
// warnings name what makes the numbers harder to trust.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare/diff_internal.h"

namespace stepstat {
namespace {

/// The side's kernel count: the whole run's, else the median step's; nullopt when unknown.
std::optional<double> KernelCount(const Side& side) {
  const MetricValues* metric = side.Find("kernel_count");
  if (!metric) return std::nullopt;
  if (metric->run) return *metric->run;
  if (!metric->steps.empty()) return Median(metric->steps);
  return std::nullopt;
}

bool SameValues(const Side& base, const Side& cand) {
  if (base.metrics.size() != cand.metrics.size()) return false;
  for (size_t i = 0; i < base.metrics.size(); ++i) {
    const MetricValues &a = base.metrics[i], &b = cand.metrics[i];
    if (a.key != b.key || a.steps != b.steps || a.run != b.run) return false;
  }
  return true;
}

}  // namespace

Comparability AssessComparability(const Side& base, const Side& cand) {
  Comparability c;
  const SideMetadata &b = base.meta, &a = cand.meta;
  for (const Side* side : {&base, &cand}) {
    std::optional<double> kernels = KernelCount(*side);
    if (!kernels || *kernels == 0) {
      c.refuse_all = true;
      c.refusals.push_back(fmt::format("{} ({}) has no kernels: nothing to compare",
                                       side == &base ? "base" : "cand", side->meta.label));
    }
  }
  bool names_differ =
      !b.policy_name.empty() && !a.policy_name.empty() && b.policy_name != a.policy_name;
  if (names_differ ||
      (!b.policy_hash.empty() && !a.policy_hash.empty() && b.policy_hash != a.policy_hash)) {
    c.refuse_components = true;
    c.refusals.push_back(
        fmt::format("different policies (base {}, cand {}): components are not compared",
                    b.policy_name.empty() ? b.policy_hash : b.policy_name,
                    a.policy_name.empty() ? a.policy_hash : a.policy_name));
  }
  if (!b.gpu.empty() && !a.gpu.empty() && b.gpu != a.gpu) {
    c.warnings.push_back(fmt::format("different GPUs: base {}, cand {}", b.gpu, a.gpu));
  }
  if (!b.input_format.empty() && !a.input_format.empty() && b.input_format != a.input_format) {
    c.warnings.push_back(
        fmt::format("different input formats: base {}, cand {}", b.input_format, a.input_format));
  }
  std::optional<double> kb = KernelCount(base), ka = KernelCount(cand);
  if (kb && ka && *kb > 0 && *ka > 0 && std::max(*kb, *ka) / std::min(*kb, *ka) >= 1.5) {
    c.warnings.push_back(fmt::format(
        "kernel counts differ by {:.2f}x (base {}, cand {}): different work, not a faster run?",
        std::max(*kb, *ka) / std::min(*kb, *ka), *kb, *ka));
  }
  if (!b.kernels.empty() && !a.kernels.empty()) {
    size_t shared = 0;
    for (const auto& [name, totals] : b.kernels) shared += a.kernels.count(name);
    size_t larger = std::max(b.kernels.size(), a.kernels.size());
    if (shared * 2 < larger) {
      c.warnings.push_back(fmt::format(
          "only {} of {} kernel names are shared{}: different programs?", shared, larger,
          b.kernels_complete && a.kernels_complete ? "" : " (among the top kernels)"));
    }
  }
  if ((!b.input_hash.empty() && b.input_hash == a.input_hash) ||
      (SameValues(base, cand) && b.kernels.size() == a.kernels.size())) {
    c.warnings.push_back("base and cand are the same input: every change will be zero");
  }
  return c;
}

}  // namespace stepstat
