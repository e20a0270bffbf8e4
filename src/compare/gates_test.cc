// Gate specs: what parses, what is refused with which words, and when a gate fails.
#include <gtest/gtest.h>

#include "stepstat/compare.h"

namespace stepstat {
namespace {

TEST(GatesTest, ParsesEachLimitInTheMetricsUnit) {
  auto pct = ParseGate("gpu_span_ns:+5%");
  ASSERT_TRUE(pct.ok());
  EXPECT_EQ(pct->limit, GateSpec::Limit::kPercent);
  EXPECT_EQ(pct->value, 5);
  auto ms = ParseGate("launch_gaps.total_ns:+2ms");
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  EXPECT_EQ(ms->value, 2e6);  // converted to the key's ns
  auto component = ParseGate("components.nvfp4_gemms.milliseconds:+150us");
  ASSERT_TRUE(component.ok());
  EXPECT_DOUBLE_EQ(component->value, 0.15);
  auto pp = ParseGate("kernel_busy_percent_of_span:-0.5pp");
  ASSERT_TRUE(pp.ok());
  EXPECT_EQ(pp->value, -0.5);
  EXPECT_EQ(ParseGate("kernel_count:changed")->limit, GateSpec::Limit::kChanged);
  EXPECT_EQ(ParseGate("kernel_count:+10")->value, 10);
  EXPECT_EQ(SlowerGate("3")->metric, "gpu_span_ns");
}

TEST(GatesTest, RefusesWithClearWords) {
  EXPECT_NE(ParseGate("gpu_span_ns").status().message().find("METRIC:LIMIT"), std::string::npos);
  EXPECT_NE(ParseGate("gpu_span_ns:+5").status().message().find("needs a unit"), std::string::npos);
  EXPECT_NE(ParseGate("kernel_busy_percent_of_span:+5%").status().message().find("pp"),
            std::string::npos);
  EXPECT_NE(ParseGate("kernel_count:+2ms").status().message().find("not a time"),
            std::string::npos);
  EXPECT_NE(ParseGate("gpu_span_ns:+5pp").status().message().find("not a share"),
            std::string::npos);
  EXPECT_FALSE(ParseGate("gpu_span_ns:fast%").ok());
  EXPECT_FALSE(SlowerGate("x").ok());
}

Side RunOf(double span, double gaps) {
  Side side;
  side.meta.label = "run";
  side.metrics = {
      {"gpu_span_ns", {}, span}, {"kernel_count", {}, 5}, {"launch_gaps.total_ns", {}, gaps}};
  return side;
}

TEST(GatesTest, FailOnlyOnASignificantChangePastTheLimit) {
  DiffOptions options;
  options.gates = {SlowerGate("5").value(), ParseGate("launch_gaps.total_ns:+2ms").value(),
                   ParseGate("kernel_count:changed").value()};
  auto diff = Diff(RunOf(100e6, 1e6), RunOf(110e6, 2.5e6), options);
  ASSERT_TRUE(diff.ok());
  ASSERT_EQ(diff->gates.size(), 3u);
  EXPECT_FALSE(diff->gates[0].passed) << diff->gates[0].why;  // +10 % > +5 %
  EXPECT_TRUE(diff->gates[1].passed) << diff->gates[1].why;   // +1.5 ms <= 2 ms
  EXPECT_TRUE(diff->gates[2].passed);                         // 5 kernels both
  EXPECT_TRUE(diff->gates_failed());
  auto small = Diff(RunOf(100e6, 1e6), RunOf(101e6, 1e6), options);  // within the floor
  EXPECT_FALSE(small->gates_failed());
  EXPECT_EQ(small->gates[0].why,
            "+1.00 % (one run a side: no significance test) is within the limit +5 %");
}

TEST(GatesTest, UnknownMetricIsAnError) {
  DiffOptions options;
  options.gates = {ParseGate("components.nope.milliseconds:+1ms").value()};
  auto diff = Diff(RunOf(1, 1), RunOf(1, 1), options);
  ASSERT_FALSE(diff.ok());
  EXPECT_NE(diff.status().message().find("neither side has a metric"), std::string::npos);
}

}  // namespace
}  // namespace stepstat
