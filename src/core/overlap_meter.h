// Measures |A ∩ B| for two unions whose components arrive in order, each side through its
// own MeterProducer (the GPU-trace reader feeds one, the launch reader the other), holding
// only the components that the other side has not caught up with. Memory stays bounded
// when both inputs are sorted by time, whatever their length.
//
// Why two producers cannot wait for each other: a walk goes over both sides as far as it
// can, which empties at least one of them. Every Close walks; an Add walks when its side
// then holds at least half of `max_pending`, when the other producer waits, or when the
// other side is closed (so the producer that is ahead, with time to spare, does the
// walking). A producer waits only while its own side holds `max_pending` components: its
// last Add walked then (its side held more than half), which left the other side empty,
// and the other side has since stayed under half (else its Add walked), so that producer
// does not wait; its next Add sees the waiter and walks, or its Close walks.
// So at most one producer waits at a time, and what it waits for (the other producer's
// next Add, Close, or an Abort) never blocks. A thread that fed both sides of a bounded
// meter could wait for itself; that stops the process instead.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <span>

#include "core/intervals.h"
#include "core/meter_producer.h"
#include "core/mutex.h"

namespace stepstat {

class OverlapMeter {
 public:
  enum Side { kA = 0, kB = 1 };
  using Item = Interval;
  using Producer = MeterProducer<OverlapMeter>;

  /// `max_pending` bounds how far one side may run ahead of the other (in components);
  /// 0 means unbounded, which a single thread feeding both sides needs.
  explicit OverlapMeter(size_t max_pending = 0) : max_pending_(max_pending) {}
  OverlapMeter(const OverlapMeter&) = delete;
  OverlapMeter& operator=(const OverlapMeter&) = delete;

  /// The one producer of `side`; asking twice for a side is a programming error (abort).
  /// The meter must outlive its producers.
  Producer TakeProducer(Side side) EXCLUDES(mutex_);

  /// Unblocks everything for good: a producer failed and the result will not be used.
  /// Later Adds are dropped.
  void Abort() EXCLUDES(mutex_);
  bool aborted() const EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return aborted_;
  }

  /// The intersection length so far; final once both sides are closed.
  int64_t overlap() const EXCLUDES(mutex_);
  /// Whether a producer of `side` is waiting for the other side (for tests that force an
  /// order between the two threads).
  bool waiting(Side side) const EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return waiting_[side];
  }

 private:
  friend Producer;
  // Components of a side arrive in increasing order; false (adding nothing from the first
  // one out of order on) when one starts before the end of the previous one.
  bool Add(Side side, std::span<const Interval> components) EXCLUDES(mutex_);
  void Close(Side side) EXCLUDES(mutex_);
  void ConsumeLocked() REQUIRES(mutex_);

  const size_t max_pending_;
  mutable Mutex mutex_;
  std::condition_variable progressed_;
  std::deque<Interval> pending_[2] GUARDED_BY(mutex_);
  int64_t last_end_[2] GUARDED_BY(mutex_) = {INT64_MIN, INT64_MIN};
  MeterSides sides_ GUARDED_BY(mutex_){"OverlapMeter"};
  bool closed_[2] GUARDED_BY(mutex_) = {false, false};
  bool waiting_[2] GUARDED_BY(mutex_) = {false, false};
  bool aborted_ GUARDED_BY(mutex_) = false;
  int64_t overlap_ GUARDED_BY(mutex_) = 0;
};

}  // namespace stepstat
