#include "core/overlap_meter.h"

#include <algorithm>

namespace stepstat {

OverlapMeter::Producer OverlapMeter::TakeProducer(Side side) {
  MutexLock lock(mutex_);
  sides_.Take(side);
  return Producer(*this, side);
}

bool OverlapMeter::Add(Side side, std::span<const Interval> components) {
  MutexLock lock(mutex_);
  sides_.Feeding(side, max_pending_ != 0);
  if (max_pending_ != 0) {
    while (!aborted_ && pending_[side].size() >= max_pending_) {
      waiting_[side] = true;
      lock.Wait(progressed_);
    }
    waiting_[side] = false;
  }
  if (aborted_) return true;
  bool in_order = true;
  for (const Interval& c : components) {
    if (c.start < last_end_[side]) {
      in_order = false;
      break;
    }
    last_end_[side] = c.end;
    pending_[side].push_back(c);
  }
  // The walk is left to the side that is ahead: its side fills first, so the producer with
  // time to spare does it (the other may be the run's slowest thread). A producer walks
  // once its side holds half of max_pending, when the other waits or is closed, and always
  // on an unbounded meter (one thread feeds both sides).
  const int other = 1 - side;
  if (max_pending_ == 0 || 2 * pending_[side].size() >= max_pending_ || waiting_[other] ||
      closed_[other]) {
    ConsumeLocked();
  }
  return in_order;
}

void OverlapMeter::Close(Side side) {
  MutexLock lock(mutex_);
  closed_[side] = true;
  ConsumeLocked();
  progressed_.notify_all();
}

void OverlapMeter::Abort() {
  MutexLock lock(mutex_);
  aborted_ = true;
  progressed_.notify_all();
}

int64_t OverlapMeter::overlap() const {
  MutexLock lock(mutex_);
  return overlap_;
}

void OverlapMeter::ConsumeLocked() {
  auto& a = pending_[kA];
  auto& b = pending_[kB];
  bool changed = false;
  // The two-pointer walk of IntersectionLength, over whatever both sides have delivered.
  while (!a.empty() && !b.empty()) {
    int64_t lo = std::max(a.front().start, b.front().start);
    int64_t hi = std::min(a.front().end, b.front().end);
    if (hi > lo) overlap_ += hi - lo;
    if (a.front().end < b.front().end) {
      a.pop_front();
    } else {
      b.pop_front();
    }
    changed = true;
  }
  // Once a side is closed and drained, nothing on the other side can overlap any more.
  for (int side : {kA, kB}) {
    int other = 1 - side;
    if (closed_[side] && pending_[side].empty() && !pending_[other].empty()) {
      pending_[other].clear();
      changed = true;
    }
  }
  if (changed) progressed_.notify_all();
}

}  // namespace stepstat
