// Steps on the real traces of ../shared/data/real: whatever the step source, every GPU
// operation lands in exactly one step (or outside all of them), so the sums over steps plus
// the outside part equal the whole-trace summary.
#include <gtest/gtest.h>

#include <filesystem>

#include "stepstat/steps.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
const fs::path kRealDir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";

void ExpectPartition(const std::vector<std::string>& args, const std::string& regex,
                     int64_t min_steps) {
  SCOPED_TRACE(args.front());
  Policy policy = BuiltinPolicy("llm-inference").value();
  Result<StepsInputs> inputs = ResolveStepsInputs(args);
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  StepsOptions options;
  options.range_regex = regex;
  Result<StepsReport> report = AnalyzeSteps(inputs.value(), policy, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_GE(static_cast<int64_t>(report->steps.size()), min_steps);
  Result<StepStats> whole = Summarize(inputs->trace, policy);
  ASSERT_TRUE(whole.ok()) << whole.status().message();

  StepTotals sum = report->outside;
  for (const StepRecord& step : report->steps) {
    sum.operation_count += step.totals.operation_count;
    sum.kernel_count += step.totals.kernel_count;
    sum.kernel_time_ns += step.totals.kernel_time_ns;
    for (size_t c = 0; c < sum.component_launches.size(); ++c) {
      sum.component_launches[c] += step.totals.component_launches[c];
      sum.component_time_ns[c] += step.totals.component_time_ns[c];
    }
    if (step.totals.operation_count > 0) {
      EXPECT_LE(step.totals.last_end_ns - step.totals.first_start_ns, whole->gpu_span_ns);
    }
  }
  EXPECT_EQ(sum.operation_count, whole->gpu_operation_count);
  EXPECT_EQ(sum.kernel_count, whole->kernel_count);
  EXPECT_EQ(sum.kernel_time_ns, whole->kernel_time_ns);
  for (size_t c = 0; c < whole->components.size(); ++c) {
    EXPECT_EQ(sum.component_time_ns[c], whole->components[c].time_ns);
    EXPECT_EQ(sum.component_launches[c], whole->components[c].launches);
  }
}

TEST(StepsRealData, DetectedStepsPartitionEveryCsvGpuTrace) {
  int tested = 0;
  for (const char* name :
       {"hcc_h100nvl_BN_cc", "hcc_h100nvl_streamcluster_cc", "hcc_h100nvl_knn_cc",
        "hcc_h100nvl_GRAMSCHM_uvm", "hcc_h100nvl_kmeans_cc"}) {
    fs::path gpu = kRealDir / (std::string(name) + "_cuda_gpu_trace.csv");
    if (!fs::exists(gpu)) continue;
    ExpectPartition({gpu.string()}, "", 10);
    ++tested;
  }
  if (tested == 0) GTEST_SKIP() << "no real GPU traces in " << kRealDir;
}

TEST(StepsRealData, KmeansPeriodIsItsFiveKernelIteration) {
  fs::path gpu = kRealDir / "hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv";
  if (!fs::exists(gpu)) GTEST_SKIP() << gpu << " is absent";
  Policy policy = BuiltinPolicy("llm-inference").value();
  Result<StepsReport> report =
      AnalyzeSteps(ResolveStepsInputs({gpu.string()}).value(), policy, StepsOptions{});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->source, StepSourceKind::kPeriodDetector);
  EXPECT_EQ(report->source_detail, "period of 5 kernels");
  // Every steady step holds one iteration: the same 5 kernels.
  for (const StepRecord& step : report->steps) {
    if (!(step.flags & kStepPartial)) {
      EXPECT_EQ(step.totals.kernel_count, 5) << step.index;
    }
  }
}

}  // namespace
}  // namespace stepstat
