// The exact durations of one kernel name, for `classify`'s median and minimum, in memory
// that grows with the name's distinct durations rather than its launches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace stepstat {

/// Durations are appended to a buffer; when the buffer outgrows the compacted part it is
/// sorted and merged into (duration, count) runs. GPU timers tick coarsely and one kernel's
/// launches repeat durations: on the real H100 traces a name has 3-9x fewer distinct
/// durations than launches. Worst case (all distinct) is 16 bytes per launch plus a buffer
/// no larger than the runs: a per-name vector would be 8, a fixed-bucket histogram would
/// not be exact, and nsys's own kern_sum median is exact.
class DurationSet {
 public:
  void Add(int64_t duration_ns) {
    buffer_.push_back(duration_ns);
    if (buffer_.size() >= limit_) Compact();
  }
  int64_t count() const;
  /// The smallest duration; 0 when empty. Compacts first.
  int64_t Min();
  /// The median as nsys prints it: the middle value, or the mean of the two middle ones for
  /// an even count (so it may end in .5). 0 when empty. Compacts first.
  double Median();
  /// The sample standard deviation (n - 1 in the denominator), as nsys's cuda_gpu_kern_sum
  /// prints StdDev: 0 for fewer than two durations. Compacts first.
  double SampleStdDev();
  /// Every duration as (duration, times) runs, shortest first; leaves the set empty.
  std::vector<std::pair<int64_t, int64_t>> TakeRuns() {
    Compact();
    return std::move(runs_);
  }

 private:
  void Compact();
  std::vector<std::pair<int64_t, int64_t>> runs_;  ///< (duration, count), by duration
  std::vector<int64_t> buffer_;
  size_t limit_ = 64;
};

}  // namespace stepstat
