// A mutex that Clang's thread-safety analysis understands (-Wthread-safety, on in every Clang
// build and so in lint and the TSan build): state marked GUARDED_BY(mutex_) cannot be read or
// written without the lock, and a function marked REQUIRES(mutex_) cannot be called without
// it. libstdc++'s std::mutex carries no such annotations, so the meters lock through these.
// Under GCC the annotations expand to nothing and the types are thin std:: wrappers.
#pragma once

#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define STEPSTAT_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define STEPSTAT_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) STEPSTAT_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY STEPSTAT_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) STEPSTAT_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) STEPSTAT_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) STEPSTAT_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) STEPSTAT_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) STEPSTAT_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define EXCLUDES(...) STEPSTAT_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

namespace stepstat {

class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mutex_.lock(); }
  void unlock() RELEASE() { mutex_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mutex_;
};

/// Holds a Mutex for its scope. Wait() releases it while blocked and holds it again on
/// return, so the caller re-checks its condition in a loop (a lambda predicate would read
/// guarded state where the analysis cannot see the lock).
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) ACQUIRE(mutex) : lock_(mutex.mutex_) {}
  ~MutexLock() RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Wait(std::condition_variable& condition) { condition.wait(lock_); }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace stepstat
