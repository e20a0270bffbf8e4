#include "readers/sqlite/nsys_sqlite.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "fixtures/formats/collecting_sink.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_support::CollectingSink;

// ---- test-side SQL, independent of the reader ----

class TestDb {
 public:
  explicit TestDb(const fs::path& path, bool create = false) {
    std::string uri = create ? path.string() : "file:" + path.string() + "?immutable=1";
    int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                       : SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    EXPECT_EQ(sqlite3_open_v2(uri.c_str(), &db_, flags, nullptr), SQLITE_OK) << path;
  }
  ~TestDb() { sqlite3_close(db_); }

  void Exec(const std::string& sql) {
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "") << "\n"
        << sql;
    sqlite3_free(error);
  }
  std::vector<std::vector<std::string>> Rows(const std::string& sql) {
    std::vector<std::vector<std::string>> rows;
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_) << "\n"
        << sql;
    while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const unsigned char* text = sqlite3_column_text(stmt, i);
        row.emplace_back(text ? reinterpret_cast<const char*>(text) : "NULL");
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    return rows;
  }
  int64_t Int(const std::string& sql) {
    auto rows = Rows(sql);
    return rows.empty() || rows[0][0] == "NULL" ? 0 : std::stoll(rows[0][0]);
  }
  bool HasTable(const std::string& table) {
    return Int("SELECT count(*) FROM sqlite_master WHERE name = '" + table + "'") > 0;
  }

 private:
  sqlite3* db_ = nullptr;
};

fs::path RealFile(const char* name) { return fs::path(STEPSTAT_SHARED_DIR) / "data/real" / name; }

// One directory per test: ctest runs the tests of this file as parallel processes.
fs::path TempPath(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / "stepstat_nsys_sqlite_test" /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::create_directories(dir);
  fs::path path = dir / name;
  fs::remove(path);
  return path;
}

// The launch APIs, as the test spells them in SQL (not through the reader's classifier).
const char* kLaunchApiSql =
    "(s.value GLOB 'cudaLaunchKernel*' OR s.value GLOB 'cuLaunchKernel*' OR "
    "s.value GLOB 'cudaLaunchCooperativeKernel*' OR s.value GLOB 'cuLaunchCooperativeKernel*' OR "
    "s.value GLOB 'cudaGraphLaunch*' OR s.value GLOB 'cuGraphLaunch*')";

class RealSqlite : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    path_ = RealFile(GetParam());
    if (!fs::exists(path_)) GTEST_SKIP() << path_ << " is absent (shared data not mounted)";
    Result<ReadReport> report = ReadNsysSqlite(path_, GetParam(), sink_);
    ASSERT_TRUE(report.ok()) << report.status().message();
    report_ = *report;
    db_ = std::make_unique<TestDb>(path_);
  }
  fs::path path_;
  CollectingSink sink_;
  ReadReport report_;
  std::unique_ptr<TestDb> db_;
};

