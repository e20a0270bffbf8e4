#include "analysis/details/details_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace stepstat {

namespace {

constexpr int kSubBits = 8;
constexpr int64_t kSub = int64_t{1} << kSubBits;  // 256
// Exponents kSubBits..62 each get kSub buckets after the kSub exact ones.
constexpr int kBuckets = static_cast<int>(kSub) * (1 + 63 - kSubBits);

}  // namespace

int DurationHistogram::BucketOf(int64_t value) {
  if (value < kSub) return static_cast<int>(value);
  int exponent = 63 - std::countl_zero(static_cast<uint64_t>(value));  // kSubBits..62
  int64_t sub = (value >> (exponent - kSubBits)) - kSub;               // 0..255
  return static_cast<int>(kSub * (exponent - kSubBits + 1) + sub);
}

int64_t DurationHistogram::LowerBoundOf(int bucket) {
  if (bucket < kSub) return bucket;
  int exponent = bucket / static_cast<int>(kSub) - 1 + kSubBits;
  int64_t sub = bucket % kSub;
  return (kSub + sub) << (exponent - kSubBits);
}

void DurationHistogram::Add(int64_t value_ns) {
  value_ns = std::max<int64_t>(value_ns, 0);
  if (counts_.empty()) counts_.assign(kBuckets, 0);
  ++counts_[BucketOf(value_ns)];
  min_ = count_ == 0 ? value_ns : std::min(min_, value_ns);
  max_ = count_ == 0 ? value_ns : std::max(max_, value_ns);
  ++count_;
}

int64_t DurationHistogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  auto rank = static_cast<int64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<int64_t>(rank, 1, count_);
  int64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= rank) return std::clamp(LowerBoundOf(b), min_, max_);
  }
  return max_;
}

std::vector<int64_t> DurationHistogram::Log2Counts() const {
  std::vector<int64_t> out;
  for (int b = 0; b < static_cast<int>(counts_.size()); ++b) {
    if (counts_[b] == 0) continue;
    const auto bin = static_cast<size_t>(std::bit_width(static_cast<uint64_t>(LowerBoundOf(b))));
    if (out.size() <= bin) out.resize(bin + 1, 0);
    out[bin] += counts_[b];
  }
  return out;
}

}  // namespace stepstat
