// Harding's (1984) counting: the generating function of U for samples of m and n values is
// the Gaussian binomial  prod_{j=1..m} (1 − q^(n+j)) / (1 − q^j).  Each factor is applied as
// a subtraction then a running sum over the coefficients 0..k_max (both read only lower
// coefficients, so truncating at k_max is exact). Intermediate coefficients can be negative;
// in wrapping 128-bit unsigned arithmetic the final, non-negative ones still come out exact.
#include "compare/u_distribution.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

namespace stepstat {
namespace {

// 1/sqrt(2): M_SQRT1_2 is POSIX, not C++ (mingw-w64 hides it under -std=c++20). Half the
// double nearest sqrt(2) is the double nearest 1/sqrt(2), the same bits as M_SQRT1_2.
constexpr double kSqrtHalf = std::numbers::sqrt2 / 2;
static_assert(kSqrtHalf == 0.70710678118654752440);

using Count = unsigned __int128;
constexpr int64_t kMaxCoefficients = int64_t{4} << 20;  // 16 bytes each: 64 MB

}  // namespace

std::optional<std::vector<double>> ExactUCumulative(int64_t m, int64_t n, int64_t k_max) {
  if (m > n) std::swap(m, n);
  // log2 C(m+n, m), by lgamma: a margin of 1 bit covers its rounding.
  double log2_total =
      (std::lgamma(double(m + n + 1)) - std::lgamma(double(m + 1)) - std::lgamma(double(n + 1))) /
      std::log(2.0);
  k_max = std::min(k_max, m * n);
  if (m < 0 || k_max < 0 || log2_total >= 125 || k_max + 1 > kMaxCoefficients) return std::nullopt;

  std::vector<Count> counts(size_t(k_max + 1), 0);
  counts[0] = 1;
  Count total = 1;  // C(n+j, j), built up with the factors
  for (int64_t j = 1; j <= m; ++j) {
    for (int64_t k = k_max; k >= n + j; --k) counts[size_t(k)] -= counts[size_t(k - n - j)];
    for (int64_t k = j; k <= k_max; ++k) counts[size_t(k)] += counts[size_t(k - j)];
    // C(n+j, j) = C(n+j-1, j-1)·(n+j)/j, divided first so no intermediate passes the result.
    Count g = std::gcd(int64_t(total % Count(j)), j);
    total = total / g * (Count(n + j) / (Count(j) / g));
  }
  std::vector<double> cumulative(counts.size());
  Count running = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    running += counts[k];
    cumulative[k] = double(static_cast<long double>(running) / static_cast<long double>(total));
  }
  return cumulative;
}

double NormalQuantile(double p) {
  // Φ(x) = erfc(−x/√2)/2 is increasing; 200 halvings reach adjacent doubles.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && lo < hi; ++i) {
    double mid = (lo + hi) / 2;
    if (mid == lo || mid == hi) break;
    if (0.5 * std::erfc(-mid * kSqrtHalf) < p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

}  // namespace stepstat
