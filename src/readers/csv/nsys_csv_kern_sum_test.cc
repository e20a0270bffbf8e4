// Issue 13: nsys summary reports got "unknown format". A cuda_gpu_kern_sum is read (for
// `classify`); the other summaries are named, with the report to export instead.
#include "readers/csv/nsys_csv_kern_sum.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "io/byte_source.h"
#include "stepstat/read.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kRealDir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";

Result<std::vector<KernelSumRow>> Read(const fs::path& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path, path.string()));
  return ReadNsysGpuKernSum(*source, path.filename().string());
}

TEST(NsysGpuKernSum, ReadsTextInMemory) {
  std::string text =
      "Time (%),Total Time (us),Instances,Avg (us),Med (us),Min (us),Max (us),StdDev (us),Name\n"
      "75.0,3.5,2,1.75,1.7505,1.5,2,0.3,\"gemm(int, float)\"\n"
      "25.0,1,1,1,1,1,1,0,copy\n";
  auto source = MemoryByteSource(text);
  Result<std::vector<KernelSumRow>> rows = ReadNsysGpuKernSum(*source, "sum.csv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2u);
  const KernelSumRow& gemm = rows->front();
  EXPECT_EQ(gemm.name, "gemm(int, float)");
  EXPECT_EQ(gemm.instances, 2);
  EXPECT_EQ(gemm.total_ns, 3500);
  EXPECT_EQ(gemm.mean_ns, 1750.0);
  EXPECT_EQ(gemm.median_ns, 1750.5);
  EXPECT_EQ(gemm.min_ns, 1500);
  EXPECT_EQ(gemm.max_ns, 2000);
}

TEST(NsysGpuKernSum, BadFieldNamesFileLineAndColumn) {
  std::string text =
      "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
      "75.0,35,x,1.75,1.7505,1,2,0.3,k\n";
  auto source = MemoryByteSource(text);
  Result<std::vector<KernelSumRow>> rows = ReadNsysGpuKernSum(*source, "sum.csv");
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().message(), "sum.csv:2: Instances: not a number");
}

TEST(NsysGpuKernSumRealData, EveryRealKernSumReads) {
  if (!fs::exists(kRealDir)) GTEST_SKIP() << "needs " << kRealDir;
  struct Case {
    const char* file;
    size_t rows;
  };
  for (Case c : {Case{"hcc_h100nvl_kmeans_cc_cuda_gpu_kern_sum.csv", 5},
                 Case{"kiln_qwen35_tier2_cuda_gpu_kern_sum.csv", 66},
                 Case{"llmperfopt_dsocr_rtx5090_allstage_cuda_gpu_kern_sum.csv", 113},
                 Case{"llmperfopt_dsocr_rtx5090_prefill_cuda_gpu_kern_sum.csv", 97}}) {
    fs::path path = kRealDir / c.file;
    Result<InputKind> kind = DetectInputKind(path, c.file);
    ASSERT_TRUE(kind.ok()) << kind.status().message();
    EXPECT_EQ(kind.value(), InputKind::kNsysGpuKernSumCsv) << c.file;
    Result<std::vector<KernelSumRow>> rows = Read(path);
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    EXPECT_EQ(rows->size(), c.rows) << c.file;
  }
  // The first row of the kmeans report, as its text says.
  Result<std::vector<KernelSumRow>> rows =
      Read(kRealDir / "hcc_h100nvl_kmeans_cc_cuda_gpu_kern_sum.csv");
  ASSERT_TRUE(rows.ok());
  const KernelSumRow& first = rows->front();
  EXPECT_EQ(first.name,
            "recenter_step1(float *, float *, int *, int *, float *, float *, int *, int)");
  EXPECT_EQ(first.total_ns, 18132410711);
  EXPECT_EQ(first.instances, 100);
  EXPECT_EQ(first.mean_ns, 181324107.1);
  EXPECT_EQ(first.median_ns, 181353576.0);
  EXPECT_EQ(first.min_ns, 181151288);
  EXPECT_EQ(first.max_ns, 181413331);
  EXPECT_EQ(rows->at(1).median_ns, 661739.5);
}

// Per-thread or per-range summaries cannot give per-name totals without double counting
// (nvtx_kern_sum repeats a kernel under each enclosing range) or rounding (kern_exec_sum's
// totals would be count x a rounded average): named, with what to export instead.
TEST(NsysGpuKernSumRealData, OtherSummariesAreNamed) {
  if (!fs::exists(kRealDir)) GTEST_SKIP() << "needs " << kRealDir;
  struct Case {
    const char* file;
    const char* report;
  };
  for (Case c : {Case{"kiln_qwen35_4b_a6000_c52_cuda_kern_exec_sum.csv", "cuda_kern_exec_sum"},
                 Case{"kiln_qwen35_4b_a6000_mtp_decode_nvtx_kern_sum.csv", "nvtx_kern_sum"},
                 Case{"hcc_h100nvl_kmeans_cc_cuda_api_sum.csv", "cuda_api_sum"}}) {
    Result<InputKind> kind = DetectInputKind(kRealDir / c.file, c.file);
    ASSERT_FALSE(kind.ok()) << c.file;
    EXPECT_THAT(kind.status().message(),
                HasSubstr(std::string(c.file) + ": an nsys " + c.report + " summary report"));
    EXPECT_THAT(kind.status().message(), HasSubstr("export cuda_gpu_trace"));
    EXPECT_THAT(kind.status().message(), HasSubstr("reads a cuda_gpu_kern_sum report"));
  }
}

}  // namespace
}  // namespace stepstat
