// The SQLite format: one `nsys export --type sqlite`-shaped file. Rows go through prepared
// statements in one transaction with the journal off; each table gets its rows in start
// order, as nsys writes them (its rowids then follow time, and it creates no indexes).
#include <sqlite3.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "synth/format_writer.h"
#include "synth/kernel_catalog.h"
#include "synth/pending_file.h"
#include "synth/sqlite_schema.h"
#include "synth/trace_rows.h"

namespace stepstat::synth {
namespace {

// nsys's GlobalId: the VM in the bits from 48 up, the process from 24, the thread below.
constexpr int64_t kVmId = int64_t{1} << 48;
constexpr int64_t kGlobalPid = kVmId | (kProcessId << 24);
constexpr int64_t kGlobalTid = kGlobalPid | kProcessId;
// ENUM_NSYS_EVENT_CLASS and ENUM_NSYS_EVENT_TYPE values.
constexpr int64_t kCudaRuntimeClass = 0;
constexpr int64_t kCudaDriverClass = 1;
constexpr int64_t kNvtxPushPopRange = 59;
// ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND, ENUM_CUDA_KERNEL_LAUNCH_TYPE values.
constexpr int64_t kCopyHostToDevice = 1, kCopyDeviceToHost = 2, kCopyDeviceToDevice = 8;
constexpr int64_t kMemPageable = 0, kMemDevice = 2;
constexpr int64_t kLaunchRegular = 1;

// nsys's shortName: the function's own name, without return type, scope, template
// arguments and parameters ("void at::native::f<(int)4>(int)" → "f").
std::string ShortKernelName(std::string_view name) {
  std::string bare;
  int angle = 0, round = 0, square = 0;
  for (char c : name) {
    if (c == '(' && angle == 0 && square == 0 && round == 0) break;  // the parameter list
    if (c == '<') ++angle;
    if (c == '[') ++square;
    if (c == '(') ++round;
    if (angle == 0 && square == 0 && round == 0) bare += c;
    if (c == '>' && angle > 0) --angle;
    if (c == ']' && square > 0) --square;
    if (c == ')' && round > 0) --round;
  }
  size_t cut = bare.find_last_of(": ");
  return cut == std::string::npos ? bare : bare.substr(cut + 1);
}

// As nsys 2025 names them: runtime functions with their version suffix.
std::string_view RuntimeApiName(std::string_view api) {
  if (api == "cudaLaunchKernel") return "cudaLaunchKernel_v7000";
  if (api == "cudaLaunchKernelExC") return "cudaLaunchKernelExC_v11060";
  return api;
}

class Statement {
 public:
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }

  int Prepare(sqlite3* db, std::string_view sql) {
    return sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  }
  /// Binds the values of one row, from column 1 on: integers, nullopt (NULL) or text. Text
  /// must stay valid until Insert() returns.
  Statement& Int(int64_t value) {
    sqlite3_bind_int64(stmt_, ++column_, value);
    return *this;
  }
  Statement& Null() {
    sqlite3_bind_null(stmt_, ++column_);
    return *this;
  }
  Statement& Text(std::string_view value) {
    sqlite3_bind_text(stmt_, ++column_, value.data(), static_cast<int>(value.size()),
                      SQLITE_STATIC);
    return *this;
  }
  int Insert() {
    column_ = 0;
    int rc = sqlite3_step(stmt_);
    sqlite3_reset(stmt_);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
  }
  void Finalize() {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int column_ = 0;
};

std::string InsertSql(std::string_view table, int columns) {
  std::string sql = "INSERT INTO " + std::string(table) + " VALUES (?";
  for (int i = 1; i < columns; ++i) sql += ",?";
  return sql + ")";
}

class SqliteWriter final : public FormatWriter {
 public:
  SqliteWriter(const StepPlan& plan, const SynthOptions& options)
      : plan_(plan), nvtx_(options.nvtx), path_(WithSuffix(options.out_base, ".sqlite")) {}
  ~SqliteWriter() override { Close(); }

