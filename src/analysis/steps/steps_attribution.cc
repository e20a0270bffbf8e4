#include "analysis/steps/steps_attribution.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace stepstat {

LaunchStepFinder::LaunchStepFinder(std::span<const StepRange> steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepRange& s = steps[i];
    Span span{s.start_ns, s.end_ns, static_cast<int32_t>(i)};
    by_thread_[{s.pid, s.tid}].push_back(span);
    by_process_[s.pid].push_back(span);
    all_.push_back(span);
  }
}

// The latest-starting span that contains `time_ns`. Spans of one thread are disjoint; spans
// of several threads may overlap, so look back a little past the first candidate.
int32_t LaunchStepFinder::Find(const Spans& spans, int64_t time_ns) {
  constexpr int kLookBack = 8;
  auto it = std::upper_bound(spans.begin(), spans.end(), time_ns,
                             [](int64_t t, const Span& s) { return t < s.start; });
  for (int i = 0; i < kLookBack && it != spans.begin(); ++i) {
    --it;
    if (time_ns < it->end) return it->step;
  }
  return kNoStep;
}

const LaunchStepFinder::Spans* LaunchStepFinder::SpansOf(int64_t pid, int64_t tid) const {
  if (auto thread = by_thread_.find({pid, tid}); thread != by_thread_.end()) {
    return &thread->second;
  }
  if (auto process = by_process_.find(pid); process != by_process_.end()) {
    return &process->second;
  }
  // A source without process ids, or ranges without them: time alone.
  if (pid < 0 || by_process_.count(-1)) return &all_;
  return nullptr;
}

int32_t LaunchStepFinder::StepOf(int64_t pid, int64_t tid, int64_t time_ns) const {
  if (last_thread_ != std::pair(pid, tid)) {
    last_thread_ = {pid, tid};
    last_spans_ = SpansOf(pid, tid);
  }
  return last_spans_ ? Find(*last_spans_, time_ns) : kNoStep;
}

void StepKeyRuns::Add(int64_t key, int32_t step) {
  // The common case: keys arrive increasing.
  if (runs_.empty() || key > std::prev(runs_.end())->second.last) {
    if (!runs_.empty() && std::prev(runs_.end())->second.step == step) {
      std::prev(runs_.end())->second.last = key;
    } else {
      runs_.emplace(key, Run{key, step});
    }
    return;
  }
  auto next = runs_.upper_bound(key);
  if (next != runs_.begin()) {
    auto run = std::prev(next);
    if (key <= run->second.last) {  // inside a run: split it unless it agrees
      if (run->second.step == step) return;
      int64_t first = run->first;
      Run old = run->second;
      runs_.erase(run);
      if (first < key) runs_.emplace(first, Run{key - 1, old.step});
      runs_.emplace(key, Run{key, step});
      if (key < old.last) runs_.emplace(key + 1, Run{old.last, old.step});
      return;
    }
    if (run->second.step == step) {  // extends the run before it
      run->second.last = key;
      return;
    }
  }
  if (next != runs_.end() && next->second.step == step) {  // extends the run after it
    Run moved = next->second;
    runs_.erase(next);
    runs_.emplace(key, moved);
    return;
  }
  runs_.emplace(key, Run{key, step});
}

void StepKeyRuns::Freeze() {
  frozen_.clear();
  for (const auto& [first, run] : runs_) frozen_.push_back({first, run.last, run.step});
  runs_.clear();
  cursor_ = 0;
}

int32_t StepKeyRuns::Find(int64_t key) {
  if (frozen_.empty()) return kUnknownKey;
  // GPU ops arrive in start order, so their keys mostly increase: try where the last one was.
  for (size_t i = cursor_; i < frozen_.size() && i < cursor_ + 2; ++i) {
    if (frozen_[i].first <= key && key <= frozen_[i].last) {
      cursor_ = i;
      return frozen_[i].step;
    }
  }
  auto next = std::upper_bound(frozen_.begin(), frozen_.end(), key,
                               [](int64_t k, const FrozenRun& r) { return k < r.first; });
  if (next == frozen_.begin()) return kUnknownKey;
  --next;
  if (key > next->last) return kUnknownKey;
  cursor_ = static_cast<size_t>(next - frozen_.begin());
  return next->step;
}

std::optional<int32_t> StepKeyRuns::FindSettled(int64_t key, int64_t bound) const {
  if (key > bound) return std::nullopt;
  auto next = runs_.upper_bound(key);  // the first run that starts after the key
  // No run before it: every key to come is above `bound`, so none can start a run below it.
  if (next == runs_.begin()) return kUnknownKey;
  auto run = std::prev(next);
  // Inside a run: a key to come can split it only above `bound`, so after this key.
  if (key <= run->second.last) return run->second.step;
  // Between runs: the next run's first key is in (or every key is: `bound` is int64 max),
  // so nothing can come between them; else a key to come could extend the run before this
  // one over it.
  const bool all_in = bound == std::numeric_limits<int64_t>::max();
  if (all_in || (next != runs_.end() && next->first <= bound)) return kUnknownKey;
  return std::nullopt;
}

int32_t WindowStepFinder::StepOf(int64_t time_ns) const {
  if (time_ns >= end_) return kNoStep;
  auto it = std::upper_bound(starts_.begin(), starts_.end(), time_ns);
  if (it == starts_.begin()) return kNoStep;
  return static_cast<int32_t>(std::distance(starts_.begin(), it) - 1);
}

}  // namespace stepstat
