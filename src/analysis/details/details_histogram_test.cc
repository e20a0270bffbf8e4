#include "analysis/details/details_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace stepstat {
namespace {

TEST(DurationHistogram, EmptyReportsZero) {
  DurationHistogram h;
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(h.Percentile(0.5), 0);
}

TEST(DurationHistogram, SmallValuesAreExactNearestRank) {
  DurationHistogram h;
  for (int64_t v = 1; v <= 100; ++v) h.Add(v);  // 1..100: p50 = 50, p90 = 90, p99 = 99
  EXPECT_EQ(h.Percentile(0.50), 50);
  EXPECT_EQ(h.Percentile(0.90), 90);
  EXPECT_EQ(h.Percentile(0.99), 99);
  EXPECT_EQ(h.Percentile(1.0), 100);
  EXPECT_EQ(h.max(), 100);
}

// The page's queue-latency bins: exact power-of-two counts, against counting each value's
// bit width, on random values spanning 0 to 2^40 (and the bins' edges themselves).
TEST(DurationHistogram, Log2CountsAreExact) {
  EXPECT_TRUE(DurationHistogram().Log2Counts().empty());
  std::mt19937_64 rng(5);
  DurationHistogram h;
  std::vector<int64_t> want;
  auto add = [&](int64_t v) {
    h.Add(v);
    size_t bin = 0;
    while ((int64_t{1} << bin) <= v && bin < 62) ++bin;  // v in [2^(bin-1), 2^bin)
    if (want.size() <= bin) want.resize(bin + 1, 0);
    ++want[bin];
  };
  for (int64_t edge : {0, 1, 2, 3, 255, 256, 257, 511, 512, 1023, 1024}) add(edge);
  for (int i = 0; i < 20000; ++i) {
    add(static_cast<int64_t>(rng() >> (24 + rng() % 40)));
  }
  EXPECT_EQ(h.Log2Counts(), want);
}

TEST(DurationHistogram, LargeValuesWithinOne256thBelow) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> dist(0, int64_t{1} << 40);
  std::vector<int64_t> values(10007);
  DurationHistogram h;
  for (int64_t& v : values) {
    v = dist(rng);
    h.Add(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99}) {
    auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
    int64_t exact = values[rank - 1];
    int64_t got = h.Percentile(q);
    EXPECT_LE(got, exact) << q;
    EXPECT_GE(got, exact - exact / 256 - 1) << q;
  }
  EXPECT_EQ(h.max(), values.back());
}

TEST(DurationHistogram, HugeAndNegativeValuesStayInRange) {
  DurationHistogram h;
  h.Add(-5);  // clamped to 0
  h.Add(std::numeric_limits<int64_t>::max());
  EXPECT_EQ(h.Percentile(0.5), 0);
  EXPECT_LE(h.Percentile(1.0), std::numeric_limits<int64_t>::max());
  EXPECT_GE(h.Percentile(1.0), std::numeric_limits<int64_t>::max() / 256 * 255);
}

}  // namespace
}  // namespace stepstat
