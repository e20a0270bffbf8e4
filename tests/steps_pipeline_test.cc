// AnalyzeSteps end to end on generated multi-step nsys CSV traces whose true step of every
// kernel is known, and `summarize --step` against a hand-cut trace of the same step.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/intervals.h"
#include "stepstat/details.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"
#include "stepstat/steps.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

struct Kernel {
  int64_t api_start, api_dur, start, dur;
  int step;
  std::string name;
};
struct Memcpy {
  int64_t start, dur;
  int step;
};

struct GeneratedRun {
  std::vector<Kernel> kernels;
  std::vector<Memcpy> copies;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // per step, CPU
};

// `steps` steps of the same kernel sequence; the first two run slower (warm-up). The CPU
// launches a step's kernels inside its NVTX range, the GPU runs them a little later, and
// every step's GPU work ends before the next range starts (so time windows agree too).
GeneratedRun Generate(int steps, unsigned seed) {
  std::mt19937 random(seed);
  GeneratedRun run;
  const char* names[] = {"sgemm_nvfp4_128x128", "flash_attn_fwd", "layernorm_kernel",
                         "sgemm_nvfp4_64x64", "elementwise_add"};
  int64_t cpu = 1'000'000;
  for (int s = 0; s < steps; ++s) {
    int64_t range_start = cpu;
    int64_t gpu = cpu + 20'000;
    int64_t slow = s < 2 ? 3 : 1;
    for (int k = 0; k < 40; ++k) {
      Kernel kernel;
      kernel.api_start = cpu;
      kernel.api_dur = 2'000 + static_cast<int64_t>(random() % 1'000);
      cpu += kernel.api_dur + 500;
      kernel.start = std::max(gpu, cpu) + static_cast<int64_t>(random() % 3'000);
      kernel.dur = slow * (5'000 + static_cast<int64_t>(random() % 20'000));
      kernel.step = s;
      kernel.name = names[k % 5];
      gpu = kernel.start + kernel.dur;
      run.kernels.push_back(kernel);
      if (k == 10) {
        run.copies.push_back({gpu + 100, 3'000, s});
        gpu += 3'100;
      }
    }
    cpu = std::max(cpu, gpu) + 50'000;
    run.ranges.push_back({range_start, cpu});
    cpu += 100'000 + static_cast<int64_t>(random() % 10'000);  // host work between steps
  }
  return run;
}

struct Files {
  fs::path dir, gpu, kern_exec, nvtx;
};

std::string GpuTraceText(const GeneratedRun& run, int only_step = -1) {
  struct Row {
    int64_t start, dur, corr;
    std::string name;
  };
  std::vector<Row> rows;
  for (size_t i = 0; i < run.kernels.size(); ++i) {
    const Kernel& k = run.kernels[i];
    if (only_step < 0 || k.step == only_step) {
      rows.push_back({k.start, k.dur, static_cast<int64_t>(i + 1), k.name});
    }
  }
  for (const Memcpy& m : run.copies) {
    if (only_step < 0 || m.step == only_step)
      rows.push_back({m.start, m.dur, 0, "[CUDA memcpy Host-to-Device]"});
  }
  std::sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.start < b.start; });
  std::string text =
      "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n";
  for (const Row& r : rows) {
    text += std::to_string(r.start) + "," + std::to_string(r.dur) + "," + std::to_string(r.corr) +
            ",1,1,1,128,1,1,32,0,0,,,,,NVIDIA GB10 (0),1,,7," + r.name + "\n";
  }
  return text;
}

std::string KernExecText(const GeneratedRun& run, int only_step = -1) {
  std::string text =
      "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
      "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n";
  for (const Kernel& k : run.kernels) {
    if (only_step >= 0 && k.step != only_step) continue;
    int64_t queue = k.start - (k.api_start + k.api_dur);
    text += std::to_string(k.api_start) + "," + std::to_string(k.api_dur) + "," +
            std::to_string(k.api_start + k.api_dur) + "," + std::to_string(queue) + "," +
            std::to_string(k.start) + "," + std::to_string(k.dur) + "," +
            std::to_string(k.start + k.dur - k.api_start) + ",42,42,0,cudaLaunchKernel," +
            "\"  1 1 1\",\" 128 1 1\"," + k.name + "\n";
  }
  return text;
}

