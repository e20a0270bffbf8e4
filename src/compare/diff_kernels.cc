// Which kernels moved, and whether by running more often or by running slower. When both
// sides kept every call's duration, each name's calls are compared too (Mann-Whitney on the
// calls): with one capture a side that is the only test there is.
#include <algorithm>
#include <cmath>
#include <set>

#include "compare/diff_internal.h"

namespace stepstat {

namespace {

void TestCalls(const KernelTotals& base, const KernelTotals& cand, const DiffOptions& options,
               KernelDiff* k) {
  if (base.calls.empty() || cand.calls.empty() || base.count == 0 || k->cand.count == 0) return;
  k->p = MannWhitneyUOfRuns(base.calls, cand.calls).p;
  const double base_mean = double(base.total_ns) / double(base.count);
  const double cand_mean = double(cand.total_ns) / double(cand.count);
  if (base_mean > 0) k->per_call_pct = (cand_mean - base_mean) / base_mean * 100;
  k->significant = *k->p < options.alpha && k->per_call_pct &&
                   std::abs(*k->per_call_pct) >= options.noise_floor_pct;
}

}  // namespace

std::vector<KernelDiff> DiffKernels(const SideMetadata& base, const SideMetadata& cand,
                                    const DiffOptions& options) {
  std::set<std::string> names;
  for (const auto& [name, totals] : base.kernels) names.insert(name);
  for (const auto& [name, totals] : cand.kernels) names.insert(name);
  std::vector<KernelDiff> out;
  for (const std::string& name : names) {
    KernelDiff k;
    k.name = name;
    static const KernelTotals kNone;
    auto b = base.kernels.find(name), c = cand.kernels.find(name);
    const KernelTotals& in_base = b == base.kernels.end() ? kNone : b->second;
    const KernelTotals& in_cand = c == cand.kernels.end() ? kNone : c->second;
    k.base = {in_base.count, in_base.total_ns, {}, {}};  // the calls stay with the sides
    k.cand = {in_cand.count, in_cand.total_ns, {}, {}};
    k.component = in_cand.component.empty() ? in_base.component : in_cand.component;
    k.delta_ns = k.cand.total_ns - k.base.total_ns;
    const int64_t count_delta = k.cand.count - k.base.count;
    if (k.base.count == 0 || k.cand.count == 0) {
      k.count_part_ns = k.delta_ns;  // new or removed: all of it is launches
    } else {
      k.count_part_ns =
          std::llround(double(count_delta) * double(k.base.total_ns) / double(k.base.count));
    }
    k.per_call_part_ns = k.delta_ns - k.count_part_ns;  // so the parts sum to Δ exactly
    if (k.base.count == 0) {
      k.change = KernelChange::kNew;
    } else if (k.cand.count == 0) {
      k.change = KernelChange::kRemoved;
    } else if (count_delta != 0) {
      k.change = count_delta > 0 ? KernelChange::kMore : KernelChange::kFewer;
    } else if (k.delta_ns != 0) {
      k.change = k.delta_ns > 0 ? KernelChange::kSlower : KernelChange::kFaster;
    } else {
      continue;
    }
    TestCalls(in_base, in_cand, options, &k);
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelDiff& x, const KernelDiff& y) {
    return std::llabs(x.delta_ns) > std::llabs(y.delta_ns);
  });
  return out;
}

}  // namespace stepstat
