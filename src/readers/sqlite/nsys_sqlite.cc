#include "readers/sqlite/nsys_sqlite.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "readers/sqlite/nsys_sqlite_db.h"
#include "readers/sqlite/nsys_sqlite_internal.h"

namespace stepstat {
namespace nsys_sqlite {

Status ExportContext::Init() {
  ASSIGN_OR_RETURN(tables_, db_.TableNames());
  return Status::Ok();
}

Result<std::optional<NameId>> ExportContext::ResolveString(int64_t id) {
  if (auto it = string_cache_.find(id); it != string_cache_.end()) return {it->second};
  if (!string_lookup_) {
    ASSIGN_OR_RETURN(SqliteStatement stmt,
                     db_.Prepare("SELECT value FROM StringIds WHERE id = ?1"));
    string_lookup_.emplace(std::move(stmt));
  }
  SqliteStatement& lookup = *string_lookup_;
  lookup.Reset();
  RETURN_IF_ERROR(lookup.BindInt64(1, id));
  ASSIGN_OR_RETURN(bool found, lookup.Step());
  if (!found) return std::optional<NameId>();
  NameId name = pool_.Intern(lookup.Text(0));
  lookup.Reset();
  string_cache_.emplace(id, name);
  return {name};
}

Status ExportContext::RowError(std::string_view table, int64_t rowid, std::string_view what) const {
  std::string message(table);
  message += " row ";
  message += std::to_string(rowid);
  message += ": ";
  message += what;
  return ErrorAt(display_name(), 0, message);
}

std::string ColumnOrNull(const std::unordered_set<std::string>& columns, std::string_view column) {
  if (columns.contains(std::string(column))) return std::string(column);
  return "NULL";
}

namespace {

// "nsys 2024.5.1.113, schema 3.13.2" from META_DATA_EXPORT when the export has it.
Result<std::string> DescribeLayout(ExportContext& context) {
  if (!context.HasTable("META_DATA_EXPORT"))
    return std::string("nsys export (no META_DATA_EXPORT)");
  ASSIGN_OR_RETURN(SqliteStatement stmt,
                   context.db().Prepare("SELECT name, value FROM META_DATA_EXPORT WHERE name IN "
                                        "('EXPORT_PRODUCT_VERSION', 'EXPORT_SCHEMA_VERSION')"));
  std::string product;
  std::string schema;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    if (stmt.Text(0) == "EXPORT_PRODUCT_VERSION") product = stmt.Text(1);
    if (stmt.Text(0) == "EXPORT_SCHEMA_VERSION") schema = stmt.Text(1);
  }
  std::string layout = "nsys " + (product.empty() ? std::string("(unknown version)") : product);
  if (!schema.empty()) layout += ", schema " + schema;
  return layout;
}

}  // namespace
}  // namespace nsys_sqlite

namespace nsys_sqlite {
namespace {

enum class Part { kAll, kGpuSide, kLaunchSide };

Result<ReadReport> ReadPart(const std::filesystem::path& path, std::string_view display_name,
                            Part part, TraceSink& sink, TableScan scan) {
  ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(path, display_name));
  StringPool pool;
  ExportContext context(db, pool, scan);
  RETURN_IF_ERROR(context.Init());
  if (!context.HasTable("StringIds")) {
    return ErrorAt(display_name, 0,
                   "not an nsys SQLite export (no StringIds table); export a report with "
                   "`nsys export --type sqlite`");
  }
  if (!context.HasTable("CUPTI_ACTIVITY_KIND_KERNEL") &&
      !context.HasTable("CUPTI_ACTIVITY_KIND_MEMCPY") &&
      !context.HasTable("CUPTI_ACTIVITY_KIND_MEMSET")) {
    return ErrorAt(display_name, 0,
                   "this nsys export has no CUDA GPU activity (no CUPTI_ACTIVITY_KIND_KERNEL, "
                   "_MEMCPY or _MEMSET table); was the profile taken with --trace=cuda?");
  }

  ReadReport report;
  report.kind = InputKind::kNsysSqlite;
  report.time_unit = "ns";
  ASSIGN_OR_RETURN(report.layout, DescribeLayout(context));

  // A sink that reads no field of GPU operations, or none of launch calls, is handed none
  // (TraceSink::reads): their tables are not read at all. The ranges of a steps pass, for one,
  // need no launch join.
  const TraceFields fields = sink.reads();
  int64_t gpu_rows = 0;
  if (part != Part::kLaunchSide && fields.op != 0) {
    // No record per kernel for the launch join: StreamLaunchCalls merge-joins in bounded
    // memory (a record per kernel grew with the trace: 75 MB of 200 steps).
    ASSIGN_OR_RETURN(gpu_rows, ReadGpuOps(context, sink));
  }
  bool kernels_have_pid = false;
  if (context.HasTable("CUPTI_ACTIVITY_KIND_KERNEL")) {
    ASSIGN_OR_RETURN(auto kernel_columns, db.Columns("CUPTI_ACTIVITY_KIND_KERNEL"));
    kernels_have_pid = kernel_columns.contains("globalPid");
  }
  int64_t launch_rows = 0;
  if (part != Part::kGpuSide && fields.call != 0 &&
      context.HasTable("CUPTI_ACTIVITY_KIND_RUNTIME")) {
    ASSIGN_OR_RETURN(launch_rows, StreamLaunchCalls(context, kernels_have_pid, sink));
  }
  int64_t range_rows = 0;
  if (part != Part::kLaunchSide) {
    ASSIGN_OR_RETURN(range_rows, ReadNvtxRanges(context, sink));
  }
  report.rows = gpu_rows + launch_rows + range_rows;
  return report;
}

}  // namespace
}  // namespace nsys_sqlite