std::string NvtxText(const GeneratedRun& run) {
  std::string text =
      "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
      "NumChild,RangeId,ParentId,RangeStack,NameTree\n";
  text += "0,999999999999,999999999999,0,0,main,42,42,0,0,1,,:1,main\n";
  for (size_t s = 0; s < run.ranges.size(); ++s) {
    auto [start, end] = run.ranges[s];
    std::string id = std::to_string(s + 2);
    text += std::to_string(start) + "," + std::to_string(end) + "," + std::to_string(end - start) +
            ",0,0,\"train_step, denoise\",42,42,1,0," + id + ",1,:1:" + id + ",--train_step\n";
  }
  return text;
}

// The same ranges as nsys's nvtx_gpu_proj_trace writes them: CPU times in the Orig columns,
// the projection onto the GPU in the first ones, and a first row for GPU work outside them.
std::string NvtxProjectionText(const GeneratedRun& run) {
  std::string text =
      "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),"
      "Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack\n"
      ",1,1,,,,42,42,0,,0,,,\n";
  for (size_t s = 0; s < run.ranges.size(); ++s) {
    auto [start, end] = run.ranges[s];
    std::string id = std::to_string(s + 1);
    text += "\"train_step, denoise\"," + std::to_string(start + 7) + "," +
            std::to_string(end - start) + "," + std::to_string(start) + "," +
            std::to_string(end - start) + ",PushPop,42,42,9,0,0," + id + ",,:" + id + "\n";
  }
  return text;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

Files WriteRun(const GeneratedRun& run, const std::string& tag) {
  Files f;
  f.dir = fs::temp_directory_path() /
          ("stepstat_steps_" + tag + "_" +
           std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::create_directories(f.dir);
  f.gpu = f.dir / "run_cuda_gpu_trace.csv";
  f.kern_exec = f.dir / "run_cuda_kern_exec_trace.csv";
  f.nvtx = f.dir / "run_nvtx_pushpop_trace.csv";
  WriteFile(f.gpu, GpuTraceText(run));
  WriteFile(f.kern_exec, KernExecText(run));
  WriteFile(f.nvtx, NvtxText(run));
  return f;
}

Policy TestPolicy() {
  Policy p;
  p.name = "test";
  p.components.push_back({"gemm", "GEMMs", {"sgemm"}, {}});
  p.components.push_back({"attention", "attention", {"attn"}, {}});
  return p;
}

Result<StepsReport> Analyze(const std::vector<std::string>& args, const std::string& regex) {
  ASSIGN_OR_RETURN(StepsInputs inputs, ResolveStepsInputs(args));
  StepsOptions options;
  options.range_regex = regex;
  return AnalyzeSteps(inputs, TestPolicy(), options);
}

// Every kernel in its true step; sums over steps equal the whole-trace summary.
void ExpectTrueSteps(const StepsReport& report, const GeneratedRun& run) {
  ASSERT_EQ(report.steps.size(), run.ranges.size());
  Policy policy = TestPolicy();
  for (size_t s = 0; s < run.ranges.size(); ++s) {
    int64_t count = 0, time = 0;
    for (const Kernel& k : run.kernels) {
      if (k.step == static_cast<int>(s)) ++count, time += k.dur;
    }
    SCOPED_TRACE("step " + std::to_string(s));
    EXPECT_EQ(report.steps[s].totals.kernel_count, count);
    EXPECT_EQ(report.steps[s].totals.kernel_time_ns, time);
    EXPECT_EQ(report.steps[s].totals.operation_count, count + 1);  // + its memcpy
  }
  EXPECT_EQ(report.outside.operation_count, 0);
}

void ExpectSumsMatchWholeTrace(const StepsReport& report, const Files& files) {
  Policy policy = TestPolicy();
  Result<SummaryInputs> whole_inputs =
      ResolveInputs({files.gpu.string(), files.kern_exec.string()});
  ASSERT_TRUE(whole_inputs.ok());
  Result<StepStats> whole = Summarize(whole_inputs.value(), policy);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  int64_t ops = 0, kernels = 0, time = 0;
  std::vector<int64_t> component_time(whole->components.size(), 0);
  std::vector<int64_t> launches(whole->components.size(), 0);
  for (const StepRecord& step : report.steps) {
    StepStats s = StepStatsOf(report, step, policy);
    ops += s.gpu_operation_count, kernels += s.kernel_count, time += s.kernel_time_ns;
    for (size_t c = 0; c < s.components.size(); ++c) {
      component_time[c] += s.components[c].time_ns;
      launches[c] += s.components[c].launches;
    }
  }
  EXPECT_EQ(ops, whole->gpu_operation_count);
  EXPECT_EQ(kernels, whole->kernel_count);
  EXPECT_EQ(time, whole->kernel_time_ns);
  for (size_t c = 0; c < component_time.size(); ++c) {
    EXPECT_EQ(component_time[c], whole->components[c].time_ns) << whole->components[c].name;
    EXPECT_EQ(launches[c], whole->components[c].launches) << whole->components[c].name;
  }
}

TEST(StepsPipeline, NvtxRangesWithKernExecJoinByKernelStart) {
  GeneratedRun run = Generate(12, 1);
  Files files = WriteRun(run, "nvtx_kexec");
  Result<StepsReport> report =
      Analyze({files.gpu.string(), files.kern_exec.string(), files.nvtx.string()}, "train_step");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->source, StepSourceKind::kRanges);
  EXPECT_EQ(report->attribution, StepAttribution::kLaunchKernelStart);
  ASSERT_TRUE(report->launch_trace.has_value());
  EXPECT_EQ(report->steps[3].name, "train_step, denoise");
  ExpectTrueSteps(*report, run);
  ExpectSumsMatchWholeTrace(*report, files);
  EXPECT_EQ(report->warmup_count, 2);
  EXPECT_EQ(report->steady_count, 10);
  EXPECT_TRUE(report->steps[0].warmup && report->steps[1].warmup);
  EXPECT_TRUE(report->steps[0].flags & kStepSlow);

  // The per-step launch overlap against a brute force over that step's rows: against every
  // kernel, and against the step's own.
  std::vector<Interval> every_kernel;
  for (const Kernel& k : run.kernels) every_kernel.push_back({k.start, k.start + k.dur});
  const std::vector<Interval> all_union = UnionOf(every_kernel);
  for (size_t s = 0; s < run.ranges.size(); ++s) {
    std::vector<Interval> api, gpu;
    for (const Kernel& k : run.kernels) {
      if (k.step != static_cast<int>(s)) continue;
      api.push_back({k.api_start, k.api_start + k.api_dur});
      gpu.push_back({k.start, k.start + k.dur});
    }
    std::vector<Interval> api_union = UnionOf(api), gpu_union = UnionOf(gpu);
    EXPECT_EQ(report->steps[s].totals.launch_union_ns, TotalLength(api_union));
    EXPECT_EQ(report->steps[s].totals.launch_overlap_ns, IntersectionLength(api_union, all_union));
    EXPECT_EQ(report->steps[s].totals.launch_own_kernels_overlap_ns,
              IntersectionLength(api_union, gpu_union));
  }
  fs::remove_all(files.dir);
}

// Rows out of time order cannot stream through the two-thread pass; the fallback that holds
// and sorts must give the very same report.
std::string ShuffledRows(const std::string& csv, uint64_t seed) {
  std::vector<std::string> lines;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) lines.push_back(line + "\n");
  std::mt19937_64 random(seed);
  std::shuffle(lines.begin() + 1, lines.end(), random);
  std::string out;
  for (const std::string& line : lines) out += line;
  return out;
}

