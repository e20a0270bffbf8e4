// A log-linear histogram of non-negative durations: fixed memory (about 115 KB) whatever the
// number of values, percentiles within 1/256 of the true value.
#pragma once

#include <cstdint>
#include <vector>

namespace stepstat {

/// Values below 256 ns are exact; above, each power of two is split into 256 equal buckets,
/// so a bucket's width is at most 1/256 of its lower bound. A percentile is reported as the
/// lower bound of the bucket that holds it (never above the true value, at most 1/256 below),
/// clamped to the exact minimum and maximum.
class DurationHistogram {
 public:
  static constexpr const char* kPrecision =
      "exact below 256 ns; above, rounded down by at most 1/256 (log-linear histogram)";

  void Add(int64_t value_ns);
  int64_t count() const { return count_; }
  int64_t max() const { return max_; }
  /// Nearest-rank percentile: the smallest bucket value v with at least ceil(q * count)
  /// values <= v. 0 when empty. `q` in (0, 1].
  int64_t Percentile(double q) const;
  /// Exact counts in powers of two: [0] the zeros, [k] the values in [2^(k-1), 2^k), up to
  /// the last non-empty one (empty when no value was added). Every bucket lies within one.
  std::vector<int64_t> Log2Counts() const;

 private:
  static int BucketOf(int64_t value);
  static int64_t LowerBoundOf(int bucket);

  std::vector<int64_t> counts_;  ///< allocated on the first Add
  int64_t count_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
};

}  // namespace stepstat
