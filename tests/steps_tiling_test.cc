// Issue 12: the steps tile the run. Per-step figures plus the residue add up exactly to the
// whole-trace summary (span, idle, gaps, kernel time), and the steps' launch overlap is
// measured against every kernel, so that it adds up to the whole trace's too. Checked on
// generated pipelined runs, on synth runs (CSV and SQLite) and on every real trace in
// ../shared/data/real that `steps` accepts, for every step source it offers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "analysis/pipeline/trace_reads.h"
#include "core/intervals.h"
#include "stepstat/read.h"
#include "stepstat/step_stats.h"
#include "stepstat/steps.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

class KernelCollector : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    for (const GpuOp& op : ops) {
      if (op.kind == OpKind::kKernel) kernels.push_back({op.start_ns, op.end_ns()});
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  std::vector<Interval> kernels;
};

// The invariants of StepsResidue against `summarize` and a brute-force kernel union.
void ExpectTiling(const StepsInputs& inputs, const StepsReport& report, const Policy& policy) {
  Result<StepStats> whole = Summarize(inputs.trace, policy);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  KernelCollector collector;
  ASSERT_TRUE(TraceReads().GpuSide(inputs.trace.gpu, collector).ok());
  const int64_t whole_busy = TotalLength(UnionOf(std::move(collector.kernels)));

  const StepsResidue& r = report.residue;
  int64_t span = 0, idle = 0, gap_count = 0, gap_ns = 0, kernel_ns = 0;
  for (const StepRecord& step : report.steps) {
    StepStats s = StepStatsOf(report, step, policy);
    span += s.gpu_span_ns;
    idle += s.gpu_span_ns - step.totals.kernel_busy_ns;
    gap_count += s.launch_gaps.positive_gap_count;
    gap_ns += s.launch_gaps.total_ns;
    kernel_ns += s.kernel_time_ns;
  }
  const ResiduePart* parts[] = {&r.before_first, &r.between_steps, &r.after_last};
  for (const ResiduePart* part : parts) {
    EXPECT_GE(part->span_ns, 0);
    EXPECT_GE(part->idle_ns, 0);
    EXPECT_LE(part->idle_ns, part->span_ns);
    span += part->span_ns;
    idle += part->idle_ns;
    gap_count += part->gap_count;
    gap_ns += part->gap_total_ns;
  }
  EXPECT_EQ(r.gpu_span_ns, whole->gpu_span_ns);
  EXPECT_EQ(span - r.steps_overlap_ns, whole->gpu_span_ns);
  EXPECT_EQ(
      idle - r.steps_overlap_ns + r.concurrent_step_kernels_ns - r.outside_kernels_in_steps_ns,
      whole->gpu_span_ns - whole_busy);
  EXPECT_EQ(gap_count - r.filled_step_gap_count, whole->launch_gaps.positive_gap_count);
  EXPECT_EQ(gap_ns - r.filled_step_gap_ns, whole->launch_gaps.total_ns);
  EXPECT_EQ(kernel_ns + r.kernel_time_ns, whole->kernel_time_ns);
  // Every operation is some step's, launched outside every step, or unlaunched.
  int64_t operations = report.outside.operation_count + r.unlaunched.operation_count;
  for (const StepRecord& step : report.steps) operations += step.totals.operation_count;
  EXPECT_EQ(operations, whole->gpu_operation_count);
  EXPECT_LE(r.unlaunched.kernel_time_ns, r.kernel_time_ns);
  EXPECT_GE(r.unlaunched.idle_ns, 0);
  EXPECT_LE(r.unlaunched.idle_ns, r.unlaunched.span_ns);

  // The launch overlap: over steps whose launch unions are disjoint (their lengths add up to
  // the whole union), the per-step overlaps add up to the whole trace's.
  if (report.launch_trace && whole->cpu_gpu_overlap) {
    int64_t unions = report.outside.launch_union_ns, overlap = report.outside.launch_overlap_ns;
    for (const StepRecord& step : report.steps) {
      unions += step.totals.launch_union_ns;
      overlap += step.totals.launch_overlap_ns;
      EXPECT_LE(step.totals.launch_own_kernels_overlap_ns, step.totals.launch_overlap_ns);
    }
    if (unions == whole->cpu_gpu_overlap->launch_api_union_ns) {
      EXPECT_EQ(overlap, whole->cpu_gpu_overlap->launch_api_gpu_overlap_ns);
    }
  }
}

// A GPU-bound run whose CPU is one step ahead: step s's launch calls (in its NVTX range)
// block while the GPU runs step s-1's kernels, back to back. `shuffle` writes the GPU rows
// out of order, which sends the steps through the pass that holds the launch unions.
struct PipelinedRun {
  fs::path dir, gpu, kern_exec, nvtx;
};