TEST(StepsPipeline, RowsOutOfOrderGiveTheSameSteps) {
  GeneratedRun run = Generate(9, 7);
  Files files = WriteRun(run, "shuffled");
  std::vector<std::string> args = {files.gpu.string(), files.kern_exec.string(),
                                   files.nvtx.string()};
  Result<StepsReport> sorted = Analyze(args, "train_step");
  ASSERT_TRUE(sorted.ok()) << sorted.status().message();
  for (int shuffle : {1, 2, 3}) {  // the GPU trace, the launches, both
    SCOPED_TRACE("shuffle " + std::to_string(shuffle));
    WriteFile(files.gpu, shuffle & 1 ? ShuffledRows(GpuTraceText(run), 11) : GpuTraceText(run));
    WriteFile(files.kern_exec,
              shuffle & 2 ? ShuffledRows(KernExecText(run), 12) : KernExecText(run));
    Result<StepsReport> report = Analyze(args, "train_step");
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(StepsToJson(*report, TestPolicy()), StepsToJson(*sorted, TestPolicy()));
  }
  fs::remove_all(files.dir);
}

// A kern-exec CSV's calls build the key → step runs beside the GPU side as both stream
// (streamed_key_runs.h). A pass over the calls first, the way every other launch source is
// joined, must give the same report to the byte, however tightly the two readers
// interleave; and so must a trace with a kernel that starts long before its call, which
// streaming cannot take (the steps then take the pass first themselves).
TEST(StepsPipeline, StreamedKeyRunsGiveWhatALaunchPassFirstGives) {
  for (unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // Seed 3: more calls than a reader's batch (the launch side then comes in several), and
    // a kernel of step 110 that starts in step 5, batches before its call.
    const int steps = seed == 3 ? 120 : 8;
    const size_t early_kernel = 110 * 40 + 7;
    GeneratedRun run = Generate(steps, seed);
    if (seed == 3) run.kernels[early_kernel].start = run.kernels[5 * 40].start + 1;
    Files files = WriteRun(run, "streamed_keys_" + std::to_string(seed));
    if (seed == 3) {  // its queue and total times as a reader takes them (not negative)
      const Kernel& k = run.kernels[early_kernel];
      std::string text = KernExecText(run);
      const std::string row = "\n" + std::to_string(k.api_start) + ",";
      const size_t at = text.find(row);
      ASSERT_NE(at, std::string::npos);
      const size_t end = text.find('\n', at + 1);
      text.replace(at + 1, end - at - 1,
                   std::to_string(k.api_start) + "," + std::to_string(k.api_dur) + "," +
                       std::to_string(k.api_start + k.api_dur) + ",0," + std::to_string(k.start) +
                       "," + std::to_string(k.dur) + "," + std::to_string(k.dur) +
                       ",42,42,0,cudaLaunchKernel,\"  1 1 1\",\" 128 1 1\"," + k.name);
      WriteFile(files.kern_exec, text);
    }
    Result<StepsInputs> inputs =
        ResolveStepsInputs({files.gpu.string(), files.kern_exec.string(), files.nvtx.string()});
    ASSERT_TRUE(inputs.ok()) << inputs.status().message();
    for (size_t bound : {size_t{1} << 16, size_t{1}, size_t{3}}) {
      StepsOptions streamed;
      streamed.range_regex = "train_step";
      streamed.max_pending_components = bound;
      StepsOptions first = streamed;
      first.launch_pass_first = true;
      Result<StepsReport> a = AnalyzeSteps(*inputs, TestPolicy(), streamed);
      Result<StepsReport> b = AnalyzeSteps(*inputs, TestPolicy(), first);
      ASSERT_TRUE(a.ok()) << a.status().message();
      ASSERT_TRUE(b.ok()) << b.status().message();
      EXPECT_EQ(StepsToJson(*a, TestPolicy()), StepsToJson(*b, TestPolicy())) << "bound " << bound;
      EXPECT_EQ(a->attribution, StepAttribution::kLaunchKernelStart);
      if (seed != 3) ExpectTrueSteps(*a, run);
    }
    fs::remove_all(files.dir);
  }
}