TEST_P(RealSqlite, CountsAndKernelTimeAgreeWithSql) {
  int64_t kernels = 0, memcpys = 0, memsets = 0, kernel_ns = 0;
  for (const auto& c : sink_.ops()) {
    kernels += c.op.kind == OpKind::kKernel;
    memcpys += c.op.kind == OpKind::kMemcpy;
    memsets += c.op.kind == OpKind::kMemset;
    if (c.op.kind == OpKind::kKernel) kernel_ns += c.op.duration_ns;
  }
  EXPECT_GT(kernels, 0);
  EXPECT_EQ(kernels, db_->Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
  EXPECT_EQ(kernel_ns, db_->Int("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
  EXPECT_EQ(memcpys, db_->Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
  EXPECT_EQ(memsets, db_->HasTable("CUPTI_ACTIVITY_KIND_MEMSET")
                         ? db_->Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET")
                         : 0);
  EXPECT_EQ(report_.kind, InputKind::kNsysSqlite);
  EXPECT_THAT(report_.layout, HasSubstr("nsys 20"));
  EXPECT_EQ(report_.time_unit, "ns");
}

TEST_P(RealSqlite, PerStreamCountsAgreeWithSql) {
  std::map<std::string, int64_t> ours;
  for (const auto& c : sink_.ops()) ++ours[std::to_string(c.op.stream)];
  std::string sql =
      "SELECT streamId, count(*) FROM (SELECT streamId FROM CUPTI_ACTIVITY_KIND_KERNEL "
      "UNION ALL SELECT streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY";
  if (db_->HasTable("CUPTI_ACTIVITY_KIND_MEMSET")) {
    sql += " UNION ALL SELECT streamId FROM CUPTI_ACTIVITY_KIND_MEMSET";
  }
  sql += ") GROUP BY streamId";
  std::map<std::string, int64_t> theirs;
  for (const auto& row : db_->Rows(sql)) theirs[row[0]] = std::stoll(row[1]);
  EXPECT_EQ(ours, theirs);
}

TEST_P(RealSqlite, OpsSortedByStartInBatches) {
  const auto& ops = sink_.ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.op.start_ns < b.op.start_ns;
  }));
  EXPECT_EQ(sink_.gpu_batches, static_cast<int>((ops.size() + 4095) / 4096));
  const auto& calls = sink_.calls();
  EXPECT_TRUE(std::is_sorted(calls.begin(), calls.end(), [](const auto& a, const auto& b) {
    return a.call.api_start_ns < b.call.api_start_ns;
  }));
}

TEST_P(RealSqlite, NamesAndDevicesAsNsysPrintsThem) {
  std::map<std::string, int64_t> ours;
  std::map<std::string, int64_t> devices;
  for (const auto& c : sink_.ops()) {
    ++ours[c.name];
    ++devices[c.device];
  }
  std::map<std::string, int64_t> theirs;
  for (const auto& row : db_->Rows(
           "SELECT s.value, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON "
           "s.id = k.demangledName GROUP BY 1 UNION ALL SELECT '[CUDA memcpy ' || e.label || ']', "
           "count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEMCPY_OPER e ON "
           "e.id = m.copyKind GROUP BY 1")) {
    theirs[row[0]] += std::stoll(row[1]);
  }
  EXPECT_EQ(ours, theirs);
  std::map<std::string, int64_t> their_devices;
  for (const auto& row : db_->Rows(
           "SELECT printf('%s (%d)', g.name, k.deviceId), count(*) FROM (SELECT deviceId FROM "
           "CUPTI_ACTIVITY_KIND_KERNEL UNION ALL SELECT deviceId FROM CUPTI_ACTIVITY_KIND_MEMCPY) "
           "k "
           "LEFT JOIN TARGET_INFO_GPU g ON g.id = k.deviceId GROUP BY 1")) {
    their_devices[row[0]] = std::stoll(row[1]);
  }
  EXPECT_EQ(devices, their_devices);
}

TEST_P(RealSqlite, LaunchCallsJoinLikeKernExecTrace) {
  int64_t joined = 0, unjoined = 0, kernel_ns = 0, queue_ns = 0, queued = 0;
  for (const auto& c : sink_.calls()) {
    if (c.call.kernel_start_ns < 0) {
      ++unjoined;
      continue;
    }
    ++joined;
    kernel_ns += c.call.kernel_duration_ns;
    if (c.call.queue_duration_ns >= 0) {
      queue_ns += c.call.queue_duration_ns;
      ++queued;
    }
  }
  std::string join =
      std::string(
          " FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON "
          "k.correlationId = r.correlationId AND k.globalPid = (r.globalTid & -16777216) "
          "JOIN StringIds s ON s.id = r.nameId WHERE ") +
      kLaunchApiSql;
  EXPECT_GT(joined, 0);
  EXPECT_EQ(joined, db_->Int("SELECT count(*)" + join));
  EXPECT_EQ(kernel_ns, db_->Int("SELECT sum(k.end - k.start)" + join));
  EXPECT_EQ(queue_ns, db_->Int("SELECT sum(k.start - r.end)" + join + " AND k.start >= r.end"));
  EXPECT_EQ(queued, db_->Int("SELECT count(*)" + join + " AND k.start >= r.end"));
  int64_t launch_rows =
      db_->Int(std::string("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON "
                           "s.id = r.nameId WHERE ") +
               kLaunchApiSql);
  int64_t launch_rows_with_kernel = db_->Int("SELECT count(DISTINCT r.rowid)" + join);
  // An inner join, as cuda_kern_exec_trace: calls whose kernel is absent are left out.
  EXPECT_EQ(unjoined, 0);
  EXPECT_GE(launch_rows, launch_rows_with_kernel);
  for (const auto& c : sink_.calls()) {
    EXPECT_THAT(c.api_name, ::testing::AnyOf("cudaLaunchKernel", "cuLaunchKernel"));
    EXPECT_EQ(c.call.pid >= 0, true);
  }
}

// ---- the two halves read apart (summarize reads them on two threads) ----

// What a call is, whatever order calls with the same start come in.
std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, std::string,
           std::string>
CallKey(const testing_support::CollectedCall& c) {
  return {c.call.api_start_ns,
          c.call.api_duration_ns,
          c.call.pid,
          c.call.tid,
          c.call.correlation_id,
          c.call.kernel_start_ns,
          c.call.kernel_duration_ns,
          c.call.queue_duration_ns,
          c.api_name,
          c.kernel_name};
}

// The GPU half gives the whole reader's ops and ranges, the launch half its calls, sorted
// by API start; read checked first, or as stored (every table here fits the reorder window,
// so as stored never has to fall back).
void ExpectHalvesMatchTheWholeReader(const fs::path& path, TableScan scan) {
  SCOPED_TRACE(scan == TableScan::kChecked ? "checked" : "as stored");
  CollectingSink whole, gpu, launches;
  ASSERT_TRUE(ReadNsysSqlite(path, "x.sqlite", whole).ok());
  Result<ReadReport> gpu_report = ReadNsysSqliteGpuSide(path, "x.sqlite", gpu, scan);
  ASSERT_TRUE(gpu_report.ok()) << gpu_report.status().message();
  Result<ReadReport> launch_report = ReadNsysSqliteLaunchSide(path, "x.sqlite", launches, scan);
  ASSERT_TRUE(launch_report.ok()) << launch_report.status().message();
  EXPECT_TRUE(gpu.calls().empty());
  EXPECT_TRUE(launches.ops().empty());
  EXPECT_TRUE(launches.ranges().empty());
  ASSERT_EQ(gpu.ops().size(), whole.ops().size());
  for (size_t i = 0; i < gpu.ops().size(); ++i) {
    EXPECT_EQ(gpu.ops()[i].op.start_ns, whole.ops()[i].op.start_ns) << i;
    EXPECT_EQ(gpu.ops()[i].op.duration_ns, whole.ops()[i].op.duration_ns) << i;
    EXPECT_EQ(gpu.ops()[i].op.line, whole.ops()[i].op.line) << i;
    EXPECT_EQ(gpu.ops()[i].name, whole.ops()[i].name) << i;
    EXPECT_EQ(gpu.ops()[i].device, whole.ops()[i].device) << i;
  }
  EXPECT_EQ(gpu.ranges().size(), whole.ranges().size());
  ASSERT_EQ(launches.calls().size(), whole.calls().size());
  for (size_t i = 1; i < launches.calls().size(); ++i) {
    ASSERT_LE(launches.calls()[i - 1].call.api_start_ns, launches.calls()[i].call.api_start_ns)
        << i;
  }
  std::vector<decltype(CallKey(whole.calls()[0]))> expected, got;
  for (const auto& c : whole.calls()) expected.push_back(CallKey(c));
  for (const auto& c : launches.calls()) got.push_back(CallKey(c));
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
}

void ExpectHalvesMatchTheWholeReader(const fs::path& path) {
  ExpectHalvesMatchTheWholeReader(path, TableScan::kChecked);
  ExpectHalvesMatchTheWholeReader(path, TableScan::kAsStored);
}

TEST_P(RealSqlite, HalvesReadApartMatchTheWholeReader) { ExpectHalvesMatchTheWholeReader(path_); }

INSTANTIATE_TEST_SUITE_P(NsysExports, RealSqlite,
                         ::testing::Values("pipit_cloverleaf_perlmutter.sqlite",
                                           "nsightful_power_iteration_t4.sqlite"));

// ---- hand-built exports ----

// An older layout: TARGET_INFO_CUDA_GPU, no MEMSET table, no ENUM_CUDA_MEMCPY_OPER, no
// globalPid (so the launch join falls back to correlationId alone), rows out of start order.
fs::path BuildOldSchemaExport() {
  fs::path path = TempPath("old_schema.sqlite");
  TestDb db(path, /*create=*/true);
  db.Exec(R"sql(
    CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'void gemm<128>(float*)'), (2, 'gemm'), (3, 'relu'),
      (4, 'cudaLaunchKernel_v7000'), (5, 'cudaMemcpy_v3020'), (6, 'cuLaunchKernel');
    CREATE TABLE TARGET_INFO_CUDA_GPU (id INTEGER NOT NULL, name TEXT);
    INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Tesla V100-SXM2-16GB');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
      deviceId INTEGER NOT NULL, contextId INTEGER, streamId INTEGER NOT NULL,
      correlationId INTEGER, demangledName INTEGER, shortName INTEGER NOT NULL);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3000, 3500, 0, 1, 7, 11, 1, 2);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 1200, 0, 1, 7, 10, NULL, 3);
    CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
      deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
      bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);
    INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2000, 2100, 0, 13, 12, 4096, 2);
    CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
      globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2500, 2800, 4294967419, 11, 4);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 4294967419, 10, 4);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1900, 2150, 4294967419, 12, 5);
    INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (4000, 4010, 4294967420, 99, 6);
  )sql");
  return path;
}

