// `stepstat report`'s summary (issue 17): on an nsys CSV pair or a Kineto trace it rides on
// the steps' own passes (summary_alongside.h) instead of reading the trace again; it must
// still be the summary `summarize --details` gives, byte for byte in its JSON, with the exact
// kernel spreads KernelSpreadsOf reads. Checked on multi-stream synth runs (where it rides: a
// pair, and a PyTorch profiler trace whose kept parse the steps replay) and on every real
// trace of ../shared/data/real that report takes (pairs and Kineto traces ride; SQLite keeps
// the summary's own read): each against RunSummary of the same input.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/pipeline/trace_reads.h"
#include "analysis/steps/steps_then.h"
#include "analysis/summary/summary_alongside.h"
#include "engine/engine_inputs.h"
#include "stepstat/details.h"
#include "stepstat/engine.h"
#include "stepstat/engine_report.h"
#include "stepstat/policy.h"
#include "stepstat/report.h"
#include "stepstat/steps.h"
#include "stepstat/synth.h"
#include "test_platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
const fs::path kRealDir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";

// A synth run with 4 concurrent streams and NVTX step ranges, in a folder of its own.
class MultiStreamRun {
 public:
  explicit MultiStreamRun(synth::SynthFormat format = synth::SynthFormat::kCsv) {
    dir_ = fs::temp_directory_path() /
           ("stepstat_report_summary_" + std::to_string(testing_support::ProcessId()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    synth::SynthOptions options;
    options.out_base = dir_ / "run";
    options.steps = 12;
    options.streams = 4;
    options.nvtx = true;
    options.format = format;
    Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
    EXPECT_TRUE(written.ok()) << written.status().message();
    if (written.ok()) files = written.value();
    base = options.out_base;
  }
  ~MultiStreamRun() { fs::remove_all(dir_); }
  synth::SynthResult files;
  fs::path base;

 private:
  fs::path dir_;
};

std::vector<std::string> ListedNames(const Details& details) {
  std::vector<std::string> names;
  for (const KernelDetails& kernel : details.top_kernels) names.push_back(kernel.name);
  for (const KernelDetails& kernel : details.coverage.top_other) names.push_back(kernel.name);
  return names;
}

void ExpectSameSpreads(const std::vector<KernelSpread>& got,
                       const std::vector<KernelSpread>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].name, want[i].name) << i;
    EXPECT_EQ(got[i].min_ns, want[i].min_ns) << want[i].name;
    EXPECT_EQ(got[i].median_ns, want[i].median_ns) << want[i].name;  // exact, not near
    EXPECT_EQ(got[i].stddev_ns, want[i].stddev_ns) << want[i].name;
  }
}

// The summary of `trace` (no step ranges) as `summarize --details` computes it, and the
// spreads of the kernels it lists as the page's own read would.
struct Expected {
  SummaryResult summary;
  std::vector<KernelSpread> spreads;
};

Expected SummarizeAlone(const std::vector<fs::path>& trace) {
  RunOptions options;
  options.inputs = trace;
  options.details = true;
  Result<SummaryResult> summary = RunSummary(options);
  EXPECT_TRUE(summary.ok()) << summary.status().message();
  if (!summary.ok()) return {};
  std::vector<std::string> args;
  for (const fs::path& path : trace) args.push_back(path.string());
  Result<SummaryInputs> inputs = ResolveInputs(args);
  EXPECT_TRUE(inputs.ok()) << inputs.status().message();
  Result<std::vector<KernelSpread>> spreads =
      KernelSpreadsOf(inputs.value(), ListedNames(*summary->details));
  EXPECT_TRUE(spreads.ok()) << spreads.status().message();
  return {std::move(summary).value(), spreads.ok() ? spreads.value() : std::vector<KernelSpread>{}};
}

void ExpectSameSummary(const ReportResult& report, const Expected& want, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(report.summary.details.has_value());
  EXPECT_EQ(StepStatsWithDetailsToJson(report.summary.stats, *report.summary.details),
            StepStatsWithDetailsToJson(want.summary.stats, *want.summary.details));
  EXPECT_EQ(report.summary.union_busy_percent, want.summary.union_busy_percent);
  EXPECT_EQ(report.summary.context.warnings, want.summary.context.warnings);
  EXPECT_EQ(report.summary.context.inputs.size(), want.summary.context.inputs.size());
  EXPECT_EQ(report.summary.context.policy.name, want.summary.context.policy.name);
  EXPECT_EQ(report.summary.context.policy_hint.has_value(),
            want.summary.context.policy_hint.has_value());
  ExpectSameSpreads(report.kernel_spreads, want.spreads);
}

