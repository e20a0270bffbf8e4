#include "synth/reference_fit.h"

#include <gtest/gtest.h>

#include "synth/step_figures.h"

namespace stepstat::synth {
namespace {

TEST(ReferenceFit, ReproducesEveryReferenceInteger) {
  StepPlan plan = BuildDitStepPlan();
  Prng prng(1);
  StepDraw draw = DrawStep(plan, prng, 1000);
  TimelineParams params;
  params.gpu_origin_ns = 41'793'482'336;
  StepRows rows;
  FitReport report;
  Status status = FitReferenceStep(plan, draw, params, rows, &report);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_GE(report.queue_depth, 960);
  EXPECT_EQ(DescribeDifferences(MeasureStep(plan, rows), ReferenceFigures()), "");
}

TEST(ReferenceFit, RefusesAStepThatCannotMatch) {
  StepPlan plan = BuildDitStepPlan();
  plan.kernels.pop_back();  // one launch short of the reference
  Prng prng(1);
  StepDraw draw = DrawStep(plan, prng, 1000);
  TimelineParams params;
  StepRows rows;
  Status status = FitReferenceStep(plan, draw, params, rows);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("shape"), std::string::npos) << status.message();
}

TEST(ReferenceFit, OtherSeedsFitToo) {
  // The fit is a property of the model, not of one lucky seed.
  for (uint64_t seed : {7u, 1234u}) {
    StepPlan plan = BuildDitStepPlan();
    Prng prng(seed);
    StepDraw draw = DrawStep(plan, prng, 1000);
    TimelineParams params;
    params.gpu_origin_ns = 1'000'000'000;
    StepRows rows;
    FitReport report;
    Status status = FitReferenceStep(plan, draw, params, rows, &report);
    ASSERT_TRUE(status.ok()) << "seed " << seed << ": " << status.message();
    EXPECT_EQ(MeasureStep(plan, rows), ReferenceFigures());
    // The corrections stay small next to a 13 s launch union.
    EXPECT_LT(report.pause_call_extension_ns, 2'000'000);
    EXPECT_LT(report.host_hiccup_ns, 2'000'000);
  }
}

}  // namespace
}  // namespace stepstat::synth
