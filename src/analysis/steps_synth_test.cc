// Steps of `stepstat synth --steps N --nvtx` runs, whose step boundaries are known: every
// step found, every kernel in its step, sums equal the whole trace, and step 0 of a whole
// run summarizes to the reference GB10 step (the synthetic step 0 is fitted to it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "stepstat/report.h"
#include "stepstat/steps.h"
#include "synth/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kStepKernels = 2744;  // the reference step's kernel count

struct SynthRun {
  fs::path dir;
  synth::SynthResult files;
};

SynthRun WriteRun(int64_t steps, const std::string& tag) {
  SynthRun run;
  run.dir = fs::temp_directory_path() / ("stepstat_steps_synth_" + tag);
  fs::create_directories(run.dir);
  synth::SynthOptions options;
  options.out_base = run.dir / "run";
  options.steps = steps;
  options.nvtx = true;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  EXPECT_TRUE(written.ok()) << written.status().message();
  if (written.ok()) run.files = written.value();
  return run;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The JSON without its first three lines (the opening brace and the two source paths).
std::string WithoutSources(const std::string& json) {
  size_t at = 0;
  for (int line = 0; line < 3; ++line) at = json.find('\n', at) + 1;
  std::string rest = json.substr(at);
  while (!rest.empty() && rest.back() == '\n') rest.pop_back();
  return rest;
}

TEST(StepsSynth, NvtxStepsHoldEveryKernelAndStepZeroIsTheReference) {
  SynthRun run = WriteRun(6, "nvtx");
  Policy policy = BuiltinPolicy(kDefaultPolicyName).value();
  Result<StepsInputs> inputs =
      ResolveStepsInputs({(run.dir / "run").string(), run.files.nvtx_trace.string()});
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  StepsOptions options;
  options.range_regex = "^denoise_step$";
  Result<StepsReport> report = AnalyzeSteps(inputs.value(), policy, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->steps.size(), 6u);
  EXPECT_EQ(report->outside.operation_count, 0);
  Result<StepStats> whole = Summarize(inputs->trace, policy);
  ASSERT_TRUE(whole.ok());
  int64_t ops = 0, kernel_time = 0;
  for (const StepRecord& step : report->steps) {
    EXPECT_EQ(step.totals.kernel_count, kStepKernels) << step.index;
    ops += step.totals.operation_count;
    kernel_time += step.totals.kernel_time_ns;
  }
  EXPECT_EQ(ops, whole->gpu_operation_count);
  EXPECT_EQ(kernel_time, whole->kernel_time_ns);

  fs::path reference = STEPSTAT_SHARED_DIR "/spec/gb10-post-fc2-warmed-step-stats.json";
  if (!fs::exists(reference)) GTEST_SKIP() << reference << " is absent";
  std::string step0 = StepStatsToJson(StepStatsOf(*report, report->steps[0], policy));
  EXPECT_EQ(WithoutSources(step0), WithoutSources(ReadAll(reference)));
  fs::remove_all(run.dir);
}

TEST(StepsSynth, DetectorFindsTheStepLengthWithoutAnnotations) {
  SynthRun run = WriteRun(5, "period");
  Policy policy = BuiltinPolicy(kDefaultPolicyName).value();
  Result<StepsInputs> inputs = ResolveStepsInputs({(run.dir / "run").string()});
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  Result<StepsReport> report = AnalyzeSteps(inputs.value(), policy, StepsOptions{});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->source, StepSourceKind::kPeriodDetector);
  EXPECT_EQ(report->source_detail, "period of 2744 kernels");
  // The cut may sit at another idle gap than the true one (the synthetic step has a host
  // pause as long as the sync between steps), but every complete step is one step long.
  int64_t complete = 0;
  for (const StepRecord& step : report->steps) {
    if (step.flags & kStepPartial) continue;
    EXPECT_EQ(step.totals.kernel_count, kStepKernels) << step.index;
    ++complete;
  }
  EXPECT_GE(complete, 4);
  fs::remove_all(run.dir);
}

}  // namespace
}  // namespace stepstat
