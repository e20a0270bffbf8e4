// Whether two runs can be compared at all. Refusals stop rows that would mislead (a policy
// change moves kernels between components; a side without kernels has nothing to compare);
// two different programs, or one program classified two ways, get no verdict at all
// (not_comparable) unless the user says they mean it; warnings name what makes the numbers
// harder to trust.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare/diff_internal.h"

namespace stepstat {
namespace {

/// Kernel counts this many times apart are two different workloads, not one run faster.
constexpr double kDifferentProgramCountRatio = 2.0;

/// The two sides' kernel counts in the same form: the median steps' when both have steps,
/// else the whole runs' (a ledger run has both, a trace side read in steps only the steps).
std::optional<std::pair<double, double>> KernelCounts(const Side& base, const Side& cand) {
  const MetricValues *b = base.Find("kernel_count"), *c = cand.Find("kernel_count");
  if (!b || !c) return std::nullopt;
  if (!b->steps.empty() && !c->steps.empty()) return std::pair(Median(b->steps), Median(c->steps));
  if (b->run && c->run) return std::pair(*b->run, *c->run);
  return std::nullopt;
}

/// Whether the side has kernels at all (in whichever form it holds the count).
bool HasKernels(const Side& side) {
  const MetricValues* metric = side.Find("kernel_count");
  if (!metric) return false;
  if (!metric->steps.empty()) return Median(metric->steps) > 0;
  return metric->run && *metric->run > 0;
}

/// The share of `side`'s kernel time spent in names `other` has too.
double SharedTimeShare(const SideMetadata& side, const SideMetadata& other) {
  double total = 0, shared = 0;
  for (const auto& [name, totals] : side.kernels) {
    total += double(totals.total_ns);
    if (other.kernels.count(name)) shared += double(totals.total_ns);
  }
  return total > 0 ? shared / total : 1;
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

Comparability AssessComparability(const Side& base, const Side& cand, bool allow_different) {
  Comparability c;
  const SideMetadata &b = base.meta, &a = cand.meta;
  for (const Side* side : {&base, &cand}) {
    if (!HasKernels(*side)) {
      c.refuse_all = true;
      c.refusals.push_back(fmt::format("{} ({}) has no kernels: nothing to compare",
                                       side == &base ? "base" : "cand", side->meta.label));
    }
  }
  std::vector<std::string> different;  // why these look like two programs (or policies)
  bool names_differ =
      !b.policy_name.empty() && !a.policy_name.empty() && b.policy_name != a.policy_name;
  if (names_differ ||
      (!b.policy_hash.empty() && !a.policy_hash.empty() && b.policy_hash != a.policy_hash)) {
    c.refuse_components = true;
    const std::string names =
        fmt::format("base {}, cand {}", b.policy_name.empty() ? b.policy_hash : b.policy_name,
                    a.policy_name.empty() ? a.policy_hash : a.policy_name);
    if (allow_different) {
      c.refusals.push_back(
          fmt::format("different policies ({}): components are not compared", names));
    } else {
      different.push_back(fmt::format("classified under different policies ({})", names));
    }
  }
  if (!b.gpu.empty() && !a.gpu.empty() && b.gpu != a.gpu) {
    c.warnings.push_back(fmt::format("different GPUs: base {}, cand {}", b.gpu, a.gpu));
  }
  if (!b.input_format.empty() && !a.input_format.empty() && b.input_format != a.input_format) {
    c.warnings.push_back(
        fmt::format("different input formats: base {}, cand {}", b.input_format, a.input_format));
  }
  if (auto counts = KernelCounts(base, cand); counts && counts->first > 0 && counts->second > 0) {
    const double *kb = &counts->first, *ka = &counts->second;
    const double ratio = std::max(*kb, *ka) / std::min(*kb, *ka);
    if (ratio >= kDifferentProgramCountRatio) {
      different.push_back(
          fmt::format("kernel counts {:.2f}x apart (base {}, cand {})", ratio, *kb, *ka));
    } else if (ratio >= 1.5) {
      c.warnings.push_back(fmt::format(
          "kernel counts differ by {:.2f}x (base {}, cand {}): different work, not a faster run?",
          ratio, *kb, *ka));
    }
  }
  if (!b.kernels.empty() && !a.kernels.empty()) {
    size_t shared = 0;
    for (const auto& [name, totals] : b.kernels) shared += a.kernels.count(name);
    size_t larger = std::max(b.kernels.size(), a.kernels.size());
    const double share = std::min(SharedTimeShare(b, a), SharedTimeShare(a, b));
    if (b.kernels_complete && a.kernels_complete && share < 0.5) {
      different.push_back(fmt::format(
          "only {:.1f} % of the kernel time is in names both sides share ({} of {} names)",
          share * 100, shared, larger));
    } else if (shared * 2 < larger) {
      c.warnings.push_back(fmt::format(
          "only {} of {} kernel names are shared{}: different programs?", shared, larger,
          b.kernels_complete && a.kernels_complete ? "" : " (among the top kernels)"));
    }
  }
  for (const std::string& why : different) {
    if (allow_different) {
      c.warnings.push_back(why + " (compared anyway: --allow-different)");
    } else {
      c.not_comparable = true;
      c.refusals.push_back(why);
    }
  }
  if ((!b.input_hash.empty() && b.input_hash == a.input_hash) ||
      (SameValues(base, cand) && b.kernels.size() == a.kernels.size())) {
    c.warnings.push_back("base and cand are the same input: every change will be zero");
  }
  return c;
}

}  // namespace stepstat
