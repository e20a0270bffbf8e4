// A small deterministic PRNG (xoshiro256**, seeded by splitmix64) with integer-only
// distributions: the committed example must come out byte-identical on every platform and
// compiler, so nothing here goes through libm or std::*_distribution (both vary).
#pragma once

#include <cstdint>

namespace stepstat::synth {

class Prng {
 public:
  explicit Prng(uint64_t seed) {
    for (uint64_t& word : state_) {
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      word = z ^ (z >> 31);
    }
  }

  uint64_t Next() {
    uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  /// Uniform in [lo, hi] (inclusive); requires lo <= hi.
  int64_t Uniform(int64_t lo, int64_t hi) {
    uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
    unsigned __int128 product = static_cast<unsigned __int128>(Next()) * range;
    return lo + static_cast<int64_t>(product >> 64);
  }

  /// `center` varied by up to +-spread_permille/1000, bell-shaped (mean of three uniforms).
  int64_t Around(int64_t center, int64_t spread_permille) {
    int64_t sum = Uniform(-spread_permille, spread_permille) +
                  Uniform(-spread_permille, spread_permille) +
                  Uniform(-spread_permille, spread_permille);
    return center + center * sum / 3000;
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

}  // namespace stepstat::synth
