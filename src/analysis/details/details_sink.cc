#include "analysis/details/details_sink.h"

#include <algorithm>
#include <limits>

#include "analysis/details/launch_key_matcher.h"

namespace stepstat {

namespace {

bool AddChecked(int64_t& total, int64_t value) {
  if (value > std::numeric_limits<int64_t>::max() - total) return false;
  total += value;
  return true;
}

void Replace(std::string& text, std::string_view from, std::string_view to) {
  if (auto at = text.find(from); at != std::string::npos) text.replace(at, from.size(), to);
}

template <typename T>
T& Slot(std::vector<T>& cache, NameId id, size_t pool_size, T empty) {
  if (id >= cache.size()) cache.resize(std::max<size_t>(pool_size, id + 1), empty);
  return cache[id];
}

}  // namespace

std::string MemoryKindOf(std::string_view op_name) {
  std::string kind(op_name);
  if (kind.starts_with("[CUDA ")) kind.erase(0, 6);
  if (kind.ends_with("]")) kind.pop_back();
  Replace(kind, "Host-to-Device", "HtoD");
  Replace(kind, "Device-to-Host", "DtoH");
  Replace(kind, "Device-to-Device", "DtoD");
  Replace(kind, "Host-to-Host", "HtoH");
  Replace(kind, "Peer-to-Peer", "PtoP");
  return kind;
}

DetailsSink::DetailsSink(std::string source_name, bool assume_sorted, LaunchKeyMatcher* matcher)
    : source_name_(std::move(source_name)), assume_sorted_(assume_sorted), matcher_(matcher) {}

size_t DetailsSink::StreamOf(const GpuOp& op, const StringPool& names) {
  // Consecutive kernels mostly share a stream: skip the hash lookup then.
  const StreamKey key{op.device, op.pid, op.stream};
  if (last_stream_ < totals_.streams.size() && key == last_stream_key_) return last_stream_;
  auto [it, inserted] = stream_index_.try_emplace(key, totals_.streams.size());
  last_stream_key_ = it->first;
  last_stream_ = it->second;
  if (!inserted) return it->second;
  int32_t& device = Slot(device_by_name_, op.device, names.size(), int32_t{-1});
  if (device < 0) {
    device = static_cast<int32_t>(totals_.devices.size());
    std::string name(names.Get(op.device));
    // A kern-exec trace read alone stands in for the GPU trace but names no device.
    totals_.devices.emplace_back().name = name.empty() ? "(device not in trace)" : name;
  }
  StreamTotals& stream = totals_.streams.emplace_back();
  stream.device = static_cast<size_t>(device);
  stream.stats.stream = op.stream;
  stream.stats.process = op.pid;
  NoteProcess(op.pid);
  return it->second;
}

// Counting distinct processes needs only a few: "several" is what the notes say.
void DetailsSink::NoteProcess(int32_t pid) {
  constexpr size_t kFew = 64;
  if (pid < 0 || totals_.processes.size() >= kFew) return;
  if (std::find(totals_.processes.begin(), totals_.processes.end(), pid) ==
      totals_.processes.end()) {
    totals_.processes.push_back(pid);
  }
}

size_t DetailsSink::NameOf(NameId name, const StringPool& names) {
  int32_t& index = Slot(name_index_, name, names.size(), int32_t{-1});
  if (index < 0) {
    index = static_cast<int32_t>(totals_.names.size());
    totals_.names.emplace_back().name = std::string(names.Get(name));
  }
  return static_cast<size_t>(index);
}

void DetailsSink::AddMemoryOp(const GpuOp& op, const StringPool& names) {
  ++totals_.memory_operation_count;
  MemoryOpDetails*& entry =
      Slot(memory_by_name_, op.name, names.size(), static_cast<MemoryOpDetails*>(nullptr));
  if (entry == nullptr) {
    std::string kind = MemoryKindOf(names.Get(op.name));
    entry = &totals_.memory[kind];  // map nodes are stable
    entry->kind = kind;
  }
  ++entry->count;
  entry->time_ns += op.duration_ns;
  if (op.bytes < 0) {
    ++entry->unknown_size_count;
  } else {
    entry->bytes += op.bytes;
  }
}

// Intervals arrive here in (start) order, whether streamed or replayed after sorting.
void DetailsSink::AddKernelInterval(int64_t start, int64_t end, size_t stream_index) {
  if (auto closed = kernel_union_.Add(start, end)) totals_.kernel_union_ns += closed->length();

  StreamTotals& stream = totals_.streams[stream_index];
  if (stream.stats.kernel_count > 0 && start < stream.frontier_ns) {
    ++stream.stats.overlapping_kernels;
  }
  stream.frontier_ns = stream.stats.kernel_count == 0 ? end : std::max(stream.frontier_ns, end);
  ++stream.stats.kernel_count;
  stream.stats.kernel_time_ns += end - start;
  if (auto closed = stream.union_.Add(start, end)) {
    stream.stats.kernel_union_ns += closed->length();
    stream.gaps.Add(*closed);
  }

  DeviceTotals& device = totals_.devices[stream.device];
  device.first_kernel_start_ns = device.kernel_count == 0 ? start : device.first_kernel_start_ns;
  device.last_kernel_end_ns =
      device.kernel_count == 0 ? end : std::max(device.last_kernel_end_ns, end);
  ++device.kernel_count;
  device.kernel_time_ns += end - start;
  if (auto closed = device.union_.Add(start, end)) {
    device.union_ns += closed->length();
    device.gaps.Add(*closed);
  }
}

Status DetailsSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  batch_keys_.clear();
  for (const GpuOp& op : ops) {
    int64_t end = op.end_ns();
    bool first = totals_.operation_count == 0;
    totals_.first_start_ns = first ? op.start_ns : std::min(totals_.first_start_ns, op.start_ns);
    totals_.last_end_ns = first ? end : std::max(totals_.last_end_ns, end);
    ++totals_.operation_count;
    if (op.kind != OpKind::kKernel) {
      AddMemoryOp(op, names);
      continue;
    }
    if (assume_sorted_ && !kernel_union_.InOrder(op.start_ns)) {
      // The start-order stage (start_order.h) feeds a sorted pass rows in order only.
      return ErrorAt(source_name_, op.line,
                     "internal error: a row out of start order passed the stage");
    }
    ++totals_.kernel_count;
    // Per-name and per-stream sums are parts of this one, so one check covers them all.
    if (!AddChecked(totals_.kernel_time_ns, op.duration_ns)) {
      return ErrorAt(source_name_, op.line, "summed kernel time overflows 64-bit nanoseconds");
    }
    if (op.duration_ns == 0) ++totals_.zero_duration_kernels;
    NameTotals& name = totals_.names[NameOf(op.name, names)];
    ++name.launches;
    name.total_ns += op.duration_ns;
    name.max_ns = std::max(name.max_ns, op.duration_ns);
    if (matcher_ != nullptr) batch_keys_.emplace_back(op.start_ns, op.duration_ns);

    size_t stream = StreamOf(op, names);
    if (assume_sorted_) {
      AddKernelInterval(op.start_ns, end, stream);
    } else {
      buffered_.push_back({op.start_ns, end, stream});
    }
  }
  if (matcher_ != nullptr) matcher_->AddKernels(batch_keys_);
  return Status::Ok();
}

