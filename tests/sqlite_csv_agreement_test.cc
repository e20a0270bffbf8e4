// One model, one analysis: an nsys SQLite export and the CSV pair that nsys would write from
// it (reproduced here by SQL in nsys's cuda_gpu_trace / cuda_kern_exec_trace column layout)
// must give the same summary.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "stepstat/policy.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

std::string CsvField(const unsigned char* text) {
  std::string value = text ? reinterpret_cast<const char*>(text) : "";
  if (value.find_first_of(",\"\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char c : value) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  quoted.push_back('"');
  return quoted;
}

// Runs `sql` and writes `header` plus one CSV row per result row.
void WriteCsv(sqlite3* db, const std::string& sql, const std::string& header, const fs::path& out) {
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  std::ofstream file(out, std::ios::binary);
  file << header << "\n";
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      if (i) file << ',';
      file << CsvField(sqlite3_column_text(stmt, i));
    }
    file << "\n";
  }
  sqlite3_finalize(stmt);
}

bool HasTable(sqlite3* db, const std::string& name) {
  sqlite3_stmt* stmt = nullptr;
  std::string sql = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='";
  sql += name;
  sql += "'";
  sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  bool found = sqlite3_step(stmt) == SQLITE_ROW;
  sqlite3_finalize(stmt);
  return found;
}

std::string NumbersOnly(const StepStats& stats) {
  StepStats copy = stats;
  copy.source_gpu_trace = "x";
  copy.source_kernel_exec_trace = "y";
  return StepStatsToJson(copy);
}

Result<StepStats> SummarizeArgs(const std::vector<std::string>& args) {
  ASSIGN_OR_RETURN(SummaryInputs inputs, ResolveInputs(args));
  ASSIGN_OR_RETURN(Policy policy, BuiltinPolicy(kDefaultPolicyName));
  return Summarize(inputs, policy);
}

class SqliteCsvAgreement : public testing::TestWithParam<const char*> {};

TEST_P(SqliteCsvAgreement, CsvPairWrittenFromTheExportGivesTheSameSummary) {
  fs::path sqlite = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real" / GetParam();
  if (!fs::exists(sqlite)) GTEST_SKIP() << "absent: " << sqlite;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(sqlite.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  std::string name = "agreement-";
  name += GetParam();
  fs::path base = fs::temp_directory_path() / name;

  std::string memsets =
      HasTable(db, "CUPTI_ACTIVITY_KIND_MEMSET")
          ? " UNION ALL SELECT start, end - start, correlationId, NULL, NULL, NULL, NULL, NULL, "
            "NULL, NULL, NULL, NULL, bytes / 1e6, NULL, NULL, NULL, deviceId, contextId, NULL, "
            "streamId, '[CUDA memset]' FROM CUPTI_ACTIVITY_KIND_MEMSET"
          : "";
  WriteCsv(
      db,
      "SELECT * FROM (SELECT k.start, k.end - k.start, k.correlationId, k.gridX, k.gridY, "
      "k.gridZ, k.blockX, k.blockY, k.blockZ, k.registersPerThread, NULL, NULL, NULL, NULL, "
      "NULL, NULL, k.deviceId, k.contextId, NULL, k.streamId, s.value "
      "FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
      "UNION ALL SELECT m.start, m.end - m.start, m.correlationId, NULL, NULL, NULL, NULL, "
      "NULL, NULL, NULL, NULL, NULL, m.bytes / 1e6, NULL, NULL, NULL, m.deviceId, m.contextId, "
      "NULL, m.streamId, '[CUDA memcpy ' || e.label || ']' FROM CUPTI_ACTIVITY_KIND_MEMCPY m "
      "JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind" +
          memsets + ") ORDER BY 1",
      "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name",
      base.string() + "_cuda_gpu_trace.csv");
  WriteCsv(db,
           // nsys leaves the queue columns empty when the kernel starts before the call returns.
           "SELECT r.start, r.end - r.start, CASE WHEN k.start >= r.end THEN r.end END, "
           "CASE WHEN k.start >= r.end THEN k.start - r.end END, k.start, k.end - k.start, "
           "k.end - r.start, (r.globalTid >> 24) & 16777215, r.globalTid & 16777215, k.deviceId, "
           "a.value, '', '', n.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
           "JOIN StringIds a ON a.id = r.nameId "
           "JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId "
           "AND k.globalPid = (r.globalTid & -16777216) "
           "JOIN StringIds n ON n.id = k.demangledName "
           "WHERE a.value GLOB 'cudaLaunchKernel*' OR a.value GLOB 'cuLaunchKernel*' "
           "OR a.value GLOB 'cudaGraphLaunch*' OR a.value GLOB 'cudaLaunchCooperativeKernel*' "
           "ORDER BY r.start",
           "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
           "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name",
           base.string() + "_cuda_kern_exec_trace.csv");
  sqlite3_close(db);

  Result<StepStats> from_sqlite = SummarizeArgs({sqlite.string()});
  ASSERT_TRUE(from_sqlite.ok()) << from_sqlite.status().message();
  Result<StepStats> from_csv = SummarizeArgs({base.string()});
  ASSERT_TRUE(from_csv.ok()) << from_csv.status().message();
  EXPECT_GT(from_csv->kernel_count, 0);
  ASSERT_TRUE(from_csv->cpu_gpu_overlap.has_value());
  EXPECT_EQ(NumbersOnly(from_sqlite.value()), NumbersOnly(from_csv.value()));
  fs::remove(base.string() + "_cuda_gpu_trace.csv");
  fs::remove(base.string() + "_cuda_kern_exec_trace.csv");
}

INSTANTIATE_TEST_SUITE_P(RealExports, SqliteCsvAgreement,
                         testing::Values("pipit_cloverleaf_perlmutter.sqlite",
                                         "nsightful_power_iteration_t4.sqlite"),
                         [](const auto& info) { return std::string(info.param).substr(0, 5); });

}  // namespace
}  // namespace stepstat
