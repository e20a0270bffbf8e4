// Medians, their intervals and the Hodges-Lehmann shift (compare_stats.h says what each is).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "compare/pairwise_differences.h"
#include "compare/u_distribution.h"
#include "stepstat/compare_stats.h"

namespace stepstat {
namespace {

// 1/sqrt(2): M_SQRT1_2 is POSIX, not C++ (mingw-w64 hides it under -std=c++20). Half the
// double nearest sqrt(2) is the double nearest 1/sqrt(2), the same bits as M_SQRT1_2.
constexpr double kSqrtHalf = std::numbers::sqrt2 / 2;
static_assert(kSqrtHalf == 0.70710678118654752440);

std::vector<double> Sorted(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

double SortedMedian(const std::vector<double>& sorted) {
  size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/// The largest k >= 1 with tail(k − 1) <= (1 − confidence)/2, where tail(i) = P(X <= i) for
/// a statistic symmetric about its middle; 0 when tail(0) is already too big.
template <typename Tail>
int64_t LargestRank(int64_t k_limit, double confidence, const Tail& tail) {
  const double allowed = (1 - confidence) / 2;
  int64_t k = 0;
  while (k < k_limit && tail(k) <= allowed) ++k;
  return k;
}

}  // namespace

double Median(std::span<const double> values) { return SortedMedian(Sorted(values)); }

std::optional<ConfidenceInterval> MedianConfidenceInterval(std::span<const double> values,
                                                           double confidence) {
  const std::vector<double> sorted = Sorted(values);
  const int64_t n = int64_t(sorted.size());
  // P(Binomial(n, 1/2) <= i), summed from pmfs in log space (n may be 10⁵).
  std::vector<double> cdf;
  double running = 0;
  const double log_total = double(n) * std::log(2.0);
  for (int64_t i = 0; i <= n / 2; ++i) {
    running += std::exp(std::lgamma(double(n + 1)) - std::lgamma(double(i + 1)) -
                        std::lgamma(double(n - i + 1)) - log_total);
    cdf.push_back(running);
  }
  int64_t k =
      LargestRank(int64_t(cdf.size()), confidence, [&](int64_t i) { return cdf[size_t(i)]; });
  if (k == 0) return std::nullopt;
  return ConfidenceInterval{sorted[size_t(k - 1)], sorted[size_t(n - k)],
                            1 - 2 * cdf[size_t(k - 1)]};
}

ShiftEstimate HodgesLehmannShift(std::span<const double> base_values,
                                 std::span<const double> cand_values, double confidence) {
  const std::vector<double> base = Sorted(base_values), cand = Sorted(cand_values);
  const int64_t m = int64_t(base.size()), n = int64_t(cand.size());
  const uint64_t pairs = uint64_t(m) * uint64_t(n);
  auto kth = [&](uint64_t k) { return KthPairwiseDifference(base, cand, k); };

  ShiftEstimate estimate;
  estimate.shift = pairs % 2 ? kth(pairs / 2) : (kth(pairs / 2 - 1) + kth(pairs / 2)) / 2;

  // Moses: the interval between the differences of rank k and pairs + 1 − k holds the shift
  // with the probability that U lies in [k, pairs − k].
  const int64_t half = int64_t(pairs / 2);
  int64_t k = 0;
  double coverage = 0;
  if (auto cumulative = ExactUCumulative(m, n, half)) {
    k = LargestRank(half + 1, confidence, [&](int64_t i) { return (*cumulative)[size_t(i)]; });
    if (k > 0) coverage = 1 - 2 * (*cumulative)[size_t(k - 1)];
  } else {
    const double sigma = std::sqrt(double(m) * double(n) * double(m + n + 1) / 12);
    auto normal_tail = [&](int64_t i) {  // P(U <= i), continuity-corrected
      return 0.5 * std::erfc(-((double(i) + 0.5 - double(pairs) / 2) / sigma) * kSqrtHalf);
    };
    double z = NormalQuantile(1 - (1 - confidence) / 2);
    k = std::clamp<int64_t>(int64_t(std::floor(double(pairs) / 2 + 0.5 - z * sigma)), 0, half);
    while (k > 0 && normal_tail(k - 1) > (1 - confidence) / 2) --k;  // guard the rounding
    if (k > 0) coverage = 1 - 2 * normal_tail(k - 1);
  }
  if (k > 0) {
    estimate.interval =
        ConfidenceInterval{kth(uint64_t(k - 1)), kth(pairs - uint64_t(k)), coverage};
  }
  return estimate;
}

SampleComparison CompareSamples(std::span<const double> base, std::span<const double> cand,
                                double confidence) {
  SampleComparison comparison;
  comparison.base_median = Median(base);
  comparison.cand_median = Median(cand);
  comparison.base_interval = MedianConfidenceInterval(base, confidence);
  comparison.cand_interval = MedianConfidenceInterval(cand, confidence);
  comparison.shift = HodgesLehmannShift(base, cand, confidence);
  comparison.test = MannWhitneyU(base, cand);
  return comparison;
}

}  // namespace stepstat
