// The verdict reads every time row (docs/diff.md, Verdict): components that moved while the
// span stayed under the floor, kernels compared per call when each side is one capture,
// mixed changes, different programs, and gates that keep to their own limit.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "compare/noisy_samples.h"
#include "stepstat/compare.h"

namespace stepstat {
namespace {

/// Steps of a run whose span is the sum of a GEMM part and an attention part (ms).
Side Steps(double gemm_ms, double attention_ms, uint64_t seed, int n = 40) {
  Side side;
  side.meta.label = "s" + std::to_string(seed);
  side.meta.policy_hash = "p";
  std::vector<double> gemm = Noisy(gemm_ms, 0.01 * gemm_ms, n, seed);
  std::vector<double> attention = Noisy(attention_ms, 0.01 * attention_ms, n, seed + 100);
  std::vector<double> span;
  for (int i = 0; i < n; ++i) span.push_back((gemm[size_t(i)] + attention[size_t(i)]) * 1e6);
  side.metrics.push_back({"gpu_span_ns", span, std::nullopt});
  side.metrics.push_back({"kernel_count", std::vector<double>(size_t(n), 100), std::nullopt});
  side.metrics.push_back({"components.gemm.milliseconds", gemm, std::nullopt});
  side.metrics.push_back({"components.attention.milliseconds", attention, std::nullopt});
  return side;
}

TEST(VerdictTest, AComponentBeyondTheFloorDecidesWhileTheSpanDoesNot) {
  // GEMMs 20 % of the step, 5 % slower: the span moves 1 %, under the 2 % floor.
  auto diff = Diff(Steps(20, 80, 1), Steps(21, 80, 2), {});
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->verdict, Verdict::kRegression) << diff->verdict_reason;
  EXPECT_EQ(diff->verdict_reason.rfind("gemm +5.", 0), 0u) << diff->verdict_reason;
  EXPECT_NE(diff->verdict_reason.find("; step span +1."), std::string::npos)
      << diff->verdict_reason;
  for (const DiffRow& row : diff->components) {
    EXPECT_EQ(row.decides, row.name == "components.gemm.milliseconds") << row.name;
  }
}

TEST(VerdictTest, OppositeMovesOfComparableSizeAreMixed) {
  // GEMMs +4 ms, attention −3 ms (3 ≥ 4 / 2): neither direction dominates.
  auto diff = Diff(Steps(20, 80, 1), Steps(24, 77, 2), {});
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->verdict, Verdict::kMixed) << diff->verdict_reason;
  EXPECT_NE(diff->verdict_reason.find("slower: gemm"), std::string::npos);
  EXPECT_NE(diff->verdict_reason.find("faster: attention"), std::string::npos);
  // −2.4 ms of attention against +6 ms: a regression with a smaller gain beside it.
  auto mostly_slower = Diff(Steps(20, 80, 1), Steps(26, 77.6, 2), {});
  EXPECT_EQ(mostly_slower->verdict, Verdict::kRegression) << mostly_slower->verdict_reason;
  EXPECT_NE(mostly_slower->verdict_reason.find("smaller gains: attention"), std::string::npos)
      << mostly_slower->verdict_reason;
}

TEST(VerdictTest, ARowUnderHalfAPercentOfTheStepDoesNotDecide) {
  // A component of 0.2 ms in a 100 ms step, 50 % slower: +0.1 ms is 0.1 % of the step.
  auto diff = Diff(Steps(0.2, 99.8, 1), Steps(0.3, 99.8, 2), {});
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->verdict, Verdict::kNeutral) << diff->verdict_reason;
}

