#include "analysis/steps/step_overlap_meter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "deadline.h"

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

// Batches of `batch` (0: single intervals, each followed by an empty batch), then Close.
void Feed(StepOverlapMeter::Producer producer, const std::vector<Tagged>& all, size_t batch) {
  size_t step = std::max<size_t>(batch, 1);
  for (size_t i = 0; i < all.size(); i += step) {
    size_t n = std::min(step, all.size() - i);
    EXPECT_TRUE(producer.Add(std::span(all.data() + i, n)));
    if (batch == 0) {
      EXPECT_TRUE(producer.Add(std::span<const Tagged>()));
    }
  }
  producer.Close();
}

// overlap(s): the step's launches against every kernel; own_overlap(s): against its own.
void ExpectBruteForce(const StepOverlapMeter& meter, size_t steps,
                      const std::vector<Tagged>& kernels, const std::vector<Tagged>& launches) {
  std::vector<Interval> every_kernel;
  for (const Tagged& t : kernels) every_kernel.push_back(t.interval);
  const std::vector<Interval> gpu = UnionOf(std::move(every_kernel));
  for (size_t s = 0; s < steps; ++s) {
    std::vector<Interval> k = UnionOf(OfStep(kernels, s)), l = UnionOf(OfStep(launches, s));
    EXPECT_EQ(meter.overlap(s), IntersectionLength(gpu, l)) << "step " << s;
    EXPECT_EQ(meter.own_overlap(s), IntersectionLength(k, l)) << "step " << s;
    EXPECT_EQ(meter.union_length(StepOverlapMeter::kKernels, s), TotalLength(k));
    EXPECT_EQ(meter.union_length(StepOverlapMeter::kLaunches, s), TotalLength(l));
  }
}

TEST(StepOverlapMeter, EqualsPerStepBruteForceFromTwoThreads) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    const size_t steps = 1 + random() % 30;
    std::vector<Tagged> kernels = Side(random, steps, 300);
    std::vector<Tagged> launches = Side(random, steps, 0);
    StepOverlapMeter meter(steps, /*max_pending=*/1 + random() % 8);
    size_t kernel_batch = random() % 5, launch_batch = random() % 5;
    MustFinishWithin(kHangLimit, "two producers", [&] {
      std::thread launch_thread(
          [&] { Feed(meter.TakeProducer(StepOverlapMeter::kLaunches), launches, launch_batch); });
      Feed(meter.TakeProducer(StepOverlapMeter::kKernels), kernels, kernel_batch);
      launch_thread.join();
    });
    ExpectBruteForce(meter, steps, kernels, launches);
  }
}

