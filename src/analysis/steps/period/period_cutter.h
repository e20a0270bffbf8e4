// The forward walk that cuts a kernel sequence into steps once the period and the anchor
// name are known: each cut is one period after the previous one, moved to the nearest
// kernel with the anchor name within the slack. DetectPeriod walks a whole sequence;
// StreamingCutter does the same walk one kernel at a time, holding only the look-ahead
// window (2 x slack + 1 kernels), so a long trace is cut with bounded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

/// How far a cut may move from one period after the previous cut to land on the anchor.
size_t CutSlack(size_t period);

/// The index near `expected` (within `slack`, nearest first, later first on a tie) that
/// holds `anchor` and lies in [low, high), or `expected` itself when none does.
size_t ResyncOnAnchor(std::span<const NameId> names, NameId anchor, size_t expected, size_t slack,
                      size_t low, size_t high);

/// True when `remaining` kernels after a cut are the last step's noise, not a new step.
bool IsTailNoise(size_t remaining, size_t period);

/// The cuts after `first` (a kernel with the anchor name), walking forward over the whole
/// sequence: each one period after the previous one, resynchronised on the anchor, until
/// the kernels left are tail noise.
std::vector<size_t> WalkForward(std::span<const NameId> names, size_t period, NameId anchor,
                                size_t first);

/// Continues a forward walk from a known cut, one kernel at a time, with exactly the cuts
/// WalkForward makes on the whole sequence from that cut on.
class StreamingCutter {
 public:
  struct Cut {
    size_t index;      ///< kernel index in the whole sequence
    int64_t start_ns;  ///< that kernel's start
  };

  /// `last_cut`: the cut to walk on from; Add() then receives kernels last_cut + 1, ...
  StreamingCutter(size_t period, NameId anchor, size_t last_cut);
  /// The next kernel in start order.
  void Add(NameId name, int64_t start_ns);
  /// After the last kernel: settles the cuts that needed look-ahead past the end and drops
  /// the ones too close to the end to start a step. Call once.
  void Finish();
  /// The cuts after `last_cut`, increasing (final only after Finish()).
  const std::vector<Cut>& cuts() const { return cuts_; }
  /// Kernels seen so far, counting the ones before `last_cut` + 1.
  size_t kernel_count() const { return next_index_; }

 private:
  // The cut at the anchor near last_cut_ + period_, from the window; `high`: kernels seen.
  size_t NextCut(size_t high) const;
  // Records the cut and moves the window to the one after it.
  void Accept(size_t cut);

  size_t period_;
  size_t slack_;
  NameId anchor_;
  size_t last_cut_;
  size_t next_index_;
  // Kernels [window_begin_, next_index_) that the pending cut may land on.
  size_t window_begin_;
  std::vector<NameId> window_names_;
  std::vector<int64_t> window_starts_;
  std::vector<Cut> cuts_;
};

}  // namespace stepstat
