// Diff(): which rows are significant, which way is worse, kernels' Δ split, refusals,
// warnings and the verdict.
#include <gtest/gtest.h>

#include <random>

#include "compare/noisy_samples.h"
#include "stepstat/compare.h"

namespace stepstat {
namespace {

Side StepsSide(std::string label, double span_ns, double spread, int n, uint64_t seed) {
  Side side;
  side.meta.label = std::move(label);
  side.meta.policy_hash = "p1";
  side.metrics.push_back({"gpu_span_ns", Noisy(span_ns, spread, n, seed), std::nullopt});
  side.metrics.push_back({"kernel_count", std::vector<double>(size_t(n), 40), std::nullopt});
  side.metrics.push_back(
      {"kernel_busy_percent_of_span", Noisy(80, 0.1, n, seed + 1), std::nullopt});
  side.metrics.push_back({"components.gemm.milliseconds",
                          Noisy(span_ns / 2e6, spread / 2e6, n, seed + 2), std::nullopt});
  return side;
}

Side RunSide(std::string label, double span_ns, double kernels) {
  Side side;
  side.meta.label = std::move(label);
  side.metrics.push_back({"gpu_span_ns", {}, span_ns});
  side.metrics.push_back({"kernel_count", {}, kernels});
  return side;
}

const DiffRow& Row(const DiffResult& diff, std::string_view name) {
  for (const DiffRow& row : diff.rows) {
    if (row.name == name) return row;
  }
  for (const DiffRow& row : diff.components) {
    if (row.name == name) return row;
  }
  static DiffRow none;
  ADD_FAILURE() << "no row " << name;
  return none;
}

TEST(DiffTest, TenPercentSlowerStepsAreARegression) {
  auto diff = Diff(StepsSide("a", 10e6, 0.1e6, 20, 1), StepsSide("b", 11e6, 0.1e6, 20, 2), {});
  ASSERT_TRUE(diff.ok());
  const DiffRow& span = Row(*diff, "gpu_span_ns");
  ASSERT_TRUE(span.stats.has_value());
  EXPECT_LT(*span.p, 1e-6);
  EXPECT_TRUE(span.significant);
  EXPECT_EQ(span.effect, Effect::kWorse);
  EXPECT_NEAR(*span.delta_pct, 10, 1.5);
  EXPECT_EQ(span.n_base, 20);
  EXPECT_EQ(diff->verdict, Verdict::kRegression);
  EXPECT_FALSE(Row(*diff, "kernel_count").significant);  // 40 both: unchanged count
}

TEST(DiffTest, SignificantButBelowTheFloorIsNeutral) {
  // 1 % slower with almost no noise: p is tiny, but 1 % is under the 2 % floor.
  auto diff = Diff(StepsSide("a", 10e6, 1e3, 30, 1), StepsSide("b", 10.1e6, 1e3, 30, 2), {});
  ASSERT_TRUE(diff.ok());
  const DiffRow& span = Row(*diff, "gpu_span_ns");
  EXPECT_LT(*span.p, 0.05);
  EXPECT_FALSE(span.significant);
  EXPECT_EQ(diff->verdict, Verdict::kNeutral);
}

TEST(DiffTest, LargeButNoisyChangeIsInconclusive) {
  auto diff = Diff(StepsSide("a", 10e6, 5e6, 5, 3), StepsSide("b", 11e6, 5e6, 5, 4), {});
  ASSERT_TRUE(diff.ok());
  const DiffRow& span = Row(*diff, "gpu_span_ns");
  ASSERT_TRUE(span.p.has_value());
  ASSERT_GE(*span.p, 0.05);  // the seeds give a noisy pair
  ASSERT_GE(std::abs(*span.delta_pct), 2);
  EXPECT_EQ(diff->verdict, Verdict::kInconclusive) << diff->verdict_reason;
  EXPECT_NE(diff->verdict_reason.find("too noisy to tell"), std::string::npos);
}

TEST(DiffTest, WholeRunsWithoutCallsCannotTell) {
  // Two summaries, 3 % apart: no test exists, so the verdict does not guess.
  auto slower = Diff(RunSide("a", 100, 10), RunSide("b", 103, 10), {});
  ASSERT_TRUE(slower.ok());
  const DiffRow& span = Row(*slower, "gpu_span_ns");
  EXPECT_FALSE(span.p.has_value());
  EXPECT_EQ(span.note, "n=1, no significance test");
  EXPECT_FALSE(span.significant);
  EXPECT_TRUE(span.beyond_floor);
  EXPECT_EQ(span.effect, Effect::kWorse);  // shown which way, not claimed
  EXPECT_EQ(slower->verdict, Verdict::kInconclusive);
  EXPECT_NE(slower->verdict_reason.find("no significance test"), std::string::npos)
      << slower->verdict_reason;
  auto same = Diff(RunSide("a", 100, 10), RunSide("b", 101, 10), {});
  EXPECT_FALSE(Row(*same, "gpu_span_ns").beyond_floor);
  EXPECT_EQ(same->verdict, Verdict::kNeutral);
}

TEST(DiffTest, CountsAreExactAndSharesMoveInPoints) {
  Side base = RunSide("a", 100, 10), cand = RunSide("b", 100, 11);
  base.metrics.push_back({"kernel_busy_percent_of_span", {}, 80});
  cand.metrics.push_back({"kernel_busy_percent_of_span", {}, 79});
  auto diff = Diff(base, cand, {});
  const DiffRow& kernels = Row(*diff, "kernel_count");
  EXPECT_TRUE(kernels.significant);  // 10 % more kernels, and 1 of 10 would count too
  EXPECT_EQ(kernels.effect, Effect::kChanged);
  const DiffRow& busy = Row(*diff, "kernel_busy_percent_of_span");
  EXPECT_EQ(*busy.delta_pp, -1);
  EXPECT_FALSE(busy.delta_pct.has_value());
  EXPECT_EQ(busy.effect, Effect::kWorse);  // less busy: more idle
}

TEST(DiffTest, FewStepsGetMediansWithoutATest) {
  auto diff = Diff(StepsSide("a", 10e6, 1e3, 3, 1), StepsSide("b", 12e6, 1e3, 3, 2), {});
  const DiffRow& span = Row(*diff, "gpu_span_ns");
  EXPECT_FALSE(span.p.has_value());
  EXPECT_EQ(span.n_base, 3);
  EXPECT_FALSE(span.significant);
  EXPECT_EQ(span.effect, Effect::kWorse);
  EXPECT_NE(span.note.find("no significance test"), std::string::npos);
}

TEST(DiffTest, KernelDeltaSplitsIntoCallsAndTimePerCall) {
  Side base = RunSide("a", 100, 10), cand = RunSide("b", 100, 10);
  base.meta.kernels = {{"gemm", {10, 1000}}, {"old", {3, 30}}, {"norm", {7, 701}}};
  cand.meta.kernels = {{"gemm", {12, 1500}}, {"new", {2, 50}}, {"norm", {7, 650}}};
  auto diff = Diff(base, cand, {});
  ASSERT_EQ(diff->kernels.size(), 4u);
  const KernelDiff& gemm = diff->kernels[0];
  EXPECT_EQ(gemm.name, "gemm");
  EXPECT_EQ(gemm.change, KernelChange::kMore);
  EXPECT_EQ(gemm.delta_ns, 500);
  EXPECT_EQ(gemm.count_part_ns, 200);     // 2 more calls × 100 ns
  EXPECT_EQ(gemm.per_call_part_ns, 300);  // 12 calls × 25 ns more each
  for (const KernelDiff& k : diff->kernels) {
    EXPECT_EQ(k.count_part_ns + k.per_call_part_ns, k.delta_ns) << k.name;
  }
  EXPECT_EQ(diff->kernels[1].change, KernelChange::kFaster);  // norm: -51
  EXPECT_EQ(diff->kernels[2].change, KernelChange::kNew);
  EXPECT_EQ(diff->kernels[3].change, KernelChange::kRemoved);
  EXPECT_EQ(diff->kernels[3].count_part_ns, -30);
}

TEST(DiffTest, DifferentPoliciesRefuseComponentsOnly) {
  Side base = StepsSide("a", 10e6, 0.1e6, 10, 1), cand = StepsSide("b", 10e6, 0.1e6, 10, 2);
  cand.meta.policy_hash = "p2";
  auto diff = Diff(base, cand, {});
  EXPECT_TRUE(diff->comparability.refuse_components);
  EXPECT_TRUE(diff->components.empty());
  EXPECT_FALSE(diff->rows.empty());
}

TEST(DiffTest, ASideWithoutKernelsRefusesEverything) {
  auto diff = Diff(RunSide("a", 100, 10), RunSide("b", 0, 0), {});
  EXPECT_TRUE(diff->comparability.refuse_all);
  EXPECT_TRUE(diff->rows.empty());
  EXPECT_EQ(diff->verdict, Verdict::kInconclusive);
}

TEST(DiffTest, WarnsAboutDifferentGpusAndTheSameInput) {
  Side base = RunSide("a", 100, 10), cand = RunSide("b", 100, 16);
  base.meta.gpu = "GB10";
  cand.meta.gpu = "H100";
  base.meta.kernels = {{"a", {1, 1}}, {"b", {1, 1}}, {"c", {1, 1}}};
  cand.meta.kernels = {{"a", {1, 1}}, {"x", {1, 1}}, {"y", {1, 1}}};
  auto diff = Diff(base, cand, {});
  std::string all;
  for (const std::string& w : diff->comparability.warnings) all += w + "\n";
  EXPECT_NE(all.find("different GPUs"), std::string::npos) << all;
  EXPECT_NE(all.find("kernel counts differ by 1.60x"), std::string::npos) << all;
  // Only the top kernels are known: the names cannot prove two programs, only warn.
  EXPECT_NE(all.find("only 1 of 3 kernel names"), std::string::npos) << all;
  EXPECT_FALSE(diff->comparability.not_comparable);
  EXPECT_NE(diff->verdict_reason.find("on different GPUs (base GB10, cand H100)"),
            std::string::npos)
      << diff->verdict_reason;
  auto same = Diff(base, base, {});
  EXPECT_NE(same->comparability.warnings.back().find("same input"), std::string::npos);
}

// docs/diff.md: times up are slower, except the launch path's overlap with kernels; busy %
// of span up is better; the gap count up is worse; other counts and shares only change.
TEST(DescribeMetric, FollowsTheRegistryAsDiffMdSaysIt) {
  for (const SummaryMetric& metric : kSummaryMetrics) {
    const MetricInfo info = DescribeMetric(metric.key);
    EXPECT_EQ(info.unit, metric.unit) << metric.key;
    EXPECT_EQ(info.kind, metric.kind) << metric.key;
    EXPECT_EQ(info.worse, metric.worse) << metric.key;
  }
  EXPECT_EQ(DescribeMetric("gpu_span_ns").worse, Worse::kUp);
  EXPECT_EQ(DescribeMetric("cpu_gpu_overlap.launch_api_union_ns").worse, Worse::kUp);
  EXPECT_EQ(DescribeMetric("cpu_gpu_overlap.launch_api_gpu_overlap_ns").worse, Worse::kNeither);
  EXPECT_EQ(DescribeMetric("kernel_busy_percent_of_span").worse, Worse::kDown);
  EXPECT_EQ(DescribeMetric("launch_gaps.positive_gap_count").worse, Worse::kUp);
  EXPECT_EQ(DescribeMetric("kernel_count").worse, Worse::kNeither);
  EXPECT_EQ(DescribeMetric("gpu_idle_ns").worse, Worse::kUp);
  EXPECT_EQ(DescribeMetric("gpu_period_ns").worse, Worse::kUp);
  // A component's figures, whatever its name (a name may hold a dot).
  EXPECT_EQ(DescribeMetric("components.attn.v2.milliseconds").unit, "ms");
  EXPECT_EQ(DescribeMetric("components.attn.v2.milliseconds").worse, Worse::kUp);
  EXPECT_EQ(DescribeMetric("components.gemm.percent_of_kernel_time").kind, MetricKind::kShare);
  EXPECT_EQ(DescribeMetric("components.gemm.launches").worse, Worse::kNeither);
  // A key no registry entry has (a newer stepstat's JSON) goes by its suffix.
  EXPECT_EQ(DescribeMetric("regions.x.kernel_time_ns").kind, MetricKind::kTime);
  EXPECT_EQ(DescribeMetric("something_count").kind, MetricKind::kCount);
}

}  // namespace
}  // namespace stepstat