// The ride itself, below the engine: the steps' passes over `inputs` feed the summary of
// `trace`, which completes (were it not, the engine would fall back to the summary's own read
// and the tests of RunReport could not tell) and equals SummarizeWithDetails and
// KernelSpreadsOf on their own.
void ExpectTheRideToBeTheSummary(const SummaryInputs& trace, const StepsInputs& inputs,
                                 const StepsOptions& options, size_t steps_expected) {
  ASSERT_TRUE(SummaryAlongside::Fits(trace));
  const Policy policy = BuiltinPolicy(kDefaultPolicyName).value();
  Result<std::unique_ptr<SummaryAlongside>> alongside = SummaryAlongside::Create(trace, policy);
  ASSERT_TRUE(alongside.ok()) << alongside.status().message();
  std::vector<StepTimeline> timelines;
  TraceReads reads;  // a Kineto trace's parse, kept and replayed to every pass
  Result<StepsReport> steps =
      AnalyzeStepsDrawing(inputs, policy, options, timelines, alongside.value().get(), &reads);
  ASSERT_TRUE(steps.ok()) << steps.status().message();
  ASSERT_EQ(steps->steps.size(), steps_expected);
  std::optional<SummaryAlongside::Summary> rode = alongside.value()->Take();
  ASSERT_TRUE(rode.has_value()) << "the summary did not complete on the steps' passes";

  Details details;
  Result<StepStats> alone = SummarizeWithDetails(trace, policy, details);
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  EXPECT_EQ(StepStatsWithDetailsToJson(rode->stats, rode->details),
            StepStatsWithDetailsToJson(*alone, details));
  Result<std::vector<KernelSpread>> spreads = KernelSpreadsOf(trace, ListedNames(details));
  ASSERT_TRUE(spreads.ok()) << spreads.status().message();
  EXPECT_FALSE(spreads->empty());
  ExpectSameSpreads(rode->spreads, *spreads);
}

TEST(ReportSummary, RidesOnTheStepsPassesOfAMultiStreamPair) {
  MultiStreamRun run;
  Result<SummaryInputs> trace = ResolveInputs({run.base.string()});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  RunOptions run_options;
  run_options.inputs = {run.base, run.files.nvtx_trace};
  Result<StepsInputs> inputs = ResolveStepsRunInputs(run_options);
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ASSERT_TRUE(inputs->ranges.has_value());
  StepsOptions options;
  options.range_regex = "denoise";
  ExpectTheRideToBeTheSummary(*trace, *inputs, options, 12);
}

// A PyTorch profiler trace: the steps replay its kept parse, both sides at once, and the
// summary rides on those replays as on a pair's read.
TEST(ReportSummary, RidesOnTheStepsReplaysOfAKinetoTrace) {
  MultiStreamRun run(synth::SynthFormat::kKineto);
  Result<SummaryInputs> trace = ResolveInputs({run.files.gpu_trace.string()});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_FALSE(trace->launches.has_value());
  RunOptions run_options;
  run_options.inputs = {run.files.gpu_trace};
  Result<StepsInputs> inputs = ResolveStepsRunInputs(run_options);
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ExpectTheRideToBeTheSummary(*trace, *inputs, StepsOptions{}, 12);
}

TEST(ReportSummary, EqualsSummarizeDetailsOnAMultiStreamPair) {
  MultiStreamRun run;
  ReportRunOptions options;
  options.run.inputs = {run.base, run.files.nvtx_trace};
  options.run.steps.range_regex = "denoise";
  Result<ReportResult> report = RunReport(options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_TRUE(report->steps.has_value());
  ExpectSameSummary(*report, SummarizeAlone({run.base}), "synth, 4 streams");
}

// Every real trace report takes, cut into steps or not (a pair the period detector cannot
// cut leaves the ride to fall back).
TEST(ReportSummary, EqualsSummarizeDetailsOnRealTraces) {
  if (!fs::exists(kRealDir)) GTEST_SKIP() << "needs the real traces in " << kRealDir;
  const std::vector<std::vector<std::string>> traces = {
      {"hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv", "hcc_h100nvl_kmeans_cc_cuda_api_trace.csv"},
      {"hcc_h100nvl_BN_cc_cuda_gpu_trace.csv"},
      {"cudalearning_rtx2080ti_4stream_cuda_gpu_trace.csv"},
      {"pipit_cloverleaf_perlmutter.sqlite"},
      {"nsightful_power_iteration_t4.sqlite"},
      {"hta_alexnet_a100_kineto.json"},
      {"hta_sampled_rank0_kineto.json"},
      {"hta_a100_80g_rank0_ws16_kineto.json.gz"}};
  int compared = 0;
  for (const std::vector<std::string>& names : traces) {
    std::vector<fs::path> files;
    for (const std::string& name : names) files.push_back(kRealDir / name);
    if (!fs::exists(files.front())) continue;
    ReportRunOptions options;
    options.run.inputs = files;
    Result<ReportResult> report = RunReport(options);
    ASSERT_TRUE(report.ok()) << names.front() << ": " << report.status().message();
    std::printf("%s: %s\n", names.front().c_str(),
                report->steps ? "cut into steps" : report->steps_note.c_str());
    ExpectSameSummary(*report, SummarizeAlone(files), names.front());
    ++compared;
  }
  if (compared == 0) GTEST_SKIP() << "none of the real traces in " << kRealDir;
}

}  // namespace
}  // namespace stepstat
