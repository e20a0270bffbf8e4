#include "analysis/steps/step_overlap_meter.h"

#include <algorithm>
#include <limits>

namespace stepstat {

namespace {

int64_t Intersection(const Interval& a, const Interval& b) {
  return std::max<int64_t>(0, std::min(a.end, b.end) - std::max(a.start, b.start));
}

}  // namespace

StepOverlapMeter::Producer StepOverlapMeter::TakeProducer(Side side) {
  MutexLock lock(mutex_);
  sides_.Take(side);
  return Producer(*this, side);
}

StepOverlapMeter::StepOverlapMeter(size_t steps, size_t max_pending)
    : steps_(steps), max_pending_(max_pending) {
  frontier_[kKernels] = frontier_[kLaunches] = std::numeric_limits<int64_t>::min();
}

bool StepOverlapMeter::Add(Side side, std::span<const Tagged> intervals) {
  const int other = 1 - side;
  MutexLock lock(mutex_);
  sides_.Feeding(side, /*bounded=*/true);
  while (!aborted_ && pending_[side] >= max_pending_ && !closed_[other] && !waiting_[other]) {
    if (!waiting_[side]) {
      waiting_[side] = true;
      progressed_.notify_all();  // the other side may be waiting only because this one was not
    }
    lock.Wait(progressed_);
  }
  waiting_[side] = false;
  if (aborted_) return true;
  bool in_order = true;
  for (const Tagged& t : intervals) {
    if (t.interval.start < frontier_[side]) {
      in_order = false;
      break;
    }
    frontier_[side] = t.interval.start;
    if (side == kKernels) AddToGpuUnion(t.interval);
    Step& s = steps_[t.step];
    std::optional<Interval>& open = s.open[side];
    if (!open) {
      open = t.interval;
    } else if (t.interval.start > open->end) {
      CloseComponent(s, side);
      open = t.interval;
    } else {
      open->end = std::max(open->end, t.interval.end);
    }
    if (!s.active) {
      s.active = true;
      active_.push_back(t.step);
    }
  }
  SweepLocked(side);
  peak_pending_ = std::max(peak_pending_, pending_[kKernels] + pending_[kLaunches]);
  return in_order;
}

void StepOverlapMeter::Close(Side side) {
  MutexLock lock(mutex_);
  closed_[side] = true;
  frontier_[side] = std::numeric_limits<int64_t>::max();
  SweepLocked(side);
  progressed_.notify_all();
}

void StepOverlapMeter::Abort() {
  MutexLock lock(mutex_);
  aborted_ = true;
  progressed_.notify_all();
}

int64_t StepOverlapMeter::WaitForLaunchesAfter(int64_t time) {
  MutexLock lock(mutex_);
  while (!aborted_ && !closed_[kLaunches] && frontier_[kLaunches] <= time) {
    if (!waiting_[kKernels]) {
      waiting_[kKernels] = true;
      progressed_.notify_all();  // a launch producer waiting for this side stops waiting
    }
    lock.Wait(progressed_);
  }
  waiting_[kKernels] = false;
  return aborted_ ? std::numeric_limits<int64_t>::max() : frontier_[kLaunches];
}

int64_t StepOverlapMeter::overlap(size_t step) const {
  MutexLock lock(mutex_);
  return steps_[step].overlap;
}

int64_t StepOverlapMeter::own_overlap(size_t step) const {
  MutexLock lock(mutex_);
  return steps_[step].own_overlap;
}

int64_t StepOverlapMeter::union_length(Side side, size_t step) const {
  MutexLock lock(mutex_);
  const Step& s = steps_[step];
  return s.union_length[side] + (s.open[side] ? s.open[side]->length() : 0);
}

size_t StepOverlapMeter::peak_pending() const {
  MutexLock lock(mutex_);
  return peak_pending_;
}

void StepOverlapMeter::CloseComponent(Step& s, int side) {
  s.pending[side].push_back(*s.open[side]);
  s.union_length[side] += s.open[side]->length();
  ++pending_[side];
  if (side == kLaunches) {
    s.unmeasured.push_back(*s.open[side]);
    ++pending_[side];
  }
  s.open[side].reset();
}

void StepOverlapMeter::AddToGpuUnion(const Interval& kernel) {
  if (gpu_open_ && kernel.start <= gpu_open_->end) {
    gpu_open_->end = std::max(gpu_open_->end, kernel.end);
    return;
  }
  if (gpu_open_) {
    gpu_pending_.push_back(*gpu_open_);
    ++pending_[kKernels];
  }
  gpu_open_ = kernel;
}

// A closed launch component is final against the GPU once the kernel side's frontier has
// reached its end: later kernels start after it, and the open kernel component only grows
// past that frontier.
void StepOverlapMeter::MeasureAgainstGpu(Step& s) {
  while (Unmeasured(s)) {
    const Interval& l = s.unmeasured[s.unmeasured_head];
    if (frontier_[kKernels] < l.end) break;
    auto first = std::lower_bound(gpu_pending_.begin(), gpu_pending_.end(), l.start,
                                  [](const Interval& c, int64_t t) { return c.end <= t; });
    for (auto c = first; c != gpu_pending_.end() && c->start < l.end; ++c) {
      s.overlap += Intersection(*c, l);
    }
    if (gpu_open_) s.overlap += Intersection(*gpu_open_, l);
    --pending_[kLaunches];
    if (++s.unmeasured_head == s.unmeasured.size()) {
      s.unmeasured.clear();
      s.unmeasured_head = 0;
    }
  }
}

void StepOverlapMeter::DropGpuComponentsBefore(int64_t earliest_launch) {
  while (!gpu_pending_.empty() && gpu_pending_.front().end <= earliest_launch) {
    gpu_pending_.pop_front();
    --pending_[kKernels];
  }
}

void StepOverlapMeter::PopFront(Step& s, int side) {
  --pending_[side];
  if (++s.head[side] == s.pending[side].size()) {
    s.pending[side].clear();
    s.head[side] = 0;
  }
}

// The two-pointer walk of IntersectionLength over what both sides closed; then a component
// the other side's frontier has passed can meet nothing more than the other side's open one.
void StepOverlapMeter::Consume(Step& s) {
  while (Pending(s, kKernels) && Pending(s, kLaunches)) {
    const Interval& k = s.pending[kKernels][s.head[kKernels]];
    const Interval& l = s.pending[kLaunches][s.head[kLaunches]];
    s.own_overlap += Intersection(k, l);
    PopFront(s, k.end < l.end ? kKernels : kLaunches);
  }
  for (int side : {kKernels, kLaunches}) {
    const int other = 1 - side;
    while (Pending(s, side)) {
      const Interval& c = s.pending[side][s.head[side]];
      if (frontier_[other] < c.end) break;  // the other side may still add to it
      // The other side's open component only grows past its frontier, beyond c: final.
      if (s.open[other]) s.own_overlap += Intersection(c, *s.open[other]);
      PopFront(s, side);
    }
  }
}

void StepOverlapMeter::SweepLocked(int side) {
  int64_t earliest_launch = frontier_[kLaunches];
  size_t kept = 0;
  for (size_t step : active_) {
    Step& s = steps_[step];
    if (s.open[side] && s.open[side]->end < frontier_[side]) CloseComponent(s, side);
    Consume(s);
    MeasureAgainstGpu(s);
    if (Unmeasured(s)) {
      earliest_launch = std::min(earliest_launch, s.unmeasured[s.unmeasured_head].start);
    }
    if (s.open[kLaunches]) earliest_launch = std::min(earliest_launch, s.open[kLaunches]->start);
    s.active = s.open[kKernels] || s.open[kLaunches] || Pending(s, kKernels) ||
               Pending(s, kLaunches) || Unmeasured(s);
    if (s.active) {
      active_[kept++] = step;
    } else {  // most likely done for good: hold nothing for it
      for (std::vector<Interval>& pending : s.pending) std::vector<Interval>().swap(pending);
      std::vector<Interval>().swap(s.unmeasured);
    }
  }
  active_.resize(kept);
  DropGpuComponentsBefore(earliest_launch);
  progressed_.notify_all();
}

}  // namespace stepstat
