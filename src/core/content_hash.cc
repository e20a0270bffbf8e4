#include "core/content_hash.h"

#include <algorithm>
#include <cstring>

namespace stepstat {
namespace {

// Odd 64-bit constants with well-spread bits (the fractional parts of irrational numbers).
constexpr uint64_t kPrime1 = 0x9E3779B97F4A7C15ull;  // golden ratio
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;

constexpr uint64_t RotateLeft(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

// Little-endian on every machine, so that one file hashes the same everywhere; compilers
// turn this into one load on little-endian targets.
uint64_t LoadWord(const unsigned char* p) {
  uint64_t word = 0;
  for (int i = 7; i >= 0; --i) word = (word << 8) | p[i];
  return word;
}

uint64_t MixWord(uint64_t lane, uint64_t word) {
  return RotateLeft(lane + word * kPrime2, 31) * kPrime1;
}

// Spreads every input bit over every output bit.
uint64_t Avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

}  // namespace

ContentHash::ContentHash() : lanes_{kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1} {}

void ContentHash::ConsumeBlock(const unsigned char* block) {
  for (size_t lane = 0; lane < lanes_.size(); ++lane) {
    lanes_[lane] = MixWord(lanes_[lane], LoadWord(block + 8 * lane));
  }
}

void ContentHash::Update(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t size = bytes.size();
  total_bytes_ += size;
  if (pending_size_ > 0) {
    const size_t take = std::min(size, kBlockBytes - pending_size_);
    std::memcpy(pending_.data() + pending_size_, p, take);
    pending_size_ += take;
    p += take;
    size -= take;
    if (pending_size_ < kBlockBytes) return;
    ConsumeBlock(pending_.data());
    pending_size_ = 0;
  }
  for (; size >= kBlockBytes; p += kBlockBytes, size -= kBlockBytes) ConsumeBlock(p);
  std::memcpy(pending_.data(), p, size);
  pending_size_ = size;
}

uint64_t ContentHash::Value() const {
  uint64_t h = RotateLeft(lanes_[0], 1) + RotateLeft(lanes_[1], 7) + RotateLeft(lanes_[2], 12) +
               RotateLeft(lanes_[3], 18);
  for (uint64_t lane : lanes_) h = (h ^ MixWord(0, lane)) * kPrime1 + kPrime3;
  h += total_bytes_;
  size_t i = 0;
  for (; i + 8 <= pending_size_; i += 8) {
    h = RotateLeft(h ^ MixWord(0, LoadWord(pending_.data() + i)), 27) * kPrime1 + kPrime3;
  }
  for (; i < pending_size_; ++i) h = RotateLeft(h ^ (pending_[i] * kPrime3), 11) * kPrime1;
  return Avalanche(h);
}

}  // namespace stepstat
