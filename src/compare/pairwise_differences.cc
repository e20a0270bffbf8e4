// Row i holds cand[j] − base[i] for j = 0..n−1, increasing in j; for a fixed j the
// difference decreases as i grows. Rounding is monotone, so both hold for the computed
// doubles too, which is what lets one walk of two pointers count a row's values below a
// pivot in every row at once.
#include "compare/pairwise_differences.h"

#include <algorithm>
#include <random>
#include <vector>

namespace stepstat {

double KthPairwiseDifference(std::span<const double> base, std::span<const double> cand,
                             uint64_t k) {
  const size_t m = base.size(), n = cand.size();
  // Per row, the columns [lo, hi) still in play; columns left of lo are known to rank below
  // the answer (`below` of them in all), right of hi above it.
  std::vector<size_t> lo(m, 0), hi(m, n), less(m), not_greater(m);
  uint64_t below = 0;
  std::mt19937_64 random(m * 1000003u + n);  // fixed seed: the same work on every run
  auto diff = [&](size_t i, size_t j) { return cand[j] - base[i]; };
  for (;;) {
    uint64_t active = 0;
    for (size_t i = 0; i < m; ++i) active += hi[i] - lo[i];
    if (active <= std::max<uint64_t>(64, m + n)) {
      std::vector<double> left;
      left.reserve(active);
      for (size_t i = 0; i < m; ++i) {
        for (size_t j = lo[i]; j < hi[i]; ++j) left.push_back(diff(i, j));
      }
      auto nth = left.begin() + int64_t(k - below);
      std::nth_element(left.begin(), nth, left.end());
      return *nth;
    }
    uint64_t pick = std::uniform_int_distribution<uint64_t>(0, active - 1)(random);
    size_t row = 0;
    while (pick >= hi[row] - lo[row]) {
      pick -= hi[row] - lo[row];
      ++row;
    }
    const double pivot = diff(row, lo[row] + pick);

    // Per row, how many values are < pivot and <= pivot. Both counts grow with i (rows
    // shift down), so the two column pointers only move right as i moves down the rows.
    size_t lt = 0, le = 0;
    uint64_t count_lt = 0, count_le = 0;
    for (size_t i = 0; i < m; ++i) {
      while (lt < n && diff(i, lt) < pivot) ++lt;
      while (le < n && !(diff(i, le) > pivot)) ++le;
      less[i] = std::clamp(lt, lo[i], hi[i]);
      not_greater[i] = std::clamp(le, lo[i], hi[i]);
      count_lt += less[i] - lo[i];
      count_le += not_greater[i] - lo[i];
    }
    if (k < below + count_lt) {
      for (size_t i = 0; i < m; ++i) hi[i] = less[i];
    } else if (k < below + count_le) {
      return pivot;
    } else {
      below += count_le;
      for (size_t i = 0; i < m; ++i) lo[i] = not_greater[i];
    }
  }
}

}  // namespace stepstat
