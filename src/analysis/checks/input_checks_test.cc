#include "stepstat/input_checks.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace stepstat {
namespace {

namespace fs = std::filesystem;

fs::path TempDir() {
  fs::path dir = fs::path(::testing::TempDir()) / "stepstat_input_checks_test" /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::create_directories(dir);
  return dir;
}

TraceInput Write(const fs::path& path, const std::string& text, InputKind kind) {
  std::ofstream(path, std::ios::binary) << text;
  return {path, path.filename().string(), kind};
}

constexpr char kGpuHeader[] =
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n";
constexpr char kApiHeader[] =
    "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n";

// n kernels at 1000 ns apart, correlation ids from `first_id`.
std::string GpuRows(int n, int first_id) {
  std::string text = kGpuHeader;
  for (int i = 0; i < n; ++i) {
    text += std::to_string(1000 * (i + 1)) + ",500," + std::to_string(first_id + i) +
            ",1,1,1,1,1,1,8,0,0,,,,,NVIDIA H100 (0),1,,7,k\n";
  }
  return text;
}

std::string ApiRows(int n, int first_id) {
  std::string text = kApiHeader;
  for (int i = 0; i < n; ++i) {
    text += std::to_string(1000 * i + 100) + ",50,cudaLaunchKernel,0," +
            std::to_string(first_id + i) + ",77,77,20,main\n";
  }
  return text;
}

// Issue 12: a launch trace of another run (no correlation id in common) is refused.
TEST(InputChecks, LaunchTraceOfAnotherRunIsRefused) {
  fs::path dir = TempDir();
  SummaryInputs inputs;
  inputs.gpu = Write(dir / "gpu.csv", GpuRows(40, 100), InputKind::kNsysGpuTraceCsv);
  inputs.launches = Write(dir / "api.csv", ApiRows(40, 9000), InputKind::kNsysApiTraceCsv);
  Result<InputCheckReport> checked = CheckInputs(inputs);
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.status().message(),
            "api.csv: only 0 of the first 40 launch rows match a kernel of gpu.csv (by "
            "correlation id); the two files are not from one capture");

  inputs.launches = Write(dir / "same.csv", ApiRows(40, 100), InputKind::kNsysApiTraceCsv);
  checked = CheckInputs(inputs);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  EXPECT_TRUE(checked->warnings.empty());
  EXPECT_EQ(checked->launch_rows_matched, 40);
}

// The check reads a bounded prefix of each file, whatever their size: rows past it are not
// looked at (that is what keeps its memory and time flat).
TEST(InputChecks, OnlyABoundedPrefixIsChecked) {
  fs::path dir = TempDir();
  SummaryInputs inputs;
  inputs.gpu = Write(dir / "gpu.csv", GpuRows(40, 100), InputKind::kNsysGpuTraceCsv);
  // The first 10 launch rows match, the next 30 are another run's.
  std::string api = ApiRows(10, 100);
  std::string other = ApiRows(30, 9000);
  api += other.substr(other.find('\n') + 1);
  inputs.launches = Write(dir / "api.csv", api, InputKind::kNsysApiTraceCsv);
  InputCheckOptions options;
  options.launch_rows = 10;
  Result<InputCheckReport> checked = CheckInputs(inputs, options);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  EXPECT_EQ(checked->launch_rows_checked, 10);
  options.launch_rows = 16;  // 10 of 16 match: a warning, not a refusal
  checked = CheckInputs(inputs, options);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  ASSERT_EQ(checked->warnings.size(), 1u);
  EXPECT_EQ(checked->warnings[0],
            "api.csv: 6 of the first 16 launch rows match no kernel of gpu.csv (by correlation "
            "id)");
}

// Issue 12: an SQLite export of two processes on two GPUs says so.
TEST(InputChecks, SqliteExportOfSeveralGpusSaysSo) {
  fs::path path = TempDir() / "two_gpus.sqlite";
  fs::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
  const char* sql = R"sql(
    CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO StringIds VALUES (1, 'k');
    CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,
      streamId INTEGER, correlationId INTEGER, globalPid INTEGER, shortName INTEGER);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 150, 0, 7, 5, 16777216, 1);
    INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (120, 170, 1, 7, 5, 33554432, 1);
  )sql";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  SummaryInputs inputs;
  inputs.gpu = {path, "two.sqlite", InputKind::kNsysSqlite};
  Result<InputCheckReport> checked = CheckInputs(inputs);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  ASSERT_EQ(checked->warnings.size(), 1u);
  EXPECT_NE(checked->warnings[0].find("two.sqlite holds the kernels of 2 GPUs (2 processes)"),
            std::string::npos)
      << checked->warnings[0];
}

// Issue 12: a Kineto trace in whole microseconds says so; one with ns fractions does not.
TEST(InputChecks, KinetoTraceInWholeMicrosecondsSaysSo) {
  fs::path dir = TempDir();
  auto trace = [](const char* ts) {
    return std::string(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0,
      "tid": 7, "ts": )") +
           ts + R"(, "dur": 3, "args": {"correlation": 1}}]})";
  };
  SummaryInputs inputs;
  inputs.gpu = Write(dir / "us.json", trace("1700000000123"), InputKind::kKinetoJson);
  Result<InputCheckReport> checked = CheckInputs(inputs);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  ASSERT_EQ(checked->warnings.size(), 1u);
  EXPECT_EQ(checked->warnings[0],
            "us.json: start times move in steps of 1000 ns (1 us), so gaps and same-stream "
            "overlaps are known only to that step");
  inputs.gpu = Write(dir / "ns.json", trace("1700000000123.456"), InputKind::kKinetoJson);
  checked = CheckInputs(inputs);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  EXPECT_TRUE(checked->warnings.empty());
}

// Copies and memsets may outnumber kernels several times (hcc BN: 5 per kernel): the GPU
// prefix reaches every kernel the sampled launch rows launched, however many rows that is.
TEST(InputChecks, ManyCopiesPerKernelDoNotHideTheLaunchedKernels) {
  fs::path dir = TempDir();
  std::string gpu = kGpuHeader;
  std::string kexec =
      "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),Kernel Dur "
      "(ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n";
  for (int i = 0; i < 150; ++i) {
    int64_t t = 10'000 * (i + 1);
    for (int c = 0; c < 5; ++c) {
      gpu += std::to_string(t + c * 100) + ",50,," +
             ",,,,,,,,,0.001,1.0,Device,,NVIDIA H100 (0),1,,7," + "[CUDA memset]\n";
    }
    gpu += std::to_string(t + 1000) + ",500,,1,1,1,1,1,1,8,0,0,,,,,NVIDIA H100 (0),1,,7,k\n";
    kexec += std::to_string(t - 5000) + ",100,0,0," + std::to_string(t + 1000) +
             ",500,0,77,77,0,cudaLaunchKernel,1 1 1,1 1 1,k\n";
  }
  SummaryInputs inputs;
  inputs.gpu = Write(dir / "gpu.csv", gpu, InputKind::kNsysGpuTraceCsv);
  inputs.launches = Write(dir / "kexec.csv", kexec, InputKind::kNsysKernExecTraceCsv);
  InputCheckOptions options;
  options.launch_rows = 100;
  options.gpu_rows = 200;
  Result<InputCheckReport> checked = CheckInputs(inputs, options);
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  EXPECT_EQ(checked->launch_rows_checked, 100);
  EXPECT_EQ(checked->launch_rows_matched, 100);
  EXPECT_TRUE(checked->warnings.empty());
}

}  // namespace
}  // namespace stepstat
