// A small two-way set-associative cache in front of StringPool::Intern. Trace rows repeat a few
// names (kernels, devices) many times; a cheap hash of the length and the first, middle and last 8
// bytes plus one memcmp is much cheaper than hashing a 100-byte kernel name per row.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "stepstat/trace.h"

namespace stepstat {

class NameCache {
 public:
  explicit NameCache(StringPool& pool) : pool_(pool) {}

  NameId Intern(std::string_view text) {
    if (text.empty()) return pool_.Intern(text);
    // Two ways per set: with ~40 names in 256 sets two frequent names often share a set
    // (birthday odds), and a one-way cache would then miss on every alternation.
    Entry* set = &entries_[2 * Set(text)];
    for (int way = 0; way < 2; ++way) {
      const Entry& entry = set[way];
      if (entry.size == text.size() && entry.data != nullptr &&
          SameBytes(entry.data, text.data(), text.size())) {
        return entry.id;
      }
    }
    NameId id = pool_.Intern(text);
    std::string_view stored = pool_.Get(id);  // stable for the pool's lifetime
    set[1] = set[0];                          // the older entry goes
    set[0] = {stored.data(), stored.size(), id};
    return id;
  }

 private:
  static constexpr size_t kSets = 256;
  struct Entry {
    const char* data = nullptr;
    size_t size = 0;
    NameId id = 0;
  };

  // memcmp for equality, inline: names are 10 to 100 bytes, and a library call per name
  // per row (with its size dispatch) cost more than comparing them a word at a time.
  static bool SameBytes(const char* a, const char* b, size_t n) {
    if (n < 8) return std::memcmp(a, b, n) == 0;
    uint64_t x;
    uint64_t y;
    size_t i = 0;
    for (; i + 8 < n; i += 8) {
      std::memcpy(&x, a + i, 8);
      std::memcpy(&y, b + i, 8);
      if (x != y) return false;
    }
    std::memcpy(&x, a + n - 8, 8);  // the last word, overlapping the one before
    std::memcpy(&y, b + n - 8, 8);
    return x == y;
  }

  static size_t Set(std::string_view text) {
    uint64_t head = 0;
    uint64_t tail = 0;
    uint64_t middle = 0;
    if (text.size() >= 8) {
      std::memcpy(&head, text.data(), 8);
      std::memcpy(&tail, text.data() + text.size() - 8, 8);
      std::memcpy(&middle, text.data() + text.size() / 2 - 4, 8);
    } else {
      std::memcpy(&head, text.data(), text.size());
    }
    uint64_t h =
        (head * 0x9E3779B97F4A7C15ull) ^ ((tail ^ middle) + text.size()) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h >> 40) & (kSets - 1);
  }

  StringPool& pool_;
  std::array<Entry, 2 * kSets> entries_{};
};

}  // namespace stepstat
