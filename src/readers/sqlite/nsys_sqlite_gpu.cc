// The GPU half of the nsys SQLite reader: kernels, memcpys and memsets, each table read in
// start order (a SortedScan: storage order when nsys wrote it so, which it does) and merged,
// so ops reach the sink sorted without a copy of them all.
#include <array>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "readers/sqlite/nsys_sqlite_internal.h"
#include "readers/sqlite/nsys_sqlite_reader_queries.h"
#include "readers/sqlite/nsys_sqlite_sorted_scan.h"

namespace stepstat::nsys_sqlite {
namespace {

// ENUM_CUDA_MEMCPY_OPER labels of nsys 2021-2025, for exports that lack the table. The modern
// labels are used so that one trace gets the same names whatever the export version.
constexpr std::array<std::string_view, 14> kBuiltinCopyKindLabels = {"Unknown",
                                                                     "Host-to-Device",
                                                                     "Device-to-Host",
                                                                     "Host-to-Array",
                                                                     "Array-to-Host",
                                                                     "Array-to-Array",
                                                                     "Array-to-Device",
                                                                     "Device-to-Array",
                                                                     "Device-to-Device",
                                                                     "Host-to-Host",
                                                                     "Peer-to-Peer",
                                                                     "Unified Host-to-Device",
                                                                     "Unified Device-to-Host",
                                                                     "Unified Device-to-Device"};

// Column positions shared by the three SELECTs; kind-specific columns follow.
enum Column : int {
  kRowId = 0,
  kStart,
  kEnd,
  kDeviceId,
  kStreamId,
  kCorrelationId,
  kGlobalPid,
  kExtra1,  // kernel: demangledName; memcpy, memset: bytes
  kExtra2,  // kernel: shortName; memcpy: copyKind
};

class CopyKindNames {
 public:
  Status Load(ExportContext& context) {
    for (size_t i = 0; i < kBuiltinCopyKindLabels.size(); ++i) {
      labels_[static_cast<int64_t>(i)] = std::string(kBuiltinCopyKindLabels[i]);
    }
    if (!context.HasTable("ENUM_CUDA_MEMCPY_OPER")) return Status::Ok();
    ASSIGN_OR_RETURN(SqliteStatement stmt,
                     context.db().Prepare("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER"));
    for (;;) {
      ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      if (!stmt.IsNull(1)) labels_[stmt.Int64(0)] = std::string(stmt.Text(1));
    }
    return Status::Ok();
  }

  NameId Get(std::optional<int64_t> copy_kind, StringPool& pool) {
    int64_t key = copy_kind.value_or(0);
    if (auto it = ids_.find(key); it != ids_.end()) return it->second;
    auto label = labels_.find(key);
    std::string name = "[CUDA memcpy " + (label != labels_.end() ? label->second : "Unknown") + "]";
    NameId id = pool.Intern(name);
    ids_.emplace(key, id);
    return id;
  }

 private:
  std::unordered_map<int64_t, std::string> labels_;
  std::unordered_map<int64_t, NameId> ids_;
};

// One activity table, stepped in start order; `op` holds the current row.
struct Cursor {
  std::string table;
  OpKind kind = OpKind::kKernel;
  std::optional<SortedScan> scan;
  bool has_row = false;
  GpuOp op;
};

Result<std::optional<Cursor>> OpenCursor(ExportContext& context, std::string table, OpKind kind) {
  ASSIGN_OR_RETURN(std::optional<ScanQuery> query, GpuOpScanQuery(context, table, kind));
  if (!query) return std::optional<Cursor>();
  std::optional<ScanOrder> known_order;
  if (context.scan() == TableScan::kAsStored) known_order = ScanOrder::kAsStored;
  ASSIGN_OR_RETURN(SortedScan scan,
                   SortedScan::Open(context.db(), *query, kDefaultWindowRows, known_order));
  Cursor cursor;
  cursor.table = std::move(table);
  cursor.kind = kind;
  cursor.scan.emplace(std::move(scan));
  return std::optional<Cursor>(std::move(cursor));
}

class GpuOpReader {
 public:
  explicit GpuOpReader(ExportContext& context) : context_(context) {}

