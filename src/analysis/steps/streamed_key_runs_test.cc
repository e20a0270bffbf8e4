// The key → step runs built while they are looked up (streamed_key_runs.h): every lookup,
// made while the calls still come, gives what a lookup in the finished runs gives. The
// oracle is StepKeyRuns filled with every call first, as the steps did before.
#include "analysis/steps/streamed_key_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace stepstat {
namespace {

struct Call {
  int64_t api_start, kernel_start;
  int32_t step;
};

// Calls by API start on several streams: a kernel starts after its call by a delay that
// differs per stream (so kernel starts, the keys, come out of order), in runs of steps
// with calls outside every step between them.
std::vector<Call> Calls(unsigned seed, size_t count) {
  std::mt19937 random(seed);
  std::vector<Call> calls;
  int64_t api = 1'000;
  int32_t step = 0;
  for (size_t i = 0; i < count; ++i) {
    api += 1 + static_cast<int64_t>(random() % 50);
    if (random() % 40 == 0) step = random() % 3 == 0 ? kNoStep : step + 1;
    const int64_t delay = 1 + static_cast<int64_t>(random() % 4) * 300 + random() % 20;
    calls.push_back({api, api + delay, step});
  }
  return calls;
}

// Keys to look up: every kernel start, and times between them (a copy's start).
std::vector<int64_t> Lookups(const std::vector<Call>& calls) {
  std::vector<int64_t> keys;
  for (const Call& c : calls) {
    keys.push_back(c.kernel_start);
    keys.push_back(c.kernel_start + 7);
    keys.push_back(c.kernel_start - 3);
  }
  std::sort(keys.begin(), keys.end());  // the GPU side's start order
  return keys;
}

StepKeyRuns Finished(const std::vector<Call>& calls) {
  StepKeyRuns runs;
  for (const Call& c : calls) runs.Add(c.kernel_start, c.step);
  runs.Freeze();
  return runs;
}

// After every prefix of the calls (those started before the next one's API start are in),
// each settled answer is the finished runs' answer, and every key up to the bound whose
// next key is in is settled.
TEST(StepKeyRuns, SettledLookupsGiveTheFinishedRunsAnswer) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const std::vector<Call> calls = Calls(seed, 400);
    StepKeyRuns finished = Finished(calls);
    const std::vector<int64_t> keys = Lookups(calls);
    StepKeyRuns partial;
    size_t settled = 0;
    for (size_t i = 0; i < calls.size(); ++i) {
      partial.Add(calls[i].kernel_start, calls[i].step);
      const int64_t bound =
          i + 1 < calls.size() ? calls[i + 1].api_start - 1 : std::numeric_limits<int64_t>::max();
      for (int64_t key : keys) {
        std::optional<int32_t> step = partial.FindSettled(key, bound);
        if (!step) continue;
        ++settled;
        ASSERT_EQ(*step, finished.Find(key))
            << "seed " << seed << ", key " << key << ", after " << i + 1 << " calls";
      }
    }
    // Once every call is in, every key is settled.
    for (int64_t key : keys) {
      EXPECT_TRUE(partial.FindSettled(key, std::numeric_limits<int64_t>::max()).has_value());
    }
    EXPECT_GT(settled, keys.size() * calls.size() / 4);  // most answers come before the end
  }
}

TEST(StepKeyRuns, AKeyBetweenRunsWaitsForTheNextKey) {
  StepKeyRuns runs;
  runs.Add(10, 0);
  runs.Add(20, 0);
  EXPECT_EQ(runs.FindSettled(15, 25), 0);             // inside the run
  EXPECT_EQ(runs.FindSettled(5, 25), kUnknownKey);    // before every run: none can come
  EXPECT_EQ(runs.FindSettled(25, 30), std::nullopt);  // a key of step 0 may extend it
  EXPECT_EQ(runs.FindSettled(31, 30), std::nullopt);  // above the bound
  runs.Add(40, 1);
  EXPECT_EQ(runs.FindSettled(25, 40), kUnknownKey);   // between runs, both in
  EXPECT_EQ(runs.FindSettled(25, 39), std::nullopt);  // a key below 40 may still come
  EXPECT_EQ(runs.FindSettled(45, std::numeric_limits<int64_t>::max()), kUnknownKey);
}

// Both threads as the steps run them: the launch thread adds each call and feeds the meter
// its interval, the GPU thread looks the keys up in start order and feeds the meter its
// kernels. Tight meter bounds make the two wait for each other in every way.
TEST(StreamedKeyRuns, LookupsOnTwoThreadsGiveTheFinishedRunsAnswer) {
  for (size_t bound : {size_t{1}, size_t{2}, size_t{1} << 16}) {
    for (unsigned seed : {4u, 5u}) {
      SCOPED_TRACE("bound " + std::to_string(bound) + ", seed " + std::to_string(seed));
      const std::vector<Call> calls = Calls(seed, 3'000);
      StepKeyRuns finished = Finished(calls);
      const std::vector<int64_t> keys = Lookups(calls);
      StepOverlapMeter meter(1, bound);
      StreamedKeyRuns runs;
      runs.Attach(&meter);
      std::vector<int32_t> found(keys.size());
      std::thread launches([&] {
        StepOverlapMeter::Producer producer = meter.TakeProducer(StepOverlapMeter::kLaunches);
        std::vector<StepOverlapMeter::Tagged> batch;
        for (size_t i = 0; i < calls.size(); ++i) {
          runs.Add(calls[i].kernel_start, calls[i].step, calls[i].api_start);
          batch.push_back({0, {calls[i].api_start, calls[i].api_start + 1}});
          if (batch.size() == 37 || i + 1 == calls.size()) {
            producer.Add(batch);
            batch.clear();
          }
        }
        producer.Close();
      });
      {
        StepOverlapMeter::Producer producer = meter.TakeProducer(StepOverlapMeter::kKernels);
        std::vector<StepOverlapMeter::Tagged> batch;
        for (size_t i = 0; i < keys.size(); ++i) {
          found[i] = runs.Find(keys[i]);
          batch.push_back({0, {keys[i], keys[i] + 1}});
          if (batch.size() == 53) {
            producer.Add(batch);
            batch.clear();
          }
        }
        producer.Add(batch);
        producer.Close();
      }
      launches.join();
      runs.Freeze();
      EXPECT_TRUE(runs.trustworthy());
      for (size_t i = 0; i < keys.size(); ++i) {
        ASSERT_EQ(found[i], finished.Find(keys[i])) << "key " << keys[i];
        EXPECT_EQ(runs.Find(keys[i]), found[i]);
      }
    }
  }
}

TEST(StreamedKeyRuns, AKernelBeforeItsCallOrARefusedCallIsNotToBeTrusted) {
  StreamedKeyRuns runs;
  runs.Attach(nullptr);
  runs.Add(100, 0, 50);
  EXPECT_TRUE(runs.trustworthy());
  runs.Add(120, 0, 130);  // its kernel starts before the call
  EXPECT_FALSE(runs.trustworthy());
  runs.Attach(nullptr);  // starts over
  EXPECT_TRUE(runs.trustworthy());
  runs.Refuse();
  EXPECT_FALSE(runs.trustworthy());
}

}  // namespace
}  // namespace stepstat
