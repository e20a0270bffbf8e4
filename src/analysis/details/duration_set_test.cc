#include "analysis/details/duration_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace stepstat {
namespace {

TEST(DurationSet, EmptyIsZero) {
  DurationSet set;
  EXPECT_EQ(set.count(), 0);
  EXPECT_EQ(set.Min(), 0);
  EXPECT_EQ(set.Median(), 0.0);
}

TEST(DurationSet, MedianOfOddAndEvenCountsAsNsysPrintsIt) {
  DurationSet odd;
  for (int64_t d : {5, 1, 3}) odd.Add(d);
  EXPECT_EQ(odd.Median(), 3.0);
  EXPECT_EQ(odd.Min(), 1);
  DurationSet even;
  for (int64_t d : {661740, 661739}) even.Add(d);
  EXPECT_EQ(even.Median(), 661739.5);
}

// Nsight's StdDev column: the sample standard deviation, against a brute-force two-pass
// computation over every duration kept, on random sets with repeats, large offsets and
// compactions between adds.
TEST(DurationSet, SampleStdDevMatchesBruteForce) {
  std::mt19937_64 random(11);
  for (int round = 0; round < 200; ++round) {
    DurationSet set;
    std::vector<int64_t> all;
    const int64_t offset = round % 3 == 0 ? int64_t{1} << 40 : 0;
    const size_t n = 1 + random() % 2000;
    for (size_t i = 0; i < n; ++i) {
      const int64_t d = offset + static_cast<int64_t>(random() % (round % 2 ? 50 : 1'000'000));
      set.Add(d);
      all.push_back(d);
      if (i % 97 == 0) set.Min();  // compacts mid-way
    }
    double want = 0;
    if (all.size() > 1) {
      long double mean = 0;
      for (int64_t d : all) mean += static_cast<long double>(d);
      mean /= static_cast<long double>(all.size());
      long double squares = 0;
      for (int64_t d : all) squares += (d - mean) * (d - mean);
      want = static_cast<double>(std::sqrt(squares / static_cast<long double>(all.size() - 1)));
    }
    EXPECT_NEAR(set.SampleStdDev(), want, 1e-9 * std::max(1.0, want)) << "round " << round;
  }
  DurationSet one;
  one.Add(7);
  EXPECT_EQ(one.SampleStdDev(), 0.0);
  DurationSet pair;
  pair.Add(1);
  pair.Add(3);
  EXPECT_DOUBLE_EQ(pair.SampleStdDev(), std::sqrt(2.0));  // python: statistics.stdev([1, 3])
}

// Against sorting everything, across many compactions, with repeated and distinct values.
TEST(DurationSet, MatchesAFullSortAcrossCompactions) {
  std::mt19937_64 rng(13);
  for (int64_t spread : {int64_t{7}, int64_t{1000}, int64_t{1} << 40}) {
    DurationSet set;
    std::vector<int64_t> all;
    for (int i = 0; i < 10001; ++i) {
      auto d = static_cast<int64_t>(rng() % static_cast<uint64_t>(spread));
      set.Add(d);
      all.push_back(d);
      if (i % 997 == 0) {
        std::vector<int64_t> sorted = all;
        std::sort(sorted.begin(), sorted.end());
        size_t n = sorted.size();
        double want =
            (static_cast<double>(sorted[(n - 1) / 2]) + static_cast<double>(sorted[n / 2])) / 2;
        ASSERT_EQ(set.Median(), want) << "spread " << spread << " after " << n;
        ASSERT_EQ(set.Min(), sorted.front());
        ASSERT_EQ(set.count(), static_cast<int64_t>(n));
      }
    }
  }
}

}  // namespace
}  // namespace stepstat
