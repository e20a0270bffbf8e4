// A min-priority queue for input that mostly arrives in order (launch calls as their
// per-process joins yield them): an element no smaller than the last in-order one is
// appended to a sorted run in O(1); only the stragglers go to a heap. Top is the smaller of
// the run's front and the heap's top, so it pops exactly what a std::priority_queue over
// the same elements pops, given a strict total order (no two elements equal).
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

namespace stepstat {

template <typename T, typename Less>
class NearlySortedQueue {
 public:
  explicit NearlySortedQueue(Less less = Less()) : less_(less) {}

  void Push(const T& value) {
    if (run_.empty() || !less_(value, run_.back())) {
      run_.push_back(value);
      return;
    }
    heap_.push_back(value);
    std::push_heap(heap_.begin(), heap_.end(), Later());
  }

  /// The smallest element; the queue must not be empty.
  const T& Top() const { return FromRun() ? run_.front() : heap_.front(); }

  void Pop() {
    if (FromRun()) {
      run_.pop_front();
      return;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Later());
    heap_.pop_back();
  }

  size_t size() const { return run_.size() + heap_.size(); }
  bool empty() const { return run_.empty() && heap_.empty(); }

 private:
  struct LaterThan {
    Less less;
    bool operator()(const T& a, const T& b) const { return less(b, a); }
  };
  LaterThan Later() const { return LaterThan{less_}; }
  bool FromRun() const {
    return heap_.empty() || (!run_.empty() && less_(run_.front(), heap_.front()));
  }

  Less less_;
  std::deque<T> run_;    ///< sorted
  std::vector<T> heap_;  ///< a min-heap by less_
};

}  // namespace stepstat