// `unlaunched`: the first kernels that get no kern-exec row, as when the capture began
// after their launch calls.
PipelinedRun WritePipelinedRun(int steps, bool shuffle, int unlaunched = 0) {
  PipelinedRun run;
  // A folder of each run's own: ctest runs the tests that write one at once.
  run.dir =
      fs::temp_directory_path() / ("stepstat_tiling_pipelined_" + std::to_string(steps) + "_" +
                                   std::to_string(unlaunched) + "_" + std::to_string(shuffle));
  fs::create_directories(run.dir);
  run.gpu = run.dir / "run_cuda_gpu_trace.csv";
  run.kern_exec = run.dir / "run_cuda_kern_exec_trace.csv";
  run.nvtx = run.dir / "run_nvtx_pushpop_trace.csv";
  std::vector<std::string> gpu_rows;
  std::string kexec =
      "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
      "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n";
  std::string nvtx =
      "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
      "NumChild,RangeId,ParentId,RangeStack,NameTree\n";
  const int64_t step_ns = 1'000'000, kernels = 10, slot = step_ns / kernels;
  for (int s = 0; s < steps; ++s) {
    int64_t cpu = 5'000'000 + s * step_ns;
    nvtx += std::to_string(cpu) + "," + std::to_string(cpu + step_ns) + "," +
            std::to_string(step_ns) + ",0,0,train_step,42,42,0,0," + std::to_string(s + 1) +
            ",,:" + std::to_string(s + 1) + ",train_step\n";
    for (int64_t k = 0; k < kernels; ++k) {
      int64_t api = cpu + k * slot, api_dur = slot - 10'000;
      int64_t start = api + step_ns;  // one step later, back to back with the previous kernel
      gpu_rows.push_back(std::to_string(start) + "," + std::to_string(slot) + "," +
                         std::to_string(s * kernels + k + 1) +
                         ",1,1,1,128,1,1,32,0,0,,,,,NVIDIA GB10 (0),1,,7,gemm_kernel\n");
      if (s * kernels + k < unlaunched) continue;
      kexec += std::to_string(api) + "," + std::to_string(api_dur) + "," +
               std::to_string(api + api_dur) + ",0," + std::to_string(start) + "," +
               std::to_string(slot) + "," + std::to_string(start + slot - api) +
               ",42,42,0,cudaLaunchKernel,\"  1 1 1\",\" 128 1 1\",gemm_kernel\n";
    }
  }
  if (shuffle) std::shuffle(gpu_rows.begin(), gpu_rows.end(), std::mt19937_64(12));
  std::ofstream gpu(run.gpu, std::ios::binary);
  gpu << "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
         "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,"
         "Name\n";
  for (const std::string& row : gpu_rows) gpu << row;
  std::ofstream(run.kern_exec, std::ios::binary) << kexec;
  std::ofstream(run.nvtx, std::ios::binary) << nvtx;
  return run;
}

