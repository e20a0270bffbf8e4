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

/// Average ranks (scipy.stats.rankdata's default) of the pooled samples.
Ranked RankPooled(std::span<const double> base, std::span<const double> cand) {
  std::vector<std::pair<double, bool>> pooled;  // value, is base
  pooled.reserve(base.size() + cand.size());
  for (double x : base) pooled.emplace_back(x, true);
  for (double x : cand) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Ranked ranked;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    double t = double(j - i);
    double rank = (double(i + 1) + double(j)) / 2;  // mean of ranks i+1 .. j
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second) ranked.base_rank_sum += rank;
    }
    if (j - i > 1) ranked.ties = true;
    ranked.tie_term += t * t * t - t;
    i = j;
  }
  return ranked;
}

}  // namespace

MannWhitneyResult MannWhitneyU(std::span<const double> base, std::span<const double> cand) {
  const int64_t n1 = int64_t(base.size()), n2 = int64_t(cand.size());
  Ranked ranked = RankPooled(base, cand);
  MannWhitneyResult result;
  result.u_base = ranked.base_rank_sum - double(n1 * (n1 + 1)) / 2;
  const double u = std::max(result.u_base, double(n1 * n2) - result.u_base);

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
  const double mu = double(n1 * n2) / 2;
  const double n = double(n1 + n2);
  const double s = std::sqrt(double(n1 * n2) / 12 * ((n + 1) - ranked.tie_term / (n * (n - 1))));
  const double z = (u - mu - 0.5) / s;  // −inf when every value is equal: p clips to 1
  result.p = std::clamp(2 * (0.5 * std::erfc(z * kSqrtHalf)), 0.0, 1.0);
  return result;
}

}  // namespace stepstat