TEST(NsysSqliteFixture, ReadsAnOlderSchemaVariant) {
  fs::path path = BuildOldSchemaExport();
  CollectingSink sink;
  Result<ReadReport> report = ReadNsysSqlite(path, "old.sqlite", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->rows, 3 + 3);  // 3 GPU rows, 3 launch rows (cudaMemcpy is not one)
  EXPECT_EQ(report->layout, "nsys export (no META_DATA_EXPORT)");

  const auto& ops = sink.ops();
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].name, "relu");  // demangledName NULL → shortName
  EXPECT_EQ(ops[0].op.start_ns, 1000);
  EXPECT_EQ(ops[0].op.duration_ns, 200);
  EXPECT_EQ(ops[0].op.stream, 7);
  EXPECT_EQ(ops[0].op.correlation_id, 10);
  EXPECT_EQ(ops[0].op.line, 2);  // rowid
  EXPECT_EQ(ops[0].device, "Tesla V100-SXM2-16GB (0)");
  EXPECT_EQ(ops[1].name, "[CUDA memcpy Device-to-Host]");
  EXPECT_EQ(ops[1].op.kind, OpKind::kMemcpy);
  EXPECT_EQ(ops[1].op.bytes, 4096);
  EXPECT_EQ(ops[1].op.stream, 13);
  EXPECT_EQ(ops[2].name, "void gemm<128>(float*)");
  EXPECT_EQ(ops[2].op.kind, OpKind::kKernel);
  EXPECT_EQ(ops[2].op.bytes, -1);

  const auto& calls = sink.calls();
  ASSERT_EQ(calls.size(), 2u);  // cuLaunchKernel with correlation 99 has no kernel: left out
  EXPECT_EQ(calls[0].api_name, "cudaLaunchKernel");
  EXPECT_EQ(calls[0].kernel_name, "relu");
  EXPECT_EQ(calls[0].call.api_start_ns, 900);
  EXPECT_EQ(calls[0].call.api_duration_ns, 50);
  EXPECT_EQ(calls[0].call.kernel_start_ns, 1000);
  EXPECT_EQ(calls[0].call.kernel_duration_ns, 200);
  EXPECT_EQ(calls[0].call.queue_duration_ns, 50);
  EXPECT_EQ(calls[0].call.pid, 256);  // 4294967419 = 256 << 24 | 123
  EXPECT_EQ(calls[0].call.tid, 123);
  EXPECT_EQ(calls[1].kernel_name, "void gemm<128>(float*)");
  EXPECT_EQ(calls[1].call.queue_duration_ns, 200);
}

