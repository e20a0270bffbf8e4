#include "analysis/details/launch_key_matcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include "analysis/details/details_values.h"

namespace stepstat {
namespace {

// Keys from a few starts and durations, so that repeats (graph launches, duplicate rows)
// are common.
std::vector<KernelKey> RandomKeys(std::mt19937& rng, size_t count) {
  std::uniform_int_distribution<int64_t> start(0, 40), duration(1, 3);
  std::vector<KernelKey> keys;
  for (size_t i = 0; i < count; ++i) keys.emplace_back(start(rng), duration(rng));
  return keys;
}

TEST(LaunchKeyMatcher, AnyInterleavingCountsWhatTheSortedMatchCounts) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<KernelKey> kernels = RandomKeys(rng, rng() % 60);
    std::vector<KernelKey> launches = RandomKeys(rng, rng() % 60);
    LaunchKeyMatcher matcher;
    size_t k = 0, l = 0;
    while (k < kernels.size() || l < launches.size()) {  // batches of 0-4, either side first
      size_t take = rng() % 5;
      if (rng() % 2 == 0 && k < kernels.size()) {
        take = std::min(take, kernels.size() - k);
        matcher.AddKernels(std::span(kernels).subspan(k, take));
        k += take;
      } else if (l < launches.size()) {
        take = std::min(take, launches.size() - l);
        matcher.AddLaunches(std::span(launches).subspan(l, take));
        l += take;
      }
    }
    EXPECT_EQ(matcher.unmatched(), CountUnmatchedLaunches(kernels, launches)) << round;
    EXPECT_EQ(matcher.launches(), static_cast<int64_t>(launches.size()));
  }
}

TEST(LaunchKeyMatcher, HoldsOnlyWhatIsInFlight) {
  LaunchKeyMatcher matcher;
  for (int64_t i = 0; i < 100000; ++i) {
    KernelKey key{i * 10, 5};
    matcher.AddLaunches(std::span(&key, 1));
    matcher.AddKernels(std::span(&key, 1));
  }
  EXPECT_EQ(matcher.held(), 0u);
  EXPECT_EQ(matcher.unmatched(), 0);
}

TEST(LaunchKeyMatcher, RowsThatJoinTheirKernelsAreCountedNotKept) {
  LaunchKeyMatcher matcher(/*rows_join_their_kernels=*/true);
  std::vector<KernelKey> keys = {{1, 2}, {3, 4}};
  matcher.AddKernels(keys);
  matcher.AddLaunches(keys);
  matcher.AddLaunches(keys);
  EXPECT_EQ(matcher.launches(), 4);
  EXPECT_EQ(matcher.unmatched(), 0);
  EXPECT_EQ(matcher.held(), 0u);
}

// The two reader threads of a pass, each feeding its side: the same count as one thread.
TEST(LaunchKeyMatcher, TwoThreadsCountWhatOneDoes) {
  std::mt19937 rng(11);
  std::vector<KernelKey> kernels = RandomKeys(rng, 20000);
  std::vector<KernelKey> launches = RandomKeys(rng, 20000);
  LaunchKeyMatcher matcher;
  auto feed = [&matcher](const std::vector<KernelKey>& keys, bool are_kernels) {
    for (size_t i = 0; i < keys.size(); i += 64) {
      auto batch = std::span(keys).subspan(i, std::min<size_t>(64, keys.size() - i));
      are_kernels ? matcher.AddKernels(batch) : matcher.AddLaunches(batch);
    }
  };
  std::thread gpu_side(feed, std::cref(kernels), true);
  std::thread launch_side(feed, std::cref(launches), false);
  gpu_side.join();
  launch_side.join();
  EXPECT_EQ(matcher.unmatched(), CountUnmatchedLaunches(kernels, launches));
}

}  // namespace
}  // namespace stepstat
