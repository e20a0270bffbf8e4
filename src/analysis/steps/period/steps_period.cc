#include "analysis/steps/period/steps_period.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepstat {

namespace {

enum class Transfer : int8_t { kNone, kDownload, kUpload };

// A copy between host and device memory, from its name as nsys ("[CUDA memcpy
// Host-to-Device]", "... HtoD") or Kineto ("Memcpy DtoH (Device -> Pageable)") spell it.
// Unified-memory page migrations happen under kernels, not at a host sync.
Transfer HostTransferOf(std::string_view name) {
  auto has = [name](std::string_view marker) { return name.find(marker) != name.npos; };
  if (has("Unified")) return Transfer::kNone;
  if (has("Host-to-Device") || has("HtoD")) return Transfer::kUpload;
  if (has("Device-to-Host") || has("DtoH")) return Transfer::kDownload;
  return Transfer::kNone;
}

// Turns GPU operations in start order into the detector's per-kernel inputs.
class KernelFeed {
 public:
  explicit KernelFeed(StreamingPeriodDetector& detector) : detector_(detector) {}
  void Kernel(int64_t start, int64_t end, NameId name) {
    if (!seen_kernel_) frontier_ = start, seen_kernel_ = true;
    // A step opens at the upload of its inputs when the host made it in the idle gap before
    // the step's first kernel (the results read back before it belong to the step before).
    int64_t opens = upload_start_ >= 0 ? std::min(upload_start_, start) : start;
    detector_.Add(name, opens, std::max<int64_t>(0, start - frontier_), transfer_pending_);
    frontier_ = std::max(frontier_, end);
    transfer_pending_ = false;
    upload_start_ = -1;
  }
  void HostTransfer(int64_t start, Transfer transfer) {
    transfer_pending_ = true;
    bool in_idle_gap = !seen_kernel_ || start >= frontier_;
    if (transfer == Transfer::kUpload && in_idle_gap && upload_start_ < 0) upload_start_ = start;
  }