// Issue 30: a sink that asks for copy calls gets the cudaMemcpy call too, joined to nothing;
// the launches are as before.
TEST(NsysSqliteFixture, CopyCallsOnlyForASinkThatAsks) {
  fs::path path = BuildOldSchemaExport();
  CollectingSink sink;
  sink.fields = TraceFields::All() | TraceFields{0, TraceFields::kCopyCalls};
  Result<ReadReport> report = ReadNsysSqlite(path, "old.sqlite", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  const auto& calls = sink.calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].kernel_name, "relu");
  EXPECT_EQ(calls[0].call.kind, CallKind::kKernelLaunch);
  EXPECT_EQ(calls[1].api_name, "cudaMemcpy");
  EXPECT_EQ(calls[1].call.kind, CallKind::kCopy);
  EXPECT_EQ(calls[1].call.api_start_ns, 1900);
  EXPECT_EQ(calls[1].call.correlation_id, 12);
  EXPECT_EQ(calls[1].call.kernel_start_ns, -1);
  EXPECT_EQ(calls[2].kernel_name, "void gemm<128>(float*)");
  EXPECT_EQ(calls[2].call.kind, CallKind::kKernelLaunch);
}

TEST(NsysSqliteFixture, JoinsOnProcessAsWellAsCorrelation) {
  fs::path path = TempPath("two_processes.sqlite");
  {
    TestDb db(path, /*create=*/true);
    // Two processes (pid 1 and 2) both launch correlation id 5; kernel 1 starts before its
    // launch call returns, so it has no queue time.
    db.Exec(R"sql(
      CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO StringIds VALUES (1, 'k_of_pid1'), (2, 'k_of_pid2'), (3, 'cudaLaunchKernel_ptsz_v7000');
      CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
        shortName INTEGER);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 150, 0, 7, 5, 16777216, 1, 1);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (300, 400, 1, 7, 5, 33554432, 2, 2);
      CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,
        correlationId INTEGER, nameId INTEGER);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (90, 120, 33554433, 5, 3);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (80, 110, 16777217, 5, 3);
    )sql");
  }
  CollectingSink sink;
  Result<ReadReport> report = ReadNsysSqlite(path, "two.sqlite", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.calls().size(), 2u);
  EXPECT_EQ(sink.calls()[0].call.pid, 1);
  EXPECT_EQ(sink.calls()[0].kernel_name, "k_of_pid1");
  EXPECT_EQ(sink.calls()[0].call.queue_duration_ns, -1);
  EXPECT_EQ(sink.calls()[0].api_name, "cudaLaunchKernel");  // normalized like the CSV readers
  EXPECT_EQ(sink.calls()[1].call.pid, 2);
  EXPECT_EQ(sink.calls()[1].kernel_name, "k_of_pid2");
  EXPECT_EQ(sink.calls()[1].call.queue_duration_ns, 180);
  EXPECT_EQ(sink.ops()[0].device, " (0)");  // no GPU table: nsys's printf gives an empty name
  // The kernels' processes, from globalPid, as their launch calls' (issue 12).
  EXPECT_EQ(sink.ops()[0].op.pid, 1);
  EXPECT_EQ(sink.ops()[1].op.pid, 2);
}

