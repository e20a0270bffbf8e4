#include "analysis/step_overlap_meter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

namespace stepstat {
namespace {

using Tagged = StepOverlapMeter::Tagged;

// Intervals of `steps` steps on one side, sorted by start. Steps follow each other in time
// but overlap at their edges (work of step k+1 starting before step k's last ends), and
// within a step intervals both touch, overlap and leave gaps.
std::vector<Tagged> Side(std::mt19937_64& random, size_t steps, int64_t lag) {
  std::vector<Tagged> out;
  for (size_t s = 0; s < steps; ++s) {
    int64_t t = static_cast<int64_t>(s) * 1000 + lag + static_cast<int64_t>(random() % 200);
    size_t count = random() % 12;
    for (size_t i = 0; i < count; ++i) {
      int64_t length = static_cast<int64_t>(random() % 150);
      out.push_back({s, {t, t + length}});
      t += static_cast<int64_t>(random() % 160);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Tagged& a, const Tagged& b) {
    return a.interval.start < b.interval.start;
  });
  return out;
}

std::vector<Interval> OfStep(const std::vector<Tagged>& side, size_t step) {
  std::vector<Interval> out;
  for (const Tagged& t : side) {
    if (t.step == step) out.push_back(t.interval);
  }
  return out;
}

void Feed(StepOverlapMeter& meter, StepOverlapMeter::Side side, const std::vector<Tagged>& all,
          size_t batch) {
  for (size_t i = 0; i < all.size(); i += batch) {
    size_t n = std::min(batch, all.size() - i);
    EXPECT_TRUE(meter.Add(side, std::span(all.data() + i, n)));
  }
  meter.Close(side);
}

TEST(StepOverlapMeter, EqualsPerStepBruteForceFromTwoThreads) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    const size_t steps = 1 + random() % 30;
    std::vector<Tagged> kernels = Side(random, steps, 300);
    std::vector<Tagged> launches = Side(random, steps, 0);
    StepOverlapMeter meter(steps, /*max_pending=*/1 + random() % 8);
    size_t kernel_batch = 1 + random() % 5, launch_batch = 1 + random() % 5;
    std::thread launch_thread(
        [&] { Feed(meter, StepOverlapMeter::kLaunches, launches, launch_batch); });
    Feed(meter, StepOverlapMeter::kKernels, kernels, kernel_batch);
    launch_thread.join();
    for (size_t s = 0; s < steps; ++s) {
      std::vector<Interval> k = UnionOf(OfStep(kernels, s)), l = UnionOf(OfStep(launches, s));
      EXPECT_EQ(meter.overlap(s), IntersectionLength(k, l)) << "step " << s;
      EXPECT_EQ(meter.union_length(StepOverlapMeter::kKernels, s), TotalLength(k));
      EXPECT_EQ(meter.union_length(StepOverlapMeter::kLaunches, s), TotalLength(l));
    }
  }
}

TEST(StepOverlapMeter, HoldsOnlyWhatOneSideIsAhead) {
  // 10,000 steps of one disjoint interval per side: a meter fed in lockstep holds a few.
  const size_t steps = 10'000;
  std::vector<Tagged> kernels, launches;
  for (size_t s = 0; s < steps; ++s) {
    int64_t t = static_cast<int64_t>(s) * 100;
    launches.push_back({s, {t, t + 30}});
    kernels.push_back({s, {t + 20, t + 60}});
  }
  StepOverlapMeter meter(steps, 64);
  for (size_t s = 0; s < steps; ++s) {
    ASSERT_TRUE(meter.Add(StepOverlapMeter::kLaunches, std::span(&launches[s], 1)));
    ASSERT_TRUE(meter.Add(StepOverlapMeter::kKernels, std::span(&kernels[s], 1)));
  }
  meter.Close(StepOverlapMeter::kLaunches);
  meter.Close(StepOverlapMeter::kKernels);
  EXPECT_LE(meter.peak_pending(), 4u);
  EXPECT_EQ(meter.overlap(0), 10);
  EXPECT_EQ(meter.overlap(steps - 1), 10);
}

TEST(StepOverlapMeter, RefusesASideOutOfOrder) {
  StepOverlapMeter meter(2, 16);
  std::vector<Tagged> batch = {{0, {100, 200}}, {1, {50, 60}}};
  EXPECT_FALSE(meter.Add(StepOverlapMeter::kKernels, batch));
  // The other side is unaffected.
  EXPECT_TRUE(meter.Add(StepOverlapMeter::kLaunches, std::span(batch.data(), 1)));
}

}  // namespace
}  // namespace stepstat
