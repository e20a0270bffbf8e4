#include "analysis/steps/streamed_key_runs.h"

#include <limits>
#include <optional>

namespace stepstat {

void StreamedKeyRuns::Attach(StepOverlapMeter* meter) {
  MutexLock lock(mutex_);
  runs_ = StepKeyRuns();
  trustworthy_ = true;
  meter_ = meter;
  frozen_ = false;
}

void StreamedKeyRuns::Add(int64_t key, int32_t step, int64_t api_start) {
  MutexLock lock(mutex_);
  if (key < api_start) trustworthy_ = false;
  runs_.Add(key, step);
}

void StreamedKeyRuns::Refuse() {
  MutexLock lock(mutex_);
  trustworthy_ = false;
}

void StreamedKeyRuns::Freeze() {
  MutexLock lock(mutex_);
  runs_.Freeze();
  meter_ = nullptr;
  frozen_ = true;
}

int32_t StreamedKeyRuns::Find(int64_t key) {
  if (frozen_) {
    MutexLock lock(mutex_);  // uncontended: no other thread runs now
    return runs_.Find(key);
  }
  constexpr int64_t kAllIn = std::numeric_limits<int64_t>::max();
  // Every call that started before the launch side's latest start is in; one that started
  // at it may still come (calls are in API start order), and its kernel no earlier.
  int64_t after = key;
  while (true) {
    const int64_t latest = meter_ == nullptr ? kAllIn : meter_->WaitForLaunchesAfter(after);
    const int64_t bound = latest == kAllIn ? kAllIn : latest - 1;
    {
      MutexLock lock(mutex_);
      if (std::optional<int32_t> step = runs_.FindSettled(key, bound)) return *step;
    }
    after = latest;  // wait for a later call: the next key above this one decides
  }
}

bool StreamedKeyRuns::trustworthy() const {
  MutexLock lock(mutex_);
  return trustworthy_;
}

}  // namespace stepstat
