// CheckInputs: bounded prefixes of the CSV inputs. Why a prefix: the files are read on two
// threads by the summary pipeline, and matching every launch row to its kernel exactly
// needs a key per row (what `--details` keeps). A launch trace from another run fails on
// its first rows as surely as on all of them; both files come from one capture and are
// sorted by start, so the kernels of the first launch rows are among the first kernels
// of the GPU trace. Cost: at most InputCheckOptions rows of each file, read once more.
#include "stepstat/input_checks.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/details/data_notes.h"
#include "analysis/pipeline/launched_kernels_sink.h"
#include "readers/input_sample.h"
#include "readers/input_traits.h"
#include "readers/resolution_sink.h"
#include "stepstat/read.h"

namespace stepstat {

namespace {

// What stops a reader once the prefix is read: a status no reader produces.
const char kEnough[] = "input check: prefix read";

// The first launch rows: the keys that join them to kernels.
class LaunchPrefix : public TraceSink {
 public:
  explicit LaunchPrefix(size_t limit) : limit_(limit) {}
  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    for (const LaunchCall& call : calls) {
      if (keys_.size() >= limit_) return Status::Error(kEnough);
      if (call.kernel_start_ns >= 0 && call.kernel_duration_ns >= 0) {
        if (by_correlation_) keys_.clear();  // rows that carry their kernel join by it
        keys_.emplace_back(call.kernel_start_ns, call.kernel_duration_ns);
        by_correlation_ = false;
        latest_kernel_start_ = std::max(latest_kernel_start_, call.kernel_start_ns);
      } else if (call.correlation_id >= 0 && by_correlation_) {
        keys_.emplace_back(call.correlation_id, 0);
      }
    }
    return Status::Ok();
  }
  std::vector<std::pair<int64_t, int64_t>>& keys() { return keys_; }
  bool by_correlation() const { return by_correlation_; }
  int64_t latest_kernel_start() const { return latest_kernel_start_; }