TEST(NsysSqliteFixture, HalvesReadApartMatchOnOldSchemaAndAcrossProcesses) {
  ExpectHalvesMatchTheWholeReader(BuildOldSchemaExport());
  fs::path path = TempPath("halves.sqlite");
  {
    TestDb db(path, /*create=*/true);
    // Two processes; a graph launch (id 7) runs two kernels; a call whose kernel was not
    // captured (id 8); a kernel no call launched (id 3); pid 2's ids run backwards in time
    // relative to pid 1's, so only a merge by start puts them in order.
    db.Exec(R"sql(
      CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO StringIds VALUES (1, 'k1'), (2, 'k2'), (3, 'cudaLaunchKernel'),
        (4, 'cudaGraphLaunch_v10000'), (5, 'cudaMemcpyAsync');
      CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,
        streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
        shortName INTEGER);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 150, 0, 7, 5, 16777216, 1, 1);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (400, 450, 0, 7, 7, 16777216, 2, 2);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (460, 470, 0, 7, 7, 16777216, 1, 1);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (50, 60, 0, 7, 3, 16777216, 1, 1);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (300, 350, 1, 9, 2, 33554432, 2, 2);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (90, 95, 1, 9, 9, 33554432, 2, 2);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (600, 650, 1, 9, NULL, 33554432, 2, 2);
      CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,
        correlationId INTEGER, nameId INTEGER);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (80, 110, 16777217, 5, 3);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (380, 390, 16777217, 7, 4);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (500, 510, 16777217, 8, 3);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (510, 520, 16777217, 6, 5);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (290, 295, 33554433, 2, 3);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (85, 88, 33554433, 9, 3);
      INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (600, 610, NULL, 9, 3);
    )sql");
  }
  ExpectHalvesMatchTheWholeReader(path);
  CollectingSink launches;
  ASSERT_TRUE(ReadNsysSqliteLaunchSide(path, "halves.sqlite", launches).ok());
  ASSERT_EQ(launches.calls().size(), 5u);  // 5, 9, 2, and the graph launch twice
  EXPECT_EQ(launches.calls()[0].call.api_start_ns, 80);
  EXPECT_EQ(launches.calls()[1].call.api_start_ns, 85);
  EXPECT_EQ(launches.calls()[1].call.pid, 2);
  EXPECT_EQ(launches.calls()[3].api_name, "cudaGraphLaunch");
  EXPECT_EQ(launches.calls()[3].kernel_name, "k2");
  EXPECT_EQ(launches.calls()[4].kernel_name, "k1");
}

