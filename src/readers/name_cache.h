// A two-way set-associative cache in front of StringPool::Intern. Trace rows repeat a few
// names (kernels, devices) many times; a cheap hash of the length and five words of the name
// plus one compare is much cheaper than hashing a 100-byte kernel name per row.
#pragma once

#include <array>
#include <bit>
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
    // Two ways per set: two frequent names often share a set (birthday odds), and a one-way
    // cache would then miss on every alternation.
    Entry* set = &entries_[2 * Set(text)];
    for (int way = 0; way < 2; ++way) {
      const Entry& entry = set[way];
      if (entry.size == text.size() && entry.data != nullptr &&
          SameBytes(entry.data, text.data(), text.size())) {
        return entry.id;
      }
    }
    ++misses_;
    NameId id = pool_.Intern(text);
    std::string_view stored = pool_.Get(id);  // stable for the pool's lifetime
    set[1] = set[0];                          // the older entry goes
    set[0] = {stored.data(), stored.size(), id};
    return id;
  }

  /// Lookups that went to the pool: at least one per distinct name.
  int64_t misses() const { return misses_; }

 private:
  // 1024 sets of two: a trace's few dozen frequent names rarely put three in one set
  // (which would make them evict each other on every row).
  static constexpr int kSetBits = 10;
  static constexpr size_t kSets = size_t{1} << kSetBits;
  struct Entry {
    const char* data = nullptr;
    size_t size = 0;
    NameId id = 0;
  };

  // Equality a word at a time, inline: for names of 8 to 96 bytes a library call per name
  // per row (with its size dispatch) cost more. Longer ones (templated kernel names run to
  // 300 bytes) go to memcmp, whose vector loop then wins (14 % of a GPU-trace read).
  static bool SameBytes(const char* a, const char* b, size_t n) {
    if (n < 8 || n > 96) return std::memcmp(a, b, n) == 0;
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

  // Five words of the name (its ends, quarters and middle) and its length: long kernel
  // names of one template often agree on their ends and middle, so three samples put such
  // names in one set (rows then alternate between them and every lookup missed).
  static size_t Set(std::string_view text) {
    const size_t n = text.size();
    uint64_t head = 0;
    uint64_t tail = 0;
    uint64_t middle = 0;
    uint64_t quarters = 0;
    if (n >= 8) {
      uint64_t q1;
      uint64_t q3;
      std::memcpy(&head, text.data(), 8);
      std::memcpy(&tail, text.data() + n - 8, 8);
      std::memcpy(&middle, text.data() + n / 2 - 4, 8);
      std::memcpy(&q1, text.data() + (n - 8) / 4, 8);
      std::memcpy(&q3, text.data() + (n - 8) * 3 / 4, 8);
      quarters = q1 + std::rotl(q3, 31);
    } else {
      std::memcpy(&head, text.data(), n);
    }
    const uint64_t h = (head * 0x9E3779B97F4A7C15ull) ^
                       ((tail ^ middle) + n) * 0xC2B2AE3D27D4EB4Full ^
                       quarters * 0x165667B19E3779F9ull;
    // The top bits: a product's bit k depends only on its factors' bits 0..k, so lower bits
    // ignore the words' last bytes (names "..._kernel_200" and "..._kernel_201" shared a set).
    return static_cast<size_t>(h >> (64 - kSetBits));
  }

  StringPool& pool_;
  int64_t misses_ = 0;
  std::array<Entry, 2 * kSets> entries_{};
};

}  // namespace stepstat