 private:
  size_t limit_;
  bool by_correlation_ = true;  ///< until a row carries its kernel's start and duration
  int64_t latest_kernel_start_ = std::numeric_limits<int64_t>::min();
  std::vector<std::pair<int64_t, int64_t>> keys_;
};

// The first GPU rows: devices, processes, and (when asked) the kernels' join keys up to a
// bound: kernels starting after the latest launched kernel cannot match.
class GpuPrefix : public TraceSink {
 public:
  GpuPrefix(size_t limit, bool by_correlation, int64_t key_until, size_t key_limit)
      : limit_(limit),
        by_correlation_(by_correlation),
        key_until_(key_until),
        key_limit_(key_limit) {}
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    for (const GpuOp& op : ops) {
      // Enough rows for devices and resolution, and (when matching launches) every kernel
      // the sampled launch rows can match: memory operations may outnumber kernels
      // several times (BN: 5 copies or memsets per kernel). kMaxRows bounds a trace of
      // copies alone.
      constexpr size_t kMaxRows = size_t{1} << 18;
      ++rows_;
      if (rows_ > kMaxRows || (rows_ > limit_ && keys_done_)) return Status::Error(kEnough);
      if (op.kind != OpKind::kKernel) continue;
      if (by_correlation_ ? keys_.size() >= key_limit_ : op.start_ns > key_until_) {
        keys_done_ = true;  // the trace is sorted by start: no later kernel can match
      }
      std::string_view device = names.Get(op.device);
      if (devices_.size() < 64 &&
          std::find(devices_.begin(), devices_.end(), device) == devices_.end()) {
        devices_.emplace_back(device);
      }
      if (op.pid >= 0 && processes_.size() < 64 &&
          std::find(processes_.begin(), processes_.end(), op.pid) == processes_.end()) {
        processes_.push_back(op.pid);
      }
      if (keys_.size() < key_limit_) {
        if (by_correlation_) {
          if (op.correlation_id >= 0) keys_.emplace_back(op.correlation_id, 0);
        } else if (op.start_ns <= key_until_) {
          keys_.emplace_back(op.start_ns, op.duration_ns);
        }
      }
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  std::vector<std::pair<int64_t, int64_t>>& keys() { return keys_; }
  int64_t devices() const { return static_cast<int64_t>(devices_.size()); }
  const std::vector<std::string>& device_names() const { return devices_; }
  int64_t processes() const { return static_cast<int64_t>(processes_.size()); }

 private:
  size_t limit_;
  bool by_correlation_;
  int64_t key_until_;
  size_t key_limit_;
  bool keys_done_ = false;
  size_t rows_ = 0;
  std::vector<std::string> devices_;
  std::vector<int32_t> processes_;
  std::vector<std::pair<int64_t, int64_t>> keys_;
};

// Reads `input` into `sink` until the sink has had enough; the time resolution seen.
Result<int64_t> ReadPrefix(const TraceInput& input, TraceSink& sink) {
  ResolutionSink measured(sink);
  Result<ReadReport> read = ReadInput(input, measured);
  if (!read.ok() && read.status().message() != kEnough) return read.status();
  return measured.resolution_ns();
}

// Launch keys that find a kernel key, each kernel matching one launch row at most.
int64_t CountMatched(std::vector<std::pair<int64_t, int64_t>>& kernels,
                     std::vector<std::pair<int64_t, int64_t>>& launches) {
  std::sort(kernels.begin(), kernels.end());
  std::sort(launches.begin(), launches.end());
  int64_t matched = 0;
  size_t k = 0;
  for (const auto& key : launches) {
    while (k < kernels.size() && kernels[k] < key) ++k;
    if (k < kernels.size() && kernels[k] == key) ++matched, ++k;
  }
  return matched;
}

}  // namespace

Result<InputCheckReport> CheckInputs(const SummaryInputs& inputs,
                                     const InputCheckOptions& options) {
  InputCheckReport report;
  if (!IsNsysCsvTrace(inputs.gpu.kind)) {
    // A file that holds both sides: what a bounded sample of it says.
    ASSIGN_OR_RETURN(InputSample sample,
                     SampleInput(inputs.gpu, static_cast<int64_t>(options.gpu_rows)));
    std::string several =
        SeveralDevicesNote(inputs.gpu.display_name, sample.devices, sample.processes);
    if (!several.empty() && options.note_several_devices) {
      report.warnings.push_back(std::move(several));
    }
    if (sample.whole_microseconds) {
      report.warnings.push_back(CoarseTimeNote(inputs.gpu.display_name, 1000));
    }
    report.devices = std::move(sample.device_names);
    return report;
  }

  LaunchPrefix launches(options.launch_rows);
  const TraceInput* launch_file = inputs.launches ? &*inputs.launches : nullptr;
  int64_t launch_resolution = 0;
  if (launch_file) {
    ASSIGN_OR_RETURN(launch_resolution, ReadPrefix(*launch_file, launches));
  }
  const bool join = launch_file && !launches.keys().empty();

  // Kernels that start after the latest sampled launch's kernel cannot match it; on the
  // correlation-id join a count bound stands in (deep launch queues reorder a little).
  GpuPrefix gpu(options.gpu_rows, launches.by_correlation(), launches.latest_kernel_start(),
                join ? 4 * options.launch_rows : 0);
  LaunchedKernelsSink kern_exec_kernels(gpu, /*forward_launch_calls=*/false);
  TraceSink& gpu_sink = OpsAreItsLaunchRows(inputs.gpu.kind)
                            ? static_cast<TraceSink&>(kern_exec_kernels)
                            : static_cast<TraceSink&>(gpu);
  ASSIGN_OR_RETURN(int64_t gpu_resolution, ReadPrefix(inputs.gpu, gpu_sink));

  if (join) {
    auto checked = static_cast<int64_t>(launches.keys().size());
    int64_t matched = CountMatched(gpu.keys(), launches.keys());
    report.launch_rows_checked = checked;
    report.launch_rows_matched = matched;
    const std::string how =
        launches.by_correlation() ? "by correlation id" : "by kernel start and duration";
    if (2 * matched < checked) {
      return ErrorAt(launch_file->display_name, 0,
                     "only " + std::to_string(matched) + " of the first " +
                         std::to_string(checked) + " launch rows match a kernel of " +
                         inputs.gpu.display_name + " (" + how +
                         "); the two files are not from one capture");
    }
    if (matched < checked) {
      report.warnings.push_back(launch_file->display_name + ": " +
                                std::to_string(checked - matched) + " of the first " +
                                std::to_string(checked) + " launch rows match no kernel of " +
                                inputs.gpu.display_name + " (" + how + ")");
    }
  }
  report.devices = gpu.device_names();
  std::string several = SeveralDevicesNote(inputs.gpu.display_name, gpu.devices(), gpu.processes());
  if (!several.empty() && options.note_several_devices) {
    report.warnings.push_back(std::move(several));
  }
  for (auto [file, resolution] :
       {std::pair{&inputs.gpu, gpu_resolution}, std::pair{launch_file, launch_resolution}}) {
    if (file == nullptr || resolution < kGapAffectingResolutionNs) continue;
    ASSIGN_OR_RETURN(bool coarse, DeclaresCoarseTimes(*file));
    if (coarse) report.warnings.push_back(CoarseTimeNote(file->display_name, resolution));
  }
  return report;
}

}  // namespace stepstat
