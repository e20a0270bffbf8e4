#include "analysis/details/details_values.h"

#include <gtest/gtest.h>

namespace stepstat {
namespace {

TEST(CountUnmatchedLaunches, EachKernelAnswersOneLaunchRow) {
  std::vector<KernelKey> kernels = {{5, 0}, {1, 2}, {1, 2}};
  std::vector<KernelKey> launches = {{1, 2}, {7, 1}, {1, 2}, {1, 2}};
  EXPECT_EQ(CountUnmatchedLaunches(kernels, launches), 2);  // a third (1,2) and (7,1)
  EXPECT_EQ(CountUnmatchedLaunches(kernels, {}), 0);
  EXPECT_EQ(CountUnmatchedLaunches({}, launches), 4);
}

Policy GemmPolicy() {
  Policy p;
  p.name = "test";
  p.components.push_back({"gemm", "matrix multiplies", {"gemm"}, {}});
  return p;
}

TEST(MakeDetails, CoverageTopKernelsAndLaunchPath) {
  Policy policy = GemmPolicy();
  Result<Classifier> classifier = Classifier::Create(policy);
  ASSERT_TRUE(classifier.ok()) << classifier.status().message();

  StringPool names;
  std::vector<GpuOp> ops;
  int64_t t = 0;
  // 25 distinct "other" names of growing duration, and one gemm of 1000 ns launched twice.
  for (int i = 0; i < 25; ++i) {
    GpuOp op;
    op.start_ns = t;
    op.duration_ns = 10 + i;
    op.name = names.Intern("elementwise_" + std::to_string(i));
    ops.push_back(op);
    t += 100;
  }
  for (int i = 0; i < 2; ++i) {
    GpuOp op;
    op.start_ns = t;
    op.duration_ns = 500 + 500 * i;
    op.name = names.Intern("sgemm_128x64");
    ops.push_back(op);
    t += 2000;
  }
  DetailsSink gpu("t.csv", true, nullptr);
  ASSERT_TRUE(gpu.OnGpuOps(ops, names).ok());
  ASSERT_TRUE(gpu.OnFinish().ok());

  Details d = MakeDetails(gpu.totals(), nullptr, nullptr, policy, *classifier, {});
  int64_t other_time = 0;
  for (int i = 0; i < 25; ++i) other_time += 10 + i;  // 10..34: 550
  EXPECT_EQ(d.kernel_time_ns, other_time + 1500);
  EXPECT_EQ(d.coverage.other_time_ns, other_time);
  EXPECT_EQ(d.coverage.classified_time_ns, 1500);
  EXPECT_DOUBLE_EQ(d.coverage.classified_percent_of_kernel_time, 1500.0 / 2050.0 * 100.0);
  EXPECT_EQ(d.coverage.other_names, 25);
  ASSERT_EQ(d.coverage.top_other.size(), kTopOtherNames);
  EXPECT_EQ(d.coverage.top_other[0].name, "elementwise_24");

  ASSERT_EQ(d.top_kernels.size(), kTopKernels);
  EXPECT_EQ(d.top_kernels[0].name, "sgemm_128x64");
  EXPECT_EQ(d.top_kernels[0].component, "gemm");
  EXPECT_EQ(d.top_kernels[0].launches, 2);
  EXPECT_EQ(d.top_kernels[0].max_ns, 1000);
  EXPECT_DOUBLE_EQ(d.top_kernels[0].mean_ns, 750.0);
  EXPECT_EQ(d.top_kernels[1].component, "other");
  EXPECT_FALSE(d.launch_path.has_value());
  EXPECT_FALSE(d.data_quality.launches_without_gpu_kernel.has_value());

  // A separate launch file: rows by API, most first; one row without a GPU kernel.
  LaunchKeyMatcher matcher;  // the GPU side above did not feed it
  DetailsSink launch("k.csv", true, &matcher);
  std::vector<LaunchCall> calls(3);
  calls[0].api_name = names.Intern("cuLaunchKernel");
  calls[1].api_name = names.Intern("cudaLaunchKernel");
  calls[2].api_name = calls[1].api_name;
  for (LaunchCall& c : calls) {
    c.kernel_start_ns = 123456;  // matches no kernel
    c.kernel_duration_ns = 1;
  }
  ASSERT_TRUE(launch.OnLaunchCalls(calls, names).ok());
  ASSERT_TRUE(launch.OnFinish().ok());
  d = MakeDetails(gpu.totals(), &launch.totals(), &matcher, policy, *classifier, {});
  ASSERT_TRUE(d.launch_path.has_value());
  EXPECT_EQ(d.launch_path->by_api[0].api, "cudaLaunchKernel");
  EXPECT_EQ(d.launch_path->by_api[0].count, 2);
  // The GPU side fed no keys to the matcher, so every launch row is unmatched.
  EXPECT_EQ(d.data_quality.launches_without_gpu_kernel, std::optional<int64_t>(3));
}

}  // namespace
}  // namespace stepstat
