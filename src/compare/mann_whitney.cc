// The two-sided Mann-Whitney U test, step for step as scipy 1.10's mannwhitneyu computes it
// (scipy/stats/_mannwhitneyu.py), so the oracle test can ask for agreement to ~1e-9.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <vector>

#include "compare/u_distribution.h"
#include "stepstat/compare_stats.h"

namespace stepstat {
namespace {

// 1/sqrt(2): M_SQRT1_2 is POSIX, not C++ (mingw-w64 hides it under -std=c++20). Half the
// double nearest sqrt(2) is the double nearest 1/sqrt(2), the same bits as M_SQRT1_2.
constexpr double kSqrtHalf = std::numbers::sqrt2 / 2;
static_assert(kSqrtHalf == 0.70710678118654752440);

struct Ranked {
  double base_rank_sum = 0;
  double tie_term = 0;  ///< Σ (t³ − t) over groups of t equal values
  bool ties = false;
};

/// Values with their multiplicity, sorted, equal values merged.
std::vector<ValueCount> Runs(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<ValueCount> runs;
  for (double x : sorted) {
    if (!runs.empty() && runs.back().value == x) {
      ++runs.back().count;
    } else {
      runs.push_back({x, 1});
    }
  }
  return runs;
}

/// Average ranks (scipy.stats.rankdata's default) of the pooled samples, walking the two
/// sorted run lists together: a group of t equal values holding b of base takes ranks
/// r+1 .. r+t, b of them at their mean.
Ranked RankPooled(std::span<const ValueCount> base, std::span<const ValueCount> cand) {
  Ranked ranked;
  double below = 0;  // values ranked so far
  size_t i = 0, j = 0;
  while (i < base.size() || j < cand.size()) {
    double value = j == cand.size() || (i < base.size() && base[i].value <= cand[j].value)
                       ? base[i].value
                       : cand[j].value;
    double b = 0, t = 0;
    if (i < base.size() && base[i].value == value) b = double(base[i++].count);
    t = b;
    if (j < cand.size() && cand[j].value == value) t += double(cand[j++].count);
    ranked.base_rank_sum += b * (below + (t + 1) / 2);
    if (t > 1) ranked.ties = true;
    ranked.tie_term += t * t * t - t;
    below += t;
  }
  return ranked;
}

int64_t CountOf(std::span<const ValueCount> runs) {
  int64_t n = 0;
  for (const ValueCount& run : runs) n += run.count;
  return n;
}

}  // namespace

MannWhitneyResult MannWhitneyU(std::span<const double> base, std::span<const double> cand) {
  return MannWhitneyUOfRuns(Runs(base), Runs(cand));
}

MannWhitneyResult MannWhitneyUOfRuns(std::span<const ValueCount> base,
                                     std::span<const ValueCount> cand) {
  const int64_t n1 = CountOf(base), n2 = CountOf(cand);
  Ranked ranked = RankPooled(base, cand);
  MannWhitneyResult result;
  // In doubles: calls of one kernel can number billions, whose products overflow int64.
  const double d1 = double(n1), d2 = double(n2);
  result.u_base = ranked.base_rank_sum - d1 * (d1 + 1) / 2;
  const double u = std::max(result.u_base, d1 * d2 - result.u_base);

  if (!(n1 > 8 && n2 > 8) && !ranked.ties) {
    // P(U >= u) = P(U <= n1·n2 − u) by symmetry; u is an integer without ties.
    int64_t k = n1 * n2 - int64_t(std::llround(u));
    if (auto cumulative = ExactUCumulative(n1, n2, k)) {
      result.method = MannWhitneyMethod::kExact;
      result.p = std::min(1.0, 2 * cumulative->at(size_t(k)));
      return result;
    }
  }
  result.method = MannWhitneyMethod::kAsymptotic;
  const double mu = d1 * d2 / 2;
  const double n = double(n1 + n2);
  const double s = std::sqrt(d1 * d2 / 12 * ((n + 1) - ranked.tie_term / (n * (n - 1))));
  const double z = (u - mu - 0.5) / s;  // −inf when every value is equal: p clips to 1
  result.p = std::clamp(2 * (0.5 * std::erfc(z * kSqrtHalf)), 0.0, 1.0);
  return result;
}

}  // namespace stepstat