/// One capture: kernels with every call's duration, the span and kernel time as whole runs.
struct Kernel {
  std::string name, component;
  int calls;
  double mean_ns;
};
Side Capture(const std::vector<Kernel>& kernels, uint64_t seed) {
  Side side;
  side.meta.label = "c" + std::to_string(seed);
  side.meta.policy_hash = "p";
  side.meta.kernels_complete = true;
  std::mt19937_64 random(seed);
  double total = 0, count = 0;
  std::map<std::string, double> by_component;
  for (const Kernel& k : kernels) {
    std::uniform_int_distribution<int64_t> jitter(-int64_t(k.mean_ns / 50),
                                                  int64_t(k.mean_ns / 50));
    std::map<int64_t, int64_t> durations;
    for (int i = 0; i < k.calls; ++i) ++durations[int64_t(k.mean_ns) + jitter(random)];
    KernelTotals& totals = side.meta.kernels[k.name];
    totals.component = k.component;
    for (auto [ns, times] : durations) {
      totals.calls.push_back({double(ns), times});
      totals.count += times;
      totals.total_ns += ns * times;
    }
    total += double(totals.total_ns);
    count += double(totals.count);
    by_component[k.component] += double(totals.total_ns);
  }
  side.metrics.push_back({"gpu_span_ns", {}, total});
  side.metrics.push_back({"kernel_count", {}, count});
  side.metrics.push_back({"kernel_time_ns", {}, total});
  for (auto [component, ns] : by_component) {
    side.metrics.push_back({"components." + component + ".milliseconds", {}, ns / 1e6});
  }
  return side;
}

TEST(VerdictTest, OneCaptureASideIsJudgedByItsKernelsCalls) {
  // ntt takes 5.5 % of the kernel time and gets 50 % slower per call.
  std::vector<Kernel> base = {{"gemm", "gemm", 2000, 10000}, {"ntt", "other", 1000, 1200}};
  std::vector<Kernel> slower = {{"gemm", "gemm", 2000, 10000}, {"ntt", "other", 1000, 1800}};
  auto diff = Diff(Capture(base, 1), Capture(slower, 2), {});
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->verdict, Verdict::kRegression) << diff->verdict_reason;
  const KernelDiff* ntt = nullptr;
  for (const KernelDiff& k : diff->kernels) {
    if (k.name == "ntt") ntt = &k;
  }
  ASSERT_NE(ntt, nullptr);
  ASSERT_TRUE(ntt->p.has_value());
  EXPECT_LT(*ntt->p, 1e-100);
  EXPECT_NEAR(*ntt->per_call_pct, 50, 1);
  EXPECT_TRUE(ntt->decides);
  EXPECT_NE(diff->verdict_reason.find("other +"), std::string::npos) << diff->verdict_reason;
  EXPECT_NE(diff->verdict_reason.find("kernel ntt +"), std::string::npos) << diff->verdict_reason;
  // The component row, rolled up from its kernels: ntt's per-call part over other's base.
  for (const DiffRow& row : diff->components) {
    if (row.name != "components.other.milliseconds") continue;
    ASSERT_TRUE(row.rolled_up_ns.has_value());
    EXPECT_NEAR(*row.rolled_up_ns, double(ntt->per_call_part_ns), 1);
    EXPECT_TRUE(row.decides);
  }

  // The same program captured twice, calls jittering alike: nothing decides.
  auto again = Diff(Capture(base, 1), Capture(base, 3), {});
  EXPECT_EQ(again->verdict, Verdict::kNeutral) << again->verdict_reason;
}

TEST(VerdictTest, PerCallPIsTheTestOnTheExpandedCalls) {
  std::vector<Kernel> base = {{"k", "other", 300, 1000}};
  std::vector<Kernel> cand = {{"k", "other", 280, 1010}};
  Side b = Capture(base, 4), c = Capture(cand, 5);
  auto diff = Diff(b, c, {});
  std::vector<double> x, y;
  for (auto [ns, times] : b.meta.kernels["k"].calls) x.insert(x.end(), size_t(times), ns);
  for (auto [ns, times] : c.meta.kernels["k"].calls) y.insert(y.end(), size_t(times), ns);
  ASSERT_FALSE(diff->kernels.empty());
  EXPECT_DOUBLE_EQ(*diff->kernels[0].p, MannWhitneyU(x, y).p);
}