// Issue 11: one side delivers everything (until it waits) before the other starts, in both
// orders, with every batch shape.
TEST(StepOverlapMeter, OneSideFirstUntilItWaitsThenTheOther) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 random(seed);
    const size_t steps = 1 + random() % 20;
    std::vector<Tagged> kernels = Side(random, steps, 300);
    std::vector<Tagged> launches = Side(random, steps, 0);
    for (auto first : {StepOverlapMeter::kKernels, StepOverlapMeter::kLaunches}) {
      StepOverlapMeter meter(steps, /*max_pending=*/1 + random() % 3);
      auto other = first == StepOverlapMeter::kKernels ? StepOverlapMeter::kLaunches
                                                       : StepOverlapMeter::kKernels;
      auto data = [&](StepOverlapMeter::Side side) -> const std::vector<Tagged>& {
        return side == StepOverlapMeter::kKernels ? kernels : launches;
      };
      size_t batch = seed % 4 == 0 ? 0 : seed % 4 == 1 ? 1 : 1000;
      std::atomic<bool> first_done = false;
      MustFinishWithin(kHangLimit, "one side first", [&] {
        std::thread t1([&] {
          Feed(meter.TakeProducer(first), data(first), batch);
          first_done = true;
        });
        ASSERT_TRUE(EventuallyTrue([&] { return first_done || meter.waiting(first); }));
        std::thread t2([&] { Feed(meter.TakeProducer(other), data(other), batch); });
        t1.join();
        t2.join();
      });
      ExpectBruteForce(meter, steps, kernels, launches);
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
  // Two threads in strict alternation: launch s, kernel s, launch s + 1, ... The turn passes
  // through a mutex and a condition variable, not std::binary_semaphore: mingw-w64's GCC 12
  // libstdc++ semaphore (atomic wait without a futex) loses a wake-up now and then, which hung
  // this test under wine (issue 19) while the meter was fine.
  std::mutex turn_mutex;
  std::condition_variable turn_changed;
  bool launches_turn = true;
  auto wait_for_turn = [&](bool launch_side) {
    std::unique_lock<std::mutex> lock(turn_mutex);
    turn_changed.wait(lock, [&] { return launches_turn == launch_side; });
  };
  auto pass_turn = [&](bool to_launch_side) {
    {
      std::lock_guard<std::mutex> lock(turn_mutex);
      launches_turn = to_launch_side;
    }
    turn_changed.notify_all();
  };
  MustFinishWithin(kHangLimit, "lockstep", [&] {
    std::thread launch_thread([&] {
      StepOverlapMeter::Producer producer = meter.TakeProducer(StepOverlapMeter::kLaunches);
      for (size_t s = 0; s < steps; ++s) {
        wait_for_turn(true);
        EXPECT_TRUE(producer.Add(launches[s]));
        pass_turn(false);
      }
    });
    StepOverlapMeter::Producer producer = meter.TakeProducer(StepOverlapMeter::kKernels);
    for (size_t s = 0; s < steps; ++s) {
      wait_for_turn(false);
      EXPECT_TRUE(producer.Add(kernels[s]));
      pass_turn(true);
    }
    launch_thread.join();
  });
  EXPECT_LE(meter.peak_pending(), 4u);
  EXPECT_EQ(meter.overlap(0), 10);
  EXPECT_EQ(meter.overlap(steps - 1), 10);
  EXPECT_EQ(meter.own_overlap(steps - 1), 10);
}

// Issue 12: a pipelined CPU launches step s while the GPU still runs step s - 1. Against
// every kernel the launches are all covered; against their own step's kernels, none is.
TEST(StepOverlapMeter, PipelinedLaunchesMeetThePreviousStepsKernels) {
  const size_t steps = 50;
  std::vector<Tagged> kernels, launches;
  for (size_t s = 0; s < steps; ++s) {
    int64_t t = static_cast<int64_t>(s) * 100;
    kernels.push_back({s, {t, t + 100}});  // back to back: the GPU never idles
    if (s + 1 < steps) launches.push_back({s + 1, {t + 10, t + 40}});  // during step s
  }
  StepOverlapMeter meter(steps, 4);
  MustFinishWithin(kHangLimit, "pipelined", [&] {
    std::thread launch_thread(
        [&] { Feed(meter.TakeProducer(StepOverlapMeter::kLaunches), launches, 1); });
    Feed(meter.TakeProducer(StepOverlapMeter::kKernels), kernels, 1);
    launch_thread.join();
  });
  for (size_t s = 1; s < steps; ++s) {
    EXPECT_EQ(meter.overlap(s), 30) << s;
    EXPECT_EQ(meter.own_overlap(s), 0) << s;
  }
  ExpectBruteForce(meter, steps, kernels, launches);
}

TEST(StepOverlapMeter, RefusesASideOutOfOrder) {
  StepOverlapMeter meter(2, 16);
  std::vector<Tagged> batch = {{0, {100, 200}}, {1, {50, 60}}};
  EXPECT_FALSE(meter.TakeProducer(StepOverlapMeter::kKernels).Add(batch));
  // The other side is unaffected.
  std::thread([&] {
    EXPECT_TRUE(meter.TakeProducer(StepOverlapMeter::kLaunches).Add(batch[0]));
  }).join();
}

}  // namespace
}  // namespace stepstat
