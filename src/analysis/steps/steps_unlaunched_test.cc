// Issue 30: a GPU operation belongs to the step whose range holds the start of its call, the
// copies and memsets as the kernels; one whose call is not in the trace (queued before the
// capture began) is counted apart as `unlaunched`. Small hand-made runs of two steps, as an
// nsys CSV trio (read streaming) and as a Kineto trace (read holding), each worked out by
// hand in the comments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "stepstat/read.h"
#include "stepstat/steps.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

// Steps [100, 200) and [200, 300) ns on thread 1 of process 1. Calls: kernel k1 launched
// at 110 (correlation 10, runs at 150); a copy issued at 120 (11) that runs at 260, inside
// the second step's GPU window; kernel k2 launched at 210 (12, runs at 270). A copy with
// correlation 5 runs at 105 with no call in the trace.
struct RunShape {
  bool copy_call = true;  // whether the trace records the call of copy 11
};

fs::path Dir(const std::string& tag) {
  fs::path dir = fs::temp_directory_path() / ("stepstat_unlaunched_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void Write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> WriteNsysCsv(const RunShape& run, const std::string& tag) {
  const fs::path dir = Dir(tag);
  const std::string gpu_header =
      "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,"
      "Name\n";
  const std::string copy =
      ",,,,,,,,,,0.001,1.000,Pageable,Device,GPU (0),1,,7,"
      "[CUDA memcpy Host-to-Device]\n";
  const std::string kernel = ",1,1,1,32,1,1,16,0.000,0.000,,,,,GPU (0),1,,7,";
  Write(dir / "run_cuda_gpu_trace.csv", gpu_header + "105,5,5" + copy + "150,10,10" + kernel +
                                            "k1\n" + "260,5,11" + copy + "270,10,12" + kernel +
                                            "k2\n");
  std::string api = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n";
  api += "110,5,cudaLaunchKernel_v7000,0,10,1,1,20,main\n";
  if (run.copy_call) api += "120,5,cudaMemcpyAsync_v3020,0,11,1,1,20,main\n";
  api += "210,5,cudaLaunchKernel_v7000,0,12,1,1,20,main\n";
  Write(dir / "run_cuda_api_trace.csv", api);
  Write(dir / "run_nvtx_pushpop_trace.csv",
        "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
        "NumChild,RangeId,ParentId,RangeStack,NameTree\n"
        "100,200,100,0,100,step,1,1,0,0,1,,:1,step\n"
        "200,300,100,0,100,step,1,1,0,0,2,,:2,step\n");
  return {(dir / "run_cuda_gpu_trace.csv").string(), (dir / "run_cuda_api_trace.csv").string(),
          (dir / "run_nvtx_pushpop_trace.csv").string()};
}

// The same run in Kineto's microseconds: every time above, in µs.
std::vector<std::string> WriteKineto(const RunShape& run, const std::string& tag) {
  const fs::path dir = Dir(tag);
  auto event = [](const std::string& cat, const std::string& name, int pid, int ts, int dur,
                  const std::string& args) {
    return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": )" +
           std::to_string(pid) + R"(, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": )" +
           std::to_string(dur) + R"(, "args": {)" + args + "}}";
  };
  std::vector<std::string> events = {
      event("user_annotation", "ProfilerStep#1", 1, 100, 100, ""),
      event("user_annotation", "ProfilerStep#2", 1, 200, 100, ""),
      event("cuda_runtime", "cudaLaunchKernel", 1, 110, 5, R"("correlation": 10)"),
      event("cuda_runtime", "cudaLaunchKernel", 1, 210, 5, R"("correlation": 12)"),
      event("gpu_memcpy", "Memcpy HtoD", 0, 105, 5, R"("stream": 7, "correlation": 5)"),
      event("kernel", "k1", 0, 150, 10, R"("stream": 7, "correlation": 10)"),
      event("gpu_memcpy", "Memcpy HtoD", 0, 260, 5, R"("stream": 7, "correlation": 11)"),
      event("kernel", "k2", 0, 270, 10, R"("stream": 7, "correlation": 12)"),
  };
  if (run.copy_call) {
    events.push_back(event("cuda_runtime", "cudaMemcpyAsync", 1, 120, 5, R"("correlation": 11)"));
  }
  std::string json = R"({"traceEvents": [)";
  for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "\n") + events[i];
  json += "\n]}\n";
  Write(dir / "run.json", json);
  return {(dir / "run.json").string()};
}

StepsReport Steps(const std::vector<std::string>& files, const std::string& regex) {
  Result<StepsInputs> inputs = ResolveStepsInputs(files);
  EXPECT_TRUE(inputs.ok()) << inputs.status().message();
  StepsOptions options;
  options.range_regex = regex;
  Result<StepsReport> report =
      AnalyzeSteps(inputs.value(), BuiltinPolicy("llm-inference").value(), options);
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? std::move(report).value() : StepsReport{};
}

void ExpectCopiesJoinedToTheirCalls(const StepsReport& report) {
  ASSERT_EQ(report.steps.size(), 2u);
  EXPECT_EQ(report.attribution, StepAttribution::kLaunchCorrelation);
  // Step 0: k1 and copy 11 (its call at 120), though the copy runs in step 1's window.
  EXPECT_EQ(report.steps[0].totals.operation_count, 2);
  EXPECT_EQ(report.steps[0].totals.kernel_count, 1);
  EXPECT_EQ(report.steps[1].totals.operation_count, 1);  // k2
  EXPECT_EQ(report.steps[1].totals.kernel_count, 1);
  // Copy 5 has no call: no step's, though it runs in step 0's window.
  EXPECT_EQ(report.residue.unlaunched.operation_count, 1);
  EXPECT_EQ(report.residue.unlaunched.kernel_count, 0);
  EXPECT_EQ(report.outside.operation_count, 0);
}

TEST(StepsUnlaunched, NsysCsvCopiesFollowTheirCalls) {
  StepsReport report = Steps(WriteNsysCsv({}, "csv"), "step");
  ExpectCopiesJoinedToTheirCalls(report);
  EXPECT_EQ(report.residue.unlaunched.span_ns, 5);
}

TEST(StepsUnlaunched, KinetoCopiesFollowTheirCalls) {
  StepsReport report = Steps(WriteKineto({}, "kineto"), "");
  ExpectCopiesJoinedToTheirCalls(report);
  EXPECT_EQ(report.residue.unlaunched.span_ns, 5000);
}

// A launch trace without any copy call says nothing of the copies' steps: they keep their
// GPU time windows (copy 5 at 105 in step 0, copy 11 at 260 in step 1), none unlaunched.
TEST(StepsUnlaunched, WithoutCopyCallsCopiesKeepTheirWindows) {
  const RunShape no_copy_calls{.copy_call = false};
  for (const StepsReport& report : {Steps(WriteNsysCsv(no_copy_calls, "csv_no_copies"), "step"),
                                    Steps(WriteKineto(no_copy_calls, "kineto_no_copies"), "")}) {
    ASSERT_EQ(report.steps.size(), 2u);
    EXPECT_EQ(report.steps[0].totals.operation_count, 2);  // copy 5, k1
    EXPECT_EQ(report.steps[1].totals.operation_count, 2);  // copy 11, k2
    EXPECT_EQ(report.residue.unlaunched.operation_count, 0);
  }
}

}  // namespace
}  // namespace stepstat
