#include "core/intervals.h"

#include <algorithm>

namespace stepstat {

std::vector<Interval> UnionOf(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& x, const Interval& y) {
    return x.start != y.start ? x.start < y.start : x.end < y.end;
  });
  std::vector<Interval> components;
  SortedUnion merger;
  for (const Interval& interval : intervals) {
    if (auto closed = merger.Add(interval.start, interval.end)) components.push_back(*closed);
  }
  if (auto last = merger.Finish()) components.push_back(*last);
  return components;
}

int64_t TotalLength(std::span<const Interval> components) {
  int64_t total = 0;
  for (const Interval& c : components) total += c.length();
  return total;
}

int64_t IntersectionLength(std::span<const Interval> a, std::span<const Interval> b) {
  int64_t total = 0;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].start, b[j].start);
    int64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    // Advance whichever ends first; it cannot meet anything further on the other side.
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

}  // namespace stepstat
