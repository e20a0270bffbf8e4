// Launch calls joined to their kernels on correlationId and process, as nsys's
// cuda_kern_exec_trace does (k.globalPid == r.globalTid & 0xFFFFFFFFFF000000), without holding
// every kernel (a record per kernel grew with the trace): per process, runtime calls and
// kernels are each read in correlationId order (a SortedScan: storage order, without SQLite's
// sorter, when the table allows, as nsys writes it) and merge-joined; the processes' joined streams
// are merged by API start. Correlation ids are handed out as calls enter the API, so within a
// process correlation order is start order but for threads racing into the API at the same moment;
// a small reorder window absorbs those (a NearlySortedQueue: the in-order majority costs O(1)).
// Past the window calls arrive unsorted and the sink takes its unsorted path: slower, never
// wrong.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "readers/nearly_sorted_queue.h"
#include "readers/sqlite/nsys_sqlite_internal.h"
#include "readers/sqlite/nsys_sqlite_page_scan.h"
#include "readers/sqlite/nsys_sqlite_reader_queries.h"
#include "readers/sqlite/nsys_sqlite_sorted_scan.h"

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
  NameId device = 0;
};

// The merge join of one process's calls and kernels (or of all processes, in (process, id)
// order): yields one LaunchCall per (call, kernel) pair: a graph launch runs many kernels
// under one correlation id.
class ProcessJoin {
 public:
  ProcessJoin(ExportContext& context, SortedScan calls, SortedScan kernels,
              const std::unordered_map<int64_t, NameId>& api_names,
              const std::unordered_set<int64_t>& copy_api_ids, DeviceNames& devices)
      : context_(context),
        calls_(std::move(calls)),
        kernels_(std::move(kernels)),
        api_names_(api_names),
        copy_api_ids_(copy_api_ids),
        devices_(devices) {}

