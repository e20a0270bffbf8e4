#include "core/overlap_meter.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "deadline.h"

namespace stepstat {
namespace {

using Producer = OverlapMeter::Producer;

std::vector<Interval> Components(uint64_t seed, int n) {
  std::vector<Interval> v;
  int64_t t = 0;
  for (int i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    t += 1 + static_cast<int64_t>((seed >> 40) % 50);
    int64_t len = static_cast<int64_t>((seed >> 20) % 70);
    v.push_back({t, t + len});
    t += len;
  }
  return v;
}

// Adds `all` in batches of `batch` (0: one empty Add between every two real ones), then
// closes.
void Feed(Producer& producer, const std::vector<Interval>& all, size_t batch) {
  std::span<const Interval> rest(all);
  while (!rest.empty()) {
    size_t n = std::min(rest.size(), batch == 0 ? size_t{1} : batch);
    ASSERT_TRUE(producer.Add(rest.first(n)));
    if (batch == 0) {
      ASSERT_TRUE(producer.Add(std::span<const Interval>()));
    }
    rest = rest.subspan(n);
  }
  producer.Close();
}

TEST(OverlapMeter, EqualsIntersectionLengthWithTwoProducerThreads) {
  auto a = Components(1, 20000);
  auto b = Components(2, 15000);
  for (size_t max_pending : {1, 2, 64}) {
    for (size_t batch : {0, 1, 7, 1024, 100000}) {
      OverlapMeter meter(max_pending);
      Producer pa = meter.TakeProducer(OverlapMeter::kA);
      Producer pb = meter.TakeProducer(OverlapMeter::kB);
      MustFinishWithin(kHangLimit, "two producers", [&] {
        std::thread ta([&] { Feed(pa, a, batch); });
        std::thread tb([&] { Feed(pb, b, batch); });
        ta.join();
        tb.join();
      });
      EXPECT_EQ(meter.overlap(), IntersectionLength(a, b)) << max_pending << " " << batch;
    }
  }
}

// The shape that hung `summarize` (issue 11): one side delivers everything before the
// other delivers anything, in either order, the first held until it waits.
TEST(OverlapMeter, OneSideFirstUntilItWaitsThenTheOther) {
  auto a = Components(5, 3000);
  auto b = Components(6, 40);
  for (int first : {OverlapMeter::kA, OverlapMeter::kB}) {
    for (int repeat = 0; repeat < 50; ++repeat) {
      OverlapMeter meter(/*max_pending=*/4);
      Producer pa = meter.TakeProducer(OverlapMeter::kA);
      Producer pb = meter.TakeProducer(OverlapMeter::kB);
      auto& early = first == OverlapMeter::kA ? pa : pb;
      auto& late = first == OverlapMeter::kA ? pb : pa;
      const auto& early_data = first == OverlapMeter::kA ? a : b;
      const auto& late_data = first == OverlapMeter::kA ? b : a;
      MustFinishWithin(kHangLimit, "one side first", [&] {
        std::thread t1([&] { Feed(early, early_data, 8); });
        // The early side holds 8 > 4 pending: its second Add waits for the other side.
        ASSERT_TRUE(
            EventuallyTrue([&] { return meter.waiting(static_cast<OverlapMeter::Side>(first)); }));
        std::thread t2([&] {
          // Empty batches first: they must not block, though the other side is full.
          ASSERT_TRUE(late.Add(std::span<const Interval>()));
          Feed(late, late_data, repeat % 3 == 0 ? 1 : 1024);
        });
        t1.join();
        t2.join();
      });
      ASSERT_EQ(meter.overlap(), IntersectionLength(a, b));
    }
  }
}

TEST(OverlapMeter, AnEmptyAddNeverBlocksEvenOnAFullSide) {
  OverlapMeter meter(/*max_pending=*/2);
  Producer pa = meter.TakeProducer(OverlapMeter::kA);
  std::vector<Interval> three = {{0, 1}, {2, 3}, {4, 5}};
  MustFinishWithin(kHangLimit, "an empty Add on a full side", [&] {
    ASSERT_TRUE(pa.Add(three));  // side A now holds 3 >= 2 and side B has nothing
    ASSERT_TRUE(pa.Add(std::span<const Interval>()));
    pa.Close();
  });
}

TEST(OverlapMeter, SingleThreadUnboundedFeedsOneSideThenTheOther) {
  auto a = Components(3, 5000);
  auto b = Components(4, 5000);
  OverlapMeter meter;
  Producer pa = meter.TakeProducer(OverlapMeter::kA);
  Producer pb = meter.TakeProducer(OverlapMeter::kB);
  Feed(pa, a, 100);
  Feed(pb, b, 100);
  EXPECT_EQ(meter.overlap(), IntersectionLength(a, b));
}

TEST(OverlapMeter, AbortUnblocksAProducerThatRanAhead) {
  OverlapMeter meter(/*max_pending=*/4);
  Producer pa = meter.TakeProducer(OverlapMeter::kA);
  MustFinishWithin(kHangLimit, "abort", [&] {
    std::thread ta([&] {
      for (int i = 0; i < 100; ++i) pa.Add(Interval{i * 10, i * 10 + 5});
    });
    ASSERT_TRUE(EventuallyTrue([&] { return meter.waiting(OverlapMeter::kA); }));
    meter.Abort();
    ta.join();  // would hang without Abort: side B never delivers
  });
  EXPECT_TRUE(meter.aborted());
}

TEST(OverlapMeter, AProducerGoingOutOfScopeClosesItsSide) {
  OverlapMeter meter(/*max_pending=*/2);
  Producer pa = meter.TakeProducer(OverlapMeter::kA);
  std::vector<Interval> a = Components(9, 100);
  MustFinishWithin(kHangLimit, "a destroyed producer", [&] {
    std::thread ta([&] { Feed(pa, a, 1); });
    ASSERT_TRUE(EventuallyTrue([&] { return meter.waiting(OverlapMeter::kA); }));
    { Producer pb = meter.TakeProducer(OverlapMeter::kB); }  // an early return, say
    ta.join();
  });
  EXPECT_EQ(meter.overlap(), 0);
}

TEST(OverlapMeter, ComponentsOutOfOrderAreRefused) {
  OverlapMeter meter;
  Producer pa = meter.TakeProducer(OverlapMeter::kA);
  std::vector<Interval> backwards = {{10, 20}, {5, 8}};
  EXPECT_FALSE(pa.Add(backwards));
}

using OverlapMeterDeathTest = ::testing::Test;

TEST_F(OverlapMeterDeathTest, ASideHandedOutTwiceStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        OverlapMeter meter;
        Producer first = meter.TakeProducer(OverlapMeter::kA);
        Producer second = meter.TakeProducer(OverlapMeter::kA);
      },
      "handed out twice");
}

TEST_F(OverlapMeterDeathTest, AProducerUsedFromTwoThreadsStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        OverlapMeter meter;
        Producer pa = meter.TakeProducer(OverlapMeter::kA);
        pa.Add(Interval{0, 1});
        std::thread([&] { pa.Add(Interval{2, 3}); }).join();
      },
      "used from two threads");
}

TEST_F(OverlapMeterDeathTest, OneThreadFeedingBothSidesOfABoundedMeterStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        OverlapMeter meter(/*max_pending=*/4);
        Producer pa = meter.TakeProducer(OverlapMeter::kA);
        Producer pb = meter.TakeProducer(OverlapMeter::kB);
        pa.Add(Interval{0, 1});
        pb.Add(Interval{0, 1});
      },
      "feeds both sides");
}

}  // namespace
}  // namespace stepstat
