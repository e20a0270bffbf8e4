// summarize reads an SQLite export's tables as stored, checking their order while it reads
// (TableScan::kAsStored), and reads again with the order checked first when a table turns
// out further out of order than the reorder window. These tests build such a table, whose
// disorder starts late (one early row moved to the end of the table, so that thousands of
// rows went to the sinks before the read meets it), and check that the summary is the one
// of the same trace stored in order.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "readers/sqlite/nsys_sqlite.h"
#include "readers/sqlite/nsys_sqlite_sorted_scan.h"
#include "stepstat/policy.h"
#include "stepstat/read.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

class NullSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& /*names*/) override {
    rows_ += static_cast<int64_t>(ops.size());
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& /*names*/) override {
    rows_ += static_cast<int64_t>(calls.size());
    return Status::Ok();
  }
  int64_t rows() const { return rows_; }

 private:
  int64_t rows_ = 0;
};

// One directory per test: ctest runs the tests of this file at once.
fs::path TestDir() {
  fs::path dir = fs::path(::testing::TempDir()) / "stepstat_sqlite_scan_fallback" /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::create_directories(dir);
  return dir;
}

// A synthetic export of 16 steps: ~45,000 kernels and launch calls, beyond what the reorder
// windows hold (so that rows reach the sinks before the read meets the moved one).
fs::path InOrderExport() {
  synth::SynthOptions options;
  options.out_base = TestDir() / "in-order";
  options.format = synth::SynthFormat::kSqlite;
  options.steps = 16;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  EXPECT_TRUE(written.ok()) << written.status().message();
  return written.ok() ? written->gpu_trace : fs::path();
}

void Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
}

// A copy of `source` with row `rowid` of each of `tables` moved to the end of its table.
fs::path WithRowMovedToTheEnd(const fs::path& source, const std::string& name,
                              const std::vector<std::string>& tables, int rowid) {
  fs::path path = TestDir() / name;
  fs::copy_file(source, path, fs::copy_options::overwrite_existing);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
  const std::string id = std::to_string(rowid);
  for (const std::string& table : tables) {
    Exec(db, "BEGIN; CREATE TEMP TABLE moved AS SELECT * FROM " + table + " WHERE rowid = " + id +
                 "; CREATE TEMP TABLE rest AS SELECT * FROM " + table + " WHERE rowid <> " + id +
                 " ORDER BY rowid; DELETE FROM " + table + "; INSERT INTO " + table +
                 " SELECT * FROM rest; INSERT INTO " + table +
                 " SELECT * FROM moved; DROP TABLE moved; DROP TABLE rest; COMMIT;");
  }
  sqlite3_close(db);
  return path;
}

std::string SummaryNumbers(const fs::path& path) {
  Result<SummaryInputs> inputs = ResolveInputs({path.string()});
  EXPECT_TRUE(inputs.ok()) << inputs.status().message();
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  EXPECT_TRUE(policy.ok());
  if (!inputs.ok() || !policy.ok()) return "";
  Result<StepStats> stats = Summarize(*inputs, *policy);
  EXPECT_TRUE(stats.ok()) << stats.status().message();
  if (!stats.ok()) return "";
  StepStats copy = stats.value();
  copy.source_gpu_trace = "x";
  copy.source_kernel_exec_trace = "x";
  return StepStatsToJson(copy);
}

TEST(TableScanFallback, AKernelFarOutOfOrderLateInTheTableGivesTheInOrderSummary) {
  fs::path in_order = InOrderExport();
  ASSERT_FALSE(in_order.empty());
  fs::path moved =
      WithRowMovedToTheEnd(in_order, "kernel-moved.sqlite", {"CUPTI_ACTIVITY_KIND_KERNEL"}, 10);
  // The as-stored read of either half meets the moved kernel only at the end of the table,
  // and fails there: the fallback is what the summary below goes through.
  NullSink gpu;
  Result<ReadReport> gpu_read = ReadNsysSqliteGpuSide(moved, "m", gpu, TableScan::kAsStored);
  EXPECT_TRUE(nsys_sqlite::IsTooFarOutOfOrder(gpu_read.status())) << gpu_read.status().message();
  EXPECT_GE(gpu.rows(), 4096);
  NullSink launches;
  Result<ReadReport> launch_read =
      ReadNsysSqliteLaunchSide(moved, "m", launches, TableScan::kAsStored);
  EXPECT_TRUE(nsys_sqlite::IsTooFarOutOfOrder(launch_read.status()))
      << launch_read.status().message();
  // Read checked, each half succeeds.
  NullSink checked;
  EXPECT_TRUE(ReadNsysSqliteGpuSide(moved, "m", checked, TableScan::kChecked).ok());
  EXPECT_TRUE(ReadNsysSqliteLaunchSide(moved, "m", checked, TableScan::kChecked).ok());

  const std::string expected = SummaryNumbers(in_order);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(SummaryNumbers(moved), expected);
}

TEST(TableScanFallback, ALaunchCallFarOutOfOrderLateInTheTableGivesTheInOrderSummary) {
  fs::path in_order = InOrderExport();
  ASSERT_FALSE(in_order.empty());
  fs::path moved =
      WithRowMovedToTheEnd(in_order, "call-moved.sqlite", {"CUPTI_ACTIVITY_KIND_RUNTIME"}, 10);
  NullSink gpu;
  EXPECT_TRUE(ReadNsysSqliteGpuSide(moved, "m", gpu, TableScan::kAsStored).ok());
  NullSink launches;
  Result<ReadReport> launch_read =
      ReadNsysSqliteLaunchSide(moved, "m", launches, TableScan::kAsStored);
  EXPECT_TRUE(nsys_sqlite::IsTooFarOutOfOrder(launch_read.status()))
      << launch_read.status().message();
  EXPECT_GE(launches.rows(), 4096);

  const std::string expected = SummaryNumbers(in_order);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(SummaryNumbers(moved), expected);
}

}  // namespace
}  // namespace stepstat