TEST(VerdictTest, DifferentProgramsAreNotComparableUnlessAllowed) {
  std::vector<Kernel> alexnet = {{"conv", "other", 100, 50000}, {"gemm", "gemm", 10, 1000}};
  std::vector<Kernel> recsys = {{"embedding", "other", 150, 8000}, {"gemm", "gemm", 10, 1000}};
  DiffOptions options;
  options.gates = {SlowerGate("50").value()};
  auto diff = Diff(Capture(alexnet, 1), Capture(recsys, 2), options);
  ASSERT_TRUE(diff.ok());
  EXPECT_TRUE(diff->comparability.not_comparable);
  EXPECT_EQ(diff->verdict, Verdict::kNotComparable);
  EXPECT_NE(diff->verdict_reason.find("% of the kernel time is in names both sides share"),
            std::string::npos)
      << diff->verdict_reason;
  ASSERT_EQ(diff->gates.size(), 1u);
  EXPECT_FALSE(diff->gates[0].passed);  // fails closed, whatever the span did
  EXPECT_NE(diff->gates[0].why.find("not comparable"), std::string::npos) << diff->gates[0].why;

  options.allow_different = true;
  auto anyway = Diff(Capture(alexnet, 1), Capture(recsys, 2), options);
  EXPECT_NE(anyway->verdict, Verdict::kNotComparable);
  EXPECT_NE(anyway->comparability.warnings.front().find("--allow-different"), std::string::npos);

  Side other_policy = Capture(alexnet, 3);
  other_policy.meta.policy_hash = "q";
  auto policies = Diff(Capture(alexnet, 1), other_policy, {});
  EXPECT_EQ(policies->verdict, Verdict::kNotComparable);
  EXPECT_NE(policies->verdict_reason.find("different policies"), std::string::npos);
}

TEST(VerdictTest, KernelCountsTwiceApartAreNotComparable) {
  std::vector<Kernel> few = {{"k", "other", 100, 1000}};
  std::vector<Kernel> many = {{"k", "other", 200, 1000}};
  auto diff = Diff(Capture(few, 1), Capture(many, 2), {});
  EXPECT_EQ(diff->verdict, Verdict::kNotComparable);
  EXPECT_NE(diff->verdict_reason.find("kernel counts 2.00x apart"), std::string::npos)
      << diff->verdict_reason;
}

TEST(VerdictTest, AGateKeepsToItsOwnLimitUnderTheFloor) {
  // +1 % on the span at a tiny p: under the 2 % floor, past a 0.5 % gate.
  DiffOptions options;
  options.gates = {SlowerGate("0.5").value(), SlowerGate("1.5").value()};
  auto diff = Diff(Steps(20, 80, 1), Steps(21, 80, 2), options);
  ASSERT_TRUE(diff.ok());
  EXPECT_FALSE(diff->gates[0].passed) << diff->gates[0].why;
  EXPECT_NE(diff->gates[0].why.find("is past the limit +0.5 %"), std::string::npos)
      << diff->gates[0].why;
  EXPECT_TRUE(diff->gates[1].passed) << diff->gates[1].why;
  EXPECT_NE(diff->gates[1].why.find("is within the limit +1.5 %"), std::string::npos)
      << diff->gates[1].why;
}

TEST(NoiseFloorTest, ThreeRunsOfOneCommitMeasureTheFloor) {
  // docs/diff.md's example: m = 100, s = sqrt((0 + 0.004² + 0.004²) / 2) = 0.4 %.
  std::vector<RunOfCode> runs = {{"abc", {}, 100.0e6}, {"abc", {}, 100.4e6}, {"abc", {}, 99.6e6}};
  auto floor = MeasureNoiseFloor(runs);
  ASSERT_TRUE(floor.has_value());
  EXPECT_NEAR(floor->percent, 1.96 * std::sqrt(2.0) * 0.4, 1e-9);
  EXPECT_NE(floor->how.find("0.4 % of 3 runs (1 commit)"), std::string::npos) << floor->how;

  runs.pop_back();  // two runs measure nothing
  EXPECT_FALSE(MeasureNoiseFloor(runs).has_value());
}

TEST(NoiseFloorTest, TagsGroupWhenTheyHoldMoreRunsAndTheMinimumHolds) {
  // Commit groups of 2 and 2; the tag puts 4 in one group: the tag wins.
  std::vector<RunOfCode> runs = {{"a", {{"code", "x"}}, 100e6},
                                 {"a", {{"code", "x"}}, 100e6},
                                 {"b", {{"code", "x"}}, 100e6},
                                 {"b", {{"code", "x"}}, 100e6 + 1}};
  auto floor = MeasureNoiseFloor(runs);
  ASSERT_TRUE(floor.has_value());
  EXPECT_EQ(floor->percent, 0.5);  // nearly identical runs: the 0.5 % minimum
  EXPECT_NE(floor->how.find("(1 value of tag code), raised to the 0.5 % minimum"),
            std::string::npos)
      << floor->how;
}

}  // namespace
}  // namespace stepstat
