#include "readers/name_cache.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace stepstat {
namespace {

// Whatever hits or evicts, the cache hands out the pool's id for the text: many names
// (more than the cache holds, so sets overflow) in random order, long and short.
TEST(NameCacheTest, AlwaysGivesThePoolsIdForTheText) {
  std::vector<std::string> names;
  for (int i = 0; i < 1500; ++i) {
    std::string name = i % 3 == 0 ? "k" : "void kernel<";
    name += std::to_string(i);
    if (i % 3 != 0) name += ">(" + std::string(static_cast<size_t>(i % 200), 'x') + ")";
    names.push_back(name);
  }
  StringPool pool;
  NameCache cache(pool);
  std::mt19937 rng(5);
  for (int i = 0; i < 50000; ++i) {
    const std::string& name = names[rng() % (i < 25000 ? 40 : names.size())];
    NameId id = cache.Intern(name);
    ASSERT_EQ(pool.Get(id), name);
    ASSERT_EQ(id, pool.Intern(name));
  }
  EXPECT_EQ(pool.Get(cache.Intern("")), "");
}

// Rows alternating between names that differ only in their last bytes (a short-row trace's
// "vectorized_elementwise_kernel_200", "..._201"): each name misses once, then always hits.
// The set index once came from hash bits that ignored those bytes, so such names shared one
// set and evicted each other on every row.
TEST(NameCacheTest, NamesDifferingInTheirLastBytesHitAfterTheirFirstRow) {
  for (const std::string stem :
       {"vectorized_elementwise_kernel_", "k", "void gemm<128>(float*) #"}) {
    std::vector<std::string> names;
    for (int i = 0; i < 40; ++i) names.push_back(stem + std::to_string(200 + i));
    StringPool pool;
    NameCache cache(pool);
    for (int round = 0; round < 100; ++round) {
      for (const std::string& name : names) ASSERT_EQ(pool.Get(cache.Intern(name)), name);
    }
    EXPECT_EQ(cache.misses(), 40) << stem;
  }
}

}  // namespace
}  // namespace stepstat
