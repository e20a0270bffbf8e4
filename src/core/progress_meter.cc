#include <algorithm>

#include "stepstat/progress.h"

namespace stepstat {

ProgressSnapshot ProgressMeter::Snapshot() const {
  ProgressSnapshot now;
  // Read first what the others must not fall below: a read is counted after its file's open.
  now.bytes_read = read_.load(std::memory_order_relaxed);
  const uint64_t opened = opened_.load(std::memory_order_relaxed);
  const uint64_t unread = unread_.load(std::memory_order_relaxed);
  // Planned whole passes, or the reads begun so far when they exceed the plan (a pass the
  // plan did not foresee); an open that stopped early gives back what it left unread.
  const uint64_t begun = opened > unread ? opened - unread : 0;
  now.bytes_planned = planned_.load(std::memory_order_relaxed);
  const uint64_t total = std::max({now.bytes_planned, begun, now.bytes_read});
  // A sniff that gave back a large file's unread bytes may take `begun` below a total
  // already shown: the highest total seen stands, so a line never goes back.
  uint64_t highest = highest_total_.load(std::memory_order_relaxed);
  while (highest < total &&
         !highest_total_.compare_exchange_weak(highest, total, std::memory_order_relaxed)) {
  }
  now.bytes_total = std::max(highest, total);
  now.files_done = files_done_.load(std::memory_order_relaxed);
  now.files_total = std::max(files_total_.load(std::memory_order_relaxed), now.files_done);
  return now;
}

}  // namespace stepstat
