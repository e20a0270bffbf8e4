// The registry against the contract: walking it must give the reference output's key paths
// in their order (read here from the reference file itself, not from the writer), and each
// figure's unit and kind must agree with what its key says it is.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "stepstat/metrics.h"

namespace stepstat {
namespace {

// The key paths of a json.dumps(indent=2) text, from its indentation: "a.b" for b inside a.
std::vector<std::string> KeyPaths(std::istream& in) {
  std::vector<std::string> paths, open;
  std::string line;
  while (std::getline(in, line)) {
    size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) continue;
    if (line[indent] == '}') {
      if (!open.empty()) open.pop_back();
      continue;
    }
    if (line[indent] != '"') continue;
    size_t close = line.find('"', indent + 1);
    std::string key = line.substr(indent + 1, close - indent - 1);
    while (open.size() > indent / 2 - 1) open.pop_back();
    std::string path;
    for (const std::string& part : open) path += part + ".";
    path += key;
    if (line.ends_with("{")) {
      open.push_back(key);
    } else {
      paths.push_back(path);
    }
  }
  return paths;
}

TEST(MetricRegistry, WalksTheReferenceOutputsKeysInOrder) {
  const std::string path = STEPSTAT_SHARED_DIR "/spec/gb10-post-fc2-warmed-step-stats.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) GTEST_SKIP() << "reference output not found: " << path;
  std::vector<std::string> want;
  for (const std::string& key : KeyPaths(in)) {
    if (key.starts_with("source_") || key.starts_with("classification_policy.") ||
        key.ends_with(".scope")) {
      continue;  // what the figures are about, not figures
    }
    if (key.starts_with("components.") && !key.starts_with("components.sage2.")) continue;
    want.push_back(key);
  }
  ASSERT_EQ(want.size(), 15u) << "the reference file changed shape";

  std::vector<std::string> got;
  for (const SummaryMetric& metric : kSummaryMetrics) got.emplace_back(metric.key);
  for (const ComponentMetric& metric : kComponentMetrics) {
    got.push_back("components.sage2." + std::string(metric.leaf));
  }
  EXPECT_EQ(got, want);
}

TEST(MetricRegistry, UnitsAndKindsAgreeWithTheKeys) {
  for (const SummaryMetric& metric : kSummaryMetrics) {
    SCOPED_TRACE(std::string(metric.key));
    if (metric.key.ends_with("_ns")) {
      EXPECT_EQ(metric.unit, "ns");
      EXPECT_EQ(metric.kind, MetricKind::kTime);
    } else if (metric.key.find("percent") != std::string_view::npos) {
      EXPECT_EQ(metric.unit, "%");
      EXPECT_EQ(metric.kind, MetricKind::kShare);
    } else {
      EXPECT_EQ(metric.unit, "count");
      EXPECT_EQ(metric.kind, MetricKind::kCount);
    }
    EXPECT_FALSE(metric.label.empty());
    EXPECT_EQ(FindSummaryMetric(metric.key), &metric);
  }
  for (std::string_view key : kStepMetricsInDiff) EXPECT_NE(FindStepMetric(key), nullptr) << key;
  EXPECT_EQ(FindSummaryMetric("launch_gaps"), nullptr);
}

TEST(MetricRegistry, ValuesAreTheFieldsTheirKeysName) {
  StepStats s;
  s.gpu_span_ns = 11, s.gpu_operation_count = 12, s.kernel_count = 13, s.kernel_time_ns = 14;
  s.kernel_busy_percent_of_span = 15.5;
  s.launch_gaps = {16, 17, 18.5, 19};
  auto value = [&s](std::string_view key) { return FindSummaryMetric(key)->value(s); };
  EXPECT_EQ(value("gpu_span_ns").integer, 11);
  EXPECT_EQ(value("gpu_operation_count").integer, 12);
  EXPECT_EQ(value("kernel_count").integer, 13);
  EXPECT_EQ(value("kernel_time_ns").integer, 14);
  EXPECT_EQ(value("kernel_busy_percent_of_span").real, 15.5);
  EXPECT_EQ(value("launch_gaps.positive_gap_count").integer, 16);
  EXPECT_EQ(value("launch_gaps.total_ns").integer, 17);
  EXPECT_EQ(value("launch_gaps.average_ns").real, 18.5);
  EXPECT_EQ(value("launch_gaps.maximum_ns").integer, 19);
  // Without a launch source the whole group is absent, not zero.
  EXPECT_FALSE(value("cpu_gpu_overlap.launch_api_union_ns").present());
  s.cpu_gpu_overlap = CpuGpuOverlap{20, 21, 22.5};
  EXPECT_EQ(value("cpu_gpu_overlap.launch_api_union_ns").integer, 20);
  EXPECT_EQ(value("cpu_gpu_overlap.launch_api_gpu_overlap_ns").integer, 21);
  EXPECT_EQ(value("cpu_gpu_overlap.launch_api_overlap_percent").real, 22.5);

  StepRecord step;
  step.period_ns = -1;
  step.totals.operation_count = 1, step.totals.first_start_ns = 100, step.totals.last_end_ns = 150,
  step.totals.kernel_busy_ns = 30;
  EXPECT_FALSE(FindStepMetric("gpu_period_ns")->value(step, s).present());
  EXPECT_EQ(FindStepMetric("gpu_idle_ns")->value(step, s).integer, 20);
  EXPECT_EQ(FindStepMetric("gpu_start_ns")->value(step, s).integer, 100);
}

// A column naming no figure would print empty cells without a word.
TEST(MetricRegistry, EveryStepsTableColumnIsAFigure) {
  for (const StepsTableColumn& column : kStepsTableColumns) {
    SCOPED_TRACE(std::string(column.key));
    EXPECT_TRUE(FindStepMetric(column.key) != nullptr || FindSummaryMetric(column.key) != nullptr);
    EXPECT_FALSE(column.header.empty());
  }
}

}  // namespace
}  // namespace stepstat
