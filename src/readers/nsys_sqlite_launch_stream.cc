// Launch calls joined to their kernels without holding every kernel (ReadLaunchCalls keeps a
// record per kernel for its join): per process, runtime calls and kernels are each read in
// one ORDER BY correlationId scan and merge-joined; the processes' joined streams are merged
// by API start. Correlation ids are handed out as calls enter the API, so within a process
// correlation order is start order but for threads racing into the API at the same moment; a
// small reorder window absorbs those. Past the window calls arrive unsorted and the sink
// takes its unsorted path: slower, never wrong.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "readers/nsys_sqlite_internal.h"

namespace stepstat::nsys_sqlite {
namespace {

constexpr size_t kReorderWindow = 1 << 14;  // LaunchCalls (~90 bytes each)
constexpr size_t kMaxProcessStreams = 64;   // past this, one stream in (process, id) order

// What the join keeps of one kernel.
struct KernelRow {
  int64_t pid_key = 0;
  int64_t correlation_id = 0;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  NameId name = 0;
};

// The merge join of one process's calls and kernels (or of all processes, in (process, id)
// order): yields one LaunchCall per (call, kernel) pair, as ReadLaunchCalls does.
class ProcessJoin {
 public:
  ProcessJoin(ExportContext& context, SqliteStatement calls, SqliteStatement kernels,
              const std::unordered_map<int64_t, NameId>& api_names)
      : context_(context),
        calls_(std::move(calls)),
        kernels_(std::move(kernels)),
        api_names_(api_names) {}

  /// Moves to the next joined call; false at the end.
  Result<bool> Advance() {
    for (;;) {
      if (group_index_ < group_.size()) {
        const KernelRow& kernel = group_[group_index_++];
        next_ = call_;
        next_.kernel_start_ns = kernel.start_ns;
        next_.kernel_duration_ns = kernel.duration_ns;
        next_.kernel_name = kernel.name;
        // nsys reports no queue time when the kernel starts before the call returns.
        int64_t queue = kernel.start_ns - call_.api_end_ns();
        next_.queue_duration_ns = queue >= 0 ? queue : -1;
        return true;
      }
      ASSIGN_OR_RETURN(bool has_call, calls_.Step());
      if (!has_call) return false;
      ++rows_;
      RETURN_IF_ERROR(ReadCall());
      // Older exports record a launch under two names (cudaLaunchKernel and
      // cudaLaunchKernel_v7000) with one correlation id: one launch, kept at its earliest row.
      if (have_previous_ && call_pid_key_ == previous_pid_key_ &&
          call_.correlation_id == previous_correlation_) {
        continue;
      }
      have_previous_ = true;
      previous_pid_key_ = call_pid_key_;
      previous_correlation_ = call_.correlation_id;
      RETURN_IF_ERROR(LoadGroup(call_pid_key_, call_.correlation_id));
      group_index_ = 0;
    }
  }

  const LaunchCall& next() const { return next_; }
  int64_t rows() const { return rows_; }

 private:
  // Columns: rowid, start, end, globalTid, correlationId, nameId, pid key.
  Status ReadCall() {
    static const std::string kTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
    LaunchCall call;
    call.line = calls_.Int64(0);
    std::optional<int64_t> start = calls_.OptionalInt64(1);
    std::optional<int64_t> end = calls_.OptionalInt64(2);
    if (!start || !end)
      return context_.RowError(kTable, call.line, "start or end is not an integer");
    if (*start < 0) return context_.RowError(kTable, call.line, "negative start");
    if (*end < *start) return context_.RowError(kTable, call.line, "end before start");
    call.api_start_ns = *start;
    call.api_duration_ns = *end - *start;
    if (std::optional<int64_t> global_tid = calls_.OptionalInt64(3)) {
      call.pid = (*global_tid >> 24) & 0xFFFFFF;
      call.tid = *global_tid & 0xFFFFFF;
    }
    call.correlation_id = calls_.Int64(4);  // the WHERE clause leaves out NULL ids
    call.api_name = api_names_.at(calls_.Int64(5));
    call_pid_key_ = calls_.Int64(6);
    call_ = call;
    return Status::Ok();
  }