TEST(StepsPipeline, NvtxGpuProjectionGivesTheSameSteps) {
  GeneratedRun run = Generate(8, 1);
  Files files = WriteRun(run, "nvtx_proj");
  fs::path projection = files.dir / "run_nvtx_gpu_proj_trace.csv";
  WriteFile(projection, NvtxProjectionText(run));
  Result<StepsReport> report =
      Analyze({files.gpu.string(), files.kern_exec.string(), projection.string()}, "train_step");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->attribution, StepAttribution::kLaunchKernelStart);
  EXPECT_EQ(report->range_trace, projection.string());
  ExpectTrueSteps(*report, run);
  ExpectSumsMatchWholeTrace(*report, files);
  fs::remove_all(files.dir);
}

TEST(StepsPipeline, NvtxRangesWithoutLaunchesUseTimeWindows) {
  GeneratedRun run = Generate(8, 2);
  Files files = WriteRun(run, "nvtx_only");
  Result<StepsReport> report = Analyze({files.gpu.string(), files.nvtx.string()}, "^train_step");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->attribution, StepAttribution::kGpuTimeWindow);
  EXPECT_FALSE(report->launch_trace.has_value());
  ExpectTrueSteps(*report, run);
  StepStats s = StepStatsOf(*report, report->steps[4], TestPolicy());
  EXPECT_FALSE(s.cpu_gpu_overlap.has_value());
  fs::remove_all(files.dir);
}

