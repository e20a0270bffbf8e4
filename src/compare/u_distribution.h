// The null distribution of the Mann-Whitney U statistic, counted exactly: the number of ways
// U takes each value when every ordering of the pooled samples is equally likely. Shared by
// the exact test and the Moses interval of the Hodges-Lehmann shift.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace stepstat {

/// P(U <= k) for k = 0..k_max under the null hypothesis, for samples of m and n values.
/// nullopt when the count does not fit (C(m+n, m) >= 2^126) or k_max + 1 coefficients take
/// more than ~64 MB: callers then use the normal approximation.
std::optional<std::vector<double>> ExactUCumulative(int64_t m, int64_t n, int64_t k_max);

/// Φ⁻¹(p), the standard normal quantile, for 0 < p < 1 (to ~1e-15, by bisection on erfc).
double NormalQuantile(double p);

}  // namespace stepstat
