// Measures, for every step at once, |launch union of the step ∩ kernel union of the step|,
// fed by two producer threads (the GPU-trace reader and the launch reader) with raw
// intervals tagged by their step, each side in non-decreasing start order (nsys writes GPU
// rows by start and launch rows by API start). It keeps each step's open union component
// per side and only the components one side is ahead of the other in time, so memory is
// bounded by the lag between the two readers and the steps in flight, not by the trace.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "core/intervals.h"

namespace stepstat {

class StepOverlapMeter {
 public:
  enum Side { kKernels = 0, kLaunches = 1 };
  struct Tagged {
    size_t step;  ///< < the meter's step count
    Interval interval;
  };

  /// `max_pending` bounds how many closed components one side may hold ahead of the other.
  StepOverlapMeter(size_t steps, size_t max_pending);

  /// Adds the next intervals of one side. Returns false, adding none of the batch from the
  /// first one out of order on, when an interval starts before an earlier one of its side:
  /// the input is not sorted and the caller must measure another way. Blocks while this side
  /// is too far ahead, unless the meter was aborted.
  bool Add(Side side, std::span<const Tagged> intervals);
  /// No more intervals on this side.
  void Close(Side side);
  /// Unblocks everything for good: a producer failed and the result will not be used.
  void Abort();

  bool aborted() const {
    std::lock_guard lock(mutex_);
    return aborted_;
  }

  /// Final once both sides are closed.
  int64_t overlap(size_t step) const;
  int64_t union_length(Side side, size_t step) const;
  /// The most closed components held at once (for tests and benchmarks).
  size_t peak_pending() const;

 private:
  struct Step {
    std::optional<Interval> open[2];
    std::vector<Interval> pending[2];  // closed components not yet measured, from head[side]
    size_t head[2] = {0, 0};
    int64_t overlap = 0;
    int64_t union_length[2] = {0, 0};
    bool active = false;  // listed in active_
  };
  bool Pending(const Step& s, int side) const { return s.head[side] < s.pending[side].size(); }
  void CloseComponent(Step& s, int side);
  void PopFront(Step& s, int side);
  void Consume(Step& s);
  // Closes the components the side's frontier has passed and measures what became final.
  void SweepLocked(int side);

  mutable std::mutex mutex_;
  std::condition_variable progressed_;
  std::vector<Step> steps_;
  std::vector<size_t> active_;  // steps with an open or pending component
  int64_t frontier_[2];         // the latest start fed per side; every later one is >= it
  bool closed_[2] = {false, false};
  bool waiting_[2] = {false, false};
  size_t pending_[2] = {0, 0};
  size_t max_pending_;
  size_t peak_pending_ = 0;
  bool aborted_ = false;
};

}  // namespace stepstat
