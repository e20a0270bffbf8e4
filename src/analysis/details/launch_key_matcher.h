// Counts the launch rows that no GPU kernel answers (details.data_quality
// .launches_without_gpu_kernel), holding only the keys not answered yet: a kernel and its
// launch row cancel as soon as both have been seen, whatever the order, so memory follows
// what is in flight between the two sides (and rows that never find their other half), not
// the length of the trace. A key is a kernel's (start, duration); each GPU kernel answers one
// launch row, so the count is Σ over keys of max(0, launch rows − kernels) — exactly
// CountUnmatchedLaunches (details_values.h) over all the keys at once.
//
// Threads: the two reader threads of a pass (two_sides.h) share one matcher, the GPU side
// adding kernels and the launch side launch rows; the pass owns it and reads the count after
// joining both. One mutex guards all of its state, held for one batch at a time; nothing
// waits while holding it (no condition variable, no call out), so neither thread can wait
// for the other through it, and no two waits wait for each other.
#pragma once

#include <cstdint>
#include <span>

#include "analysis/details/details_sink.h"
#include "analysis/details/key_counts.h"
#include "core/mutex.h"

namespace stepstat {

class LaunchKeyMatcher {
 public:
  /// `rows_join_their_kernels`: the reader built each launch row from a distinct GPU kernel
  /// of the same read (the SQLite export's join gives a kernel to one call at most), so none
  /// can lack its kernel: launch rows are only counted and no key is kept.
  explicit LaunchKeyMatcher(bool rows_join_their_kernels = false)
      : rows_join_their_kernels_(rows_join_their_kernels) {}

  void AddKernels(std::span<const KernelKey> kernels) EXCLUDES(mutex_);
  void AddLaunches(std::span<const KernelKey> launches) EXCLUDES(mutex_);

  /// Launch rows with a kernel side that were added.
  int64_t launches() const EXCLUDES(mutex_);
  /// Of them, the ones no kernel answered. Final once every Add has returned.
  int64_t unmatched() const EXCLUDES(mutex_);
  /// Keys held now (kernels and launch rows waiting for their other half).
  size_t held() const EXCLUDES(mutex_);

 private:
  using Counts = KeyCounts;  // key_counts.h: a flat table, no allocation per key

  /// Cancels one of `key` in `other`, else counts it in `mine`; true when it waits.
  static bool Cancel(const KernelKey& key, Counts& other, Counts& mine);

  const bool rows_join_their_kernels_;
  mutable Mutex mutex_;
  Counts kernels_ GUARDED_BY(mutex_);   // kernels no launch row has answered yet
  Counts launches_ GUARDED_BY(mutex_);  // launch rows no kernel has answered yet
  int64_t launch_count_ GUARDED_BY(mutex_) = 0;
  int64_t waiting_launches_ GUARDED_BY(mutex_) = 0;
};

}  // namespace stepstat
