// The timeline's accumulators: runs merged below a column, the longest gaps and their ties,
// unions; checked against brute force on random lanes.
#include "analysis/steps/step_timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace stepstat {
namespace {

TEST(MergeRuns, WideOperationsStaySeparateNarrowOnesMerge) {
  // Resolution 10: two wide kernels of different components touching, then five 1 ns
  // kernels 2 ns apart (one run), then a wide one 50 ns later.
  std::vector<TimelineOp> ops = {{0, 20, 0, 0}, {20, 40, 1, 0}};
  for (int i = 0; i < 5; ++i) ops.push_back({100 + 3 * i, 101 + 3 * i, 2, 0});
  ops.push_back({163, 200, 0, 0});
  const std::vector<TimelineRun> runs = MergeRuns(ops, 10, 3);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].component, 0);
  EXPECT_EQ(runs[1].component, 1);
  EXPECT_EQ(runs[2].start_ns, 100);
  EXPECT_EQ(runs[2].end_ns, 113);
  EXPECT_EQ(runs[2].ops, 5);
  EXPECT_EQ(runs[3].start_ns, 163);
}

TEST(MergeRuns, AMergedRunTakesTheComponentWithTheMostTime) {
  // One wide op of component 1 swallows narrow ones of component 0 close to it; a memory
  // operation's time is its own slot.
  const std::vector<TimelineOp> ops = {
      {0, 2, 0, 0}, {3, 5, 0, 0}, {6, 30, 1, 0}, {31, 33, kTimelineMemoryOp, 0}};
  const std::vector<TimelineRun> runs = MergeRuns(ops, 10, 2);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].component, 1);
  EXPECT_EQ(runs[0].end_ns, 33);
  EXPECT_EQ(runs[0].ops, 4);
  const std::vector<TimelineOp> memory = {{0, 2, kTimelineMemoryOp, 0}, {3, 4, 0, 0}};
  EXPECT_EQ(MergeRuns(memory, 10, 2)[0].component, kTimelineMemoryOp);
}

TEST(MergeRuns, RandomDenseLanesStayBoundedAndCoverEveryOperation) {
  std::mt19937_64 random(17);
  for (int round = 0; round < 50; ++round) {
    const int64_t span = 1'000'000;
    const int64_t resolution = span / kTimelineColumns;
    std::vector<TimelineOp> ops;
    int64_t t = 0;
    while (t < span) {
      const int64_t length = static_cast<int64_t>(random() % (round % 2 ? 3000 : 30)) + 1;
      ops.push_back({t, std::min(span, t + length), static_cast<int32_t>(random() % 4), 0});
      t += length + static_cast<int64_t>(random() % 200);
    }
    const std::vector<TimelineRun> runs = MergeRuns(ops, resolution, 4);
    EXPECT_LE(runs.size(), static_cast<size_t>(2 * kTimelineColumns + 1));
    int64_t covered = 0;
    for (const TimelineRun& run : runs) covered += run.ops;
    EXPECT_EQ(covered, static_cast<int64_t>(ops.size()));
    // Every operation lies inside one run.
    size_t r = 0;
    for (const TimelineOp& op : ops) {
      while (r < runs.size() && runs[r].end_ns < op.end_ns) ++r;
      ASSERT_LT(r, runs.size());
      EXPECT_LE(runs[r].start_ns, op.start_ns);
    }
  }
}

TEST(SelectGaps, LongestFirstAndEqualLengthsEarliestFirst) {
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
  // Gaps: 10 (a→b), 30 (b→c), 10 (c→d), 30 (d→e) and none under the long kernel e.
  const std::vector<TimelineOp> kernels = {{0, 10, 0, 0},  {20, 30, 0, 1},   {60, 70, 0, 2},
                                           {80, 90, 0, 3}, {120, 200, 0, 4}, {130, 140, 0, 5}};
  const GapSelection gaps = SelectGaps(kernels, names, 3);
  EXPECT_EQ(gaps.count, 4);
  EXPECT_EQ(gaps.total_ns, 80);
  ASSERT_EQ(gaps.longest.size(), 3u);
  EXPECT_EQ(gaps.longest[0].start_ns, 30);
  EXPECT_EQ(gaps.longest[0].kernel_before, "b");
  EXPECT_EQ(gaps.longest[0].kernel_after, "c");
  EXPECT_EQ(gaps.longest[1].start_ns, 90);
  EXPECT_EQ(gaps.longest[1].kernel_after, "e");
  EXPECT_EQ(gaps.longest[2].start_ns, 10);
  EXPECT_EQ(gaps.longest[2].kernel_before, "a");
}

TEST(SelectGaps, TheKernelBeforeIsTheLastToFinish) {
  const std::vector<std::string> names = {"long", "short", "next"};
  const std::vector<TimelineOp> kernels = {{0, 100, 0, 0}, {10, 20, 0, 1}, {150, 160, 0, 2}};
  const GapSelection gaps = SelectGaps(kernels, names, 5);
  ASSERT_EQ(gaps.longest.size(), 1u);
  EXPECT_EQ(gaps.longest[0].start_ns, 100);
  EXPECT_EQ(gaps.longest[0].kernel_before, "long");
  EXPECT_EQ(gaps.longest[0].kernel_after, "next");
}

TEST(UnionLength, MatchesAPerNanosecondCountOnRandomIntervals) {
  std::mt19937_64 random(3);
  for (int round = 0; round < 100; ++round) {
    std::vector<TimelineOp> intervals;
    for (int i = 0; i < 20; ++i) {
      const int64_t start = static_cast<int64_t>(random() % 500);
      intervals.push_back({start, start + static_cast<int64_t>(random() % 60), 0, 0});
    }
    std::sort(intervals.begin(), intervals.end(),
              [](const TimelineOp& a, const TimelineOp& b) { return a.start_ns < b.start_ns; });
    std::vector<bool> covered(600, false);
    const int64_t low = 100, high = 400;
    for (const TimelineOp& i : intervals) {
      for (int64_t t = std::max(low, i.start_ns); t < std::min(high, i.end_ns); ++t) {
        covered[static_cast<size_t>(t)] = true;
      }
    }
    EXPECT_EQ(UnionLength(intervals, low, high), std::count(covered.begin(), covered.end(), true));
  }
}

}  // namespace
}  // namespace stepstat