  /// Moves to the next joined call; false at the end.
  Result<bool> Advance() {
    for (;;) {
      if (group_index_ < group_.size()) {
        const KernelRow& kernel = group_[group_index_++];
        next_ = call_;
        next_.kernel_start_ns = kernel.start_ns;
        next_.kernel_duration_ns = kernel.duration_ns;
        next_.kernel_name = kernel.name;
        next_.device = kernel.device;  // a launch belongs to its kernel's device
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
      if (call_.kind == CallKind::kCopy) {  // its operation is no kernel: nothing to join
        next_ = call_;                      // group_ stays spent: group_index_ is at its end
        return true;
      }
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
    const IntRow& row = calls_.row();
    LaunchCall call;
    call.line = row.Int64(0);
    std::optional<int64_t> start = row.OptionalInt64(1);
    std::optional<int64_t> end = row.OptionalInt64(2);
    if (!start || !end)
      return context_.RowError(kTable, call.line, "start or end is not an integer");
    if (*start < 0) return context_.RowError(kTable, call.line, "negative start");
    if (*end < *start) return context_.RowError(kTable, call.line, "end before start");
    call.api_start_ns = *start;
    call.api_duration_ns = *end - *start;
    if (std::optional<int64_t> global_tid = row.OptionalInt64(3)) {
      call.pid = (*global_tid >> 24) & 0xFFFFFF;
      call.tid = *global_tid & 0xFFFFFF;
    }
    call.correlation_id = row.Int64(4);  // the WHERE clause leaves out NULL ids
    call.api_name = api_names_.at(row.Int64(5));
    if (copy_api_ids_.contains(row.Int64(5))) call.kind = CallKind::kCopy;
    call_pid_key_ = row.Int64(6);
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

  // Columns: rowid, correlationId, start, end, demangledName, shortName, pid key, deviceId.
  Result<bool> ReadKernel() {
    ASSIGN_OR_RETURN(bool has_row, kernels_.Step());
    if (!has_row) return false;
    const IntRow& row = kernels_.row();
    kernel_.correlation_id = row.Int64(1);
    std::optional<int64_t> start = row.OptionalInt64(2);
    std::optional<int64_t> end = row.OptionalInt64(3);
    if (!start || !end || *end < *start) {  // the GPU side reports this row's error
      return context_.RowError("CUPTI_ACTIVITY_KIND_KERNEL", row.Int64(0),
                               "start or end is not an integer, or end before start");
    }
    kernel_.start_ns = *start;
    kernel_.duration_ns = *end - *start;
    kernel_.pid_key = row.Int64(6);
    kernel_.device = devices_.Get(row.OptionalInt64(7).value_or(0), context_.pool());
    return true;
  }

  // demangledName (what cuda_gpu_trace prints by default), else shortName.
  Result<NameId> KernelName() {
    for (int column : {4, 5}) {
      std::optional<int64_t> string_id = kernels_.row().OptionalInt64(column);
      if (!string_id) continue;
      ASSIGN_OR_RETURN(std::optional<NameId> name, context_.ResolveString(*string_id));
      if (name) return *name;
    }
    return context_.RowError("CUPTI_ACTIVITY_KIND_KERNEL", kernels_.row().Int64(0),
                             "kernel name id not found in StringIds");
  }

  ExportContext& context_;
  SortedScan calls_;
  SortedScan kernels_;
  const std::unordered_map<int64_t, NameId>& api_names_;
  const std::unordered_set<int64_t>& copy_api_ids_;  // of api_names_' keys, the copy APIs
  DeviceNames& devices_;  // shared by the joins of one read, all on its thread
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

// The process keys of the kernels (globalPid, or 0 without that column), when there are
// few, and whether the kernels as stored come in (process, correlation id, start, rowid)
// order: one scan that, for the usual export of one process, is also the check a SortedScan
// of its kernels would make.
struct KernelSurvey {
  std::vector<int64_t> processes;  ///< empty: none, or more than kMaxProcessStreams
  bool sorted = true;              ///< keys all integers and never decreasing
};

Result<KernelSurvey> SurveyKernels(ExportContext& context, const std::string& kernel_pid_key) {
  const std::string from = " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId IS NOT NULL";
  // One aggregate pass answers for the usual export: one process, kernels in order.
  ASSIGN_OR_RETURN(SqliteStatement stmt,
                   context.db().Prepare("SELECT stepstat_key_order(" + kernel_pid_key +
                                        ", correlationId, start, rowid), min(" + kernel_pid_key +
                                        "), max(" + kernel_pid_key + ")" + from));
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  KernelSurvey survey;
  if (!row || stmt.IsNull(1)) return survey;  // no kernel with a correlation id
  survey.sorted = stmt.Int64(0) == 0;
  if (stmt.Int64(1) == stmt.Int64(2)) {
    survey.processes.push_back(stmt.Int64(1));
    return survey;
  }
  // Several processes: the first kMaxProcessStreams + 1 of them, without SQL's DISTINCT
  // (an index probe per row).
  ASSIGN_OR_RETURN(SqliteStatement keys, context.db().Prepare("SELECT " + kernel_pid_key + from));
  int64_t previous = 0;
  bool first = true;
  for (;;) {
    ASSIGN_OR_RETURN(bool has_key, keys.Step());
    if (!has_key) break;
    const int64_t key = keys.Int64(0);
    if (!first && key == previous) continue;
    first = false;
    previous = key;
    if (std::find(survey.processes.begin(), survey.processes.end(), key) !=
        survey.processes.end()) {
      continue;
    }
    survey.processes.push_back(key);
    if (survey.processes.size() > kMaxProcessStreams) return KernelSurvey{{}, false};
  }
  return survey;
}

// SurveyKernels read from the kernel table's pages, over every row of the kernel scan of
// all processes (`kernels`): so a clean pass also shows that the pages give each of those
// rows, and that scan may read them too (`pages_give_every_row`). nullopt when the pages
// cannot tell (no page reader, a declined row, a key that is not an integer, any error): the
// SQL survey then runs, as before.
std::optional<KernelSurvey> SurveyKernelsByPages(const SqliteDb& db, const ScanQuery& kernels) {
  Result<std::unique_ptr<PageScan>> opened = PageScan::Open(db, kernels);
  if (!opened.ok() || *opened == nullptr) return std::nullopt;
  PageScan& pages = **opened;
  uint32_t key_bits = 0;
  for (int column : kernels.key) key_bits |= 1U << column;
  IntRowBatch batch;
  batch.capacity = kStepBatchRows;
  batch.rows.reserve(kStepBatchRows);
  KernelSurvey survey;
  std::array<int64_t, 4> previous{};
  bool have_previous = false, too_many = false;
  for (bool more = true; more;) {
    batch.rows.clear();
    Result<bool> filled = pages.Fill(batch);
    if (!filled.ok()) return std::nullopt;
    more = *filled;
    for (const IntRow& row : batch.rows) {
      if ((row.integers & key_bits) != key_bits) return std::nullopt;
      std::array<int64_t, 4> key{};
      for (size_t i = 0; i < kernels.key.size() && i < key.size(); ++i) {
        key[i] = row.values[kernels.key[i]];
      }
      if (have_previous && key < previous) survey.sorted = false;
      previous = key, have_previous = true;
      const int64_t process = row.values[kLaunchJoinPidKey];
      if (!too_many && std::find(survey.processes.begin(), survey.processes.end(), process) ==
                           survey.processes.end()) {
        survey.processes.push_back(process);
        too_many = survey.processes.size() > kMaxProcessStreams;
      }
    }
  }
  // As the SQL survey: past kMaxProcessStreams, one stream in (process, id) order.
  if (too_many) return KernelSurvey{{}, false};
  return survey;
}

// Orders calls by API start, then by arrival.
struct Pending {
  LaunchCall call;
  uint64_t sequence;
};
struct PendingBefore {
  bool operator()(const Pending& a, const Pending& b) const {
    if (a.call.api_start_ns != b.call.api_start_ns)
      return a.call.api_start_ns < b.call.api_start_ns;
    return a.sequence < b.sequence;
  }
};

}  // namespace

LaunchJoinQueries LaunchJoinScanQueries(const std::unordered_set<std::string>& runtime_columns,
                                        const std::unordered_set<std::string>& kernel_columns,
                                        const std::unordered_map<int64_t, NameId>& launch_name_ids,
                                        bool kernels_have_pid, std::optional<int64_t> process) {
  using Operand = ScanOperand;
  using Term = ScanFilterTerm;
  std::vector<int64_t> ids;
  ids.reserve(launch_name_ids.size());
  for (const auto& [id, name] : launch_name_ids) ids.push_back(id);
  const Operand global_tid = Operand::ColumnIfPresent(runtime_columns, "globalTid");
  const Operand correlation = Operand::ColumnIfPresent(runtime_columns, "correlationId");
  // The process of a call: its thread's GlobalId masked (NULL without a thread column).
  const Operand call_pid_key =
      !kernels_have_pid ? Operand::Constant(0)
      : global_tid.kind == Operand::Kind::kColumn
          ? Operand::ColumnAnd(global_tid.column, static_cast<int64_t>(kGlobalPidMask))
          : Operand::Null();
  const Operand kernel_pid_key =
      kernels_have_pid ? Operand::ColumnOr("globalPid", 0) : Operand::Constant(0);
  LaunchJoinQueries queries;
  ScanQuery& calls = queries.calls;
  calls.table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  calls.columns = {Operand::Rowid(),
                   Operand::Column("start"),
                   Operand::Column("end"),
                   global_tid,
                   correlation,
                   Operand::Column("nameId"),
                   call_pid_key};
  // SQL's NULL never joins, so calls without an id (or without a thread, when kernels say
  // which process they belong to) are left out: nsys's report is an inner join.
  calls.where = {Term::In(Operand::Column("nameId"), std::move(ids)), Term::IsNotNull(correlation)};
  if (kernels_have_pid) calls.where.push_back(Term::IsNotNull(global_tid));
  calls.key = {kLaunchJoinPidKey, 4, 1, 0};  // process, correlation id, start, rowid
  ScanQuery& kernels = queries.kernels;
  kernels.table = "CUPTI_ACTIVITY_KIND_KERNEL";
  kernels.columns = {Operand::Rowid(),
                     Operand::Column("correlationId"),
                     Operand::Column("start"),
                     Operand::Column("end"),
                     Operand::ColumnIfPresent(kernel_columns, "demangledName"),
                     Operand::ColumnIfPresent(kernel_columns, "shortName"),
                     kernel_pid_key,
                     Operand::ColumnIfPresent(kernel_columns, "deviceId")};
  kernels.where = {Term::IsNotNull(Operand::Column("correlationId"))};
  kernels.key = {kLaunchJoinPidKey, 1, 2, 0};  // process, correlation id, start, rowid
  if (process) {
    calls.where.push_back(Term::Equals(call_pid_key, *process));
    kernels.where.push_back(Term::Equals(kernel_pid_key, *process));
  }
  return queries;
}

Result<int64_t> StreamLaunchCalls(ExportContext& context, bool kernels_have_pid, TraceSink& sink) {
  ASSIGN_OR_RETURN(auto columns, RuntimeColumns(context));
  ASSIGN_OR_RETURN(auto launch_names, LaunchApiNameIds(context));
  if (launch_names.empty() || !context.HasTable("CUPTI_ACTIVITY_KIND_KERNEL")) return int64_t{0};
  std::unordered_set<int64_t> copy_api_ids;
  if (sink.reads().has(TraceFields::kCopyCalls)) {
    ASSIGN_OR_RETURN(auto copy_names, CopyApiNameIds(context));
    for (const auto& [id, name] : copy_names) {
      copy_api_ids.insert(id);
      launch_names.emplace(id, name);
    }
  }
  ASSIGN_OR_RETURN(auto kernel_columns, context.db().Columns("CUPTI_ACTIVITY_KIND_KERNEL"));
  for (const char* required : {"start", "end", "correlationId"}) {
    if (!kernel_columns.contains(required)) return int64_t{0};  // nothing can join
  }
  const LaunchJoinQueries all_processes =
      LaunchJoinScanQueries(columns, kernel_columns, launch_names, kernels_have_pid, std::nullopt);
  const std::string kernel_pid_key = OperandSql(all_processes.kernels.columns[kLaunchJoinPidKey]);
  // Read as stored: no survey, all processes as one stream in (process, id) order, as nsys
  // writes an export of one process. A file where that order is too far from the storage
  // order fails the read, and the caller reads it again checked (TableScan).
  const bool as_stored = context.scan() == TableScan::kAsStored;
  KernelSurvey survey;
  bool kernels_by_pages = false;  // the survey read every kernel row from the pages
  if (!as_stored) {
    if (std::optional<KernelSurvey> by_pages =
            SurveyKernelsByPages(context.db(), all_processes.kernels)) {
      survey = std::move(*by_pages);
      kernels_by_pages = true;
    } else {
      ASSIGN_OR_RETURN(survey, SurveyKernels(context, kernel_pid_key));
    }
  }
  std::vector<int64_t>& processes = survey.processes;
  bool one_stream = processes.empty();
  if (one_stream) processes.push_back(0);
  // One process: the survey saw exactly the rows its kernel scan reads, in that order.
  std::optional<ScanOrder> kernel_order;
  std::optional<ScanOrder> call_order;
  if (processes.size() == 1 && survey.sorted) kernel_order = ScanOrder::kStorage;
  if (as_stored) kernel_order = call_order = ScanOrder::kAsStored;
  // The windows of all processes together hold what one would.
  const size_t window_rows = std::max<size_t>(kDefaultWindowRows / processes.size(), 1024);
  DeviceNames devices;
  RETURN_IF_ERROR(devices.Load(context));
  std::vector<ProcessJoin> joins;
  joins.reserve(processes.size());
  for (int64_t process : processes) {
    LaunchJoinQueries queries = all_processes;
    if (!one_stream && kernels_have_pid) {
      queries =
          LaunchJoinScanQueries(columns, kernel_columns, launch_names, kernels_have_pid, process);
    }
    const ScanQuery& calls = queries.calls;
    const ScanQuery& kernels = queries.kernels;
    ASSIGN_OR_RETURN(SortedScan call_scan,
                     SortedScan::Open(context.db(), calls, window_rows, call_order));
    // One stream: the scan reads exactly the rows the page survey read.
    const bool pages_give_every_row =
        kernels_by_pages && processes.size() == 1 && kernel_order == ScanOrder::kStorage;
    ASSIGN_OR_RETURN(SortedScan kernel_scan, SortedScan::Open(context.db(), kernels, window_rows,
                                                              kernel_order, pages_give_every_row));
    joins.emplace_back(context, std::move(call_scan), std::move(kernel_scan), launch_names,
                       copy_api_ids, devices);
  }

  std::vector<bool> live(joins.size());
  for (size_t i = 0; i < joins.size(); ++i) {
    ASSIGN_OR_RETURN(bool has, joins[i].Advance());
    live[i] = has;
  }
  NearlySortedQueue<Pending, PendingBefore> window;
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
    window.Push({earliest->next(), sequence++});
    if (window.size() > kReorderWindow) {
      RETURN_IF_ERROR(emit(window.Top().call));
      window.Pop();
    }
    ASSIGN_OR_RETURN(bool has, earliest->Advance());
    live[earliest_index] = has;
  }
  while (!window.empty()) {
    RETURN_IF_ERROR(emit(window.Top().call));
    window.Pop();
  }
  if (!batch.empty()) RETURN_IF_ERROR(sink.OnLaunchCalls(batch, context.pool()));
  int64_t rows = 0;
  for (const ProcessJoin& join : joins) rows += join.rows();
  return rows;
}

}  // namespace stepstat::nsys_sqlite
