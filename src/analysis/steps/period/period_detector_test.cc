#include "analysis/steps/period/period_detector.h"

#include <gtest/gtest.h>

#include <random>

namespace stepstat {
namespace {

// A kernel sequence with known step starts. Ids: 0 embed, 1..10 layer kernels,
// 11 loss, 12 optimizer, 20+ warm-up-only kernels, 50 noise.
struct KernelRun {
  std::vector<NameId> names;
  std::vector<int64_t> idle;
  std::vector<uint8_t> host_transfer;
  std::vector<size_t> step_starts;

  void Kernel(NameId id, int64_t idle_before = 100, bool after_host_transfer = false) {
    names.push_back(id);
    idle.push_back(idle_before);
    host_transfer.push_back(after_host_transfer ? 1 : 0);
  }
};

struct Shape {
  int layers = 40;
  bool unique_names = true;  // embed/loss/optimizer once per step
  int64_t step_gap = 50000;  // idle before a step's first kernel
  int64_t kernel_gap = 100;
};

void AddStep(KernelRun& run, const Shape& shape, std::mt19937* noise = nullptr) {
  run.step_starts.push_back(run.names.size());
  bool first = true;
  auto next_gap = [&] {
    int64_t gap = first ? shape.step_gap : shape.kernel_gap;
    first = false;
    return gap;
  };
  if (shape.unique_names) run.Kernel(0, next_gap());
  for (int layer = 0; layer < shape.layers; ++layer) {
    for (NameId k = 1; k <= 10; ++k) {
      if (noise && (*noise)() % 2000 == 0) continue;  // a kernel that did not run
      run.Kernel(k, next_gap());
      if (noise && (*noise)() % 2000 == 0) run.Kernel(50, shape.kernel_gap);  // an extra one
    }
  }
  if (shape.unique_names) {
    run.Kernel(11, shape.kernel_gap);
    run.Kernel(12, shape.kernel_gap);
  }
}

TEST(PeriodDetector, FindsTheStepNotTheLayer) {
  KernelRun run;
  for (int s = 0; s < 20; ++s) AddStep(run, Shape{});
  PeriodDetection d = DetectPeriod(run.names, run.idle);
  ASSERT_TRUE(d.found);
  EXPECT_EQ(d.period, 403u);
  EXPECT_EQ(d.boundaries, run.step_starts);
  EXPECT_DOUBLE_EQ(d.match_rate, 1.0);
}

TEST(PeriodDetector, StepOfIdenticalLayersIsFoundFromIdleGaps) {
  Shape shape;
  shape.unique_names = false;
  KernelRun run;
  for (int s = 0; s < 12; ++s) AddStep(run, shape);
  PeriodDetection d = DetectPeriod(run.names, run.idle);
  ASSERT_TRUE(d.found);
  EXPECT_EQ(d.period, 400u);
  EXPECT_EQ(d.boundaries, run.step_starts);
}

TEST(PeriodDetector, WarmupPrefixBecomesItsOwnStep) {
  KernelRun run;
  // Warm-up: autotuning kernels, then a first step with extra kernels in its middle.
  for (NameId k = 20; k < 27; ++k) run.Kernel(k, 10);
  Shape shape;
  AddStep(run, shape);
  for (int extra = 0; extra < 30; ++extra) run.Kernel(30 + extra % 3, 10);
  size_t warm_steps = run.step_starts.size();
  for (int s = 0; s < 15; ++s) AddStep(run, shape);
  PeriodDetection d = DetectPeriod(run.names, run.idle);
  ASSERT_TRUE(d.found);
  EXPECT_EQ(d.period, 403u);
  // Every steady step starts exactly where it was generated.
  std::vector<size_t> steady(run.step_starts.begin() + static_cast<std::ptrdiff_t>(warm_steps),
                             run.step_starts.end());
  ASSERT_GE(d.boundaries.size(), steady.size());
  std::vector<size_t> tail(d.boundaries.end() - static_cast<std::ptrdiff_t>(steady.size()),
                           d.boundaries.end());
  EXPECT_EQ(tail, steady);
  EXPECT_EQ(d.boundaries.front(), 0u);
  EXPECT_LE(d.steady_start, steady.front());
}

TEST(PeriodDetector, NoiseDoesNotShiftTheCuts) {
  for (unsigned seed : {1u, 2u, 3u, 11u, 12u}) {
    std::mt19937 random(seed);
    KernelRun run;
    for (int s = 0; s < 40; ++s) AddStep(run, Shape{}, &random);
    PeriodDetection d = DetectPeriod(run.names, run.idle);
    ASSERT_TRUE(d.found) << "seed " << seed;
    EXPECT_EQ(d.period, 403u) << "seed " << seed;
    EXPECT_GE(d.match_rate, 0.8);
    EXPECT_EQ(d.boundaries, run.step_starts) << "seed " << seed;
  }
}

TEST(PeriodDetector, NoiseThatDriftsThePhaseStillCutsAtTheGap) {
  // Short steps (52 kernels) and a kernel missing or extra every 250: over the periods
  // that choose the phase, the step's first kernel drifts by a few kernels, out of reach
  // of a fixed phase. The cut must still be the kernel after the step's gap (name 0).
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    std::mt19937 random(seed);
    KernelRun run;
    for (NameId k = 20; k < 20 + seed % 3 * 13; ++k) run.Kernel(k, 10);
    Shape shape;
    shape.layers = 5;
    for (int s = 0; s < 20; ++s) {
      run.step_starts.push_back(run.names.size());
      run.Kernel(0, shape.step_gap);
      for (int layer = 0; layer < shape.layers; ++layer) {
        for (NameId k = 1; k <= 10; ++k) {
          if (random() % 500 == 0) continue;
          run.Kernel(k);
          if (random() % 500 == 0) run.Kernel(50);
        }
      }
      run.Kernel(11);
    }
    PeriodDetection d = DetectPeriod(run.names, run.idle);
    ASSERT_TRUE(d.found) << "seed " << seed;
    EXPECT_EQ(d.period, 52u) << "seed " << seed;
    EXPECT_EQ(d.anchor, 0u) << "seed " << seed;
  }
}

TEST(PeriodDetector, WithoutIdleGapsCutsAtTheRarestName) {
  Shape shape;
  shape.step_gap = 0;
  shape.kernel_gap = 0;
  KernelRun run;
  for (int s = 0; s < 10; ++s) AddStep(run, shape);
  // Start mid-step: the first three kernels are the tail of a step that was cut off.
  KernelRun cut;
  cut.names.assign(run.names.begin() + 400, run.names.end());
  cut.idle.assign(run.idle.begin() + 400, run.idle.end());
  PeriodDetection d = DetectPeriod(cut.names, cut.idle);
  ASSERT_TRUE(d.found);
  EXPECT_EQ(d.period, 403u);
  ASSERT_GE(d.boundaries.size(), 2u);
  EXPECT_EQ(d.boundaries[0], 0u);
  EXPECT_EQ(d.boundaries[1], 3u);  // the first embed (id 0, once per step)
  for (size_t i = 1; i < d.boundaries.size(); ++i) EXPECT_EQ(cut.names[d.boundaries[i]], 0u);
}

// Like the synthetic DiT step: the host syncs between steps (an idle gap with inputs going up
// and results coming back), and inside each step it pauses longer while the GPU resets
// buffers (device-only work), before kernel `pause_at`.
KernelRun RunWithHostPause(int steps, size_t pause_at, int64_t sync_gap, int64_t pause_gap,
                           std::mt19937* jitter = nullptr) {
  KernelRun run;
  auto around = [&](int64_t gap) {
    return jitter ? gap / 2 + static_cast<int64_t>((*jitter)() % static_cast<uint32_t>(gap)) : gap;
  };
  for (int s = 0; s < steps; ++s) {
    run.step_starts.push_back(run.names.size());
    run.Kernel(0, around(sync_gap), /*after_host_transfer=*/true);
    for (size_t k = 1; k < 400; ++k) {
      run.Kernel(static_cast<NameId>(1 + k % 10), k == pause_at ? around(pause_gap) : 100);
    }
    run.Kernel(11);
  }
  return run;
}

TEST(PeriodDetector, HostTransfersMarkTheStepNotALongerDevicePause) {
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937 jitter(seed);
    KernelRun run = RunWithHostPause(30, 30, 2'500'000, 4'000'000, &jitter);
    PeriodDetection d = DetectPeriod(run.names, run.idle, run.host_transfer);
    ASSERT_TRUE(d.found) << "seed " << seed;
    EXPECT_EQ(d.period, 401u);
    EXPECT_EQ(d.boundaries, run.step_starts) << "seed " << seed;
    // Without the transfers the longer pause wins: the evidence is what moves the cut.
    PeriodDetection blind = DetectPeriod(run.names, run.idle);
    ASSERT_TRUE(blind.found);
    ASSERT_GE(blind.boundaries.size(), 2u);
    EXPECT_EQ(blind.boundaries[1], 30u) << "seed " << seed;
  }
}

