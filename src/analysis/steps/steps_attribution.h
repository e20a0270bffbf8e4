// Which step a launch call or a GPU operation belongs to.
//
// A launch call belongs to the step whose CPU range contains its API start on the same
// thread; when no step range lies on the call's thread, a range of the same process (any
// thread) will do, the way PyTorch marks steps on the main thread while other threads launch.
// A GPU operation then belongs to the step of its launch call, found by a key both sides
// carry: the correlation id, or the kernel's start time when the launch source has no
// correlation ids (kern-exec CSV). Keys increase with launch time, so the key → step map is
// kept as runs of consecutive keys with one step: memory grows with steps, not launches.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "analysis/steps/steps_ranges.h"

namespace stepstat {

inline constexpr int32_t kNoStep = -1;
/// StepKeyRuns::Find on a key no run covers (as opposed to one recorded outside every step).
inline constexpr int32_t kUnknownKey = -2;
/// A kernel with no launch record in a trace that has launch calls (its call was made before
/// the capture began, most likely): no step's, counted apart in the residue (`unlaunched`).
inline constexpr int32_t kUnlaunched = -3;

/// Finds the step of a CPU timestamp on a thread. Steps must be sorted by start.
class LaunchStepFinder {
 public:
  explicit LaunchStepFinder(std::span<const StepRange> steps);
  int32_t StepOf(int64_t pid, int64_t tid, int64_t time_ns) const;

 private:
  struct Span {
    int64_t start, end;
    int32_t step;
  };
  using Spans = std::vector<Span>;  // sorted by start
  static int32_t Find(const Spans& spans, int64_t time_ns);

  const Spans* SpansOf(int64_t pid, int64_t tid) const;

  std::map<std::pair<int64_t, int64_t>, Spans> by_thread_;
  std::map<int64_t, Spans> by_process_;
  Spans all_;
  // Calls come in runs from one thread: remember where the last thread's spans were.
  mutable std::pair<int64_t, int64_t> last_thread_{-2, -2};
  mutable const Spans* last_spans_ = nullptr;
};

/// Maps keys (correlation ids or kernel start times) to steps as runs of keys.
class StepKeyRuns {
 public:
  /// Records that `key` belongs to `step` (kNoStep too: it stops a run from covering it).
  void Add(int64_t key, int32_t step);
  /// Ends the Add phase: the runs move to a sorted array for lookups.
  void Freeze();
  /// The step of the run containing `key` (kNoStep for a run of calls outside every step),
  /// or kUnknownKey; requires Freeze(). Keys between two recorded keys of one step (e.g. the
  /// correlation id of a memcpy issued between two launches) belong to it. Lookups of
  /// increasing keys are the fast case.
  int32_t Find(int64_t key);
  /// Before Freeze, when every key up to `bound` has been added and every later one will be
  /// above it (int64 max: every key is in): what Find(key) will give once every key is in,
  /// or nullopt while a key still to come could change it (one that would extend a run over
  /// a key that lies in none).
  std::optional<int32_t> FindSettled(int64_t key, int64_t bound) const;
  size_t runs() const { return runs_.size() + frozen_.size(); }

 private:
  struct Run {
    int64_t last;
    int32_t step;
  };
  struct FrozenRun {
    int64_t first, last;
    int32_t step;
  };
  std::map<int64_t, Run> runs_;  // first key -> run
  std::vector<FrozenRun> frozen_;
  size_t cursor_ = 0;
};

/// Steps as windows on one timeline: step k covers [starts[k], starts[k+1]); the last
/// window ends at `end`. Starts must be non-decreasing.
class WindowStepFinder {
 public:
  explicit WindowStepFinder(std::vector<int64_t> starts,
                            int64_t end = std::numeric_limits<int64_t>::max())
      : starts_(std::move(starts)), end_(end) {}
  int32_t StepOf(int64_t time_ns) const;

 private:
  std::vector<int64_t> starts_;
  int64_t end_;
};

}  // namespace stepstat
