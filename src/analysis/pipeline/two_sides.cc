#include "analysis/pipeline/two_sides.h"

#include <thread>

namespace stepstat {

namespace {

constexpr std::string_view kCancelled = "cancelled: the other side of the trace failed";

Status RunSide(const std::function<Status()>& side, const std::function<void()>& abort) {
  Status status = side();
  if (!status.ok()) abort();
  return status;
}

}  // namespace

SideStatuses ReadBothSides(const std::function<Status()>& gpu_side,
                           const std::function<Status()>& launch_side,
                           const std::function<void()>& abort) {
  SideStatuses statuses;
  std::thread launch_thread([&] { statuses.launch = RunSide(launch_side, abort); });
  statuses.gpu = RunSide(gpu_side, abort);
  launch_thread.join();
  return statuses;
}

Status FirstFailure(const SideStatuses& statuses) {
  for (const Status* status : {&statuses.gpu, &statuses.launch}) {
    if (!status->ok() && !IsCancelledByOtherSide(*status)) return *status;
  }
  if (!statuses.gpu.ok()) return statuses.gpu;
  return statuses.launch;
}

Status CancelledByOtherSide() { return Status::Error(std::string(kCancelled)); }

bool IsCancelledByOtherSide(const Status& status) {
  return !status.ok() && status.message() == kCancelled;
}

}  // namespace stepstat
