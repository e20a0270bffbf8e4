// The interval toolkit every analysis shares: streaming union of sorted intervals, the gaps
// between union components, and the length of the intersection of two unions.
// Intervals are half-open [start, end) in ns.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace stepstat {

struct Interval {
  int64_t start = 0;
  int64_t end = 0;
  int64_t length() const { return end - start; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

/// Merges intervals that arrive in non-decreasing start order into maximal components.
/// Intervals that overlap or touch join one component. A zero-length interval that touches
/// nothing is a component of its own: it ends a gap, exactly as the spec's frontier walk
/// (sort by start, gap when start > latest end so far) treats a zero-duration kernel.
class SortedUnion {
 public:
  /// Whether `start` may follow the intervals added so far (non-decreasing order).
  bool InOrder(int64_t start) const { return !open_ || start >= last_start_; }

  /// Adds [start, end); requires InOrder(start). Returns the component this closed, if any.
  std::optional<Interval> Add(int64_t start, int64_t end) {
    last_start_ = start;
    if (!open_) {
      open_ = true;
      current_ = {start, end};
      return std::nullopt;
    }
    if (start > current_.end) {
      Interval closed = current_;
      current_ = {start, end};
      return closed;
    }
    current_.end = std::max(current_.end, end);
    return std::nullopt;
  }

  /// Closes the last component, if any; the union is then empty again.
  std::optional<Interval> Finish() {
    if (!open_) return std::nullopt;
    open_ = false;
    return current_;
  }

 private:
  bool open_ = false;
  int64_t last_start_ = 0;
  Interval current_;
};

/// Gaps between consecutive components of a union, fed in order.
class GapMeter {
 public:
  void Add(const Interval& component) {
    if (seen_ && component.start > previous_end_) {
      int64_t gap = component.start - previous_end_;
      ++count_;
      total_ += gap;
      maximum_ = std::max(maximum_, gap);
    }
    seen_ = true;
    previous_end_ = std::max(previous_end_, component.end);
  }
  int64_t count() const { return count_; }
  int64_t total() const { return total_; }
  int64_t maximum() const { return maximum_; }

 private:
  bool seen_ = false;
  int64_t previous_end_ = 0;
  int64_t count_ = 0;
  int64_t total_ = 0;
  int64_t maximum_ = 0;
};

/// Sorts arbitrary intervals and returns the components of their union (see SortedUnion).
std::vector<Interval> UnionOf(std::vector<Interval> intervals);

/// Sum of the lengths of disjoint intervals.
int64_t TotalLength(std::span<const Interval> components);

/// Length of (union a) ∩ (union b), where each is a sorted list of disjoint components.
int64_t IntersectionLength(std::span<const Interval> a, std::span<const Interval> b);

}  // namespace stepstat