void DetailsSink::AddLaunch(const LaunchCall& call, const StringPool& names) {
  ++totals_.launch_rows;
  totals_.api_duration.Add(call.api_duration_ns);
  if (call.queue_duration_ns >= 0) totals_.queue_time.Add(call.queue_duration_ns);
  int32_t& api = Slot(api_index_, call.api_name, names.size(), int32_t{-1});
  if (api < 0) {
    api = static_cast<int32_t>(totals_.by_api.size());
    totals_.by_api.push_back({std::string(names.Get(call.api_name)), 0});
  }
  ++totals_.by_api[static_cast<size_t>(api)].count;

  // A graph launch is one API call with one row per kernel it ran: rows of one call share
  // the call's start, duration and thread, and sit together in the sorted input.
  if (totals_.by_api[static_cast<size_t>(api)].api.find("GraphLaunch") != std::string::npos) {
    ++totals_.graph_launched_kernels;
    bool same_call = graph_seen_ && call.api_start_ns == last_graph_start_ &&
                     call.api_duration_ns == last_graph_duration_ && call.tid == last_graph_tid_;
    if (!same_call) ++totals_.graph_launch_calls;
    graph_seen_ = true;
    last_graph_start_ = call.api_start_ns;
    last_graph_duration_ = call.api_duration_ns;
    last_graph_tid_ = call.tid;
  }
  if (matcher_ != nullptr && call.kernel_start_ns >= 0) {
    batch_keys_.emplace_back(call.kernel_start_ns, call.kernel_duration_ns);
  }
}

Status DetailsSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) {
  batch_keys_.clear();
  for (const LaunchCall& call : calls) AddLaunch(call, names);
  if (matcher_ != nullptr) matcher_->AddLaunches(batch_keys_);
  return Status::Ok();
}

Status DetailsSink::OnFinish() {
  if (!buffered_.empty()) {
    std::stable_sort(buffered_.begin(), buffered_.end(), [](const Buffered& a, const Buffered& b) {
      return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    for (const Buffered& k : buffered_) AddKernelInterval(k.start, k.end, k.stream);
    buffered_ = {};
  }
  if (auto last = kernel_union_.Finish()) totals_.kernel_union_ns += last->length();
  for (StreamTotals& stream : totals_.streams) {
    if (auto last = stream.union_.Finish()) {
      stream.stats.kernel_union_ns += last->length();
      stream.gaps.Add(*last);
    }
    stream.stats.gaps = {stream.gaps.count(), stream.gaps.total(), stream.gaps.maximum()};
  }
  for (DeviceTotals& device : totals_.devices) {
    if (auto last = device.union_.Finish()) {
      device.union_ns += last->length();
      device.gaps.Add(*last);
    }
  }
  return Status::Ok();
}

}  // namespace stepstat
