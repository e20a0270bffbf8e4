// The two-thread summarize pipeline on inputs large enough to exercise its back-pressure.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/intervals.h"
#include "stepstat/policy.h"
#include "stepstat/read.h"
#include "stepstat/step_stats.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

class Intervals : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    for (const GpuOp& op : ops) {
      if (op.kind == OpKind::kKernel) kernels.push_back({op.start_ns, op.end_ns()});
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    for (const LaunchCall& c : calls) launches.push_back({c.api_start_ns, c.api_end_ns()});
    return Status::Ok();
  }
  std::vector<Interval> kernels;
  std::vector<Interval> launches;
};

// Regression: the kern-exec thread once fed kernels into the GPU side of the OverlapMeter
// too, so a pair with more union components than the meter's back-pressure bound (65536)
// deadlocked, and smaller ones could mix the two sides. 40 steps give ~110k components.
TEST(Pipeline, LargePairOnTwoThreadsMatchesAnIndependentOverlap) {
  fs::path dir = fs::temp_directory_path() / "stepstat-pipeline-test";
  fs::create_directories(dir);
  synth::SynthOptions options;
  options.out_base = dir / "dit";
  options.steps = 40;
  options.streams = 2;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();

  Result<SummaryInputs> inputs = ResolveInputs({options.out_base.string()});
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ASSERT_TRUE(inputs->launches.has_value());
  Result<StepStats> stats = Summarize(inputs.value(), BuiltinPolicy(kDefaultPolicyName).value());
  ASSERT_TRUE(stats.ok()) << stats.status().message();

  Intervals gpu;
  Intervals exec;
  ASSERT_TRUE(ReadInput(written->gpu_trace, "gpu", InputKind::kNsysGpuTraceCsv, gpu).ok());
  ASSERT_TRUE(
      ReadInput(written->kern_exec_trace, "exec", InputKind::kNsysKernExecTraceCsv, exec).ok());
  std::vector<Interval> kernel_union = UnionOf(gpu.kernels);
  std::vector<Interval> launch_union = UnionOf(exec.launches);
  ASSERT_GT(kernel_union.size(), 65536u);
  ASSERT_TRUE(stats->cpu_gpu_overlap.has_value());
  EXPECT_EQ(stats->cpu_gpu_overlap->launch_api_union_ns, TotalLength(launch_union));
  EXPECT_EQ(stats->cpu_gpu_overlap->launch_api_gpu_overlap_ns,
            IntersectionLength(kernel_union, launch_union));
  EXPECT_EQ(stats->launch_gaps.positive_gap_count, static_cast<int64_t>(kernel_union.size()) - 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stepstat
