// The statistics against values known by hand and against brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "compare/pairwise_differences.h"
#include "compare/u_distribution.h"
#include "stepstat/compare_stats.h"

namespace stepstat {
namespace {

std::vector<double> AllDifferences(const std::vector<double>& base,
                                   const std::vector<double>& cand) {
  std::vector<double> all;
  for (double b : base) {
    for (double c : cand) all.push_back(c - b);
  }
  std::sort(all.begin(), all.end());
  return all;
}

TEST(MedianTest, OddAndEven) {
  EXPECT_EQ(Median(std::vector<double>{3, 1, 2}), 2);
  EXPECT_EQ(Median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median(std::vector<double>{7}), 7);
}

TEST(MedianConfidenceIntervalTest, NeedsSixValuesAtNinetyFivePercent) {
  EXPECT_FALSE(MedianConfidenceInterval(std::vector<double>{1, 2, 3, 4, 5}).has_value());
  auto ci = MedianConfidenceInterval(std::vector<double>{6, 1, 5, 2, 4, 3});
  ASSERT_TRUE(ci.has_value());
  EXPECT_EQ(ci->lo, 1);
  EXPECT_EQ(ci->hi, 6);
  EXPECT_DOUBLE_EQ(ci->coverage, 1 - 2.0 / 64);
}

TEST(MedianConfidenceIntervalTest, TwentyValuesUseTheSixthAndFifteenth) {
  // P(B(20, 1/2) <= 5) = 0.0207 <= 0.025 < P(B <= 6) = 0.0577: k = 6.
  std::vector<double> values;
  for (int i = 1; i <= 20; ++i) values.push_back(i);
  auto ci = MedianConfidenceInterval(values);
  ASSERT_TRUE(ci.has_value());
  EXPECT_EQ(ci->lo, 6);
  EXPECT_EQ(ci->hi, 15);
  EXPECT_NEAR(ci->coverage, 1 - 2 * 21700.0 / 1048576, 1e-12);
}

TEST(MannWhitneyTest, IdenticalSamplesGiveOne) {
  std::vector<double> a{1, 2, 3, 4, 5};
  EXPECT_EQ(MannWhitneyU(a, a).p, 1.0);  // ties: asymptotic, clipped
  std::vector<double> same(30, 7.0);
  EXPECT_EQ(MannWhitneyU(same, same).p, 1.0);  // every value tied: zero variance
}

TEST(MannWhitneyTest, FullySeparatedFiveAgainstFiveIsExact) {
  MannWhitneyResult r =
      MannWhitneyU(std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{6, 7, 8, 9, 10});
  EXPECT_EQ(r.method, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(r.p, 2.0 / 252);
  EXPECT_EQ(r.u_base, 0);
}

TEST(MannWhitneyTest, LargeSamplesUseTheApproximation) {
  std::vector<double> a, b;
  for (int i = 0; i < 9; ++i) a.push_back(i), b.push_back(i + 0.5);
  EXPECT_EQ(MannWhitneyU(a, b).method, MannWhitneyMethod::kAsymptotic);
  a.resize(8);
  EXPECT_EQ(MannWhitneyU(a, b).method, MannWhitneyMethod::kExact);  // one side <= 8
}

TEST(UDistributionTest, CountsMatchEnumeration) {
  // m = 3, n = 4: C(7, 3) = 35 orderings; U counts by enumeration of base positions.
  std::vector<int> counts(13, 0);
  for (int mask = 0; mask < 128; ++mask) {
    if (__builtin_popcount(mask) != 3) continue;
    int u = 0, cand_seen = 0;
    for (int pos = 0; pos < 7; ++pos) {
      if (mask >> pos & 1) {
        u += cand_seen;
      } else {
        ++cand_seen;
      }
    }
    ++counts[u];
  }
  auto cumulative = ExactUCumulative(3, 4, 12);
  ASSERT_TRUE(cumulative.has_value());
  int running = 0;
  for (int k = 0; k <= 12; ++k) {
    running += counts[k];
    EXPECT_DOUBLE_EQ((*cumulative)[k], running / 35.0) << k;
  }
  EXPECT_FALSE(ExactUCumulative(100, 100, 5000).has_value());  // C(200,100) > 2^126
}

TEST(PairwiseDifferencesTest, SelectionMatchesSortingEveryPair) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 60; ++round) {
    size_t m = 1 + random() % 40, n = 1 + random() % 300;
    std::vector<double> base(m), cand(n);
    // Few distinct values in some rounds, so ties among the differences are common.
    int spread = round % 3 == 0 ? 4 : 1000000;
    for (double& x : base) x = double(random() % spread) * 0.25;
    for (double& x : cand) x = double(random() % spread) * 0.25 + 0.1;
    std::sort(base.begin(), base.end());
    std::sort(cand.begin(), cand.end());
    std::vector<double> all = AllDifferences(base, cand);
    for (uint64_t k : {uint64_t{0}, uint64_t(all.size() / 3), uint64_t(all.size() / 2),
                       uint64_t(all.size() - 1)}) {
      ASSERT_EQ(KthPairwiseDifference(base, cand, k), all[k]) << round << " k=" << k;
    }
  }
}

TEST(HodgesLehmannTest, MatchesBruteForceMedianAndMosesRanks) {
  std::mt19937_64 random(11);
  for (int round = 0; round < 40; ++round) {
    size_t m = 4 + random() % 30, n = 4 + random() % 30;
    std::vector<double> base(m), cand(n);
    for (double& x : base) x = 100 + double(random() % 1000) / 10;
    for (double& x : cand) x = 103 + double(random() % 1000) / 10;
    std::vector<double> all = AllDifferences(base, cand);
    double median =
        all.size() % 2 ? all[all.size() / 2] : (all[all.size() / 2 - 1] + all[all.size() / 2]) / 2;
    ShiftEstimate hl = HodgesLehmannShift(base, cand);
    EXPECT_EQ(hl.shift, median);
    ASSERT_TRUE(hl.interval.has_value());
    // The interval's ends are order statistics k and mn+1−k of the differences.
    auto lo = std::find(all.begin(), all.end(), hl.interval->lo);
    auto hi = std::find(all.rbegin(), all.rend(), hl.interval->hi);
    ASSERT_NE(lo, all.end());
    ASSERT_NE(hi, all.rend());
    EXPECT_LE(hl.interval->lo, hl.shift);
    EXPECT_GE(hl.interval->hi, hl.shift);
    EXPECT_GE(hl.interval->coverage, 0.95);
  }
}

TEST(HodgesLehmannTest, KnownShiftAndSmallSamples) {
  std::vector<double> base{10, 11, 12, 13, 14, 15, 16, 17};
  std::vector<double> cand;
  for (double x : base) cand.push_back(x + 5);
  EXPECT_EQ(HodgesLehmannShift(base, cand).shift, 5);
  // 3 against 3: P(U = 0) = 1/20 > 0.025, so no 95 % interval exists.
  EXPECT_FALSE(HodgesLehmannShift(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6})
                   .interval.has_value());
  // 4 against 4: P(U = 0) = 1/70 <= 0.025 < P(U <= 1) = 2/70: k = 1, [min, max] of diffs.
  auto four = HodgesLehmannShift(std::vector<double>{1, 2, 3, 4}, std::vector<double>{5, 6, 7, 8});
  ASSERT_TRUE(four.interval.has_value());
  EXPECT_EQ(four.interval->lo, 1);
  EXPECT_EQ(four.interval->hi, 7);
  EXPECT_DOUBLE_EQ(four.interval->coverage, 1 - 2.0 / 70);
}

TEST(HodgesLehmannTest, LargeSamplesUseTheNormalRanks) {
  std::vector<double> base, cand;
  for (int i = 0; i < 3000; ++i) base.push_back(i), cand.push_back(i + 100.5);
  ShiftEstimate hl = HodgesLehmannShift(base, cand);
  EXPECT_EQ(hl.shift, 100.5);
  ASSERT_TRUE(hl.interval.has_value());
  EXPECT_LT(hl.interval->lo, 100.5);
  EXPECT_GT(hl.interval->hi, 100.5);
  EXPECT_NEAR(hl.interval->coverage, 0.95, 0.001);
}

TEST(NormalQuantileTest, KnownValues) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.5), 0, 1e-15);
}

}  // namespace
}  // namespace stepstat
