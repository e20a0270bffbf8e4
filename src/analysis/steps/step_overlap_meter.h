// Measures, for every step at once, |launch union of the step ∩ kernel union of the GPU|
// (every kernel, whichever step it belongs to: what the whole-trace overlap means, so that
// a pipelined CPU launching step N while the GPU runs step N-1 is seen as GPU-bound) and,
// apart, |launch union of the step ∩ kernel union of the step| (the step's own kernels).
// It is fed by two producer threads (the GPU-trace reader and the launch reader) with raw
// intervals tagged by their step, each side in non-decreasing start order (nsys writes GPU
// rows by start and launch rows by API start). It keeps the open union components (one per
// step per side, one for the whole GPU) and only the components one side is ahead of the
// other in time, so memory is bounded by the lag between the two readers and the steps in
// flight, not by the trace.
//
// Each side is fed through the one MeterProducer the meter hands out for it. Why the two
// producers cannot wait for each other: a producer waits only while its side holds too many
// components AND the other producer is neither closed nor waiting itself; a producer that
// starts to wait first wakes the other, which then stops waiting. So at most one producer
// waits at a time, for the other's next Add, Close or an Abort, none of which blocks on it.
// (Both sides may then exceed the bound for a moment; memory is still bounded by the
// batches in flight.) A thread that fed both sides of the meter could wait for itself; that
// stops the process instead. The kernel side's thread may also wait for the launch side to
// pass a time (WaitForLaunchesAfter): it then counts as waiting, so the launch producer does
// not wait, and the same argument holds.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "core/intervals.h"
#include "core/meter_producer.h"
#include "core/mutex.h"

namespace stepstat {

class StepOverlapMeter {
 public:
  enum Side { kKernels = 0, kLaunches = 1 };
  struct Tagged {
    size_t step;  ///< < the meter's step count
    Interval interval;
  };
  using Item = Tagged;
  using Producer = MeterProducer<StepOverlapMeter>;

  /// `max_pending` bounds how many closed components one side may hold ahead of the other.
  StepOverlapMeter(size_t steps, size_t max_pending);
  StepOverlapMeter(const StepOverlapMeter&) = delete;
  StepOverlapMeter& operator=(const StepOverlapMeter&) = delete;

  /// The one producer of `side` (asking twice is a programming error: abort). Its Add
  /// returns false, adding none of the batch from the first one out of order on, when an
  /// interval starts before an earlier one of its side: the input is not sorted and the
  /// caller must measure another way. Add blocks while this side is too far ahead, unless
  /// the meter was aborted. The meter must outlive its producers.
  Producer TakeProducer(Side side) EXCLUDES(mutex_);
  /// Unblocks everything for good: a producer failed and the result will not be used.
  void Abort() EXCLUDES(mutex_);
  /// For the thread that feeds the kernel side, between its Adds (a GPU operation's step may
  /// need the launch calls before it: streamed_key_runs.h): blocks until the launch side has
  /// fed a call that starts after `time`, closed, or the meter was aborted, and returns the
  /// launch side's latest start then (int64 max once closed or aborted). While it waits, the
  /// kernel side counts as waiting, so the launch producer never waits for it: the launch
  /// side's next Add or Close, neither of which then blocks, ends the wait.
  int64_t WaitForLaunchesAfter(int64_t time) EXCLUDES(mutex_);
  /// Whether the producer of `side` is waiting (for tests that force a thread order).
  bool waiting(Side side) const EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return waiting_[side];
  }

  bool aborted() const EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return aborted_;
  }

  /// Final once both sides are closed: the step's launch union ∩ every kernel's union.
  int64_t overlap(size_t step) const EXCLUDES(mutex_);
  /// Final once both sides are closed: the step's launch union ∩ the step's kernel union.
  int64_t own_overlap(size_t step) const EXCLUDES(mutex_);
  int64_t union_length(Side side, size_t step) const EXCLUDES(mutex_);
  /// The most closed components held at once (for tests and benchmarks).
  size_t peak_pending() const EXCLUDES(mutex_);

 private:
  friend Producer;
  bool Add(Side side, std::span<const Tagged> intervals) EXCLUDES(mutex_);
  void Close(Side side) EXCLUDES(mutex_);

  struct Step {
    std::optional<Interval> open[2];
    std::vector<Interval> pending[2];  // closed components not yet measured, from head[side]
    size_t head[2] = {0, 0};
    // Closed launch components not yet measured against the GPU's kernel union, from
    // unmeasured_head.
    std::vector<Interval> unmeasured;
    size_t unmeasured_head = 0;
    int64_t own_overlap = 0;
    int64_t overlap = 0;
    int64_t union_length[2] = {0, 0};
    bool active = false;  // listed in active_
  };
  bool Pending(const Step& s, int side) const { return s.head[side] < s.pending[side].size(); }
  bool Unmeasured(const Step& s) const { return s.unmeasured_head < s.unmeasured.size(); }
  void CloseComponent(Step& s, int side) REQUIRES(mutex_);
  void PopFront(Step& s, int side) REQUIRES(mutex_);
  void Consume(Step& s) REQUIRES(mutex_);
  void AddToGpuUnion(const Interval& kernel) REQUIRES(mutex_);
  // Measures the step's closed launch components that no later kernel can reach.
  void MeasureAgainstGpu(Step& s) REQUIRES(mutex_);
  // Drops the GPU's kernel components that no launch component, held or to come, can meet.
  void DropGpuComponentsBefore(int64_t earliest_launch) REQUIRES(mutex_);
  // Closes the components the side's frontier has passed and measures what became final.
  void SweepLocked(int side) REQUIRES(mutex_);

  mutable Mutex mutex_;
  std::condition_variable progressed_;
  std::vector<Step> steps_ GUARDED_BY(mutex_);
  // Steps with an open, pending or unmeasured component.
  std::vector<size_t> active_ GUARDED_BY(mutex_);
  // The union of every kernel: its open component and its closed ones that a launch
  // component may still meet, in order.
  std::optional<Interval> gpu_open_ GUARDED_BY(mutex_);
  std::deque<Interval> gpu_pending_ GUARDED_BY(mutex_);
  // The latest start fed per side; every later one is >= it.
  int64_t frontier_[2] GUARDED_BY(mutex_);
  MeterSides sides_ GUARDED_BY(mutex_){"StepOverlapMeter"};
  bool closed_[2] GUARDED_BY(mutex_) = {false, false};
  bool waiting_[2] GUARDED_BY(mutex_) = {false, false};
  size_t pending_[2] GUARDED_BY(mutex_) = {0, 0};
  const size_t max_pending_;
  size_t peak_pending_ GUARDED_BY(mutex_) = 0;
  bool aborted_ GUARDED_BY(mutex_) = false;
};

}  // namespace stepstat