  // Kernels of (pid_key, correlation_id); the previous group again for a repeated id.
  Status LoadGroup(int64_t pid_key, int64_t correlation_id) {
    if (group_loaded_ && group_pid_key_ == pid_key && group_correlation_ == correlation_id) {
      return Status::Ok();
    }
    group_.clear();
    group_loaded_ = true;
    group_pid_key_ = pid_key;
    group_correlation_ = correlation_id;
    auto before = [&](const KernelRow& k) {
      return k.pid_key < pid_key || (k.pid_key == pid_key && k.correlation_id < correlation_id);
    };
    for (;;) {
      if (!kernel_ready_) {
        ASSIGN_OR_RETURN(kernel_ready_, ReadKernel());
        if (!kernel_ready_) return Status::Ok();
      }
      if (before(kernel_)) {
        kernel_ready_ = false;  // a kernel no call launched (or one launched before the capture)
        continue;
      }
      if (kernel_.pid_key != pid_key || kernel_.correlation_id != correlation_id) {
        return Status::Ok();
      }
      ASSIGN_OR_RETURN(kernel_.name, KernelName());
      group_.push_back(kernel_);
      kernel_ready_ = false;
    }
  }

  // Columns: rowid, correlationId, start, end, demangledName, shortName, pid key.
  Result<bool> ReadKernel() {
    ASSIGN_OR_RETURN(bool row, kernels_.Step());
    if (!row) return false;
    kernel_.correlation_id = kernels_.Int64(1);
    std::optional<int64_t> start = kernels_.OptionalInt64(2);
    std::optional<int64_t> end = kernels_.OptionalInt64(3);
    if (!start || !end || *end < *start) {  // the GPU side reports this row's error
      return context_.RowError("CUPTI_ACTIVITY_KIND_KERNEL", kernels_.Int64(0),
                               "start or end is not an integer, or end before start");
    }
    kernel_.start_ns = *start;
    kernel_.duration_ns = *end - *start;
    kernel_.pid_key = kernels_.Int64(6);
    return true;
  }

  // demangledName (what cuda_gpu_trace prints by default), else shortName.
  Result<NameId> KernelName() {
    for (int column : {4, 5}) {
      std::optional<int64_t> string_id = kernels_.OptionalInt64(column);
      if (!string_id) continue;
      ASSIGN_OR_RETURN(std::optional<NameId> name, context_.ResolveString(*string_id));
      if (name) return *name;
    }
    return context_.RowError("CUPTI_ACTIVITY_KIND_KERNEL", kernels_.Int64(0),
                             "kernel name id not found in StringIds");
  }

  ExportContext& context_;
  SqliteStatement calls_;
  SqliteStatement kernels_;
  const std::unordered_map<int64_t, NameId>& api_names_;
  LaunchCall call_;
  int64_t call_pid_key_ = 0;
  KernelRow kernel_;
  bool kernel_ready_ = false;
  std::vector<KernelRow> group_;
  size_t group_index_ = 0;
  bool group_loaded_ = false;
  int64_t group_pid_key_ = 0;
  int64_t group_correlation_ = 0;
  LaunchCall next_;
  int64_t rows_ = 0;
  bool have_previous_ = false;
  int64_t previous_pid_key_ = 0;
  int64_t previous_correlation_ = 0;
};

// Process keys of the kernels (globalPid, or 0 without that column), when there are few.
Result<std::vector<int64_t>> ProcessKeys(ExportContext& context, bool kernels_have_pid) {
  if (!kernels_have_pid) return std::vector<int64_t>{0};
  ASSIGN_OR_RETURN(SqliteStatement stmt,
                   context.db().Prepare("SELECT DISTINCT IFNULL(globalPid, 0) FROM "
                                        "CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId IS NOT "
                                        "NULL LIMIT " +
                                        std::to_string(kMaxProcessStreams + 1)));
  std::vector<int64_t> keys;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    keys.push_back(stmt.Int64(0));
  }
  if (keys.size() > kMaxProcessStreams) keys.clear();  // one stream for all
  return keys;
}

// Orders the heap's top as the earliest API start, then the earliest arrival.
struct Pending {
  LaunchCall call;
  uint64_t sequence;
  bool operator>(const Pending& other) const {
    if (call.api_start_ns != other.call.api_start_ns)
      return call.api_start_ns > other.call.api_start_ns;
    return sequence > other.sequence;
  }
};

}  // namespace

