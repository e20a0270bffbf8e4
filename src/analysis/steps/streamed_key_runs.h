// The key → step runs (steps_attribution.h) built while they are used: the launch thread of
// the steps' streamed accumulation adds each call's key as it reads the call, and the GPU
// thread looks each operation's key up as it reads the operation, instead of a pass over
// every launch call first. It holds for launch sources whose key is the kernel's start time
// (a kern-exec CSV): a kernel starts no earlier than the call that launched it, and calls come
// by API start, so once the launch side has passed time t every key up to t is in, and every
// key still to come lies after t. A lookup waits (StepOverlapMeter::WaitForLaunchesAfter) until
// the runs around its key are settled (StepKeyRuns::FindSettled): its answer is then the one
// a lookup in the finished runs gives. A call whose kernel starts before it breaks that rule:
// the runs say so (trustworthy()), and the steps read the calls in a pass of their own first.
//
// Threads: the launch thread calls Add, the GPU thread Find; one mutex guards the runs, held
// for one Add or one settled-lookup and never while waiting (a lookup waits in the meter
// alone, whose opening comment says why that wait cannot close a cycle). Attach, Freeze and
// the rest run on the calling thread before the two threads start or after they joined.
#pragma once

#include <cstdint>

#include "analysis/steps/step_overlap_meter.h"
#include "analysis/steps/steps_attribution.h"
#include "core/mutex.h"

namespace stepstat {

class StreamedKeyRuns {
 public:
  /// Lookups wait on `meter` until Freeze (null: they do not wait, every key being in).
  /// Starts over: a streamed read that was given up leaves nothing behind.
  void Attach(StepOverlapMeter* meter) EXCLUDES(mutex_);
  /// The launch thread: `key` (the kernel's start) of a call that started at `api_start`.
  void Add(int64_t key, int32_t step, int64_t api_start) EXCLUDES(mutex_);
  /// The launch thread: a call that is not keyed by its kernel's start (a copy call, a
  /// correlation id): the streamed read must not be used.
  void Refuse() EXCLUDES(mutex_);
  /// Every call is in: lookups no longer wait (and are the fast ones).
  void Freeze() EXCLUDES(mutex_);
  /// The step of `key` (StepKeyRuns::Find), once it cannot change; before Freeze only on the
  /// thread that feeds the meter's kernel side.
  int32_t Find(int64_t key) EXCLUDES(mutex_);
  /// False when a call's kernel started before the call (lookups made before Freeze may
  /// then have answered too early) or a call was refused: the streamed read must not be used.
  bool trustworthy() const EXCLUDES(mutex_);

 private:
  mutable Mutex mutex_;
  StepKeyRuns runs_ GUARDED_BY(mutex_);
  StepOverlapMeter* meter_ = nullptr;  // set and cleared while no other thread runs
  bool frozen_ = false;                // the same
  bool trustworthy_ GUARDED_BY(mutex_) = true;
};

}  // namespace stepstat
