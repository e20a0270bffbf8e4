// Which kernels moved, and whether by running more often or by running slower.
#include <algorithm>
#include <cmath>
#include <set>

#include "compare/diff_internal.h"

namespace stepstat {

std::vector<KernelDiff> DiffKernels(const SideMetadata& base, const SideMetadata& cand,
                                    size_t limit) {
  std::set<std::string> names;
  for (const auto& [name, totals] : base.kernels) names.insert(name);
  for (const auto& [name, totals] : cand.kernels) names.insert(name);
  std::vector<KernelDiff> out;
  for (const std::string& name : names) {
    KernelDiff k;
    k.name = name;
    if (auto it = base.kernels.find(name); it != base.kernels.end()) k.base = it->second;
    if (auto it = cand.kernels.find(name); it != cand.kernels.end()) k.cand = it->second;
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
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelDiff& x, const KernelDiff& y) {
    return std::llabs(x.delta_ns) > std::llabs(y.delta_ns);
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace stepstat
