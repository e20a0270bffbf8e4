// The contract is in thread_pool.h.
#include "ranks/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace stepstat {

void RunIndexed(size_t count, size_t threads, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) task(i);
  };
  std::vector<std::thread> started;
  const size_t extra = std::min(std::max<size_t>(threads, 1), count) - (count == 0 ? 0 : 1);
  started.reserve(extra);
  for (size_t t = 0; t < extra; ++t) started.emplace_back(work);
  work();
  for (std::thread& thread : started) thread.join();
}

}  // namespace stepstat
