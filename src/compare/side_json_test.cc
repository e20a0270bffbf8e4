// Sides read from stepstat's own JSON agree with sides built from the structs that JSON was
// written from; other schemas are refused with words that say what is read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "stepstat/compare.h"
#include "stepstat/policy.h"
#include "stepstat/report.h"
#include "stepstat/steps.h"

namespace stepstat {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

StepStats SampleStats() {
  StepStats stats;
  stats.source_gpu_trace = "run.csv";
  stats.gpu_span_ns = 1000;
  stats.gpu_operation_count = 6;
  stats.kernel_count = 5;
  stats.kernel_time_ns = 800;
  stats.kernel_busy_percent_of_span = 80.0;
  stats.launch_gaps = {2, 100, 50.0, 70};
  stats.cpu_gpu_overlap = CpuGpuOverlap{500, 400, 80.0};
  Policy policy = BuiltinPolicy("dit-nvfp4").value();
  for (const ComponentRule& rule : policy.components) {
    stats.components.push_back({rule.name, rule.description, 100, 0.0001, 12.5, 1});
  }
  stats.components.push_back({"other", policy.other_description, 0, 0.0, 0.0, 0});
  return stats;
}

TEST(SideJsonTest, SummaryJsonReadsAsTheSummaryItCameFrom) {
  Policy policy = BuiltinPolicy("dit-nvfp4").value();
  StepStats stats = SampleStats();
  Side direct = SideFromSummary(stats, policy, nullptr, "run");
  auto read = SideFromJson(StepStatsToJson(stats), "run.json");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->meta.schema, "stepstat.summary/1");
  EXPECT_EQ(read->meta.policy_hash, direct.meta.policy_hash);
  ASSERT_EQ(read->metrics.size(), direct.metrics.size());
  for (size_t i = 0; i < direct.metrics.size(); ++i) {
    EXPECT_EQ(read->metrics[i].key, direct.metrics[i].key);
    EXPECT_EQ(read->metrics[i].run, direct.metrics[i].run) << direct.metrics[i].key;
    EXPECT_TRUE(read->metrics[i].steps.empty());
  }
}

TEST(SideJsonTest, DetailsAddTheTopKernelsAndTheInputFormat) {
  Policy policy = BuiltinPolicy("dit-nvfp4").value();
  Details details;
  details.top_kernels.push_back({"gemm", "nvfp4_gemms", 3, 300, 100.0, 120, 90, 95.0});
  details.data_quality.inputs.push_back({"run.csv", "nsys_gpu_trace_csv", "2024", "ns", 9, 1});
  StepStats stats = SampleStats();
  Side direct = SideFromSummary(stats, policy, &details, "run");
  auto read = SideFromJson(StepStatsWithDetailsToJson(stats, details), "run.json");
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->meta.kernels.size(), 1u);
  EXPECT_EQ(read->meta.kernels.at("gemm").count, 3);
  EXPECT_EQ(read->meta.kernels.at("gemm").total_ns, 300);
  EXPECT_EQ(read->meta.input_format, direct.meta.input_format);
  EXPECT_EQ(read->meta.input_format, "nsys_gpu_trace_csv");
}

TEST(SideJsonTest, StepsJsonKeepsTheSteadySteps) {
  std::filesystem::path golden =
      std::filesystem::path(STEPSTAT_SOURCE_DIR) / "tests/golden/steps-nvtx-json";
  auto read = SideFromJson(ReadFile(golden / "stdout"), "steps.json");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->meta.schema, "stepstat.steps/2");
  const MetricValues* span = read->Find("gpu_span_ns");
  ASSERT_NE(span, nullptr);
  EXPECT_EQ(span->steps.size(), 3u);  // 4 steps, 1 warm-up
  EXPECT_FALSE(span->run.has_value());
  ASSERT_NE(read->Find("gpu_idle_ns"), nullptr);
  ASSERT_NE(read->Find("components.norm_and_rope.launches"), nullptr);

  // The same run analyzed in memory gives the same side.
  auto inputs = ResolveStepsInputs(
      {(golden / "run").string(), (golden / "run_nvtx_pushpop_trace.csv").string()});
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  Policy policy = BuiltinPolicy("dit-nvfp4").value();
  StepsOptions options;
  options.range_regex = "^train_step$";
  auto report = AnalyzeSteps(*inputs, policy, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  Side direct = SideFromSteps(*report, policy, "run");
  EXPECT_EQ(direct.meta.policy_hash, read->meta.policy_hash);
  for (const MetricValues& metric : direct.metrics) {
    const MetricValues* from_json = read->Find(metric.key);
    ASSERT_NE(from_json, nullptr) << metric.key;
    EXPECT_EQ(from_json->steps, metric.steps) << metric.key;
  }
  EXPECT_EQ(direct.metrics.size(), read->metrics.size());
}

TEST(SideJsonTest, RefusesOtherSchemasAndVersions) {
  auto expect_error = [](std::string_view json, std::string_view words) {
    auto side = SideFromJson(json, "x.json");
    ASSERT_FALSE(side.ok());
    EXPECT_NE(side.status().message().find(words), std::string::npos) << side.status().message();
    EXPECT_NE(side.status().message().find("diff reads stepstat.summary/1 and stepstat.steps/2"),
              std::string::npos);
  };
  expect_error(R"({"schema": "stepstat.steps/3", "steps": []})", "a version this stepstat");
  expect_error(R"({"schema": "stepstat.steps/1", "steps": []})", "a version this stepstat");
  expect_error(R"({"schema": "stepstat.classify/1"})", "not a summary or steps output");
  expect_error(R"({"a": 1})", "not a summary");
  expect_error("[1, 2]", "not a JSON object");
  expect_error("{oops", "not JSON");
}

}  // namespace
}  // namespace stepstat