Result<int64_t> StreamLaunchCalls(ExportContext& context, bool kernels_have_pid, TraceSink& sink) {
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  ASSIGN_OR_RETURN(auto columns, RuntimeColumns(context));
  ASSIGN_OR_RETURN(auto launch_names, LaunchApiNameIds(context));
  if (launch_names.empty() || !context.HasTable("CUPTI_ACTIVITY_KIND_KERNEL")) return int64_t{0};
  ASSIGN_OR_RETURN(auto kernel_columns, context.db().Columns("CUPTI_ACTIVITY_KIND_KERNEL"));
  for (const char* required : {"start", "end", "correlationId"}) {
    if (!kernel_columns.contains(required)) return int64_t{0};  // nothing can join
  }
  std::string id_list;
  for (const auto& [id, name] : launch_names) {
    if (!id_list.empty()) id_list += ',';
    id_list += std::to_string(id);
  }
  const std::string global_tid = ColumnOrNull(columns, "globalTid");
  const std::string correlation = ColumnOrNull(columns, "correlationId");
  // SQL's NULL never joins, so calls without an id (or without a thread, when kernels say
  // which process they belong to) are left out, as in ReadLaunchCalls.
  const std::string call_pid_key =
      kernels_have_pid
          ? "(" + global_tid + " & " + std::to_string(static_cast<int64_t>(kGlobalPidMask)) + ")"
          : std::string("0");
  const std::string kernel_pid_key = kernels_have_pid ? "IFNULL(globalPid, 0)" : "0";
  std::string call_filter = " WHERE nameId IN (" + id_list + ") AND " + correlation +
                            " IS NOT NULL" +
                            (kernels_have_pid ? " AND " + global_tid + " IS NOT NULL" : "");
  const std::string kernel_names = ColumnOrNull(kernel_columns, "demangledName") + ", " +
                                   ColumnOrNull(kernel_columns, "shortName");

  ASSIGN_OR_RETURN(std::vector<int64_t> processes, ProcessKeys(context, kernels_have_pid));
  bool one_stream = processes.empty();
  if (one_stream) processes.push_back(0);
  std::vector<ProcessJoin> joins;
  joins.reserve(processes.size());
  for (int64_t process : processes) {
    std::string call_sql = "SELECT rowid, start, end, ";
    call_sql += global_tid;
    call_sql += ", ";
    call_sql += correlation;
    call_sql += ", nameId, ";
    call_sql += call_pid_key;
    call_sql += " FROM ";
    call_sql += table;
    call_sql += call_filter;
    std::string kernel_sql = "SELECT rowid, correlationId, start, end, ";
    kernel_sql += kernel_names;
    kernel_sql += ", ";
    kernel_sql += kernel_pid_key;
    kernel_sql += " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId IS NOT NULL";
    if (!one_stream && kernels_have_pid) {
      const std::string key = std::to_string(process);
      call_sql += " AND ";
      call_sql += call_pid_key;
      call_sql += " = ";
      call_sql += key;
      kernel_sql += " AND ";
      kernel_sql += kernel_pid_key;
      kernel_sql += " = ";
      kernel_sql += key;
    }
    call_sql += " ORDER BY 7, 5, 2, rowid";    // process, correlation id, start
    kernel_sql += " ORDER BY 7, 2, 3, rowid";  // process, correlation id, start
    ASSIGN_OR_RETURN(SqliteStatement calls, context.db().Prepare(call_sql));
    ASSIGN_OR_RETURN(SqliteStatement kernels, context.db().Prepare(kernel_sql));
    joins.emplace_back(context, std::move(calls), std::move(kernels), launch_names);
  }

  std::vector<bool> live(joins.size());
  for (size_t i = 0; i < joins.size(); ++i) {
    ASSIGN_OR_RETURN(bool has, joins[i].Advance());
    live[i] = has;
  }
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> window;
  std::vector<LaunchCall> batch;
  batch.reserve(kBatchSize);
  auto emit = [&](const LaunchCall& call) -> Status {
    batch.push_back(call);
    if (batch.size() < kBatchSize) return Status::Ok();
    Status status = sink.OnLaunchCalls(batch, context.pool());
    batch.clear();
    return status;
  };
  uint64_t sequence = 0;
  for (;;) {
    // A handful of processes: a linear pick of the earliest head beats a heap.
    ProcessJoin* earliest = nullptr;
    size_t earliest_index = 0;
    for (size_t i = 0; i < joins.size(); ++i) {
      if (live[i] &&
          (earliest == nullptr || joins[i].next().api_start_ns < earliest->next().api_start_ns)) {
        earliest = &joins[i];
        earliest_index = i;
      }
    }
    if (earliest == nullptr) break;
    window.push({earliest->next(), sequence++});
    if (window.size() > kReorderWindow) {
      RETURN_IF_ERROR(emit(window.top().call));
      window.pop();
    }
    ASSIGN_OR_RETURN(bool has, earliest->Advance());
    live[earliest_index] = has;
  }
  while (!window.empty()) {
    RETURN_IF_ERROR(emit(window.top().call));
    window.pop();
  }
  if (!batch.empty()) RETURN_IF_ERROR(sink.OnLaunchCalls(batch, context.pool()));
  int64_t rows = 0;
  for (const ProcessJoin& join : joins) rows += join.rows();
  return rows;
}

}  // namespace stepstat::nsys_sqlite