// Issue 12: exports of older nsys list each launch twice, as cudaLaunchKernel and
// cudaLaunchKernel_v7000 under one correlation id; that is one launch, not two.
TEST(NsysSqliteFixture, VersionedApiNamesOfOneCorrelationIdAreOneLaunch) {
  fs::path path = TempPath("versioned_names.sqlite");
  {
    TestDb db(path, /*create=*/true);
    db.Exec(R"sql(
      CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO StringIds VALUES (1, 'k'), (2, 'cudaLaunchKernel'),
        (3, 'cudaLaunchKernel_v7000');
      CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
        deviceId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
        shortName INTEGER NOT NULL);
      CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
        globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL);
    )sql");
    for (int i = 0; i < 5; ++i) {
      const std::string t = std::to_string(1000 * i), c = std::to_string(10 + i);
      db.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + t + " + 500, " + t +
              " + 700, 0, 7, " + c + ", 1)");
      // The outer call, and the versioned one nested in it (listed first, as rowid order
      // need not be start order).
      db.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + t + " + 20, " + t +
              " + 80, 4294967419, " + c + ", 3)");
      db.Exec("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + t + " + 10, " + t +
              " + 90, 4294967419, " + c + ", 2)");
    }
  }
  CollectingSink whole, launch_side;
  ASSERT_TRUE(ReadNsysSqlite(path, "old.sqlite", whole).ok());
  ASSERT_TRUE(ReadNsysSqliteLaunchSide(path, "old.sqlite", launch_side).ok());
  for (const CollectingSink* sink : {&whole, &launch_side}) {
    ASSERT_EQ(sink->calls().size(), 5u);
    for (size_t i = 0; i < 5; ++i) {
      const LaunchCall& call = sink->calls()[i].call;
      EXPECT_EQ(call.correlation_id, static_cast<int64_t>(10 + i));
      EXPECT_EQ(call.api_start_ns, static_cast<int64_t>(1000 * i + 10));  // the earliest row
      EXPECT_EQ(call.api_duration_ns, 80);
      EXPECT_EQ(sink->calls()[i].kernel_name, "k");
    }
  }
}

std::string ReadError(const fs::path& path) {
  CollectingSink sink;
  Result<ReadReport> report = ReadNsysSqlite(path, "input.sqlite", sink);
  EXPECT_FALSE(report.ok());
  return report.status().message();
}

TEST(NsysSqliteErrors, NonNsysSqliteIsAClearError) {
  fs::path path = TempPath("other.sqlite");
  TestDb(path, true).Exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);");
  EXPECT_EQ(ReadError(path),
            "input.sqlite: not an nsys SQLite export (no StringIds table); export a report with "
            "`nsys export --type sqlite`");
}

TEST(NsysSqliteErrors, ExportWithoutCudaActivity) {
  fs::path path = TempPath("no_cuda.sqlite");
  TestDb(path, true).Exec("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);");
  EXPECT_THAT(ReadError(path),
              HasSubstr("input.sqlite: this nsys export has no CUDA GPU activity"));
}

TEST(NsysSqliteErrors, TextFileAndMissingFile) {
  fs::path path = TempPath("text.sqlite");
  std::ofstream(path) << "Start (ns),Duration (ns),Name\n1,2,k\n";
  EXPECT_EQ(ReadError(path), "input.sqlite: not an SQLite database, so not an nsys SQLite export");
  EXPECT_EQ(ReadError(TempPath("absent.sqlite")), "input.sqlite: no such file");
}

TEST(NsysSqliteErrors, EndBeforeStartNamesTheRow) {
  fs::path path = TempPath("bad_row.sqlite");
  TestDb(path, true).Exec(R"sql(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
    INSERT INTO StringIds VALUES (1, 'k');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, streamId INTEGER,
      demangledName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 1, 1), (50, 40, 1, 1);
  )sql");
  EXPECT_EQ(ReadError(path), "input.sqlite: CUPTI_ACTIVITY_KIND_KERNEL row 2: end before start");
}

TEST(NsysSqliteErrors, PathWithUriSpecialCharacters) {
  fs::path path = BuildOldSchemaExport();
#if defined(_WIN32)
  fs::path odd = TempPath("odd #%&name.sqlite");  // Windows allows no '?' in a file name
#else
  fs::path odd = TempPath("odd ?#%name.sqlite");
#endif
  fs::copy_file(path, odd);
  CollectingSink sink;
  Result<ReadReport> report = ReadNsysSqlite(odd, "odd", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(sink.ops().size(), 3u);
}

}  // namespace
}  // namespace stepstat
