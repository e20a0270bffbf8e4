// Measures |A ∩ B| for two unions whose components arrive in order from two producer
// threads (the GPU-trace reader and the kernel-exec reader), holding only the components
// that the other side has not caught up with. Memory stays bounded when both inputs are
// sorted by time, whatever their length.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>

#include "core/intervals.h"

namespace stepstat {

class OverlapMeter {
 public:
  enum Side { kA = 0, kB = 1 };

  /// `max_pending` bounds how far one side may run ahead of the other (in components);
  /// 0 means unbounded, which a single thread feeding both sides needs.
  explicit OverlapMeter(size_t max_pending = 0) : max_pending_(max_pending) {}

  /// Adds the next component of one side (components of a side arrive in increasing order).
  /// Blocks while that side is too far ahead, unless the meter was aborted.
  void Add(Side side, const Interval& component) { Add(side, std::span(&component, 1)); }
  /// Adds the next components of one side at once: one lock for the batch.
  void Add(Side side, std::span<const Interval> components);
  /// No more components on this side.
  void Close(Side side);
  /// Unblocks everything for good: a producer failed and the result will not be used.
  void Abort();

  bool aborted() const {
    std::lock_guard lock(mutex_);
    return aborted_;
  }

  /// The intersection length so far; final once both sides are closed.
  int64_t overlap() const;

 private:
  void ConsumeLocked();

  size_t max_pending_;
  mutable std::mutex mutex_;
  std::condition_variable progressed_;
  std::deque<Interval> pending_[2];
  bool closed_[2] = {false, false};
  bool aborted_ = false;
  int64_t overlap_ = 0;
};

}  // namespace stepstat
