#include "analysis/details/duration_set.h"

#include <algorithm>
#include <cmath>

namespace stepstat {

int64_t DurationSet::count() const {
  int64_t n = static_cast<int64_t>(buffer_.size());
  for (const auto& run : runs_) n += run.second;
  return n;
}

void DurationSet::Compact() {
  if (buffer_.empty()) return;
  std::sort(buffer_.begin(), buffer_.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  merged.reserve(runs_.size() + buffer_.size());
  auto add = [&merged](int64_t value, int64_t n) {
    if (!merged.empty() && merged.back().first == value) {
      merged.back().second += n;
    } else {
      merged.emplace_back(value, n);
    }
  };
  size_t r = 0;
  for (int64_t value : buffer_) {
    while (r < runs_.size() && runs_[r].first <= value) {
      add(runs_[r].first, runs_[r].second);
      ++r;
    }
    add(value, 1);
  }
  for (; r < runs_.size(); ++r) add(runs_[r].first, runs_[r].second);
  merged.shrink_to_fit();
  runs_ = std::move(merged);
  buffer_.clear();
  // The buffer may grow as large as the runs: compaction stays amortised O(log n) per add
  // while memory stays within a constant factor of the runs.
  limit_ = std::max<size_t>(64, runs_.size());
}

int64_t DurationSet::Min() {
  Compact();
  return runs_.empty() ? 0 : runs_.front().first;
}

double DurationSet::Median() {
  Compact();
  const int64_t n = count();
  if (n == 0) return 0.0;
  // Order statistics (n-1)/2 and n/2 (the same one when n is odd).
  const int64_t lower_rank = (n - 1) / 2, upper_rank = n / 2;
  int64_t seen = 0, lower = 0, upper = 0;
  for (const auto& [value, times] : runs_) {
    if (seen <= lower_rank && lower_rank < seen + times) lower = value;
    if (seen <= upper_rank && upper_rank < seen + times) {
      upper = value;
      break;
    }
    seen += times;
  }
  // Halving each first keeps the sum of two large int64 values from overflowing.
  return static_cast<double>(lower) + (static_cast<double>(upper) - static_cast<double>(lower)) / 2;
}

double DurationSet::SampleStdDev() {
  Compact();
  const int64_t n = count();
  if (n < 2) return 0.0;
  // Two passes over the runs (mean, then squared deviations) in long double: a one-pass
  // sum of squares loses the digits of a small spread around a large mean.
  long double sum = 0;
  for (const auto& [value, times] : runs_) sum += static_cast<long double>(value) * times;
  const long double mean = sum / static_cast<long double>(n);
  long double squares = 0;
  for (const auto& [value, times] : runs_) {
    const long double deviation = static_cast<long double>(value) - mean;
    squares += deviation * deviation * static_cast<long double>(times);
  }
  return static_cast<double>(std::sqrt(squares / static_cast<long double>(n - 1)));
}

}  // namespace stepstat
