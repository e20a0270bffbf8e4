#include "analysis/details/key_counts.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace stepstat {
namespace {

// Random adds and removals against std::map, over few distinct keys (long probe runs,
// removals in the middle of runs, growth) and keys whose low bits are all equal (times in
// whole microseconds): every count the same, every removed key gone.
TEST(KeyCounts, AgreesWithAMapOverAddsAndRemovals) {
  std::mt19937_64 rng(11);
  for (const int64_t scale : {int64_t{1}, int64_t{1000}, int64_t{1} << 32}) {
    KeyCounts table;
    std::map<KeyCounts::Key, int64_t> model;
    std::uniform_int_distribution<int64_t> start(0, 3000), duration(1, 4);
    for (int step = 0; step < 200'000; ++step) {
      const KeyCounts::Key key{start(rng) * scale, duration(rng) * scale};
      const size_t slot = table.Find(key);
      const auto it = model.find(key);
      ASSERT_EQ(slot != KeyCounts::kNone, it != model.end()) << step;
      if (it != model.end() && rng() % 2 == 0) {
        table.DecrementAt(slot);
        if (--it->second == 0) model.erase(it);
      } else {
        table.Increment(key);
        ++model[key];
      }
      ASSERT_EQ(table.size(), model.size()) << step;
    }
    for (auto& [key, count] : model) {  // empty it through the table alone
      for (int64_t i = 0; i < count; ++i) {
        const size_t slot = table.Find(key);
        ASSERT_NE(slot, KeyCounts::kNone);
        table.DecrementAt(slot);
      }
      EXPECT_EQ(table.Find(key), KeyCounts::kNone);
    }
    EXPECT_EQ(table.size(), 0u);
  }
}

}  // namespace
}  // namespace stepstat
