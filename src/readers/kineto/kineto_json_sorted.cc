#include "readers/kineto/kineto_json_sorted.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "readers/unread_fields.h"

namespace stepstat::kineto {

// A launch call joined to one of its kernels (a graph launch has many), or to none.
struct SortedRecords::JoinedCall {
  LaunchCall call;
  uint64_t call_seq;
  uint64_t kernel_seq;
};

namespace {

constexpr size_t kBatchSize = 4096;
constexpr uint32_t kKindBits = 2;  // OpKind in the low bits of a device index

// A GPU op as parsed: times relative to the base, the device an index into the device keys.
struct OpRecord {
  int64_t start_ns;
  int64_t duration_ns;
  int64_t stream;
  int64_t bytes;
  int64_t correlation_id;
  int64_t line;
  uint64_t seq;  ///< the op's place among the file's ops
  NameId name;
  uint32_t device_and_kind;
};
static_assert(sizeof(OpRecord) == 64);

// A kernel as the launch join needs it.
struct KernelRecord {
  int64_t correlation_id;
  uint64_t seq;  ///< the op's place among the file's ops
  int64_t start_ns;
  int64_t duration_ns;
  NameId name;
  uint32_t device;
};

struct CallRecord {
  int64_t correlation_id;
  uint64_t seq;  ///< the call's place among the file's launch calls
  int64_t start_ns;
  int64_t duration_ns;
  int64_t pid;
  int64_t tid;
  int64_t line;
  NameId api_name;
  uint32_t kind = 0;  ///< CallKind; 32 bits, no padding: runs encode every byte (RunCodec)
};
static_assert(std::has_unique_object_representations_v<CallRecord>);

using JoinedCall = SortedRecords::JoinedCall;

struct RangeRecord {
  CpuRange range;
  uint64_t seq;
};

struct OpByStart {
  bool operator()(const OpRecord& a, const OpRecord& b) const {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.seq < b.seq;
  }
};
struct KernelByCorrelation {
  bool operator()(const KernelRecord& a, const KernelRecord& b) const {
    return a.correlation_id != b.correlation_id ? a.correlation_id < b.correlation_id
                                                : a.seq < b.seq;
  }
};
struct CallByCorrelation {
  bool operator()(const CallRecord& a, const CallRecord& b) const {
    return a.correlation_id != b.correlation_id ? a.correlation_id < b.correlation_id
                                                : a.seq < b.seq;
  }
};
// The order the in-memory reader emitted: calls by API start, then file order, a graph
// launch's copies in their kernels' file order.
struct JoinedByStart {
  bool operator()(const JoinedCall& a, const JoinedCall& b) const {
    if (a.call.api_start_ns != b.call.api_start_ns)
      return a.call.api_start_ns < b.call.api_start_ns;
    if (a.call_seq != b.call_seq) return a.call_seq < b.call_seq;
    return a.kernel_seq < b.kernel_seq;
  }
};
struct RangeByStart {
  bool operator()(const RangeRecord& a, const RangeRecord& b) const {
    return a.range.start_ns != b.range.start_ns ? a.range.start_ns < b.range.start_ns
                                                : a.seq < b.seq;
  }
};

// Reads a finished sorter one record at a time.
template <typename Sorter, typename T>
class Cursor {
 public:
  explicit Cursor(Sorter& sorter) : sorter_(sorter) {}
  /// The current record, or null at the end.
  Result<const T*> Peek() {
    if (next_ == batch_.size()) {
      RETURN_IF_ERROR(sorter_.NextBatch(batch_, kBatchSize));
      next_ = 0;
      if (batch_.empty()) return static_cast<const T*>(nullptr);
    }
    return &batch_[next_];
  }
  void Advance() { ++next_; }

 private:
  Sorter& sorter_;
  std::vector<T> batch_;
  size_t next_ = 0;
};

// "<deviceProperties name> (<id>)" like nsys's Device column, else "GPU <id>"; a string pid
// is its own name.
std::vector<NameId> NameDevices(const Records& records, StringPool& pool) {
  std::vector<NameId> names;
  std::string scratch;
  for (std::string_view key : records.device_keys) {
    if (key.empty()) {
      names.push_back(pool.Intern("GPU ?"));
    } else if (key.front() == '"') {
      names.push_back(pool.Intern(UnescapeJsonString(key, scratch).value_or(key)));
    } else {
      std::string id(key);
      std::optional<int64_t> number;
      if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos &&
          id.size() < 19) {
        number = std::stoll(id);
      }
      auto it = number ? records.device_names.find(*number) : records.device_names.end();
      names.push_back(pool.Intern(it != records.device_names.end() ? it->second + " (" + id + ")"
                                                                   : "GPU " + id));
    }
  }
  return names;
}

// start + duration of non-negative times, exactly.
uint64_t EndOf(int64_t start, int64_t duration) {
  return static_cast<uint64_t>(start) + static_cast<uint64_t>(duration);
}

}  // namespace