TEST(StepsPipeline, NoAnnotationsFallsBackToTheKernelPeriod) {
  GeneratedRun run = Generate(10, 3);
  Files files = WriteRun(run, "period");
  Result<StepsReport> report = Analyze({files.gpu.string(), files.kern_exec.string()}, "");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->source, StepSourceKind::kPeriodDetector);
  EXPECT_EQ(report->source_detail, "period of 40 kernels");
  if (getenv("STEPS_KEEP")) printf("%s\n", StepsToTable(*report, TestPolicy()).c_str());
  ExpectTrueSteps(*report, run);
  ExpectSumsMatchWholeTrace(*report, files);
  ASSERT_TRUE(report->launch_trace.has_value());  // launches joined through their kernels
  fs::remove_all(files.dir);
}

// The per-step table's figure cells against each step's totals, computed here from the
// definitions (docs/steps.md), not through the registry the table walks: span and gap times
// in ms with 3 decimals, the union busy share with 1, the gap count whole.
std::vector<std::string> CellsOf(const std::string& line) {
  std::vector<std::string> cells;
  size_t at = line.find_first_not_of(' ');
  while (at != std::string::npos && at < line.size()) {
    size_t end = line.find("  ", at);
    cells.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
  }
  return cells;
}

TEST(StepsPipeline, TheStepsTableShowsEachStepsFiguresByTheirDefinitions) {
  GeneratedRun run = Generate(6, 4);
  // A copy before each step's first kernel: it opens the step's span, so its idle time
  // (gpu_idle_ns) exceeds the gaps between its kernels, and a table that showed one for the
  // other would fail here.
  for (int s = 0; s < 6; ++s) {
    auto first = std::find_if(run.kernels.begin(), run.kernels.end(),
                              [s](const Kernel& k) { return k.step == s; });
    ASSERT_NE(first, run.kernels.end());
    run.copies.push_back({first->start - 10'000, 2'000, s});
  }
  Files files = WriteRun(run, "table");
  Result<StepsReport> report =
      Analyze({files.gpu.string(), files.kern_exec.string(), files.nvtx.string()}, "train_step");
  ASSERT_TRUE(report.ok()) << report.status().message();
  std::istringstream text(StepsToTable(*report, TestPolicy(), 400));
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(text, line);) {
    if (line.starts_with("step  ")) {
      header = CellsOf(line);
    } else if (!header.empty() && rows.size() < report->steps.size()) {
      rows.push_back(CellsOf(line));
    }
  }
  ASSERT_EQ(rows.size(), report->steps.size());
  for (const StepRecord& step : report->steps) {
    ASSERT_GT(step.totals.gpu_idle_ns(), step.totals.gap_total_ns) << "the copies did not count";
  }
  auto column = [&header](std::string_view name) {
    auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << name;
    return static_cast<size_t>(at - header.begin());
  };
  const size_t span = column("span ms"), gaps = column("gaps"), gap_ms = column("gap ms"),
               max_gap = column("max gap ms"), busy_union = column("busy % (union)");
  EXPECT_EQ(std::find(header.begin(), header.end(), "idle ms"), header.end())
      << "the launch gaps are not the step's idle time (gpu_idle_ns)";
  auto ms = [](int64_t ns) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(3);
    out << static_cast<double>(ns) / 1e6;
    return out.str();
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    const StepTotals& t = report->steps[i].totals;
    ASSERT_GT(t.operation_count, 0);
    const int64_t span_ns = t.last_end_ns - t.first_start_ns;
    ASSERT_GT(rows[i].size(), busy_union);
    EXPECT_EQ(rows[i][span], ms(span_ns));
    EXPECT_EQ(rows[i][gaps], std::to_string(t.gap_count));
    EXPECT_EQ(rows[i][gap_ms], ms(t.gap_total_ns));
    EXPECT_EQ(rows[i][max_gap], ms(t.gap_max_ns));
    std::ostringstream share;
    share.setf(std::ios::fixed);
    share.precision(1);
    share << 100.0 * static_cast<double>(t.kernel_busy_ns) / static_cast<double>(span_ns);
    EXPECT_EQ(rows[i][busy_union], share.str());
  }
  fs::remove_all(files.dir);
}