  Status Init() {
    RETURN_IF_ERROR(devices_.Load(context_));
    RETURN_IF_ERROR(copy_kinds_.Load(context_));
    memset_name_ = context_.pool().Intern("[CUDA memset]");
    return Status::Ok();
  }

  // Moves `cursor` to its next row and converts it.
  Status Advance(Cursor& cursor) {
    ASSIGN_OR_RETURN(cursor.has_row, cursor.scan->Step());
    if (!cursor.has_row) return Status::Ok();
    const IntRow& row = cursor.scan->row();
    ++rows_;
    GpuOp& op = cursor.op;
    op = GpuOp();
    op.kind = cursor.kind;
    op.line = row.Int64(kRowId);
    std::optional<int64_t> start = row.OptionalInt64(kStart);
    std::optional<int64_t> end = row.OptionalInt64(kEnd);
    if (!start || !end)
      return context_.RowError(cursor.table, op.line, "start or end is not an integer");
    if (*start < 0) return context_.RowError(cursor.table, op.line, "negative start");
    if (*end < *start) return context_.RowError(cursor.table, op.line, "end before start");
    op.start_ns = *start;
    op.duration_ns = *end - *start;
    op.stream = row.OptionalInt64(kStreamId).value_or(-1);
    op.correlation_id = row.OptionalInt64(kCorrelationId).value_or(-1);
    op.device = devices_.Get(row.OptionalInt64(kDeviceId).value_or(0), context_.pool());
    std::optional<int64_t> pid = row.OptionalInt64(kGlobalPid);
    if (pid) op.pid = static_cast<int32_t>((*pid >> 24) & 0xFFFFFF);
    switch (cursor.kind) {
      case OpKind::kKernel: {
        ASSIGN_OR_RETURN(op.name, KernelName(cursor.table, row, op.line));
        break;
      }
      case OpKind::kMemcpy:
        op.bytes = row.OptionalInt64(kExtra1).value_or(-1);
        op.name = copy_kinds_.Get(row.OptionalInt64(kExtra2), context_.pool());
        break;
      case OpKind::kMemset:
        op.bytes = row.OptionalInt64(kExtra1).value_or(-1);
        op.name = memset_name_;
        break;
    }
    return Status::Ok();
  }

  int64_t rows() const { return rows_; }

 private:
  // demangledName (what cuda_gpu_trace prints by default), else shortName.
  Result<NameId> KernelName(const std::string& table, const IntRow& row, int64_t rowid) {
    for (int column : {kExtra1, kExtra2}) {
      std::optional<int64_t> string_id = row.OptionalInt64(column);
      if (!string_id) continue;
      ASSIGN_OR_RETURN(std::optional<NameId> name, context_.ResolveString(*string_id));
      if (name) return *name;
    }
    return context_.RowError(table, rowid, "kernel name id not found in StringIds");
  }