struct SortedRecords::Sorters {
  explicit Sorters(const SpillOptions& options)
      : ops(options),
        kernels(std::make_unique<KernelSorter>(options)),
        calls(std::make_unique<CallSorter>(options)),
        joined(options),
        ranges(options) {}
  using KernelSorter = SpilledSorter<KernelRecord, KernelByCorrelation>;
  using CallSorter = SpilledSorter<CallRecord, CallByCorrelation>;
  SpilledSorter<OpRecord, OpByStart> ops;
  std::unique_ptr<KernelSorter> kernels;  ///< the join's two sides, dropped once joined
  std::unique_ptr<CallSorter> calls;
  SpilledSorter<JoinedCall, JoinedByStart> joined;
  SpilledSorter<RangeRecord, RangeByStart> ranges;
  uint64_t op_count = 0;
  uint64_t call_count = 0;
  uint64_t range_count = 0;
  // The latest relative end of each kind: whether any overflows once the base is added.
  uint64_t op_end_max = 0;
  uint64_t call_end_max = 0;
  int64_t range_end_max = 0;
  // Whether the file's calls come in correlation order and in start order at once: then
  // the join's output (by correlation id) is already in start order and goes straight to
  // the sink, with no sort of its own.
  bool calls_in_order = true;
  int64_t last_call_id = std::numeric_limits<int64_t>::min();
  int64_t last_call_start = std::numeric_limits<int64_t>::min();
};

SortedRecords::SortedRecords(const SpillOptions& options, std::string_view display_name,
                             TraceFields fields)
    : sorters_(std::make_unique<Sorters>(options)),
      display_name_(display_name),
      fields_(fields),
      join_kernels_((fields.call & (TraceFields::kQueueDuration | TraceFields::kKernelStart |
                                    TraceFields::kKernelDuration | TraceFields::kKernelName |
                                    TraceFields::kCallDevice)) != 0) {}

SortedRecords::~SortedRecords() = default;

Status SortedRecords::Take(Records& records) {
  Sorters& s = *sorters_;
  for (const GpuOp& op : records.ops) {
    if (op.device >= (uint32_t{1} << (32 - kKindBits))) {
      return ErrorAt(display_name_, op.line, "too many distinct GPU \"pid\"s");
    }
    const uint64_t seq = s.op_count++;
    RETURN_IF_ERROR(s.ops.Add(OpRecord{op.start_ns, op.duration_ns, op.stream, op.bytes,
                                       op.correlation_id, op.line, seq, op.name,
                                       op.device << kKindBits | static_cast<uint32_t>(op.kind)}));
    if (join_kernels_ && op.kind == OpKind::kKernel && op.correlation_id >= 0) {
      RETURN_IF_ERROR(s.kernels->Add(
          KernelRecord{op.correlation_id, seq, op.start_ns, op.duration_ns, op.name, op.device}));
    }
    s.op_end_max = std::max(s.op_end_max, EndOf(op.start_ns, op.duration_ns));
  }
  const bool copy_calls = fields_.has(TraceFields::kCopyCalls);
  for (const LaunchCall& call : records.calls) {
    if (call.kind == CallKind::kCopy && !copy_calls) continue;  // only for a sink that asks
    s.calls_in_order = s.calls_in_order && call.correlation_id >= s.last_call_id &&
                       call.api_start_ns >= s.last_call_start;
    s.last_call_id = call.correlation_id;
    s.last_call_start = call.api_start_ns;
    RETURN_IF_ERROR(s.calls->Add(CallRecord{call.correlation_id, s.call_count++, call.api_start_ns,
                                            call.api_duration_ns, call.pid, call.tid, call.line,
                                            call.api_name, static_cast<uint32_t>(call.kind)}));
    s.call_end_max = std::max(s.call_end_max, EndOf(call.api_start_ns, call.api_duration_ns));
  }
  for (const CpuRange& range : records.ranges) {
    RETURN_IF_ERROR(s.ranges.Add(RangeRecord{range, s.range_count++}));
    s.range_end_max = std::max(s.range_end_max, range.end_ns);
  }
  records.ops.clear();
  records.calls.clear();
  records.ranges.clear();
  return Status::Ok();
}