  Status Open() {
    RETURN_IF_ERROR(path_.RemoveStale());
    const std::string temp = path_.temp_path().string();
    if (sqlite3_open_v2(temp.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      return Status::Error("cannot create " + temp + ": " + Message());
    }
    // A file nobody reads until it is complete: no journal, no fsync, no lock traffic.
    RETURN_IF_ERROR(Exec(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; "
        "BEGIN"));
    for (std::string_view table : NsysSqliteTables()) RETURN_IF_ERROR(Exec(table));
    if (nvtx_) RETURN_IF_ERROR(Exec(NsysNvtxTable()));
    RETURN_IF_ERROR(WriteFixedRows());
    RETURN_IF_ERROR(Prepare(kernel_, InsertSql("CUPTI_ACTIVITY_KIND_KERNEL", 28)));
    RETURN_IF_ERROR(Prepare(memcpy_, InsertSql("CUPTI_ACTIVITY_KIND_MEMCPY", 21)));
    RETURN_IF_ERROR(Prepare(memset_, InsertSql("CUPTI_ACTIVITY_KIND_MEMSET", 12)));
    RETURN_IF_ERROR(Prepare(runtime_, InsertSql("CUPTI_ACTIVITY_KIND_RUNTIME", 8)));
    if (nvtx_) RETURN_IF_ERROR(Prepare(nvtx_event_, InsertSql("NVTX_EVENTS", 20)));
    return Status::Ok();
  }

  Status AppendStep(const StepRows& rows) override {
    OrderGpuOpsByStart(rows, order_);
    const size_t kernel_count = rows.kernels.size();
    for (const auto& [start, index] : order_) {
      if (index < kernel_count) {
        RETURN_IF_ERROR(InsertKernel(rows.kernels[index]));
      } else {
        RETURN_IF_ERROR(InsertMemop(rows.memops[index - kernel_count]));
      }
    }
    for (const KernelRow& row : rows.kernels) {  // launch order is API start order
      const KindIds& ids = kind_ids_[static_cast<size_t>(plan_.kernels[row.plan_index].kind)];
      runtime_.Int(row.api_start).Int(row.api_start + row.api_duration).Int(ids.api_class);
      runtime_.Int(kGlobalTid).Int(row.correlation_id).Int(ids.api_name).Int(0).Null();
      RETURN_IF_ERROR(Check(runtime_.Insert(), "CUPTI_ACTIVITY_KIND_RUNTIME"));
    }
    return Status::Ok();
  }

  Status AppendStepRange(int64_t /*step*/, int64_t start_ns, int64_t end_ns) override {
    if (!nvtx_) return Status::Error("synth: a step range without --nvtx");
    nvtx_event_.Int(start_ns).Int(end_ns).Int(kNvtxPushPopRange).Null().Null().Null();
    nvtx_event_.Text(kStepRangeName).Int(kGlobalTid).Int(kGlobalTid);
    for (int column = 10; column <= 20; ++column) nvtx_event_.Null();
    return Check(nvtx_event_.Insert(), "NVTX_EVENTS");
  }

  Status Commit(SynthResult& result) override {
    for (Statement* stmt : {&kernel_, &memcpy_, &memset_, &runtime_, &nvtx_event_})
      stmt->Finalize();
    RETURN_IF_ERROR(Exec("COMMIT"));
    if (sqlite3_close(db_) != SQLITE_OK) return Status::Error("cannot close " + Temp());
    db_ = nullptr;
    std::error_code error;
    result.bytes = static_cast<int64_t>(std::filesystem::file_size(path_.temp_path(), error));
    if (error) return Status::Error("cannot stat " + Temp() + ": " + error.message());
    RETURN_IF_ERROR(path_.Commit());
    result.gpu_trace = path_.final_path();
    return Status::Ok();
  }

 private:
  struct KindIds {
    int64_t demangled = 0, short_name = 0, api_name = 0, api_class = 0;
  };

  Status WriteFixedRows() {
    Statement strings;
    RETURN_IF_ERROR(Prepare(strings, InsertSql("StringIds", 2)));
    std::map<std::string, int64_t, std::less<>> ids;
    auto id_of = [&](std::string_view text) -> Result<int64_t> {
      if (auto it = ids.find(text); it != ids.end()) return it->second;
      int64_t id = static_cast<int64_t>(ids.size());
      RETURN_IF_ERROR(Check(strings.Int(id).Text(text).Insert(), "StringIds"));
      ids.emplace(std::string(text), id);
      return id;
    };
    for (const KernelKind& kind : AllKinds()) {
      KindIds kind_ids;
      ASSIGN_OR_RETURN(kind_ids.demangled, id_of(kind.name));
      ASSIGN_OR_RETURN(kind_ids.short_name, id_of(ShortKernelName(kind.name)));
      ASSIGN_OR_RETURN(kind_ids.api_name, id_of(RuntimeApiName(kind.api_function)));
      kind_ids.api_class =
          kind.api_function.starts_with("cuda") ? kCudaRuntimeClass : kCudaDriverClass;
      kind_ids_.push_back(kind_ids);
    }

    Statement enums;
    RETURN_IF_ERROR(Prepare(enums, InsertSql("ENUM_CUDA_MEMCPY_OPER", 3)));
    int64_t id = 0;
    for (const auto& [name, label] : MemcpyOpers()) {
      RETURN_IF_ERROR(
          Check(enums.Int(id++).Text(name).Text(label).Insert(), "ENUM_CUDA_MEMCPY_OPER"));
    }
    Statement meta;
    RETURN_IF_ERROR(Prepare(meta, InsertSql("META_DATA_EXPORT", 2)));
    const std::pair<std::string_view, std::string_view> kMeta[] = {
        {"EXPORT_PRODUCT_NAME", "stepstat synth (NVIDIA Nsight Systems export layout)"},
        {"EXPORT_PRODUCT_VERSION", "2025.3.1.90"},
        {"EXPORT_SCHEMA_VERSION", "3.20.2"},
        {"EXPORT_SCHEMA_VERSION_MAJOR", "3"},
        {"EXPORT_SCHEMA_VERSION_MINOR", "20"},
        {"EXPORT_SCHEMA_VERSION_MICRO", "2"}};
    for (const auto& [name, value] : kMeta) {
      RETURN_IF_ERROR(Check(meta.Text(name).Text(value).Insert(), "META_DATA_EXPORT"));
    }
    Statement gpu;
    RETURN_IF_ERROR(Prepare(gpu,
                            "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, "
                            "isDiscrete, smCount, chipName, cuDevice, threadsPerWarp, "
                            "computeMajor, computeMinor, smMajor, smMinor) "
                            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"));
    gpu.Int(kVmId).Int(kDeviceId).Text(kDeviceName).Text("000f:01:00.0").Int(0).Int(48);
    gpu.Text("GB10").Int(kDeviceId).Int(32).Int(12).Int(1).Int(12).Int(1);
    return Check(gpu.Insert(), "TARGET_INFO_GPU");
  }

  Status InsertKernel(const KernelRow& row) {
    const Kind kind = plan_.kernels[row.plan_index].kind;
    const KernelKind& info = KindInfo(kind);
    const KindIds& ids = kind_ids_[static_cast<size_t>(kind)];
    Statement& k = kernel_;
    k.Int(row.start).Int(row.start + row.duration).Int(kDeviceId).Int(kContextId).Null();
    k.Int(StreamId(row.stream)).Int(row.correlation_id).Int(kGlobalPid);
    k.Int(ids.demangled).Int(ids.short_name).Null().Int(kLaunchRegular).Int(0);
    k.Int(info.registers_per_thread);
    for (uint32_t g : info.grid) k.Int(g);
    for (uint32_t b : info.block) k.Int(b);
    k.Int(info.static_shared_bytes).Int(info.dynamic_shared_bytes).Int(0).Int(0);
    k.Int(++grid_id_).Int(info.static_shared_bytes + info.dynamic_shared_bytes).Null().Int(0);
    return Check(k.Insert(), "CUPTI_ACTIVITY_KIND_KERNEL");
  }

  Status InsertMemop(const MemopRow& row) {
    const PlannedMemop& memop = plan_.memops[row.plan_index];
    const int64_t end = row.start + row.duration;
    const int64_t stream = StreamId(row.stream);
    if (memop.kind == MemopKind::kMemset) {
      memset_.Int(row.start).Int(end).Int(kDeviceId).Int(kContextId).Null().Int(stream);
      memset_.Int(row.correlation_id).Int(kGlobalPid).Int(0).Int(memop.bytes).Null();
      memset_.Int(kMemDevice);
      return Check(memset_.Insert(), "CUPTI_ACTIVITY_KIND_MEMSET");
    }
    int64_t copy_kind = memop.kind == MemopKind::kHostToDevice   ? kCopyHostToDevice
                        : memop.kind == MemopKind::kDeviceToHost ? kCopyDeviceToHost
                                                                 : kCopyDeviceToDevice;
    int64_t source = memop.kind == MemopKind::kHostToDevice ? kMemPageable : kMemDevice;
    int64_t destination = memop.kind == MemopKind::kDeviceToHost ? kMemPageable : kMemDevice;
    memcpy_.Int(row.start).Int(end).Int(kDeviceId).Int(kContextId).Null().Int(stream);
    memcpy_.Int(row.correlation_id).Int(kGlobalPid).Int(memop.bytes).Int(copy_kind).Null();
    memcpy_.Int(source).Int(destination);
    for (int column = 14; column <= 20; ++column) memcpy_.Null();
    memcpy_.Int(1);
    return Check(memcpy_.Insert(), "CUPTI_ACTIVITY_KIND_MEMCPY");
  }

  Status Prepare(Statement& stmt, std::string_view sql) {
    return Check(stmt.Prepare(db_, sql), "preparing " + std::string(sql.substr(0, 40)));
  }
  Status Exec(std::string_view sql) {
    return Check(sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, nullptr),
                 std::string(sql.substr(0, 40)));
  }
  Status Check(int rc, std::string_view what) const {
    if (rc == SQLITE_OK) return Status::Ok();
    return Status::Error("cannot write " + Temp() + " (" + std::string(what) + "): " + Message());
  }
  std::string Message() const { return db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory"; }
  std::string Temp() const { return path_.temp_path().string(); }
  void Close() {
    for (Statement* stmt : {&kernel_, &memcpy_, &memset_, &runtime_, &nvtx_event_})
      stmt->Finalize();
    sqlite3_close(db_);
    db_ = nullptr;
  }

  const StepPlan& plan_;
  const bool nvtx_;
  PendingPath path_;
  sqlite3* db_ = nullptr;
  Statement kernel_, memcpy_, memset_, runtime_, nvtx_event_;
  std::vector<KindIds> kind_ids_;  ///< by Kind
  std::vector<std::pair<int64_t, uint32_t>> order_;
  int64_t grid_id_ = 0;
};

}  // namespace

Result<std::unique_ptr<FormatWriter>> OpenSqliteWriter(const StepPlan& plan,
                                                       const SynthOptions& options) {
  auto writer = std::make_unique<SqliteWriter>(plan, options);
  RETURN_IF_ERROR(writer->Open());
  return std::unique_ptr<FormatWriter>(std::move(writer));
}

}  // namespace stepstat::synth