// Issue 12: the steady steps' launch overlap is the whole trace's (about 100 %), not the
// ~0 % that the step's own kernels give; the own-kernels figure is kept under its own name.
TEST(StepsTiling, PipelinedLaunchesOverlapLikeTheWholeTrace) {
  const int steps = 8;
  Policy policy = BuiltinPolicy("llm-inference").value();
  for (bool shuffle : {false, true}) {
    SCOPED_TRACE(shuffle ? "GPU rows shuffled (holding pass)" : "sorted (streaming pass)");
    PipelinedRun run = WritePipelinedRun(steps, shuffle);
    StepsInputs inputs =
        ResolveStepsInputs({run.gpu.string(), run.kern_exec.string(), run.nvtx.string()}).value();
    StepsOptions options;
    options.range_regex = "train_step";
    Result<StepsReport> report = AnalyzeSteps(inputs, policy, options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    ASSERT_EQ(report->steps.size(), static_cast<size_t>(steps));
    Result<StepStats> whole = Summarize(inputs.trace, policy);
    ASSERT_TRUE(whole.ok());
    const double whole_percent = whole->cpu_gpu_overlap->launch_api_overlap_percent;
    EXPECT_NEAR(whole_percent, 100.0 * (steps - 1) / steps, 1e-9);  // step 0 meets no kernel
    for (int s = 1; s < steps; ++s) {
      StepStats step = StepStatsOf(*report, report->steps[s], policy);
      EXPECT_EQ(step.cpu_gpu_overlap->launch_api_overlap_percent, 100.0) << s;
      EXPECT_EQ(report->steps[s].totals.launch_own_kernels_overlap_ns, 0) << s;
    }
    EXPECT_EQ(report->steps[0].totals.launch_overlap_ns, 0);
    ExpectTiling(inputs, *report, policy);  // and the per-step overlaps add up exactly
    int64_t overlap = report->outside.launch_overlap_ns;
    for (const StepRecord& step : report->steps) overlap += step.totals.launch_overlap_ns;
    EXPECT_EQ(overlap, whole->cpu_gpu_overlap->launch_api_gpu_overlap_ns);
    fs::remove_all(run.dir);
  }
}

// Issue 30: kernels the launch trace has no call for are no step's, not the step whose
// window they run in; the steps still tile the run, the unlaunched ones in the residue.
TEST(StepsTiling, KernelsWithoutLaunchRecordAreCountedApart) {
  const int steps = 4, unlaunched = 3;
  Policy policy = BuiltinPolicy("llm-inference").value();
  for (bool shuffle : {false, true}) {
    SCOPED_TRACE(shuffle ? "GPU rows shuffled (holding pass)" : "sorted (streaming pass)");
    PipelinedRun run = WritePipelinedRun(steps, shuffle, unlaunched);
    StepsInputs inputs =
        ResolveStepsInputs({run.gpu.string(), run.kern_exec.string(), run.nvtx.string()}).value();
    StepsOptions options;
    options.range_regex = "train_step";
    Result<StepsReport> report = AnalyzeSteps(inputs, policy, options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->attribution, StepAttribution::kLaunchKernelStart);
    ASSERT_EQ(report->steps.size(), static_cast<size_t>(steps));
    // Ten kernels a step, 100 us each; the first three (step 0's, run at 6.0, 6.1, 6.2 ms)
    // have no launch row.
    EXPECT_EQ(report->steps[0].totals.kernel_count, 10 - unlaunched);
    for (int s = 1; s < steps; ++s) EXPECT_EQ(report->steps[s].totals.kernel_count, 10) << s;
    const UnlaunchedOps& u = report->residue.unlaunched;
    EXPECT_EQ(u.operation_count, unlaunched);
    EXPECT_EQ(u.kernel_count, unlaunched);
    EXPECT_EQ(u.kernel_time_ns, unlaunched * 100'000);
    EXPECT_EQ(u.span_ns, unlaunched * 100'000);
    EXPECT_EQ(u.idle_ns, 0);
    EXPECT_EQ(report->outside.operation_count, 0);
    EXPECT_EQ(report->residue.before_first.span_ns, unlaunched * 100'000);
    ExpectTiling(inputs, *report, policy);
    fs::remove_all(run.dir);
  }
}

struct Case {
  std::vector<std::string> args;
  std::string regex;
  bool by_period = false;
};

// Runs `steps` on the case; false (not an error) when steps refuses the input.
bool CheckCase(const Case& c, const Policy& policy, std::string* summary) {
  Result<StepsInputs> inputs = ResolveStepsInputs(c.args);
  if (!inputs.ok()) return false;
  StepsOptions options;
  options.range_regex = c.regex;
  options.by_period = c.by_period;
  Result<StepsReport> report = AnalyzeSteps(*inputs, policy, options);
  if (!report.ok()) return false;
  SCOPED_TRACE(c.args.front() + " --steps '" + c.regex + "'");
  ExpectTiling(*inputs, *report, policy);
  const StepsResidue& r = report->residue;
  *summary = std::to_string(report->steps.size()) + " steps (" +
             std::string(StepSourceKindName(report->source)) + "), span " +
             std::to_string(r.gpu_span_ns) + " = steps + " +
             std::to_string(r.before_first.span_ns) + " before + " +
             std::to_string(r.between_steps.span_ns) + " between + " +
             std::to_string(r.after_last.span_ns) + " after - " +
             std::to_string(r.steps_overlap_ns) + " overlap";
  return true;
}

TEST(StepsTiling, EveryRealTraceAndStepSource) {
  const fs::path dir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " is absent";
  Policy policy = BuiltinPolicy("llm-inference").value();
  std::vector<Case> cases;
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    if (name.ends_with(".md")) continue;
    cases.push_back({{file.string()}, ""});  // the trace's own steps when present, else the period
    cases.push_back({{file.string()}, "", /*by_period=*/true});
    if (name.ends_with(".sqlite")) cases.push_back({{file.string()}, "^Step "});
  }
  // A GPU trace beside the API trace of its run.
  cases.push_back({{(dir / "hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv").string(),
                    (dir / "hcc_h100nvl_kmeans_cc_cuda_api_trace.csv").string()},
                   ""});
  int accepted = 0;
  for (const Case& c : cases) {
    std::string summary;
    if (CheckCase(c, policy, &summary)) {
      ++accepted;
      std::printf("%s%s%s: %s\n", fs::path(c.args.front()).filename().string().c_str(),
                  c.regex.empty() ? "" : (" --steps '" + c.regex + "'").c_str(),
                  c.by_period ? " --by-period" : "", summary.c_str());
    }
  }
  EXPECT_GE(accepted, 8);
}

// On the T4 power iteration (issue 12): the idle GPU time between detected steps, which no
// step held, is now the residue between steps.
TEST(StepsTiling, PowerIterationIdleBetweenStepsIsResidue) {
  const fs::path db =
      fs::path(STEPSTAT_SHARED_DIR) / "data" / "real" / "nsightful_power_iteration_t4.sqlite";
  if (!fs::exists(db)) GTEST_SKIP() << db << " is absent";
  Policy policy = BuiltinPolicy("llm-inference").value();
  for (std::string regex : {"", "^Step ", "period"}) {
    SCOPED_TRACE(regex);
    StepsInputs inputs = ResolveStepsInputs({db.string()}).value();
    StepsOptions options;
    options.by_period = regex == "period";
    if (!options.by_period) options.range_regex = regex;
    Result<StepsReport> report = AnalyzeSteps(inputs, policy, options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    ExpectTiling(inputs, *report, policy);
    int64_t spans = 0;
    for (const StepRecord& step : report->steps) {
      spans += step.totals.last_end_ns - step.totals.first_start_ns;
    }
    const StepsResidue& r = report->residue;
    // Detected steps are GPU windows: the ~15 ms of idle GPU between two of them (656 ms in
    // all) was in no step; NVTX steps are CPU ranges whose GPU spans take the idle in. (The
    // trace's own "Step N to M" annotations now come before the period, so "" finds them.)
    if (report->source == StepSourceKind::kPeriodDetector) {
      EXPECT_EQ(report->steps.size(), 45u);
      EXPECT_GT(r.between_steps.idle_ns, 600'000'000);
    } else {
      EXPECT_LT(r.between_steps.idle_ns, 1'000'000);
    }
    EXPECT_EQ(spans + r.before_first.span_ns + r.between_steps.span_ns + r.after_last.span_ns -
                  r.steps_overlap_ns,
              r.gpu_span_ns);
  }
}

class StepsTilingSynth : public ::testing::TestWithParam<synth::SynthFormat> {};

TEST_P(StepsTilingSynth, NvtxAndPeriodStepsTileTheRun) {
  fs::path dir = fs::temp_directory_path() /
                 ("stepstat_tiling_synth_" + std::to_string(static_cast<int>(GetParam())));
  fs::create_directories(dir);
  synth::SynthOptions options;
  options.out_base = dir / "run";
  options.steps = 4;
  options.nvtx = true;
  options.format = GetParam();
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  std::vector<std::string> args = {written->gpu_trace.string()};
  if (!written->kern_exec_trace.empty() && written->kern_exec_trace != written->gpu_trace) {
    args.push_back(written->kern_exec_trace.string());
  }
  if (!written->nvtx_trace.empty()) args.push_back(written->nvtx_trace.string());
  Policy policy = BuiltinPolicy("dit-nvfp4").value();
  // NVTX ranges and the period; a Kineto trace offers ProfilerStep#N instead of the period.
  const bool kineto = GetParam() == synth::SynthFormat::kKineto;
  for (std::string regex : {kineto ? "^ProfilerStep" : "denoise_step", ""}) {
    SCOPED_TRACE("--steps '" + regex + "'");
    std::vector<std::string> step_args = args;
    if (regex.empty() && !written->nvtx_trace.empty()) step_args.pop_back();
    Result<StepsInputs> inputs = ResolveStepsInputs(step_args);
    ASSERT_TRUE(inputs.ok()) << inputs.status().message();
    StepsOptions step_options;
    step_options.range_regex = regex;
    Result<StepsReport> report = AnalyzeSteps(*inputs, policy, step_options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    ASSERT_EQ(report->steps.size(), 4u);
    ExpectTiling(*inputs, *report, policy);
    // Steps follow each other on the GPU: no correction, and the host time between steps
    // is the residue between them.
    const StepsResidue& r = report->residue;
    EXPECT_EQ(r.steps_overlap_ns, 0);
    EXPECT_EQ(r.concurrent_step_kernels_ns, 0);
    EXPECT_EQ(r.outside_kernels_in_steps_ns, 0);
    EXPECT_EQ(r.filled_step_gap_count, 0);
    EXPECT_GT(r.between_steps.span_ns, 0);
    for (size_t i = 0; i + 1 < report->steps.size(); ++i) {
      const StepRecord& step = report->steps[i];
      EXPECT_EQ(step.period_ns,
                report->steps[i + 1].totals.first_start_ns - step.totals.first_start_ns);
      EXPECT_GE(step.period_ns, step.totals.last_end_ns - step.totals.first_start_ns);
    }
    EXPECT_EQ(report->steps.back().period_ns, -1);
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Formats, StepsTilingSynth,
                         ::testing::Values(synth::SynthFormat::kCsv, synth::SynthFormat::kSqlite,
                                           synth::SynthFormat::kKineto));

}  // namespace
}  // namespace stepstat