 private:
  StreamingPeriodDetector& detector_;
  int64_t frontier_ = 0;
  bool seen_kernel_ = false;
  bool transfer_pending_ = false;
  int64_t upload_start_ = -1;  // the first upload since the last kernel, in the idle gap
};

// Kernels and host transfers as they are read: streamed into `feed` while kernels come in
// start order; once one does not, the rest is ignored and `unsorted` is set. Without a
// feed, everything is kept instead, to be sorted.
class KernelSequenceSink : public TraceSink {
 public:
  struct Op {
    int64_t start, end;
    NameId name;
    bool kernel;
    Transfer transfer;
  };
  explicit KernelSequenceSink(KernelFeed* feed) : feed_(feed), buffer_(feed == nullptr) {}

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& pool) override {
    for (const GpuOp& op : ops) {
      if (op.kind == OpKind::kKernel) {
        NotePlace(op, pool);
        Take({op.start_ns, op.end_ns(), op.name, true, Transfer::kNone});
      } else if (op.kind == OpKind::kMemcpy) {
        Transfer transfer = HostTransfer(op.name, pool);
        if (transfer != Transfer::kNone) {
          Take({op.start_ns, op.end_ns(), op.name, false, transfer});
        }
      }
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  bool unsorted() const { return unsorted_; }
  std::vector<Op>& buffered() { return buffered_; }
  /// Two of the (device, process) pairs the kernels ran on, when there are several.
  const std::vector<std::string>& places() const { return places_; }

 private:
  // Kernels of several GPUs or processes interleave as their clocks happen to fall: their
  // merged sequence has no period of one run (issue 12). Two places are enough to say so.
  void NotePlace(const GpuOp& op, const StringPool& pool) {
    if (places_.size() >= 2) return;
    if (op.device == last_device_ && op.pid == last_pid_ && !places_.empty()) return;
    last_device_ = op.device, last_pid_ = op.pid;
    std::string place(pool.Get(op.device));
    if (place.empty()) place = "an unnamed device";
    if (op.pid >= 0) place += " (pid " + std::to_string(op.pid) + ")";
    if (std::find(places_.begin(), places_.end(), place) == places_.end()) places_.push_back(place);
  }
  std::vector<std::string> places_;
  NameId last_device_ = 0;
  int32_t last_pid_ = -1;

  void Take(const Op& op) {
    if (buffer_) {
      buffered_.push_back(op);
      return;
    }
    if (unsorted_) return;
    if (op.kernel) {
      if (seen_kernel_ &&
          (op.start < last_start_ || (op.start == last_start_ && op.end < last_end_))) {
        unsorted_ = true;
        return;
      }
      seen_kernel_ = true, last_start_ = op.start, last_end_ = op.end;
      feed_->Kernel(op.start, op.end, op.name);
    } else {
      feed_->HostTransfer(op.start, op.transfer);
    }
  }
  Transfer HostTransfer(NameId id, const StringPool& pool) {
    if (id >= transfer_.size()) transfer_.resize(static_cast<size_t>(id) + 1, -1);
    if (transfer_[id] < 0) transfer_[id] = static_cast<int8_t>(HostTransferOf(pool.Get(id)));
    return static_cast<Transfer>(transfer_[id]);
  }

  KernelFeed* feed_;
  bool buffer_;
  bool unsorted_ = false;
  bool seen_kernel_ = false;
  int64_t last_start_ = 0, last_end_ = 0;
  std::vector<int8_t> transfer_;  // Transfer by name id; -1 not looked at yet
  std::vector<Op> buffered_;
};

DetectedSteps RefuseSeveralPlaces(const std::vector<std::string>& places, DetectedSteps steps) {
  if (places.size() < 2) return steps;
  DetectedSteps refused;
  refused.kernel_count = steps.kernel_count;
  refused.refused = "the trace holds the kernels of several GPUs or processes (" + places[0] +
                    ", " + places[1] + ", ...), whose merged sequence has no period of one run";
  return refused;
}

// One streaming read into a detector holding at most `prefix_kernels` to detect; `unsorted`
// when kernels were not in start order (the result is then meaningless).
Result<DetectedSteps> ReadStreaming(const std::function<Status(TraceSink&)>& read_gpu_ops,
                                    size_t prefix_kernels, bool& unsorted) {
  StreamingPeriodDetector detector(prefix_kernels);
  KernelFeed feed(detector);
  KernelSequenceSink streamed(&feed);
  RETURN_IF_ERROR(read_gpu_ops(streamed));
  unsorted = streamed.unsorted();
  return RefuseSeveralPlaces(streamed.places(), detector.Finish());
}

// Everything buffered, sorted by start, then detected on the whole sequence.
Result<DetectedSteps> ReadBuffered(const std::function<Status(TraceSink&)>& read_gpu_ops) {
  KernelSequenceSink buffered(nullptr);
  RETURN_IF_ERROR(read_gpu_ops(buffered));
  std::vector<KernelSequenceSink::Op>& ops = buffered.buffered();
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  StreamingPeriodDetector detector(SIZE_MAX);
  KernelFeed feed(detector);
  for (const KernelSequenceSink::Op& op : ops) {
    if (op.kernel) {
      feed.Kernel(op.start, op.end, op.name);
    } else {
      feed.HostTransfer(op.start, op.transfer);
    }
  }
  ops = {};
  return RefuseSeveralPlaces(buffered.places(), detector.Finish());
}

}  // namespace

namespace {

// A unit seen fewer than three times whole is as likely a coincidence (a model's forward and
// backward, two alike phases) as a step: refused, with the reason.
DetectedSteps RequireWholeSteps(DetectedSteps steps) {
  if (!steps.found) return steps;
  const size_t short_by = std::max<size_t>(1, steps.period / 100);  // as steps.cc flags partial
  size_t whole = 0;
  for (size_t i = 0; i < steps.first_kernels.size(); ++i) {
    size_t end =
        i + 1 < steps.first_kernels.size() ? steps.first_kernels[i + 1] : steps.kernel_count;
    whole += end - steps.first_kernels[i] + short_by > steps.period;
  }
  if (whole >= kMinWholeSteps) return steps;
  DetectedSteps refused;
  refused.kernel_count = steps.kernel_count;
  refused.detected_on = steps.detected_on;
  refused.refused = "the kernel sequence's period of " + std::to_string(steps.period) +
                    " kernels holds only " + std::to_string(whole) + " whole " +
                    (whole == 1 ? "step" : "steps") + " (" + std::to_string(kMinWholeSteps) +
                    " needed to tell a step from a coincidence)";
  return refused;
}

}  // namespace

Result<DetectedSteps> DetectStepsByPeriod(const std::function<Status(TraceSink&)>& read_gpu_ops) {
  bool unsorted = false;
  ASSIGN_OR_RETURN(
      DetectedSteps steps,
      ReadStreaming(read_gpu_ops, StreamingPeriodDetector::kDefaultPrefixKernels, unsorted));
  if (unsorted) {
    ASSIGN_OR_RETURN(steps, ReadBuffered(read_gpu_ops));
  } else if (steps.needs_whole_sequence) {
    // The prefix's period was contradicted by a longer structure: hold every kernel.
    ASSIGN_OR_RETURN(steps, ReadStreaming(read_gpu_ops, SIZE_MAX, unsorted));
  }
  return RequireWholeSteps(std::move(steps));
}

}  // namespace stepstat