TEST(StepsPipeline, OneStepEqualsAHandCutTrace) {
  GeneratedRun run = Generate(9, 4);
  Files files = WriteRun(run, "handcut");
  Result<StepsReport> report =
      Analyze({files.gpu.string(), files.kern_exec.string(), files.nvtx.string()}, "train_step");
  ASSERT_TRUE(report.ok()) << report.status().message();
  Result<size_t> median = ChooseStep(*report, "median");
  ASSERT_TRUE(median.ok());
  EXPECT_GE(*median, 2u);  // a steady step
  for (size_t step : {size_t{0}, *median}) {
    fs::path gpu = files.dir / "cut_cuda_gpu_trace.csv", kexec = files.dir / "cut_kexec.csv";
    WriteFile(gpu, GpuTraceText(run, static_cast<int>(step)));
    WriteFile(kexec, KernExecText(run, static_cast<int>(step)));
    Result<SummaryInputs> cut = ResolveInputs({gpu.string(), kexec.string()});
    ASSERT_TRUE(cut.ok());
    Result<StepStats> expected = Summarize(cut.value(), TestPolicy());
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    StepStats actual = StepStatsOf(*report, report->steps[step], TestPolicy());
    actual.source_gpu_trace = expected->source_gpu_trace;
    actual.source_kernel_exec_trace = expected->source_kernel_exec_trace;
    EXPECT_EQ(StepStatsToJson(actual), StepStatsToJson(expected.value())) << "step " << step;
  }
  EXPECT_FALSE(ChooseStep(*report, "9").ok());
  EXPECT_FALSE(ChooseStep(*report, "x").ok());
  fs::remove_all(files.dir);
}

// `summarize --step N --details` reads the step again through the summary pipeline: the
// same summary as the per-step accumulators, and the details of a trace cut by hand.
TEST(StepsPipeline, OneStepsDetailsEqualAHandCutTraces) {
  GeneratedRun run = Generate(7, 6);
  Files files = WriteRun(run, "details");
  Result<StepsInputs> inputs =
      ResolveStepsInputs({files.gpu.string(), files.kern_exec.string(), files.nvtx.string()});
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  StepsOptions options;
  options.range_regex = "train_step";
  for (std::string which : {"0", "median", "6"}) {
    SCOPED_TRACE("step " + which);
    Details details;
    Result<StepStats> actual = SummarizeStep(*inputs, TestPolicy(), options, which, &details);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    Result<StepsReport> report = AnalyzeSteps(*inputs, TestPolicy(), options);
    ASSERT_TRUE(report.ok());
    size_t step = ChooseStep(*report, which).value();

    fs::path gpu = files.dir / "cut_cuda_gpu_trace.csv", kexec = files.dir / "cut_kexec.csv";
    WriteFile(gpu, GpuTraceText(run, static_cast<int>(step)));
    WriteFile(kexec, KernExecText(run, static_cast<int>(step)));
    Result<SummaryInputs> cut = ResolveInputs({gpu.string(), kexec.string()});
    ASSERT_TRUE(cut.ok());
    Details expected_details;
    Result<StepStats> expected = SummarizeWithDetails(cut.value(), TestPolicy(), expected_details);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    // What differs by construction: the files named and the rows they held.
    actual->source_gpu_trace = expected->source_gpu_trace;
    actual->source_kernel_exec_trace = expected->source_kernel_exec_trace;
    ASSERT_EQ(details.data_quality.inputs.size(), 2u);
    EXPECT_EQ(details.data_quality.inputs[0].rows,
              static_cast<int64_t>(run.kernels.size() + run.copies.size()));
    details.data_quality.inputs = expected_details.data_quality.inputs;
    EXPECT_EQ(StepStatsWithDetailsToJson(*actual, details),
              StepStatsWithDetailsToJson(*expected, expected_details));
  }
  fs::remove_all(files.dir);
}

TEST(StepsPipeline, ARegexThatMatchesNothingNamesTheRanges) {
  GeneratedRun run = Generate(3, 5);
  Files files = WriteRun(run, "nomatch");
  Result<StepsReport> report = Analyze({files.gpu.string(), files.nvtx.string()}, "denoise_step");
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("no CPU range matches 'denoise_step'"),
            std::string::npos)
      << report.status().message();
  EXPECT_NE(report.status().message().find("'main'"), std::string::npos);
  Result<StepsReport> no_ranges = Analyze({files.gpu.string()}, "train");
  ASSERT_FALSE(no_ranges.ok());
  EXPECT_NE(no_ranges.status().message().find("--steps needs CPU ranges"), std::string::npos);
  fs::remove_all(files.dir);
}

}  // namespace
}  // namespace stepstat