namespace {

// The first line (in file order) of a record `offends`: a full pass, on the error path only.
template <typename Sorter, typename T, typename Offends>
Result<int64_t> FirstLineWhere(Sorter& sorter, Offends offends) {
  RETURN_IF_ERROR(sorter.Finish());
  int64_t first = std::numeric_limits<int64_t>::max();
  std::vector<T> batch;
  for (;;) {
    RETURN_IF_ERROR(sorter.NextBatch(batch, kBatchSize));
    if (batch.empty()) return first;
    for (const T& record : batch) {
      if (offends(record)) first = std::min(first, offends.line(record));
    }
  }
}

}  // namespace

Status SortedRecords::Join(const std::vector<NameId>& devices, NameId unknown_kernel, int64_t base,
                           const std::function<Status(const JoinedCall&)>& out) {
  // The launch join: both sides by correlation id; a call takes every kernel of its id (a
  // graph launch runs many kernels under one id: one call per kernel, as nsys's
  // cuda_kern_exec_trace does), held while calls of that id last.
  Sorters& s = *sorters_;
  RETURN_IF_ERROR(s.kernels->Finish());
  RETURN_IF_ERROR(s.calls->Finish());
  {
    Cursor<Sorters::KernelSorter, KernelRecord> kernels(*s.kernels);
    Cursor<Sorters::CallSorter, CallRecord> calls(*s.calls);
    std::vector<KernelRecord> group;
    std::optional<int64_t> group_id;
    for (;;) {
      ASSIGN_OR_RETURN(const CallRecord* record, calls.Peek());
      if (record == nullptr) break;
      const CallRecord c = *record;
      calls.Advance();
      if (c.correlation_id >= 0 && group_id != c.correlation_id) {
        group.clear();
        group_id = c.correlation_id;
        for (;;) {
          ASSIGN_OR_RETURN(const KernelRecord* kernel, kernels.Peek());
          if (kernel == nullptr || kernel->correlation_id > c.correlation_id) break;
          if (kernel->correlation_id == c.correlation_id) group.push_back(*kernel);
          kernels.Advance();
        }
      }
      JoinedCall joined{};
      LaunchCall& call = joined.call;
      call.api_start_ns = c.start_ns + base;
      call.api_duration_ns = c.duration_ns;
      call.pid = c.pid;
      call.tid = c.tid;
      call.correlation_id = c.correlation_id;
      call.line = c.line;
      call.api_name = c.api_name;
      call.kind = static_cast<CallKind>(c.kind);
      call.kernel_name = unknown_kernel;
      joined.call_seq = c.seq;
      if (c.correlation_id < 0 || group.empty()) {
        RETURN_IF_ERROR(out(joined));
        continue;
      }
      for (const KernelRecord& kernel : group) {
        call.kernel_start_ns = kernel.start_ns + base;
        call.kernel_duration_ns = kernel.duration_ns;
        call.kernel_name = kernel.name;
        call.device = devices[kernel.device];  // a launch belongs to its kernel's device
        const int64_t queue = call.kernel_start_ns - call.api_end_ns();
        call.queue_duration_ns = queue >= 0 ? queue : -1;
        joined.kernel_seq = kernel.seq;
        RETURN_IF_ERROR(out(joined));
      }
    }
  }
  // Both sides are spent: their memory goes back.
  s.kernels.reset();
  s.calls.reset();
  return Status::Ok();
}