TEST(PeriodDetector, HostTransfersAtASmallGapDoNotMoveTheCut) {
  // A transfer marks the phase, but its gap is less than half the largest: idle gaps decide.
  KernelRun run = RunWithHostPause(20, 30, 100'000, 4'000'000);
  PeriodDetection d = DetectPeriod(run.names, run.idle, run.host_transfer);
  ASSERT_TRUE(d.found);
  ASSERT_GE(d.boundaries.size(), 2u);
  EXPECT_EQ(d.boundaries[1], 30u);
  for (size_t i = 1; i < d.boundaries.size(); ++i) EXPECT_EQ(d.boundaries[i] % 401, 30u);
}

TEST(PeriodDetector, RandomSequenceHasNoPeriod) {
  std::mt19937 random(3);
  std::vector<NameId> names(20000);
  for (NameId& id : names) id = random() % 200;
  std::vector<int64_t> idle(names.size());
  for (int64_t& gap : idle) gap = random() % 1000;
  EXPECT_FALSE(DetectPeriod(names, idle).found);
}

TEST(PeriodDetector, TooShortOrMismatchedInputIsNotFound) {
  std::vector<NameId> names = {1, 2, 1, 2};
  std::vector<int64_t> idle = {0, 0, 0, 0};
  EXPECT_FALSE(DetectPeriod(names, idle).found);
  std::vector<int64_t> wrong_length = {0};
  std::vector<NameId> longer(100, 1);
  EXPECT_FALSE(DetectPeriod(longer, wrong_length).found);
  std::vector<int64_t> idle_100(100, 0);
  std::vector<uint8_t> transfers_wrong = {1};
  EXPECT_FALSE(DetectPeriod(longer, idle_100, transfers_wrong).found);
}

// Issue 12: one kernel in a loop (hcc_h100nvl_BN: 4501 "steps" of 1 kernel) is no step;
// neither is a kernel and its companion. The reason is said.
TEST(PeriodDetector, PeriodsTooShortForAStepAreRefused) {
  for (size_t unit : {1u, 2u, 3u}) {
    std::vector<NameId> names;
    std::vector<int64_t> idle;
    for (size_t i = 0; i < 600; ++i) {
      names.push_back(static_cast<NameId>(1 + i % unit));
      idle.push_back(i % unit == 0 ? 5000 : 100);
    }
    PeriodDetection d = DetectPeriod(names, idle);
    EXPECT_FALSE(d.found) << unit;
    EXPECT_EQ(d.refused, "the kernel sequence repeats every " + std::to_string(unit) +
                             (unit == 1 ? " kernel" : " kernels") +
                             ", too short for a step (fewer than 4 kernels: one operation in a "
                             "loop)");
  }
  std::vector<NameId> names;
  std::vector<int64_t> idle;
  for (size_t i = 0; i < 600; ++i) {
    names.push_back(static_cast<NameId>(1 + i % 4));
    idle.push_back(i % 4 == 0 ? 5000 : 100);
  }
  PeriodDetection d = DetectPeriod(names, idle);
  EXPECT_TRUE(d.found);
  EXPECT_EQ(d.period, 4u);
}

// A step made of identical halves, with the same idle gap at every half: the half is the
// repeating unit, and twice it is that unit repeated, not a longer step.
TEST(PeriodDetector, AWholeNumberOfAUnitIsThatUnitRepeated) {
  std::vector<NameId> names;
  std::vector<int64_t> idle;
  for (size_t i = 0; i < 4000; ++i) {
    names.push_back(static_cast<NameId>(1 + i % 20));
    idle.push_back(i % 20 == 0 ? 9000 : 100 + static_cast<int64_t>(i % 7));
  }
  PeriodDetection d = DetectPeriod(names, idle);
  ASSERT_TRUE(d.found);
  EXPECT_EQ(d.period, 20u);
}

}  // namespace
}  // namespace stepstat
