// The progress line's words: units, time left, and what it says when it knows no total.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "stepstat/progress.h"

namespace stepstat {
namespace {

TEST(ProgressBytes, DecimalUnitsWithOneDecimal) {
  EXPECT_EQ(ProgressBytes(0), "0 B");
  EXPECT_EQ(ProgressBytes(999), "999 B");
  EXPECT_EQ(ProgressBytes(1000), "1.0 kB");
  EXPECT_EQ(ProgressBytes(1'234'567), "1.2 MB");
  EXPECT_EQ(ProgressBytes(3'300'000'000), "3.3 GB");
  EXPECT_EQ(ProgressBytes(999'999), "1.0 MB");  // never "1000.0 kB"
  EXPECT_EQ(ProgressBytes(UINT64_MAX), "18.4 EB");
}

TEST(ProgressDuration, WholeSecondsRoundedUp) {
  EXPECT_EQ(ProgressDuration(0), "0 s");
  EXPECT_EQ(ProgressDuration(-1), "0 s");
  EXPECT_EQ(ProgressDuration(0.2), "1 s");  // bytes remain: never "0 s left"
  EXPECT_EQ(ProgressDuration(59), "59 s");
  EXPECT_EQ(ProgressDuration(60), "1 min");
  EXPECT_EQ(ProgressDuration(65), "1 min 5 s");
  EXPECT_EQ(ProgressDuration(7380), "2 h 3 min");
  EXPECT_EQ(ProgressDuration(1e300), "2400 h");  // capped, not overflowed
}

TEST(ProgressLine, BytesOfTotalRateAndTimeLeft) {
  ProgressSnapshot now;
  now.bytes_read = 1'200'000'000;
  now.bytes_total = 3'300'000'000;
  EXPECT_EQ(ProgressLine(now, 1.0), "reading 1.2 GB of 3.3 GB, 1.2 GB/s, 2 s left");
}

TEST(ProgressLine, NoTotalKnownSaysNeitherTotalNorTimeLeft) {
  ProgressSnapshot now;
  now.bytes_read = 5'000'000;
  EXPECT_EQ(ProgressLine(now, 2.0), "reading 5.0 MB, 2.5 MB/s");
}

// Reaching the total is not the end (a later call may plan more): no "X of X, 0 s left".
TEST(ProgressLine, TotalReachedSaysNoTotal) {
  ProgressSnapshot now;
  now.bytes_read = 4000;
  now.bytes_total = 4000;
  EXPECT_EQ(ProgressLine(now, 1.0), "reading 4.0 kB, 4.0 kB/s");
}

TEST(ProgressLine, NothingReadYetHasNoRate) {
  ProgressSnapshot now;
  now.bytes_total = 10'000;
  EXPECT_EQ(ProgressLine(now, 1.5), "reading 0 B of 10.0 kB");
  EXPECT_EQ(ProgressLine(ProgressSnapshot{}, 0.0), "reading 0 B");
}

TEST(ProgressLine, RanksCountTraces) {
  ProgressSnapshot now;
  now.bytes_read = 2000;
  now.bytes_total = 8000;
  now.files_done = 1;
  now.files_total = 4;
  EXPECT_EQ(ProgressLine(now, 1.0), "reading 2.0 kB of 8.0 kB, 2.0 kB/s, 3 s left, 1 of 4 traces");
}

TEST(ProgressMeter, TotalIsThePlanOrTheReadsBegunWhicheverIsLarger) {
  ProgressMeter meter;
  EXPECT_EQ(meter.Snapshot().bytes_total, 0u);
  meter.AddPlanned(1000);
  meter.AddOpened(1000);  // a sniff of the planned file: the plan still stands
  meter.AddRead(10);
  meter.AddUnread(990);
  EXPECT_EQ(meter.Snapshot().bytes_total, 1000u);
  meter.AddOpened(1000);  // the planned pass
  meter.AddRead(1000);
  meter.AddOpened(1000);  // a pass the plan did not foresee
  EXPECT_EQ(meter.Snapshot().bytes_read, 1010u);
  EXPECT_EQ(meter.Snapshot().bytes_total, 2010u);
}

// A sniff opens a whole file and gives back what it did not read: a total once said stays.
TEST(ProgressMeter, TotalNeverGoesBack) {
  ProgressMeter meter;
  meter.AddOpened(1000);
  meter.AddRead(10);
  EXPECT_EQ(meter.Snapshot().bytes_total, 1000u);
  meter.AddUnread(990);
  EXPECT_EQ(meter.Snapshot().bytes_total, 1000u);
  EXPECT_EQ(meter.Snapshot().bytes_read, 10u);
}

// Many writers at once (the ranks pool, two sides of a pair): no add is lost.
TEST(ProgressMeter, ConcurrentAddsAllCount) {
  ProgressMeter meter;
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&meter] {
      for (int i = 0; i < 10000; ++i) {
        meter.AddOpened(3);
        meter.AddRead(3);
      }
      meter.FileDone();
    });
  }
  for (std::thread& writer : writers) writer.join();
  ProgressSnapshot now = meter.Snapshot();
  EXPECT_EQ(now.bytes_read, 120000u);
  EXPECT_EQ(now.bytes_total, 120000u);
  EXPECT_EQ(now.files_done, 4);
  EXPECT_EQ(now.files_total, 4);
}

}  // namespace
}  // namespace stepstat
