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
  EXPECT_EQ(DescribeDifferences(MeasureStep(plan, rows), ReferenceFigures()), "");
}

}  // namespace
}  // namespace stepstat::synth
