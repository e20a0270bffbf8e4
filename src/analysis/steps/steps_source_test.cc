#include "analysis/steps/steps_source.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stepstat {
namespace {

TEST(BlankDigits, DigitRunsBecomeOneMark) {
  EXPECT_EQ(BlankDigits("Step 190 to 200"), std::string("Step \x01 to \x01"));
  EXPECT_EQ(BlankDigits("ProfilerStep#12"), std::string("ProfilerStep#\x01"));
  EXPECT_EQ(BlankDigits("forward"), "forward");
}

// Feeds ranges (start, end, text) in start order and a GPU span of [0, span).
AnnotationStats Stats(const std::vector<std::tuple<int64_t, int64_t, std::string>>& ranges,
                      int64_t span) {
  AnnotationStats stats;
  StringPool pool;
  std::vector<CpuRange> batch;
  for (const auto& [start, end, text] : ranges) {
    CpuRange r;
    r.start_ns = start;
    r.end_ns = end;
    r.name = pool.Intern(text);
    batch.push_back(r);
  }
  GpuOp first, last;
  last.start_ns = span - 1;
  last.duration_ns = 1;
  std::vector<GpuOp> ops = {first, last};
  EXPECT_TRUE(stats.OnGpuOps(ops, pool).ok());
  EXPECT_TRUE(stats.OnRanges(batch, pool).ok());
  return stats;
}

// Issue 12: the annotation a loop writes its counter into ("Step 0 to 10") is one
// annotation; of a step and the layers inside it the step is taken, the whole unit.
TEST(AnnotationStats, TakesTheStepOverItsLayers) {
  std::vector<std::tuple<int64_t, int64_t, std::string>> ranges;
  for (int step = 0; step < 4; ++step) {
    int64_t t = step * 1000;
    ranges.emplace_back(t, t + 990, "train step " + std::to_string(step));
    for (int layer = 0; layer < 3; ++layer) {
      ranges.emplace_back(t + 10 + layer * 320, t + 320 + layer * 320, "layer");
    }
  }
  std::sort(ranges.begin(), ranges.end());
  AnnotationStats stats = Stats(ranges, 4000);
  std::optional<AnnotationChoice> choice = stats.Best(4000);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->pattern, R"(^train step \d+$)");
  EXPECT_EQ(choice->count, 4);
  EXPECT_NEAR(choice->coverage, 0.99, 1e-9);
}

TEST(AnnotationStats, RefusesRareOrNarrowAnnotations) {
  // Twice over the whole run: too few to be steps.
  AnnotationStats twice = Stats({{0, 2000, "epoch 1"}, {2000, 4000, "epoch 2"}}, 4000);
  EXPECT_FALSE(twice.Best(4000));
  EXPECT_FALSE(twice.Closest(4000));
  // Often, but over a fifth of the run: not what the run is made of.
  std::vector<std::tuple<int64_t, int64_t, std::string>> narrow;
  for (int i = 0; i < 10; ++i) narrow.emplace_back(i * 400, i * 400 + 80, "checkpoint (x)");
  AnnotationStats stats = Stats(narrow, 4000);
  EXPECT_FALSE(stats.Best(4000));
  std::optional<AnnotationChoice> closest = stats.Closest(4000);
  ASSERT_TRUE(closest);
  EXPECT_EQ(closest->pattern, R"(^checkpoint \(x\)$)");
  EXPECT_NEAR(closest->coverage, 0.2, 1e-9);
}

}  // namespace
}  // namespace stepstat
