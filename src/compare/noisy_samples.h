// Test samples for the diff's tests: n values spread uniformly around a center, seeded so
// every run of a test sees the same ones.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace stepstat {

inline std::vector<double> Noisy(double center, double spread, int n, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> noise(-spread, spread);
  std::vector<double> values;
  for (int i = 0; i < n; ++i) values.push_back(center + noise(random));
  return values;
}

}  // namespace stepstat