Status SortedRecords::Emit(const Records& records, StringPool& pool, TraceSink& sink) {
  Sorters& s = *sorters_;
  const int64_t base = records.base_time_ns.value_or(0);
  const int64_t limit = std::numeric_limits<int64_t>::max() - base;
  const auto ulimit = static_cast<uint64_t>(limit);
  constexpr std::string_view kOverflow = "ts + dur overflows 64-bit nanoseconds";
  if (s.op_end_max > ulimit) {
    struct {
      uint64_t limit;
      bool operator()(const OpRecord& r) const { return EndOf(r.start_ns, r.duration_ns) > limit; }
      int64_t line(const OpRecord& r) const { return r.line; }
    } offends{ulimit};
    ASSIGN_OR_RETURN(int64_t line, (FirstLineWhere<decltype(s.ops), OpRecord>(s.ops, offends)));
    return ErrorAt(display_name_, line, kOverflow);
  }
  if (s.call_end_max > ulimit) {
    struct {
      uint64_t limit;
      bool operator()(const CallRecord& r) const {
        return EndOf(r.start_ns, r.duration_ns) > limit;
      }
      int64_t line(const CallRecord& r) const { return r.line; }
    } offends{ulimit};
    ASSIGN_OR_RETURN(int64_t line,
                     (FirstLineWhere<Sorters::CallSorter, CallRecord>(*s.calls, offends)));
    return ErrorAt(display_name_, line, kOverflow);
  }
  if (s.range_end_max > limit) {
    struct {
      int64_t limit;
      bool operator()(const RangeRecord& r) const { return r.range.end_ns > limit; }
      int64_t line(const RangeRecord& r) const { return r.range.line; }
    } offends{limit};
    ASSIGN_OR_RETURN(int64_t line,
                     (FirstLineWhere<decltype(s.ranges), RangeRecord>(s.ranges, offends)));
    return ErrorAt(display_name_, line, kOverflow);
  }

  const std::vector<NameId> devices = NameDevices(records, pool);
  const NameId unknown_kernel = pool.Intern("");

  if (!s.calls_in_order) {
    RETURN_IF_ERROR(Join(devices, unknown_kernel, base,
                         [&](const JoinedCall& joined) { return s.joined.Add(joined); }));
    RETURN_IF_ERROR(s.joined.Finish());
  }

  RETURN_IF_ERROR(s.ops.Finish());
  std::vector<OpRecord> op_batch;
  std::vector<GpuOp> ops;
  for (;;) {
    RETURN_IF_ERROR(s.ops.NextBatch(op_batch, kBatchSize));
    if (op_batch.empty()) break;
    ops.clear();
    for (const OpRecord& r : op_batch) {
      GpuOp op;
      op.start_ns = r.start_ns + base;
      op.duration_ns = r.duration_ns;
      op.stream = r.stream;
      op.bytes = r.bytes;
      op.correlation_id = r.correlation_id;
      op.line = r.line;
      op.name = r.name;
      op.device = devices[r.device_and_kind >> kKindBits];
      op.kind = static_cast<OpKind>(r.device_and_kind & ((1u << kKindBits) - 1));
      ops.push_back(op);
    }
    PoisonUnreadIfHooked(ops, fields_, pool);
    RETURN_IF_ERROR(sink.OnGpuOps(ops, pool));
  }

  std::vector<LaunchCall> calls;
  auto flush = [&]() {
    PoisonUnreadIfHooked(calls, fields_, pool);
    Status status = calls.empty() ? Status::Ok() : sink.OnLaunchCalls(calls, pool);
    calls.clear();
    return status;
  };
  if (s.calls_in_order) {
    RETURN_IF_ERROR(Join(devices, unknown_kernel, base, [&](const JoinedCall& joined) {
      calls.push_back(joined.call);
      return calls.size() < kBatchSize ? Status::Ok() : flush();
    }));
    RETURN_IF_ERROR(flush());
  } else {
    std::vector<JoinedCall> joined_batch;
    for (;;) {
      RETURN_IF_ERROR(s.joined.NextBatch(joined_batch, kBatchSize));
      if (joined_batch.empty()) break;
      for (const JoinedCall& joined : joined_batch) calls.push_back(joined.call);
      RETURN_IF_ERROR(flush());
    }
  }

  RETURN_IF_ERROR(s.ranges.Finish());
  std::vector<RangeRecord> range_batch;
  std::vector<CpuRange> ranges;
  for (;;) {
    RETURN_IF_ERROR(s.ranges.NextBatch(range_batch, kBatchSize));
    if (range_batch.empty()) break;
    ranges.clear();
    for (const RangeRecord& r : range_batch) {
      CpuRange range = r.range;
      range.start_ns += base;
      range.end_ns += base;
      ranges.push_back(range);
    }
    RETURN_IF_ERROR(sink.OnRanges(ranges, pool));
  }
  return Status::Ok();
}

}  // namespace stepstat::kineto
