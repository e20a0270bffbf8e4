// An nsys base's files, found and named in one place (issue 31), and the NVTX report beside
// a base taken as its step ranges by every command that cuts steps (issue 33).
#include "readers/nsys_base.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "stepstat/steps.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

const char kNvtx[] =
    "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
    "NumChild,RangeId,ParentId,RangeStack,NameTree\n"
    "100,200,100,0,100,step,1,1,0,0,1,,:1,step\n";
const char kGpu[] =
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n"
    "150,10,10,1,1,1,32,1,1,16,0.000,0.000,,,,,GPU (0),1,,7,k\n";

fs::path Dir(const std::string& tag) {
  fs::path dir = fs::temp_directory_path() / ("stepstat_nsys_base_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void Write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(NsysBase, FindsEachReportPlainFirstThenCompressedAndTheOlderNames) {
  const fs::path dir = Dir("find");
  const std::string base = (dir / "run").string();
  EXPECT_FALSE(FindNsysBaseFiles(base).gpu_trace);
  Write(dir / "run_gputrace.csv", kGpu);
  EXPECT_EQ(FindNsysBaseFiles(base).gpu_trace, base + "_gputrace.csv");
  Write(dir / "run_cuda_gpu_trace.csv.zst", "");
  EXPECT_EQ(FindNsysBaseFiles(base).gpu_trace, base + "_cuda_gpu_trace.csv.zst");
  Write(dir / "run_cuda_gpu_trace.csv", kGpu);
  EXPECT_EQ(FindNsysBaseFiles(base).gpu_trace, base + "_cuda_gpu_trace.csv");
  Write(dir / "run_cuda_api_trace.csv.gz", "");
  EXPECT_EQ(FindNsysBaseFiles(base).launches, base + "_cuda_api_trace.csv.gz");
  Write(dir / "run_cuda_kern_exec_trace.csv", "");
  EXPECT_EQ(FindNsysBaseFiles(base).launches, base + "_cuda_kern_exec_trace.csv");
  EXPECT_FALSE(FindNsysBaseFiles(base).step_ranges);
  Write(dir / "run_nvtx_pushpop_trace.csv", kNvtx);
  EXPECT_EQ(FindNsysBaseFiles(base).step_ranges, base + "_nvtx_pushpop_trace.csv");
}

TEST(NsysBase, NamesABaseAndARunFromItsFiles) {
  EXPECT_EQ(NsysBaseOfGpuTrace("dir/run_cuda_gpu_trace.csv.gz"), "dir/run");
  EXPECT_EQ(NsysBaseOfGpuTrace("run_gputrace.csv"), "run");
  EXPECT_EQ(NsysBaseOfGpuTrace("run_cuda_kern_exec_trace.csv"), "");
  EXPECT_EQ(NsysBaseOfGpuTrace("_cuda_gpu_trace.csv"), "");  // no base before the suffix
  EXPECT_EQ(RunNameOf("run_cuda_gpu_trace.csv"), "run");
  EXPECT_EQ(RunNameOf("run_cuda_kern_exec_trace.csv.zst"), "run");
  EXPECT_EQ(RunNameOf("run.sqlite"), "run");
  EXPECT_EQ(RunNameOf("run.nsys-rep"), "run");
  EXPECT_EQ(RunNameOf("run.pt.trace.json.gz"), "run");
  EXPECT_EQ(RunNameOf("notes.txt"), "notes.txt");
}

TEST(NsysBase, StepsOfABaseTakeTheNvtxReportBesideIt) {
  const fs::path dir = Dir("steps");
  Write(dir / "run_cuda_gpu_trace.csv", kGpu);
  const std::string base = (dir / "run").string();
  Result<StepsInputs> without = ResolveStepsInputs({base});
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_FALSE(without->ranges);

  Write(dir / "run_nvtx_pushpop_trace.csv", kNvtx);
  Result<StepsInputs> beside = ResolveStepsInputs({base});
  ASSERT_TRUE(beside.ok()) << beside.status().message();
  ASSERT_TRUE(beside->ranges);
  EXPECT_EQ(beside->ranges->display_name, base + "_nvtx_pushpop_trace.csv");

  // Given by file, the trace brings nothing along; an NVTX CSV given wins.
  Result<StepsInputs> by_file = ResolveStepsInputs({base + "_cuda_gpu_trace.csv"});
  ASSERT_TRUE(by_file.ok());
  EXPECT_FALSE(by_file->ranges);
  Write(dir / "other_nvtx_pushpop_trace.csv", kNvtx);
  const std::string other = (dir / "other_nvtx_pushpop_trace.csv").string();
  Result<StepsInputs> given = ResolveStepsInputs({base, other});
  ASSERT_TRUE(given.ok());
  ASSERT_TRUE(given->ranges);
  EXPECT_EQ(given->ranges->display_name, other);

  // A file by that name that is no NVTX report is said, not read as one.
  Write(dir / "run_nvtx_pushpop_trace.csv", kGpu);
  Result<StepsInputs> wrong = ResolveStepsInputs({base});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("run_nvtx_pushpop_trace.csv"), std::string::npos);
}

}  // namespace
}  // namespace stepstat