  ExportContext& context_;
  DeviceNames devices_;
  CopyKindNames copy_kinds_;
  NameId memset_name_ = 0;
  int64_t rows_ = 0;
};

}  // namespace

Result<std::optional<ScanQuery>> GpuOpScanQuery(ExportContext& context, const std::string& table,
                                                OpKind kind) {
  if (!context.HasTable(table)) return std::optional<ScanQuery>();
  ASSIGN_OR_RETURN(auto columns, context.db().Columns(table));
  for (const char* required : {"start", "end"}) {
    if (!columns.contains(required)) {
      return ErrorAt(context.display_name(), 0,
                     table + " has no '" + required + "' column; is this an nsys export?");
    }
  }
  using Operand = ScanOperand;
  Operand extra1 =
      Operand::ColumnIfPresent(columns, kind == OpKind::kKernel ? "demangledName" : "bytes");
  Operand extra2 = kind == OpKind::kKernel   ? Operand::ColumnIfPresent(columns, "shortName")
                   : kind == OpKind::kMemcpy ? Operand::ColumnIfPresent(columns, "copyKind")
                                             : Operand::Null();
  if (kind == OpKind::kKernel && extra1.kind == Operand::Kind::kNull &&
      extra2.kind == Operand::Kind::kNull) {
    return ErrorAt(context.display_name(), 0,
                   table + " has neither a 'demangledName' nor a 'shortName' column");
  }
  ScanQuery query;
  query.columns = {Operand::Rowid(),
                   Operand::Column("start"),
                   Operand::Column("end"),
                   Operand::ColumnIfPresent(columns, "deviceId"),
                   Operand::ColumnIfPresent(columns, "streamId"),
                   Operand::ColumnIfPresent(columns, "correlationId"),
                   Operand::ColumnIfPresent(columns, "globalPid"),
                   std::move(extra1),
                   std::move(extra2)};
  query.table = table;
  query.key = {kStart, kRowId};  // ORDER BY start, rowid
  return std::optional<ScanQuery>(std::move(query));
}

Status DeviceNames::Load(ExportContext& context) {
  const char* table = context.HasTable("TARGET_INFO_GPU")        ? "TARGET_INFO_GPU"
                      : context.HasTable("TARGET_INFO_CUDA_GPU") ? "TARGET_INFO_CUDA_GPU"
                                                                 : nullptr;
  if (table == nullptr) return Status::Ok();
  ASSIGN_OR_RETURN(auto columns, context.db().Columns(table));
  if (!columns.contains("id") || !columns.contains("name")) return Status::Ok();
  ASSIGN_OR_RETURN(SqliteStatement stmt, context.db().Prepare(std::string("SELECT id, name FROM ") +
                                                              table + " ORDER BY rowid"));
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    gpu_names_.emplace(stmt.Int64(0), std::string(stmt.Text(1)));  // first row per id wins
  }
  return Status::Ok();
}

NameId DeviceNames::Get(int64_t device_id, StringPool& pool) {
  if (auto it = ids_.find(device_id); it != ids_.end()) return it->second;
  std::string name;
  if (auto it = gpu_names_.find(device_id); it != gpu_names_.end()) name = it->second;
  name += " (" + std::to_string(device_id) + ")";
  NameId id = pool.Intern(name);
  ids_.emplace(device_id, id);
  return id;
}

Result<int64_t> ReadGpuOps(ExportContext& context, TraceSink& sink) {
  GpuOpReader reader(context);
  RETURN_IF_ERROR(reader.Init());
  std::vector<Cursor> cursors;
  for (const auto& [table, kind] : kGpuOpTables) {
    ASSIGN_OR_RETURN(std::optional<Cursor> cursor, OpenCursor(context, table, kind));
    if (!cursor) continue;
    cursors.push_back(std::move(*cursor));
    RETURN_IF_ERROR(reader.Advance(cursors.back()));
  }

  std::vector<GpuOp> batch;
  batch.reserve(kBatchSize);
  for (;;) {
    // Three cursors at most: a linear pick beats a heap. Ties go to the earlier table.
    Cursor* next = nullptr;
    for (Cursor& cursor : cursors) {
      if (cursor.has_row && (next == nullptr || cursor.op.start_ns < next->op.start_ns)) {
        next = &cursor;
      }
    }
    if (next == nullptr) break;
    batch.push_back(next->op);
    if (batch.size() == kBatchSize) {
      RETURN_IF_ERROR(sink.OnGpuOps(batch, context.pool()));
      batch.clear();
    }
    RETURN_IF_ERROR(reader.Advance(*next));
  }
  if (!batch.empty()) RETURN_IF_ERROR(sink.OnGpuOps(batch, context.pool()));
  return reader.rows();
}

}  // namespace stepstat::nsys_sqlite
