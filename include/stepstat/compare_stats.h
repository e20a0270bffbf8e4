// Distribution-free statistics on per-step samples, for `stepstat diff`: medians with their
// confidence intervals, the Hodges-Lehmann shift between two runs, and the Mann-Whitney U
// test. Step times are skewed and carry outliers (a slow step, a GC pause), so nothing here
// assumes a normal distribution. Samples are doubles; none may be NaN.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace stepstat {

/// [lo, hi] and the coverage it actually has (order statistics give steps of coverage, so
/// the achieved one is at least the asked one).
struct ConfidenceInterval {
  double lo = 0;
  double hi = 0;
  double coverage = 0;
};

/// The median: the middle value, or the mean of the two middle ones. `values` non-empty.
double Median(std::span<const double> values);

/// The distribution-free interval [x(k), x(n+1-k)] of the sorted values, with the largest k
/// whose coverage 1 - 2·P(Binomial(n, 1/2) < k) is at least `confidence` (as Go's benchstat).
/// nullopt when even [min, max] falls short: at 95 % that is n <= 5.
std::optional<ConfidenceInterval> MedianConfidenceInterval(std::span<const double> values,
                                                           double confidence = 0.95);

/// The Hodges-Lehmann estimate of how far `cand` sits from `base`: the median of all
/// n_base·n_cand differences cand_j − base_i, and the Moses interval around it, the
/// differences of rank k and n_base·n_cand + 1 − k, with k from the Mann-Whitney U
/// distribution (exact where MannWhitneyExactCounts fits, else its normal approximation).
struct ShiftEstimate {
  double shift = 0;
  std::optional<ConfidenceInterval> interval;  ///< nullopt when the samples are too small
};
ShiftEstimate HodgesLehmannShift(std::span<const double> base, std::span<const double> cand,
                                 double confidence = 0.95);

enum class MannWhitneyMethod { kExact, kAsymptotic };

/// The two-sided Mann-Whitney U test, as scipy.stats.mannwhitneyu(base, cand) with its
/// defaults (method='auto', use_continuity=True) in scipy 1.10:
///  - exact (the null distribution of U counted, no tie correction) when either sample has
///    at most 8 values and no value occurs twice in the pooled samples: scipy's 'auto' rule,
///    which reads "exact unless both n > 8, or ties";
///  - otherwise the normal approximation of U with the tie correction of the variance and a
///    continuity correction of 1/2.
/// One departure: when the exact count needs more than 128-bit integers or ~64 MB (e.g. 8
/// values against a million; scipy would exhaust memory there), the approximation is used.
/// p = 2·P(U >= max(U_base, U_cand)), clipped to 1.
struct MannWhitneyResult {
  double u_base = 0;  ///< U of the base sample (scipy's statistic for x = base)
  double p = 1;
  MannWhitneyMethod method = MannWhitneyMethod::kAsymptotic;
};
MannWhitneyResult MannWhitneyU(std::span<const double> base, std::span<const double> cand);

/// A value and how many times it occurs.
struct ValueCount {
  double value = 0;
  int64_t count = 0;
};
/// The same test on samples given as (value, count) runs, sorted by value with no value
/// twice: what a kernel's per-call durations are kept as (DurationSet), so a million calls
/// of a few hundred distinct durations cost a few hundred steps. MannWhitneyU on the
/// expanded values gives the same result.
MannWhitneyResult MannWhitneyUOfRuns(std::span<const ValueCount> base,
                                     std::span<const ValueCount> cand);

/// Everything the diff reports about one metric measured per step on both sides.
struct SampleComparison {
  double base_median = 0;
  double cand_median = 0;
  std::optional<ConfidenceInterval> base_interval;
  std::optional<ConfidenceInterval> cand_interval;
  ShiftEstimate shift;
  MannWhitneyResult test;
};
/// Both samples non-empty.
SampleComparison CompareSamples(std::span<const double> base, std::span<const double> cand,
                                double confidence = 0.95);

}  // namespace stepstat
