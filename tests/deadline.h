// For concurrency tests: run a body that might hang (two threads waiting for each other)
// and turn a hang into a failure that names itself instead of a test run that never ends.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>

namespace stepstat {

/// How long a concurrent body may run before it counts as hung. A hang waits forever, so
/// the limit only has to outlast the slowest honest run: under wine on a loaded 2-core
/// machine (load 13, `nice 19`), each condition-variable hand-off costs a trip through
/// wineserver, and OverlapMeter's 35,000 one-interval hand-offs took 12 s once.
inline constexpr std::chrono::seconds kHangLimit{60};

/// Runs `body` on a thread of its own and waits up to `limit` for it. If it is still
/// running then, the threads it started are stuck on objects of the caller's frame, which
/// cannot be torn down safely: print what hung and end the process with a failure.
inline void MustFinishWithin(std::chrono::milliseconds limit, const char* what,
                             const std::function<void()>& body) {
  std::packaged_task<void()> task(body);
  std::future<void> done = task.get_future();
  std::thread runner(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "HANG: %s did not finish within %lld ms\n", what,
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(3);
  }
  runner.join();
  done.get();
}

/// Waits (up to `limit`) until `condition` holds; false on timeout.
inline bool EventuallyTrue(const std::function<bool()>& condition,
                           std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

}  // namespace stepstat
