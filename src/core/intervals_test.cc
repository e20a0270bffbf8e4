#include "core/intervals.h"

#include <gtest/gtest.h>

namespace stepstat {
namespace {

// The spec's definition, written the obvious way, to check the streaming pieces against.
struct Frontier {
  int64_t count = 0, total = 0, maximum = 0;
};
Frontier FrontierWalk(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  Frontier f;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i == 0) continue;
    int64_t frontier = 0;
    for (size_t k = 0; k < i; ++k) frontier = std::max(frontier, v[k].end);
    if (v[i].start > frontier) {
      int64_t gap = v[i].start - frontier;
      ++f.count;
      f.total += gap;
      f.maximum = std::max(f.maximum, gap);
    }
  }
  return f;
}

Frontier GapsOfUnion(std::vector<Interval> v) {
  GapMeter meter;
  for (const Interval& c : UnionOf(std::move(v))) meter.Add(c);
  return {meter.count(), meter.total(), meter.maximum()};
}

TEST(SortedUnion, MergesOverlappingAndTouching) {
  auto u = UnionOf({{0, 10}, {5, 15}, {15, 20}, {30, 40}});
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0], (Interval{0, 20}));
  EXPECT_EQ(u[1], (Interval{30, 40}));
}

TEST(SortedUnion, ZeroLengthIntervalApartIsItsOwnComponent) {
  auto u = UnionOf({{0, 10}, {12, 12}, {20, 30}});
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(TotalLength(u), 20);
  GapMeter meter;
  for (auto& c : u) meter.Add(c);
  EXPECT_EQ(meter.count(), 2);  // the zero-duration kernel splits the idle time in two
  EXPECT_EQ(meter.total(), 10);
  EXPECT_EQ(meter.maximum(), 8);
}

TEST(SortedUnion, ReportsOutOfOrder) {
  SortedUnion u;
  EXPECT_TRUE(u.InOrder(5));
  (void)u.Add(5, 6);
  EXPECT_TRUE(u.InOrder(5));
  EXPECT_FALSE(u.InOrder(4));
}

TEST(Gaps, ConcurrentStreamsDoNotCountHiddenIdleTime) {
  // Stream A: [0,100) then [150,200). Stream B: [90,160). The device is never idle, although
  // each stream on its own has a gap.
  auto g = GapsOfUnion({{0, 100}, {150, 200}, {90, 160}});
  EXPECT_EQ(g.count, 0);
  EXPECT_EQ(g.total, 0);
  // A long kernel hides later short ones: the frontier is the latest end, not the last one.
  g = GapsOfUnion({{0, 1000}, {10, 20}, {30, 40}, {1005, 1010}});
  EXPECT_EQ(g.count, 1);
  EXPECT_EQ(g.total, 5);
}

TEST(Gaps, MatchFrontierWalkOnPseudoRandomInput) {
  uint64_t seed = 42;
  auto next = [&seed](int64_t mod) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((seed >> 33) % static_cast<uint64_t>(mod));
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<Interval> v;
    int n = 1 + static_cast<int>(next(40));
    for (int i = 0; i < n; ++i) {
      int64_t s = next(500);
      v.push_back({s, s + next(30)});
    }
    Frontier expected = FrontierWalk(v);
    Frontier got = GapsOfUnion(v);
    ASSERT_EQ(got.count, expected.count) << "round " << round;
    ASSERT_EQ(got.total, expected.total) << "round " << round;
    ASSERT_EQ(got.maximum, expected.maximum) << "round " << round;
  }
}

TEST(Intersection, OfTwoUnions) {
  std::vector<Interval> a = {{0, 10}, {20, 30}, {40, 50}};
  std::vector<Interval> b = {{5, 25}, {28, 45}};
  // [5,10) + [20,25) + [28,30) + [40,45)
  EXPECT_EQ(IntersectionLength(a, b), 5 + 5 + 2 + 5);
  EXPECT_EQ(IntersectionLength(b, a), 17);
  EXPECT_EQ(IntersectionLength(a, {}), 0);
  EXPECT_EQ(IntersectionLength(a, a), TotalLength(a));
}

}  // namespace
}  // namespace stepstat
