#include "core/content_hash.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

namespace stepstat {
namespace {

uint64_t HashOf(std::string_view bytes) {
  ContentHash hash;
  hash.Update(bytes);
  return hash.Value();
}

std::string RandomBytes(size_t size, uint32_t seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(random() & 0xFF);
  return bytes;
}

TEST(ContentHash, DoesNotDependOnHowTheBytesAreSplit) {
  const std::string bytes = RandomBytes(1000, 1);
  const uint64_t whole = HashOf(bytes);
  std::mt19937 random(2);
  for (int trial = 0; trial < 200; ++trial) {
    ContentHash hash;
    size_t at = 0;
    while (at < bytes.size()) {
      const size_t piece = std::min<size_t>(random() % 70, bytes.size() - at);  // 0 included
      hash.Update(std::string_view(bytes).substr(at, piece));
      at += piece;
    }
    EXPECT_EQ(hash.Value(), whole) << "trial " << trial;
  }
}

TEST(ContentHash, EveryFlippedBitAndEveryLengthChangesIt) {
  const std::string bytes = RandomBytes(100, 3);
  std::set<uint64_t> seen{HashOf(bytes)};
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      EXPECT_TRUE(seen.insert(HashOf(flipped)).second) << "byte " << i << " bit " << bit;
    }
  }
  for (size_t zeros = 0; zeros <= 100; ++zeros) {  // runs of zeros differ only in length
    EXPECT_TRUE(seen.insert(HashOf(std::string(zeros, '\0'))).second) << zeros << " zeros";
  }
}

// A ledger recorded on one machine is read on another (CI artifacts, a DGX and a laptop):
// the hash of given bytes must never change with the machine, the compiler or a refactoring.
// These values were computed once by this implementation; a change here orphans every
// ledger's "already recorded" check, so it needs a reason.
TEST(ContentHash, IsTheSameOnEveryMachine) {
  EXPECT_EQ(HashOf(""), 0x385e2446a0b0d829u);
  EXPECT_EQ(HashOf("a"), 0xa21a839751096189u);
  EXPECT_EQ(HashOf(RandomBytes(4099, 4)), 0x218ee858f168d92cu);
}

}  // namespace
}  // namespace stepstat
