// The bounded-memory path must cut exactly as the detector does on the whole sequence: a
// small prefix, then the streaming cutter, against DetectPeriod over everything.
#include "analysis/steps/period/period_stream.h"

#include <gtest/gtest.h>

#include <random>

#include "analysis/steps/period/period_cutter.h"
#include "analysis/steps/period/period_detector.h"
#include "analysis/steps/period/steps_period.h"

namespace stepstat {
namespace {

struct Sequence {
  std::vector<NameId> names;
  std::vector<int64_t> idle;
  std::vector<uint8_t> host_transfer;
  std::vector<int64_t> starts;

  void Kernel(NameId id, int64_t idle_before, bool transfer = false) {
    int64_t start = starts.empty() ? 0 : starts.back() + 1'000 + idle_before;
    names.push_back(id);
    idle.push_back(idle_before);
    host_transfer.push_back(transfer ? 1 : 0);
    starts.push_back(start);
  }
};

// `steps` steps of `layers` x 10 kernels framed by names 0 (first) and 11 (last), a warm-up
// of `warmup` distinct kernels, `tail` kernels of a cut-off last step; with `noise`, kernels
// go missing or extra ones appear now and then (the cuts must re-synchronise).
Sequence MakeRun(int steps, int layers, size_t warmup, size_t tail, std::mt19937* noise) {
  Sequence s;
  for (size_t w = 0; w < warmup; ++w) s.Kernel(static_cast<NameId>(20 + w % 7), 10);
  for (int step = 0; step < steps; ++step) {
    s.Kernel(0, 50'000, true);
    for (int layer = 0; layer < layers; ++layer) {
      for (NameId k = 1; k <= 10; ++k) {
        if (noise && (*noise)() % 500 == 0) continue;
        s.Kernel(k, 100);
        if (noise && (*noise)() % 500 == 0) s.Kernel(50, 100);
      }
    }
    s.Kernel(11, 100);
  }
  s.Kernel(0, 50'000, true);
  for (size_t t = 1; t < tail; ++t) s.Kernel(static_cast<NameId>(1 + t % 10), 100);
  return s;
}

DetectedSteps Streamed(const Sequence& s, size_t prefix) {
  StreamingPeriodDetector detector(prefix);
  for (size_t i = 0; i < s.names.size(); ++i) {
    detector.Add(s.names[i], s.starts[i], s.idle[i], s.host_transfer[i] != 0);
  }
  return detector.Finish();
}

// The detector on a `prefix`, then (as DetectStepsByPeriod does) again on everything if
// the rest contradicted it: the same steps as DetectPeriod on the whole sequence.
// `detected_on`: the kernels the detector held (the prefix it accepted, or all of them).
void ExpectSameAsWhole(const Sequence& s, size_t prefix, size_t detected_on,
                       bool contradicted = false) {
  PeriodDetection whole = DetectPeriod(s.names, s.idle, s.host_transfer);
  ASSERT_TRUE(whole.found);
  DetectedSteps streamed = Streamed(s, prefix);
  EXPECT_EQ(streamed.needs_whole_sequence, contradicted);
  if (streamed.needs_whole_sequence) {
    EXPECT_FALSE(streamed.found);
    streamed = Streamed(s, SIZE_MAX);
  }
  ASSERT_TRUE(streamed.found);
  EXPECT_EQ(streamed.period, whole.period);
  EXPECT_EQ(streamed.kernel_count, s.names.size());
  EXPECT_EQ(streamed.first_kernels, whole.boundaries);
  ASSERT_EQ(streamed.starts_ns.size(), streamed.first_kernels.size());
  for (size_t i = 0; i < streamed.first_kernels.size(); ++i) {
    EXPECT_EQ(streamed.starts_ns[i], s.starts[streamed.first_kernels[i]]) << i;
  }
  EXPECT_EQ(streamed.detected_on, detected_on);
}

TEST(StreamingCutter, SameCutsAsTheWholeSequenceWalkUnderHeavyNoise) {
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    SCOPED_TRACE(seed);
    std::mt19937 noise(seed);
    Sequence s = MakeRun(400, 5, seed % 3 * 40, seed * 7 % 52, &noise);
    size_t first = seed % 3 * 40;  // the first step's embedding, name 0
    ASSERT_EQ(s.names[first], 0u);
    std::vector<size_t> walked = WalkForward(s.names, 52, 0, first);
    ASSERT_GT(walked.size(), 300u);
    StreamingCutter cutter(52, 0, first);
    for (size_t i = first + 1; i < s.names.size(); ++i) cutter.Add(s.names[i], s.starts[i]);
    cutter.Finish();
    std::vector<size_t> streamed;
    for (const StreamingCutter::Cut& cut : cutter.cuts()) {
      streamed.push_back(cut.index);
      EXPECT_EQ(cut.start_ns, s.starts[cut.index]);
    }
    EXPECT_EQ(streamed, walked);
  }
}

TEST(StreamingPeriodDetector, SameStepsAsTheWholeSequenceOnLongRuns) {
  for (size_t warmup : {0u, 37u, 400u}) {
    for (size_t tail : {0u, 2u, 30u}) {
      SCOPED_TRACE(testing::Message() << "warmup " << warmup << " tail " << tail);
      Sequence s = MakeRun(300, 5, warmup, tail, nullptr);
      ExpectSameAsWhole(s, 1024, 1024);
    }
  }
}

TEST(StreamingPeriodDetector, SameStepsAsTheWholeSequenceOnNoisyRuns) {
  // Light noise, where the whole-sequence walk back through the warm-up stays in step.
  for (unsigned seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(seed);
    std::mt19937 noise(seed);
    Sequence s = MakeRun(300, 5, 0, 10, &noise);
    ExpectSameAsWhole(s, 2048, 2048);
  }
}

TEST(StreamingPeriodDetector, SameStepsWhateverThePrefixEndCutsThrough) {
  Sequence s = MakeRun(200, 4, 30, 20, nullptr);
  // The prefix ends at every offset within a step: the cuts near it are redone, not kept.
  for (size_t prefix = 700; prefix < 760; ++prefix) {
    SCOPED_TRACE(prefix);
    ExpectSameAsWhole(s, prefix, prefix);
  }
}

// Periods under kMinStepKernels are refused (issue 12), streamed as whole, with the reason;
// the shortest period accepted streams as the whole sequence does.
TEST(StreamingPeriodDetector, TinyPeriodsAreRefusedStreamedAsWhole) {
  for (size_t period : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(period);
    Sequence s;
    for (int i = 0; i < 5000; ++i) {
      s.Kernel(static_cast<NameId>(i % period), i % period == 0 ? 5'000 : 100);
    }
    if (period >= kMinStepKernels) {
      ExpectSameAsWhole(s, 256, 256);
      continue;
    }
    PeriodDetection whole = DetectPeriod(s.names, s.idle, s.host_transfer);
    DetectedSteps streamed = Streamed(s, 256);
    EXPECT_FALSE(whole.found);
    EXPECT_FALSE(streamed.found);
    EXPECT_FALSE(whole.refused.empty());
    EXPECT_EQ(streamed.refused, whole.refused);
  }
}

TEST(StreamingPeriodDetector, APrefixWithTooFewPeriodsGrows) {
  // Steps of 52 kernels: a prefix of 64 sees only the layer's period (10) 6 times, one of
  // 256 sees 52 but under 8 times; 1024 is enough. A shorter run is detected whole.
  Sequence s = MakeRun(30, 5, 0, 0, nullptr);
  ExpectSameAsWhole(s, 64, 1024);
  Sequence shorter = MakeRun(19, 5, 0, 0, nullptr);
  ASSERT_LT(shorter.names.size(), 1024u);
  ExpectSameAsWhole(shorter, 64, shorter.names.size());
}

TEST(StreamingPeriodDetector, AStepLongerThanThePrefixIsDetectedOnTheWholeRun) {
  // A prefix of 256 kernels sees the layer (10 kernels) of 402-kernel steps; the step's own
  // names (0, 11) then recur every 402 kernels, not a whole number of layers.
  Sequence s = MakeRun(4, 40, 0, 0, nullptr);
  ExpectSameAsWhole(s, 256, s.names.size(), /*contradicted=*/true);
  // A name the prefix saw once that recurs every 30 whole periods (a checkpoint kernel in
  // place of another one) is consistent with the period.
  Sequence checkpoints;
  for (int step = 0; step < 400; ++step) {
    checkpoints.Kernel(0, 50'000, true);
    for (NameId k = 1; k <= 10; ++k) checkpoints.Kernel(k == 5 && step % 30 == 7 ? 99 : k, 100);
  }
  DetectedSteps d = Streamed(checkpoints, 512);
  EXPECT_FALSE(d.needs_whole_sequence);
  EXPECT_TRUE(d.found);
  EXPECT_EQ(d.detected_on, 512u);
}

TEST(StreamingPeriodDetector, NoPeriodIsNotFound) {
  std::mt19937 random(3);
  StreamingPeriodDetector detector(512);
  for (int i = 0; i < 20000; ++i) {
    detector.Add(static_cast<NameId>(random() % 200), i, static_cast<int64_t>(random() % 1000),
                 false);
  }
  DetectedSteps d = detector.Finish();
  EXPECT_FALSE(d.found);
  EXPECT_EQ(d.kernel_count, 20000u);
}

TEST(StreamingCutter, FinishDropsCutsTooCloseToTheEnd) {
  // Period 100, anchor 7 every 100 kernels from index 0; the trace ends 3 kernels into a
  // step: a step is at least period / 20 = 5 kernels, so that last cut is noise.
  StreamingCutter cutter(100, 7, 0);
  for (size_t i = 1; i < 503; ++i) cutter.Add(i % 100 == 0 ? 7 : 1, static_cast<int64_t>(i));
  cutter.Finish();
  std::vector<size_t> cuts;
  for (const StreamingCutter::Cut& c : cutter.cuts()) cuts.push_back(c.index);
  EXPECT_EQ(cuts, (std::vector<size_t>{100, 200, 300, 400}));
  EXPECT_EQ(cutter.kernel_count(), 503u);
}

// Kernels of `steps` periods of 10 names; the long idle gap sits before kernel `phase` of
// each period, so the steps are cut there.
Status FeedPeriods(TraceSink& sink, int steps, int phase) {
  StringPool pool;
  std::vector<NameId> names;
  for (char k = '0'; k <= '9'; ++k) names.push_back(pool.Intern(std::string{'k', k}));
  std::vector<GpuOp> ops;
  int64_t t = 0;
  for (int i = 0; i < 10 * steps; ++i) {
    t += i % 10 == phase ? 50'000 : 100;
    GpuOp op;
    op.start_ns = t;
    op.duration_ns = 1'000;
    op.name = names[static_cast<size_t>(i % 10)];
    t += op.duration_ns;
    ops.push_back(op);
  }
  return sink.OnGpuOps(ops, pool);
}

// Issue 12: a period must repeat at least three times whole; a sequence holding three
// periods cut off-phase holds two whole steps and two partial ones.
TEST(DetectStepsByPeriod, FewerThanThreeWholeStepsAreRefused) {
  Result<DetectedSteps> off_phase =
      DetectStepsByPeriod([](TraceSink& sink) { return FeedPeriods(sink, 3, 5); });
  ASSERT_TRUE(off_phase.ok());
  EXPECT_FALSE(off_phase->found);
  EXPECT_EQ(off_phase->refused,
            "the kernel sequence's period of 10 kernels holds only 2 whole steps (3 needed to "
            "tell a step from a coincidence)");
  Result<DetectedSteps> more =
      DetectStepsByPeriod([](TraceSink& sink) { return FeedPeriods(sink, 5, 5); });
  ASSERT_TRUE(more.ok());
  EXPECT_TRUE(more->found);
  EXPECT_EQ(more->period, 10u);
}

}  // namespace
}  // namespace stepstat
