#include "analysis/details/duration_set.h"

#include <gtest/gtest.h>

#include <algorithm>
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
