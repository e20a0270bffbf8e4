#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "readers/test_sink.h"
#include "stepstat/read.h"
#include "test_platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

// Named with the process: ctest runs each test as a process of its own, two at a time, and
// ByContent and Errors both write an "api.csv" (CI failed on the race under ASan).
fs::path WriteTemp(const std::string& name, const std::string& bytes) {
  fs::path path =
      fs::temp_directory_path() /
      ("stepstat_detect_test_" + std::to_string(testing_support::ProcessId()) + "_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string Detect(const std::string& name, const std::string& bytes) {
  fs::path path = WriteTemp(name, bytes);
  auto kind = DetectInputKind(path, name);
  fs::remove(path);
  return kind.ok() ? std::string(InputKindName(*kind)) : kind.status().message();
}

std::string Gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3));
  return out;
}

const std::string kGpuCsv =
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n"
    "1,2,3,,,,,,,,,,,,,,G,1,,7,k\n";

TEST(DetectTest, ByContent) {
  EXPECT_EQ(Detect("a.sqlite", std::string("SQLite format 3\0rest", 20)), "nsys SQLite export");
  EXPECT_EQ(Detect("a.json", "\xEF\xBB\xBF  {\"traceEvents\": []}"), "PyTorch profiler JSON trace");
  EXPECT_EQ(Detect("b.json", "[\n {\"ph\": \"X\"}]"), "PyTorch profiler JSON trace");
  EXPECT_EQ(Detect("a.csv", kGpuCsv), "nsys cuda_gpu_trace CSV");
  EXPECT_EQ(Detect("console.txt", "[1/8] Executing 'cuda_gpu_trace' stats report\n\n" + kGpuCsv),
            "nsys cuda_gpu_trace CSV");
  EXPECT_EQ(Detect("a.csv.gz", Gzip(kGpuCsv)), "nsys cuda_gpu_trace CSV");
  EXPECT_EQ(Detect("a.json.zst", Zstd("{\"traceEvents\": []}")), "PyTorch profiler JSON trace");
  EXPECT_EQ(Detect("k.csv",
                   "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
                   "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API "
                   "Function,GridXYZ,BlockXYZ,Kernel Name\n"),
            "nsys cuda_kern_exec_trace CSV");
  EXPECT_EQ(
      Detect("api.csv", "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n"),
      "nsys cuda_api_trace CSV");
  EXPECT_EQ(
      Detect("proj.csv",
             "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),"
             "Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack\n"),
      "nsys NVTX trace CSV");
}

TEST(DetectTest, Errors) {
  const std::string unknown =
      ": unknown format (expected an nsys cuda_gpu_trace, cuda_kern_exec_trace or cuda_api_trace "
      "CSV, an nsys SQLite export or a PyTorch profiler JSON trace)";
  // Issue 13: a kern_sum is a kind (classify reads it); other summaries are named.
  EXPECT_EQ(Detect("sum.csv", "Time (%),Total Time (ns),Instances,Avg (ns),Name\n1,2,3,4,k\n"),
            "nsys cuda_gpu_kern_sum CSV");
  EXPECT_EQ(
      Detect("api.csv", "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Name\n1,2,3,4,5,k\n"),
      "api.csv: an nsys cuda_api_sum summary report holds totals, not the trace that "
      "summarize and steps need: export cuda_gpu_trace (nsys stats --report "
      "cuda_gpu_trace,cuda_kern_exec_trace --format csv --output run report.nsys-rep); "
      "`stepstat classify` reads a cuda_gpu_kern_sum report");
  EXPECT_EQ(Detect("x.bin", std::string("\x7f"
                                        "ELF\0\0\0",
                                        7)),
            "x.bin" + unknown);
  EXPECT_EQ(Detect("e.csv", ""), "e.csv: empty file");
  auto missing = DetectInputKind("/nonexistent/dir/t.csv", "t.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "t.csv: cannot open: No such file or directory");
}

TEST(DetectTest, ReadInputThroughGzipAndStubsForOtherHelpers) {
  fs::path path = WriteTemp("read.csv.gz", Gzip(kGpuCsv));
  CollectingSink sink;
  auto report = ReadInput(path, "read.csv.gz", InputKind::kNsysGpuTraceCsv, sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->rows, 1);
  ASSERT_EQ(sink.ops.size(), 1u);
  EXPECT_EQ(sink.ops[0].op.duration_ns, 2);
  auto sqlite = ReadInput(path, "x.sqlite", InputKind::kNsysSqlite, sink);
  EXPECT_FALSE(sqlite.ok());
  auto missing = ReadInput("/nonexistent/t.csv", "t.csv", InputKind::kNsysGpuTraceCsv, sink);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "t.csv: cannot open: No such file or directory");
  fs::remove(path);
}

}  // namespace
}  // namespace stepstat
