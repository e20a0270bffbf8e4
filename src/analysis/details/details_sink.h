// DetailsSink: the streaming accumulator behind `summarize --details`. Fed beside the
// GpuTotalsSink (through a TeeSink), it reads only the trace model. Memory grows with
// distinct names, devices and streams, not rows, with one exception: input out of start
// order (intervals are buffered and sorted, as GpuTotalsSink does). The launch-to-kernel
// match lives in a LaunchKeyMatcher (launch_key_matcher.h), which holds only what is in flight.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/details/details_histogram.h"
#include "core/intervals.h"
#include "stepstat/details.h"
#include "stepstat/trace.h"

namespace stepstat {

class LaunchKeyMatcher;

/// Per distinct kernel name (names copied: the reader's pool dies with the reader).
struct NameTotals {
  std::string name;
  int64_t launches = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
};

struct StreamTotals {
  size_t device = 0;  ///< index into DetailsTotals::devices
  StreamDetails stats;
  int64_t frontier_ns = 0;  ///< latest kernel end so far on this stream
  SortedUnion union_;
  GapMeter gaps;
};

struct DeviceTotals {
  std::string name;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  int64_t union_ns = 0;
  int64_t first_kernel_start_ns = 0;
  int64_t last_kernel_end_ns = 0;
  SortedUnion union_;
  GapMeter gaps;
};

/// (kernel start, kernel duration): how a launch row finds its GPU kernel.
using KernelKey = std::pair<int64_t, int64_t>;

struct DetailsTotals {
  int64_t operation_count = 0;
  int64_t first_start_ns = 0;
  int64_t last_end_ns = 0;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  int64_t zero_duration_kernels = 0;
  int64_t kernel_union_ns = 0;
  int64_t memory_operation_count = 0;
  std::vector<DeviceTotals> devices;
  std::vector<StreamTotals> streams;
  std::map<std::string, MemoryOpDetails> memory;  ///< by kind
  std::vector<NameTotals> names;

  int64_t launch_rows = 0;
  DurationHistogram api_duration;
  DurationHistogram queue_time;
  std::vector<ApiCount> by_api;
  int64_t graph_launch_calls = 0;
  int64_t graph_launched_kernels = 0;

  std::vector<int32_t> processes;  ///< distinct known pids of GPU operations, first kFew
};

/// "[CUDA memcpy Host-to-Device]" → "memcpy HtoD", "[CUDA memset]" → "memset": one spelling
/// for the kinds that nsys versions spell differently.
std::string MemoryKindOf(std::string_view op_name);

class DetailsSink : public TraceSink {
 public:
  /// `assume_sorted` as for GpuTotalsSink: kernels come in start order (the start-order
  /// stage decides it), otherwise kernel intervals are buffered and replayed in order at
  /// OnFinish.
  /// `matcher` (not null): each kernel's and each launch row's key goes there, one batch at a
  /// time, to count launch rows without a GPU kernel; it may be shared with the other side's
  /// sink on another thread (it locks). `source_name` names the file in messages.
  DetailsSink(std::string source_name, bool assume_sorted, LaunchKeyMatcher* matcher);

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;

  /// Replays buffered kernels, closes the open unions.
  Status OnFinish() override;

  const DetailsTotals& totals() const { return totals_; }

 private:
  struct Buffered {
    int64_t start;
    int64_t end;
    size_t stream;
  };
  size_t StreamOf(const GpuOp& op, const StringPool& names);
  size_t NameOf(NameId name, const StringPool& names);
  void AddKernelInterval(int64_t start, int64_t end, size_t stream);
  void AddMemoryOp(const GpuOp& op, const StringPool& names);
  void AddLaunch(const LaunchCall& call, const StringPool& names);

  std::string source_name_;
  bool assume_sorted_;
  LaunchKeyMatcher* matcher_;
  std::vector<KernelKey> batch_keys_;  // one batch's keys for the matcher (reused)
  DetailsTotals totals_;
  SortedUnion kernel_union_;
  std::vector<Buffered> buffered_;

  // Stream ids are per process: two ranks' "stream 7" on one GPU are two streams.
  struct StreamKey {
    NameId device = 0;
    int32_t pid = -1;
    int64_t stream = 0;
    bool operator==(const StreamKey&) const = default;
  };
  struct StreamKeyHash {
    size_t operator()(const StreamKey& k) const noexcept {
      // Unsigned: a file's stream id can be any int64, and signed overflow would be UB.
      const uint64_t mixed = (static_cast<uint64_t>(k.stream) * 1000003u + k.device) * 1000033u +
                             static_cast<uint64_t>(static_cast<uint32_t>(k.pid));
      return std::hash<uint64_t>()(mixed);
    }
  };
  void NoteProcess(int32_t pid);
  std::unordered_map<StreamKey, size_t, StreamKeyHash> stream_index_;
  StreamKey last_stream_key_;
  size_t last_stream_ = SIZE_MAX;        ///< index of last_stream_key_; SIZE_MAX: none yet
  std::vector<int32_t> device_by_name_;  ///< -1: not seen
  std::vector<int32_t> name_index_;      ///< NameId → index in totals_.names, -1: not seen
  std::vector<MemoryOpDetails*> memory_by_name_;  ///< NameId → entry of totals_.memory
  std::vector<int32_t> api_index_;                ///< api NameId → index in totals_.by_api
  bool graph_seen_ = false;
  int64_t last_graph_start_ = 0;
  int64_t last_graph_duration_ = 0;
  int64_t last_graph_tid_ = 0;
};

}  // namespace stepstat
