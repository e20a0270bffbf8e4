// The CPU half of the nsys SQLite reader: kernel-launch API calls from
// CUPTI_ACTIVITY_KIND_RUNTIME, joined to kernels on correlationId and process as nsys's
// cuda_kern_exec_trace does (k.globalPid == r.globalTid & 0xFFFFFFFFFF000000).
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "readers/launch_apis.h"
#include "readers/nsys_sqlite_internal.h"
#include "readers/nsys_sqlite_sorted_scan.h"

namespace stepstat::nsys_sqlite {

// StringIds ids of launch API names → the API's display name. One scan of StringIds with a
// cheap GLOB prefilter; the runtime table is then read with `nameId IN (...)`.
Result<std::unordered_map<int64_t, NameId>> LaunchApiNameIds(ExportContext& context) {
  ASSIGN_OR_RETURN(SqliteStatement stmt,
                   context.db().Prepare("SELECT id, value FROM StringIds WHERE value GLOB "
                                        "'cu*Launch*' OR value GLOB 'cuda*Launch*'"));
  std::unordered_map<int64_t, NameId> ids;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    std::string_view name = stmt.Text(1);
    if (IsKernelLaunchApi(NormalizeCudaApiName(name)))
      ids.emplace(stmt.Int64(0), context.pool().Intern(NormalizeCudaApiName(name)));
  }
  return ids;
}

Result<std::unordered_set<std::string>> RuntimeColumns(ExportContext& context) {
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  ASSIGN_OR_RETURN(auto columns, context.db().Columns(table));
  for (const char* required : {"start", "end", "nameId"}) {
    if (!columns.contains(required)) {
      return ErrorAt(context.display_name(), 0,
                     table + " has no '" + required + "' column; is this an nsys export?");
    }
  }
  return columns;
}

Result<int64_t> ReadLaunchCalls(ExportContext& context, std::vector<KernelRef>& kernels,
                                bool kernels_have_pid, TraceSink& sink) {
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  ASSIGN_OR_RETURN(auto columns, RuntimeColumns(context));
  ASSIGN_OR_RETURN(auto launch_names, LaunchApiNameIds(context));
  if (launch_names.empty()) return int64_t{0};

  std::sort(kernels.begin(), kernels.end());
  std::string id_list;
  for (const auto& [id, name] : launch_names) {
    if (!id_list.empty()) id_list += ',';
    id_list += std::to_string(id);
  }
  ScanQuery query;
  query.columns = {"rowid",
                   "start",
                   "end",
                   ColumnOrNull(columns, "globalTid"),
                   ColumnOrNull(columns, "correlationId"),
                   "nameId"};
  query.from = "FROM " + table + " WHERE nameId IN (" + id_list + ")";
  query.key = {1, 0};  // start, rowid
  ASSIGN_OR_RETURN(SortedScan scan, SortedScan::Open(context.db(), query));
  const NameId unknown_kernel = context.pool().Intern("");
  std::vector<LaunchCall> batch;
  batch.reserve(kBatchSize);
  int64_t rows = 0;
  auto emit = [&](const LaunchCall& call) -> Status {
    batch.push_back(call);
    if (batch.size() < kBatchSize) return Status::Ok();
    Status status = sink.OnLaunchCalls(batch, context.pool());
    batch.clear();
    return status;
  };
  for (;;) {
    ASSIGN_OR_RETURN(bool has_row, scan.Step());
    if (!has_row) break;
    const IntRow& row = scan.row();
    ++rows;
    LaunchCall call;
    call.line = row.Int64(0);
    std::optional<int64_t> start = row.OptionalInt64(1);
    std::optional<int64_t> end = row.OptionalInt64(2);
    if (!start || !end) return context.RowError(table, call.line, "start or end is not an integer");
    if (*start < 0) return context.RowError(table, call.line, "negative start");
    if (*end < *start) return context.RowError(table, call.line, "end before start");
    call.api_start_ns = *start;
    call.api_duration_ns = *end - *start;
    std::optional<int64_t> global_tid = row.OptionalInt64(3);
    std::optional<int64_t> correlation = row.OptionalInt64(4);
    if (global_tid) {
      call.pid = (*global_tid >> 24) & 0xFFFFFF;
      call.tid = *global_tid & 0xFFFFFF;
    }
    call.correlation_id = correlation.value_or(-1);
    call.api_name = launch_names.at(row.Int64(5));
    call.kernel_name = unknown_kernel;

    // A graph launch runs many kernels under one correlation id: one call per kernel, as in
    // cuda_kern_exec_trace. SQL's NULL never joins, so neither do missing ids here.
    if (correlation && (global_tid || !kernels_have_pid)) {
      KernelRef key;
      key.pid_key = kernels_have_pid
                        ? static_cast<int64_t>(static_cast<uint64_t>(*global_tid) & kGlobalPidMask)
                        : 0;
      key.correlation_id = *correlation;
      key.start_ns = INT64_MIN;
      auto group = std::lower_bound(kernels.begin(), kernels.end(), key);
      auto in_group = [&](auto it) {
        return it != kernels.end() && it->pid_key == key.pid_key &&
               it->correlation_id == key.correlation_id;
      };
      // Older exports record a launch under two names (cudaLaunchKernel and
      // cudaLaunchKernel_v7000) with one correlation id: one launch, kept at its earliest row.
      if (in_group(group) && group->joined) continue;
      for (auto it = group; in_group(it); ++it) {
        it->joined = true;
        LaunchCall joined_call = call;
        joined_call.kernel_start_ns = it->start_ns;
        joined_call.kernel_duration_ns = it->duration_ns;
        joined_call.kernel_name = it->name;
        joined_call.device = it->device;  // a launch belongs to its kernel's device
        // nsys reports no queue time when the kernel starts before the call returns.
        int64_t queue = it->start_ns - *end;
        joined_call.queue_duration_ns = queue >= 0 ? queue : -1;
        RETURN_IF_ERROR(emit(joined_call));
      }
    }
    // cuda_kern_exec_trace is an inner join: a call whose kernel was not captured is not a
    // launch interval there, so it is not one here either (CSV and SQLite must agree).
  }
  if (!batch.empty()) RETURN_IF_ERROR(sink.OnLaunchCalls(batch, context.pool()));
  return rows;
}

}  // namespace stepstat::nsys_sqlite
