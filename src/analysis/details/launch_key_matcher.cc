#include "analysis/details/launch_key_matcher.h"

namespace stepstat {

bool LaunchKeyMatcher::Cancel(const KernelKey& key, Counts& other, Counts& mine) {
  if (const size_t slot = other.Find(key); slot != KeyCounts::kNone) {
    other.DecrementAt(slot);
    return false;
  }
  mine.Increment(key);
  return true;
}

void LaunchKeyMatcher::AddKernels(std::span<const KernelKey> kernels) {
  if (rows_join_their_kernels_ || kernels.empty()) return;
  MutexLock lock(mutex_);
  for (const KernelKey& key : kernels) {
    if (!Cancel(key, launches_, kernels_)) --waiting_launches_;  // answered a waiting row
  }
}

void LaunchKeyMatcher::AddLaunches(std::span<const KernelKey> launches) {
  if (launches.empty()) return;
  MutexLock lock(mutex_);
  launch_count_ += static_cast<int64_t>(launches.size());
  if (rows_join_their_kernels_) return;
  for (const KernelKey& key : launches) {
    if (Cancel(key, kernels_, launches_)) ++waiting_launches_;
  }
}

int64_t LaunchKeyMatcher::launches() const {
  MutexLock lock(mutex_);
  return launch_count_;
}

int64_t LaunchKeyMatcher::unmatched() const {
  MutexLock lock(mutex_);
  return waiting_launches_;
}

size_t LaunchKeyMatcher::held() const {
  MutexLock lock(mutex_);
  return kernels_.size() + launches_.size();
}

}  // namespace stepstat