Result<ReadReport> ReadNsysSqlite(const std::filesystem::path& path, std::string_view display_name,
                                  TraceSink& sink) {
  return nsys_sqlite::ReadPart(path, display_name, nsys_sqlite::Part::kAll, sink,
                               TableScan::kChecked);
}

// The side readers are entry points of their own (not reached through ReadInput), so they
// finish the sink as TraceSink's contract says: once, after a whole read.
Result<ReadReport> ReadNsysSqliteGpuSide(const std::filesystem::path& path,
                                         std::string_view display_name, TraceSink& sink,
                                         TableScan scan) {
  ASSIGN_OR_RETURN(
      ReadReport report,
      nsys_sqlite::ReadPart(path, display_name, nsys_sqlite::Part::kGpuSide, sink, scan));
  RETURN_IF_ERROR(sink.OnFinish());
  return report;
}

Result<ReadReport> ReadNsysSqliteLaunchSide(const std::filesystem::path& path,
                                            std::string_view display_name, TraceSink& sink,
                                            TableScan scan) {
  ASSIGN_OR_RETURN(
      ReadReport report,
      nsys_sqlite::ReadPart(path, display_name, nsys_sqlite::Part::kLaunchSide, sink, scan));
  RETURN_IF_ERROR(sink.OnFinish());
  return report;
}

namespace {

// The devices of the first `rows` kernels as stored, named as DeviceNames (nsys_sqlite_gpu.cc)
// names them for the operations.
Result<std::vector<std::string>> SampledDeviceNames(SqliteDb& db,
                                                    const std::unordered_set<std::string>& tables,
                                                    int64_t rows) {
  std::map<int64_t, std::string> gpu_names;
  const char* table = tables.contains("TARGET_INFO_GPU")        ? "TARGET_INFO_GPU"
                      : tables.contains("TARGET_INFO_CUDA_GPU") ? "TARGET_INFO_CUDA_GPU"
                                                                : nullptr;
  if (table != nullptr) {
    ASSIGN_OR_RETURN(auto info, db.Columns(table));
    if (info.contains("id") && info.contains("name")) {
      ASSIGN_OR_RETURN(SqliteStatement names, db.Prepare(std::string("SELECT id, name FROM ") +
                                                         table + " ORDER BY rowid"));
      for (;;) {
        ASSIGN_OR_RETURN(bool row, names.Step());
        if (!row) break;
        gpu_names.emplace(names.Int64(0), std::string(names.Text(1)));  // first row per id wins
      }
    }
  }
  ASSIGN_OR_RETURN(SqliteStatement ids,
                   db.Prepare("SELECT DISTINCT d FROM (SELECT deviceId AS d FROM "
                              "CUPTI_ACTIVITY_KIND_KERNEL LIMIT " +
                              std::to_string(rows) + ") WHERE d IS NOT NULL ORDER BY d LIMIT 64"));
  std::vector<std::string> devices;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, ids.Step());
    if (!row) break;
    const int64_t id = ids.Int64(0);
    auto it = gpu_names.find(id);
    devices.push_back((it == gpu_names.end() ? std::string() : it->second) + " (" +
                      std::to_string(id) + ")");
  }
  return devices;
}

}  // namespace

Result<KernelPlaces> SampleNsysSqliteKernelPlaces(const std::filesystem::path& path,
                                                  std::string_view display_name, int64_t rows) {
  ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(path, display_name));
  ASSIGN_OR_RETURN(auto tables, db.TableNames());
  KernelPlaces places;
  if (!tables.contains("CUPTI_ACTIVITY_KIND_KERNEL")) return places;
  ASSIGN_OR_RETURN(auto columns, db.Columns("CUPTI_ACTIVITY_KIND_KERNEL"));
  // No ORDER BY: the first rows as stored, without sorting a table that has no index.
  ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      db.Prepare("SELECT count(DISTINCT d), count(DISTINCT p) FROM (SELECT " +
                 nsys_sqlite::ColumnOrNull(columns, "deviceId") + " AS d, " +
                 nsys_sqlite::ColumnOrNull(columns, "globalPid") +
                 " AS p FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT " + std::to_string(rows) + ")"));
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (row) {
    places.devices = stmt.Int64(0);
    places.processes = stmt.Int64(1);
  }
  if (columns.contains("deviceId")) {
    ASSIGN_OR_RETURN(places.device_names, SampledDeviceNames(db, tables, rows));
  }
  return places;
}

}  // namespace stepstat
