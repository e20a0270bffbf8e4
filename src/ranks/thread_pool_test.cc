// RunIndexed: every task once, whatever the thread count (also under TSan: scripts/test-tsan).
#include "ranks/thread_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace stepstat {
namespace {

TEST(RunIndexed, RunsEveryTaskExactlyOnceIntoItsOwnSlot) {
  for (size_t threads : {0, 1, 2, 5, 64}) {
    for (size_t count : {0, 1, 3, 100}) {
      std::vector<int> runs(count, 0);
      RunIndexed(count, threads, [&](size_t i) { runs[i] += 1; });
      EXPECT_EQ(runs, std::vector<int>(count, 1)) << threads << " threads, " << count << " tasks";
    }
  }
}

}  // namespace
}  // namespace stepstat
