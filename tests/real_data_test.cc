// The real traces of ../shared/data/real (other people's data, never copied here): every GPU
// trace summarizes, and the 4-stream trace matches numbers worked out by hand.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_suite.h"
#include "core/intervals.h"
#include "stepstat/policy.h"
#include "stepstat/read.h"
#include "stepstat/step_stats.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

using testing_support::RealDir;
using testing_support::RealFiles;

Result<StepStats> SummarizeFiles(const std::vector<std::string>& args) {
  ASSIGN_OR_RETURN(SummaryInputs inputs, ResolveInputs(args));
  ASSIGN_OR_RETURN(Policy policy, BuiltinPolicy(kDefaultPolicyName));
  return Summarize(inputs, policy);
}

TEST(RealData, EveryGpuTraceSummarizes) {
  auto files = RealFiles("_cuda_gpu_trace.csv");
  if (files.empty()) GTEST_SKIP() << "no real traces at " << RealDir();
  for (const fs::path& file : files) {
    Result<StepStats> stats = SummarizeFiles({file.string()});
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    const StepStats& s = stats.value();
    EXPECT_GT(s.gpu_operation_count, 0) << file;
    EXPECT_LE(s.kernel_count, s.gpu_operation_count) << file;
    // Idle time between kernels cannot exceed the span, whatever the streams do.
    EXPECT_LE(s.launch_gaps.total_ns, s.gpu_span_ns) << file;
    int64_t component_sum = 0;
    int64_t launches = 0;
    for (const ComponentStats& c : s.components) {
      component_sum += c.time_ns;
      launches += c.launches;
    }
    EXPECT_EQ(component_sum, s.kernel_time_ns) << file;
    EXPECT_EQ(launches, s.kernel_count) << file;
  }
}

TEST(RealData, KernExecTraceAloneSummarizesFromItsKernelColumns) {
  auto files = RealFiles("_cuda_kern_exec_trace.csv");
  if (files.empty()) GTEST_SKIP() << "no real traces at " << RealDir();
  for (const fs::path& file : files) {
    Result<StepStats> stats = SummarizeFiles({file.string()});
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    EXPECT_GT(stats->kernel_count, 0);
    EXPECT_EQ(stats->gpu_operation_count, stats->kernel_count);  // no memory operations there
    ASSERT_TRUE(stats->cpu_gpu_overlap.has_value());
    EXPECT_GT(stats->cpu_gpu_overlap->launch_api_union_ns, 0);
  }
}

// Collects the kernel intervals of a file.
class KernelIntervals : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    for (const GpuOp& op : ops) {
      if (op.kind == OpKind::kKernel) intervals.push_back({op.start_ns, op.end_ns()});
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  std::vector<Interval> intervals;
};

TEST(RealData, FourConcurrentStreamsMatchHandWorkedNumbers) {
  fs::path file = RealDir() / "cudalearning_rtx2080ti_4stream_cuda_gpu_trace.csv";
  if (!fs::exists(file)) GTEST_SKIP() << "absent: " << file;
  // Worked out by hand from the file's 51 rows: 34 memcpys and 17 kernels. The kernels come in
  // four groups of four, one per stream 13-16, each starting before the previous one ends, and
  // one last kernel alone:
  //   group 1 [30408092, 30472763) = 64671   kernels 17055+17695+17824+17632 = 70206
  //   group 2 [33874162, 33939985) = 65823   kernels 17760+17824+17824+17887 = 71295
  //   group 3 [37157675, 37220906) = 63231   kernels 14336+17471+17760+17824 = 67391
  //   group 4 [40893982, 40957053) = 63071   kernels 15968+17664+17695+17440 = 68767
  //   last    [42739272, 42742376) =  3104
  // Gaps between them: 3401399, 3217690, 3673076, 1782219. The span runs from the first
  // memcpy (28717008) to the end of the last one (42825799 + 1504 = 42827303).
  Result<StepStats> stats = SummarizeFiles({file.string()});
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  const StepStats& s = stats.value();
  EXPECT_EQ(s.gpu_operation_count, 51);
  EXPECT_EQ(s.kernel_count, 17);
  EXPECT_EQ(s.gpu_span_ns, 42827303 - 28717008);
  EXPECT_EQ(s.kernel_time_ns, 70206 + 71295 + 67391 + 68767 + 3104);
  EXPECT_EQ(s.launch_gaps.positive_gap_count, 4);
  EXPECT_EQ(s.launch_gaps.total_ns, 3401399 + 3217690 + 3673076 + 1782219);
  EXPECT_EQ(s.launch_gaps.maximum_ns, 3673076);
  EXPECT_FALSE(s.cpu_gpu_overlap.has_value());

  KernelIntervals sink;
  ASSERT_TRUE(ReadInput(file, file.string(), InputKind::kNsysGpuTraceCsv, sink).ok());
  std::vector<Interval> components = UnionOf(sink.intervals);
  ASSERT_EQ(components.size(), 5u);
  EXPECT_EQ(components[0], (Interval{30408092, 30472763}));
  EXPECT_EQ(components[3], (Interval{40893982, 40957053}));
  EXPECT_EQ(TotalLength(components), 64671 + 65823 + 63231 + 63071 + 3104);
}

}  // namespace
}  // namespace stepstat
