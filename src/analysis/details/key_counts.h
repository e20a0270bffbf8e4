// A count per kernel key, in one flat table (open addressing, linear probing): what the
// LaunchKeyMatcher holds for the keys one side has seen and the other not yet. Every kernel
// and every launch row is added and, as its other half arrives, removed again, so a
// node-based map spent a malloc and a free per row (a sixth of `stepstat report`'s CPU on a
// synthetic run, under perf); here an add or a removal touches a slot or a few adjacent ones.
// Removal shifts the following slots back (no tombstones), so a table that stays small stays
// fast however many keys pass through it. Memory: 24 bytes a slot, fewer than 2.7 slots per
// key held at its peak (it doubles at three quarters full; a node-based map took about 64
// bytes a key), never shrinking below that peak.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace stepstat {

class KeyCounts {
 public:
  using Key = std::pair<int64_t, int64_t>;

  static constexpr size_t kNone = SIZE_MAX;

  /// The slot that holds `key` (its count is >= 1), kNone when none does.
  size_t Find(const Key& key) const {
    if (size_ == 0) return kNone;
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.count == 0) return kNone;
      if (slot.key == key) return i;
    }
  }
  /// Adds one to `key`'s count (1 when new).
  void Increment(const Key& key) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.count == 0) {
        slot = {key, 1};
        ++size_;
        return;
      }
      if (slot.key == key) {
        ++slot.count;
        return;
      }
    }
  }
  /// Takes one from the count of the slot Find returned; the key goes at zero (slot numbers
  /// from earlier Finds are invalid after any change).
  void DecrementAt(size_t slot) {
    if (--slots_[slot].count == 0) EraseAt(slot);
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    Key key{0, 0};
    int64_t count = 0;  // 0: empty
  };

  size_t Home(const Key& key) const {
    // Both halves mixed (fmix64 of MurmurHash3): times in whole microseconds or with equal
    // low bits would otherwise crowd a few slots of a power-of-two table. Unsigned: it wraps.
    uint64_t h =
        static_cast<uint64_t>(key.first) * 0x9E3779B97F4A7C15u ^ static_cast<uint64_t>(key.second);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDu;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53u;
    h ^= h >> 33;
    return static_cast<size_t>(h) & mask_;
  }

  // Empties slot `hole`, moving back each following slot of the run that may not sit past
  // the hole (its home is not in (hole, slot] cyclically), so every held key stays reachable
  // from its home without crossing an empty slot.
  void EraseAt(size_t hole) {
    for (size_t i = (hole + 1) & mask_; slots_[i].count != 0; i = (i + 1) & mask_) {
      const size_t home = Home(slots_[i].key);
      const bool stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
      if (!stays) {
        slots_[hole] = slots_[i];
        hole = i;
      }
    }
    slots_[hole] = Slot{};
    --size_;
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (const Slot& slot : old) {
      if (slot.count == 0) continue;
      size_t i = Home(slot.key);
      while (slots_[i].count != 0) i = (i + 1) & mask_;
      slots_[i] = slot;
      ++size_;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace stepstat
