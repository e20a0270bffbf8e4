// Pieces shared by the two halves of the nsys SQLite reader (GPU ops, launch calls).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "readers/sqlite/nsys_sqlite.h"
#include "readers/sqlite/nsys_sqlite_db.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat::nsys_sqlite {

inline constexpr size_t kBatchSize = 4096;

/// nsys's GlobalId packs the process into the bits above the low 24 (the thread).
inline constexpr uint64_t kGlobalPidMask = 0xFFFFFFFFFF000000ULL;

/// Tables of the export and a cached StringIds lookup (by primary key, so one B-tree probe).
class ExportContext {
 public:
  ExportContext(const SqliteDb& db, StringPool& pool, TableScan scan = TableScan::kChecked)
      : db_(db), pool_(pool), scan_(scan) {}

  Status Init();
  bool HasTable(std::string_view table) const { return tables_.contains(std::string(table)); }
  const SqliteDb& db() const { return db_; }
  StringPool& pool() { return pool_; }
  TableScan scan() const { return scan_; }
  std::string_view display_name() const { return db_.display_name(); }

  /// The StringIds value for `id`, interned; nullopt when the id is not there.
  Result<std::optional<NameId>> ResolveString(int64_t id);

  /// "<file>: <table> row <rowid>: <what>".
  Status RowError(std::string_view table, int64_t rowid, std::string_view what) const;

 private:
  const SqliteDb& db_;
  StringPool& pool_;
  TableScan scan_;
  std::unordered_set<std::string> tables_;
  std::optional<SqliteStatement> string_lookup_;
  std::unordered_map<int64_t, NameId> string_cache_;
};

/// Reads kernels, memcpys and memsets merged in start order into `sink`; returns the number
/// of rows read.
Result<int64_t> ReadGpuOps(ExportContext& context, TraceSink& sink);

/// Device names as nsys's cuda_gpu_trace Device column prints them, `printf('%s (%d)',
/// gpu.name, deviceId)`: the GPU side names its ops, the launch side a launch's kernel's device
/// (a launch belongs to its kernel's device), so both spell a device alike.
class DeviceNames {
 public:
  Status Load(ExportContext& context);
  NameId Get(int64_t device_id, StringPool& pool);

 private:
  std::unordered_map<int64_t, std::string> gpu_names_;
  std::unordered_map<int64_t, NameId> ids_;
};

/// StringIds ids of kernel-launch API names → the API's normalized name, interned.
Result<std::unordered_map<int64_t, NameId>> LaunchApiNameIds(ExportContext& context);
/// StringIds ids of copy and memset API names (IsCopyApi) → the normalized name, interned.
Result<std::unordered_map<int64_t, NameId>> CopyApiNameIds(ExportContext& context);
/// The columns of CUPTI_ACTIVITY_KIND_RUNTIME; an error when it lacks start, end or nameId.
Result<std::unordered_set<std::string>> RuntimeColumns(ExportContext& context);

/// Kernel-launch API calls joined to their kernels on correlationId and process as nsys's
/// cuda_kern_exec_trace does (one call per kernel of a graph launch; a call whose kernel was
/// not captured is left out), in memory that does not grow with the trace: calls and kernels are
/// merge-joined in correlation-id order per process (no record per kernel is kept). Calls
/// reach `sink` in API start order unless their correlation order strays from it by more
/// than a small window (sinks then see them unsorted). When the sink asks for copy calls
/// (TraceFields::kCopyCalls), the copy and memset calls come too, each once, joined to
/// nothing. Returns the joinable calls read.
Result<int64_t> StreamLaunchCalls(ExportContext& context, bool kernels_have_pid, TraceSink& sink);

/// NVTX push/pop and start/end ranges in start order into `sink` as CpuRanges, named as
/// nsys prints them ("<domain>:<text>"); returns the number of rows read (0 without NVTX).
Result<int64_t> ReadNvtxRanges(ExportContext& context, TraceSink& sink);

/// "<column>" when `columns` has it, else "NULL", for SELECT lists over varying schemas.
std::string ColumnOrNull(const std::unordered_set<std::string>& columns, std::string_view column);

}  // namespace stepstat::nsys_sqlite
