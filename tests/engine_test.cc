// The engine as a face other than the CLI sees it (engine.h): the bundled example and synth
// runs through RunSummary, RunSteps and RunKernels; inputs as bytes give the very bytes of
// inputs as paths once written; results stay valid after the call and after the caller's
// bytes are gone; the refusals (output over input, unknown policy, SQLite in memory).
#include "stepstat/engine.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/engine_steps.h"
#include "stepstat/report.h"
#include "stepstat/steps.h"
#include "stepstat/synth.h"
#include "test_platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

const fs::path kExampleBase =
    fs::path(STEPSTAT_SOURCE_DIR) / "examples" / "gb10-dit-step" / "gb10-dit-step";
const std::string kGpuTrace = kExampleBase.string() + "_cuda_gpu_trace.csv";
const std::string kKernExec = kExampleBase.string() + "_cuda_kern_exec_trace.csv";

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

RunOptions OnPaths(std::vector<fs::path> inputs) {
  RunOptions options;
  options.inputs = std::move(inputs);
  return options;
}

// A synth run in a folder of its own (other worktrees run these tests in the same /tmp).
class SynthDir {
 public:
  SynthDir(const std::string& tag, synth::SynthFormat format, int64_t steps) {
    dir_ = fs::temp_directory_path() /
           ("stepstat_engine_" + tag + "_" + std::to_string(testing_support::ProcessId()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    synth::SynthOptions options;
    options.out_base = dir_ / "run";
    options.format = format;
    options.steps = steps;
    options.nvtx = true;
    Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
    EXPECT_TRUE(written.ok()) << written.status().message();
    if (written.ok()) files_ = written.value();
  }
  ~SynthDir() { fs::remove_all(dir_); }
  const synth::SynthResult& files() const { return files_; }

 private:
  fs::path dir_;
  synth::SynthResult files_;
};

// The kernel table a diff or record side takes from the steps' residue pass is the one
// RunKernels reads on its own: every name, launch count, time, component and duration run.
TEST(Engine, TheKernelTableRidingOnTheStepsIsRunKernels) {
  for (synth::SynthFormat format :
       {synth::SynthFormat::kCsv, synth::SynthFormat::kSqlite, synth::SynthFormat::kKineto}) {
    SynthDir dir("riding_" + std::to_string(static_cast<int>(format)), format, 5);
    std::vector<fs::path> trace = {dir.files().gpu_trace};
    if (format == synth::SynthFormat::kCsv) trace.push_back(dir.files().kern_exec_trace);
    std::vector<fs::path> stepped = trace;  // the steps cut at the NVTX ranges
    if (format == synth::SynthFormat::kCsv) stepped.push_back(dir.files().nvtx_trace);
    std::optional<std::vector<KernelDetails>> riding;
    Result<StepsResult> steps = RunStepsDrawing(OnPaths(stepped), nullptr, nullptr, &riding);
    ASSERT_TRUE(steps.ok()) << steps.status().message();
    EXPECT_EQ(steps->report.steps.size(), 5u);
    Result<KernelsResult> own = RunKernels(OnPaths(trace));
    ASSERT_TRUE(own.ok()) << own.status().message();
    ASSERT_TRUE(riding.has_value());
    ASSERT_EQ(riding->size(), own->listing.kernels.size());
    ASSERT_GT(riding->size(), 3u);
    for (size_t i = 0; i < riding->size(); ++i) {
      const KernelDetails& a = (*riding)[i];
      const KernelDetails& b = own->listing.kernels[i];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.component, b.component);
      EXPECT_EQ(a.launches, b.launches);
      EXPECT_EQ(a.total_ns, b.total_ns);
      EXPECT_EQ(a.min_ns, b.min_ns);
      EXPECT_EQ(a.median_ns, b.median_ns);
      EXPECT_EQ(a.duration_runs, b.duration_runs) << a.name;
    }
  }
  // A kern-exec trace read as the GPU side has launch rows, not operations: no ride.
  std::optional<std::vector<KernelDetails>> riding;
  Result<StepsResult> steps = RunStepsDrawing(
      OnPaths({kExampleBase.string() + "_cuda_kern_exec_trace.csv"}), nullptr, nullptr, &riding);
  ASSERT_TRUE(steps.ok()) << steps.status().message();
  EXPECT_FALSE(riding.has_value());
}

TEST(Engine, SummaryOfTheExampleIsTheReferenceStep) {
  Result<SummaryResult> result = RunSummary(OnPaths({kExampleBase}));
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->stats.kernel_count, 2744);
  EXPECT_EQ(result->stats.source_gpu_trace, kGpuTrace);
  EXPECT_EQ(result->context.policy.name, kDefaultPolicyName);
  ASSERT_EQ(result->context.inputs.size(), 2u);
  EXPECT_EQ(result->context.inputs[0].role, InputRole::kGpuOperations);
  EXPECT_EQ(result->context.inputs[1].kind, InputKind::kNsysKernExecTraceCsv);
  EXPECT_FALSE(result->details.has_value());
  EXPECT_FALSE(result->union_busy_percent.has_value());
}

TEST(Engine, SummaryOfBytesEqualsSummaryOfPaths) {
  RunOptions by_path = OnPaths({kExampleBase});
  by_path.details = true;
  Result<SummaryResult> from_files = RunSummary(by_path);
  ASSERT_TRUE(from_files.ok()) << from_files.status().message();

  RunOptions by_bytes;
  by_bytes.details = true;
  {
    // Named as the files were, so that `source_*` and the details' inputs agree; the bytes
    // die before the result is written.
    std::string gpu = ReadAll(kGpuTrace), kern_exec = ReadAll(kKernExec);
    by_bytes.input_bytes = {{kGpuTrace, gpu}, {kKernExec, kern_exec}};
    Result<SummaryResult> from_bytes = RunSummary(by_bytes);
    gpu.assign(gpu.size(), '#');
    kern_exec.clear();
    kern_exec.shrink_to_fit();
    ASSERT_TRUE(from_bytes.ok()) << from_bytes.status().message();
    EXPECT_EQ(StepStatsWithDetailsToJson(from_bytes->stats, *from_bytes->details),
              StepStatsWithDetailsToJson(from_files->stats, *from_files->details));
    EXPECT_EQ(StepStatsToJson(from_bytes->stats), StepStatsToJson(from_files->stats));
    EXPECT_TRUE(from_bytes->context.inputs[0].path.empty());
  }
}

TEST(Engine, KinetoBytesEqualKinetoFile) {
  SynthDir run("kineto", synth::SynthFormat::kKineto, 3);
  const fs::path trace = run.files().gpu_trace;
  Result<StepsResult> from_file = RunSteps(OnPaths({trace}));
  ASSERT_TRUE(from_file.ok()) << from_file.status().message();
  std::string bytes = ReadAll(trace);
  RunOptions by_bytes;
  by_bytes.input_bytes = {{trace.string(), bytes}};
  Result<StepsResult> from_bytes = RunSteps(by_bytes);
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status().message();
  EXPECT_EQ(from_bytes->report.steps.size(), 3u);
  EXPECT_EQ(StepsToJson(from_bytes->report, from_bytes->context.policy),
            StepsToJson(from_file->report, from_file->context.policy));
}

TEST(Engine, StepsCutAtNvtxRangesGivenAsBytes) {
  SynthDir run("nvtx", synth::SynthFormat::kCsv, 4);
  RunOptions by_path =
      OnPaths({run.files().gpu_trace, run.files().kern_exec_trace, run.files().nvtx_trace});
  by_path.steps.range_regex = "denoise";
  Result<StepsResult> from_files = RunSteps(by_path);
  ASSERT_TRUE(from_files.ok()) << from_files.status().message();
  EXPECT_EQ(from_files->report.steps.size(), 4u);
  EXPECT_EQ(from_files->report.source, StepSourceKind::kRanges);
  EXPECT_EQ(from_files->context.inputs.back().role, InputRole::kStepRanges);

  // Paths and bytes mixed: the NVTX ranges in memory, the traces on disk.
  std::string ranges = ReadAll(run.files().nvtx_trace);
  RunOptions mixed = OnPaths({run.files().gpu_trace, run.files().kern_exec_trace});
  mixed.input_bytes = {{run.files().nvtx_trace.string(), ranges}};
  mixed.steps.range_regex = "denoise";
  Result<StepsResult> from_mixed = RunSteps(mixed);
  ASSERT_TRUE(from_mixed.ok()) << from_mixed.status().message();
  EXPECT_EQ(StepsToJson(from_mixed->report, from_mixed->context.policy),
            StepsToJson(from_files->report, from_files->context.policy));

  RunOptions one_step = by_path;
  one_step.step = "median";
  one_step.details = true;
  Result<SummaryResult> step = RunSummary(one_step);
  ASSERT_TRUE(step.ok()) << step.status().message();
  EXPECT_TRUE(step->details.has_value());
  EXPECT_TRUE(step->union_busy_percent.has_value());
  EXPECT_EQ(step->stats.kernel_count, 2744);

  RunOptions one_step_mixed = mixed;
  one_step_mixed.step = "median";
  one_step_mixed.details = true;
  Result<SummaryResult> step_mixed = RunSummary(one_step_mixed);
  ASSERT_TRUE(step_mixed.ok()) << step_mixed.status().message();
  EXPECT_EQ(StepStatsWithDetailsToJson(step_mixed->stats, *step_mixed->details),
            StepStatsWithDetailsToJson(step->stats, *step->details));
}

// Issue 30: `--step median` names no step, so the result says which one it summarized; the
// summary JSON gets it as a last `step` key, the keys before it unchanged.
TEST(Engine, OneStepSaysWhichStep) {
  SynthDir run("chosen", synth::SynthFormat::kCsv, 4);
  RunOptions options =
      OnPaths({run.files().gpu_trace, run.files().kern_exec_trace, run.files().nvtx_trace});
  options.steps.range_regex = "denoise";
  Result<StepsResult> steps = RunSteps(options);
  ASSERT_TRUE(steps.ok()) << steps.status().message();
  const StepsReport& report = steps->report;
  ASSERT_GE(report.median_step, 0);
  const StepRecord& median = report.steps[static_cast<size_t>(report.median_step)];

  options.step = "median";
  Result<SummaryResult> step = RunSummary(options);
  ASSERT_TRUE(step.ok()) << step.status().message();
  ASSERT_TRUE(step->step.has_value());
  EXPECT_EQ(step->step->index, report.median_step);
  EXPECT_EQ(step->step->name, median.name);
  EXPECT_EQ(step->step->source, StepSourceKind::kRanges);
  // Appended piece by piece: GCC 12 warns falsely on chains of + (GCC bug 105329).
  std::string described = "step ";
  described += std::to_string(report.median_step);
  described += " (";
  described += median.name;
  described += ", from nvtx_ranges annotations)";
  EXPECT_EQ(DescribeChosenStep(*step->step), described);
  const std::string plain = StepStatsToJson(step->stats);
  const std::string json = WithChosenStep(plain, *step->step);
  ASSERT_TRUE(plain.ends_with("\n}\n"));
  EXPECT_EQ(json.substr(0, plain.size() - 3), plain.substr(0, plain.size() - 3));
  std::string tail = ",\n  \"step\": {\n    \"index\": ";
  tail += std::to_string(report.median_step);
  tail += ",\n    \"name\": \"";
  tail += median.name;
  tail += "\",\n    \"source\": \"nvtx_ranges\"\n  }\n}\n";
  EXPECT_EQ(json.substr(plain.size() - 3), tail);

  options.step = "0";
  Result<SummaryResult> first = RunSummary(options);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(first->step.has_value());
  EXPECT_EQ(first->step->index, 0);
  EXPECT_EQ(first->step->name, report.steps[0].name);

  options.step.clear();       // the whole trace: no step
  options.inputs.pop_back();  // the NVTX ranges: only for steps
  Result<SummaryResult> whole = RunSummary(options);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_FALSE(whole->step.has_value());
}

TEST(Engine, OneStepOfARealKinetoTraceNamesItsProfilerStep) {
  const fs::path trace =
      fs::path(STEPSTAT_SHARED_DIR) / "data" / "real" / "hta_a100_80g_rank0_ws16_kineto.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  RunOptions options = OnPaths({trace});
  options.step = "3";
  Result<SummaryResult> step = RunSummary(options);
  ASSERT_TRUE(step.ok()) << step.status().message();
  ASSERT_TRUE(step->step.has_value());
  EXPECT_EQ(DescribeChosenStep(*step->step),
            "step 3 (ProfilerStep#553, from profiler_step annotations)");
  EXPECT_EQ(step->stats.kernel_count, 1075);
}

// Issue 30: every reader's devices reach the context (a diff side's and the ledger's `gpu`).
TEST(Engine, EveryFormatNamesItsGpu) {
  for (synth::SynthFormat format :
       {synth::SynthFormat::kCsv, synth::SynthFormat::kSqlite, synth::SynthFormat::kKineto}) {
    SynthDir run("gpu" + std::to_string(static_cast<int>(format)), format, 1);
    Result<SummaryResult> summary = RunSummary(OnPaths({run.files().gpu_trace}));
    ASSERT_TRUE(summary.ok()) << summary.status().message();
    EXPECT_EQ(summary->context.devices, std::vector<std::string>{"NVIDIA GB10 (0)"})
        << static_cast<int>(format);
  }
  const fs::path trace =
      fs::path(STEPSTAT_SHARED_DIR) / "data" / "real" / "hta_a100_80g_rank0_ws16_kineto.json.gz";
  if (!fs::exists(trace)) GTEST_SKIP() << trace << " is absent";
  Result<StepsResult> steps = RunSteps(OnPaths({trace}));
  ASSERT_TRUE(steps.ok()) << steps.status().message();
  ASSERT_EQ(steps->context.devices.size(), 8u);  // deviceProperties lists the node's GPUs
  EXPECT_EQ(steps->context.devices[0], "NVIDIA A100-SXM4-80GB (0)");
}

TEST(Engine, KernelsOfTheExample) {
  Result<KernelsResult> all = RunKernels(OnPaths({kExampleBase}));
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(all->listing.source, kGpuTrace);
  EXPECT_EQ(all->listing.distinct_names, static_cast<int64_t>(all->listing.kernels.size()));
  RunOptions unmatched = OnPaths({kExampleBase});
  unmatched.unmatched_only = true;
  Result<KernelsResult> other = RunKernels(unmatched);
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_EQ(other->listing.distinct_names, all->listing.distinct_names);
  EXPECT_EQ(other->listing.kernel_time_ns, all->listing.kernel_time_ns);
  EXPECT_LT(other->listing.kernels.size(), all->listing.kernels.size());
  for (const KernelDetails& k : other->listing.kernels) EXPECT_EQ(k.component, "other");
}

// The policy hint of a summary comes from the summary's own pass when that pass saw the
// whole trace, and from reading the kernel names again when it did not (one step, one
// device); either way it is the hint `classify` gives, to the last bit of its percentages.
TEST(Engine, SummaryPolicyHintIsTheKernelListingsInEveryFormat) {
  for (synth::SynthFormat format :
       {synth::SynthFormat::kCsv, synth::SynthFormat::kSqlite, synth::SynthFormat::kKineto}) {
    SynthDir run("hint" + std::to_string(static_cast<int>(format)), format, 5);
    const fs::path policy = run.files().gpu_trace.parent_path() / "norms-only.toml";
    std::ofstream(policy) << "[policy]\nname = \"norms-only\"\ndescription = \"n\"\n"
                             "[[component]]\nname = \"norms\"\ndescription = \"n\"\n"
                             "patterns = ['norm']\n";
    std::vector<fs::path> inputs = {run.files().gpu_trace};
    if (!run.files().kern_exec_trace.empty()) inputs.push_back(run.files().kern_exec_trace);
    RunOptions options = OnPaths(inputs);
    options.policy = policy.string();
    Result<KernelsResult> listing = RunKernels(options);
    ASSERT_TRUE(listing.ok()) << listing.status().message();
    ASSERT_TRUE(listing->context.policy_hint.has_value());
    const PolicyHint& expected = *listing->context.policy_hint;
    EXPECT_EQ(expected.suggested_policy, kDefaultPolicyName);

    std::vector<std::string> args;
    for (const fs::path& input : inputs) args.push_back(input.string());
    Result<SummaryInputs> resolved = ResolveInputs(args);
    ASSERT_TRUE(resolved.ok()) << resolved.status().message();
    Result<std::vector<std::string>> devices = ListDevices(*resolved);
    ASSERT_TRUE(devices.ok() && !devices->empty()) << devices.status().message();
    std::vector<RunOptions> variants(4, options);
    variants[1].details = true;
    variants[2].step = "median";
    variants[3].device = devices->front();
    for (const RunOptions& variant : variants) {
      const std::string what = "format " + std::to_string(static_cast<int>(format)) + " step '" +
                               variant.step + "' device '" + variant.device + "' details " +
                               std::to_string(variant.details);
      Result<SummaryResult> summary = RunSummary(variant);
      ASSERT_TRUE(summary.ok()) << what << ": " << summary.status().message();
      ASSERT_TRUE(summary->context.policy_hint.has_value()) << what;
      const PolicyHint& hint = *summary->context.policy_hint;
      EXPECT_EQ(hint.current_policy, expected.current_policy) << what;
      EXPECT_EQ(hint.current_other_percent, expected.current_other_percent) << what;
      EXPECT_EQ(hint.suggested_policy, expected.suggested_policy) << what;
      EXPECT_EQ(hint.suggested_other_percent, expected.suggested_other_percent) << what;
    }
  }
}

TEST(Engine, RefusesAnOutputThatIsAnInput) {
  RunOptions options = OnPaths({kExampleBase});
  options.output = kKernExec;
  for (const Status& status :
       {RunSummary(options).status(), RunSteps(options).status(), RunKernels(options).status()}) {
    EXPECT_NE(status.message().find("is an input of this run"), std::string::npos)
        << status.message();
  }
  options.output = fs::temp_directory_path() / "stepstat_engine_no_such_output.json";
  EXPECT_TRUE(RunSummary(options).ok());
}

TEST(Engine, UnknownPolicyNamesTheBuiltinOnes) {
  RunOptions options = OnPaths({kExampleBase});
  options.policy = "dit-nvfp5";
  Result<SummaryResult> result = RunSummary(options);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("no built-in policy of that name"), std::string::npos);
  EXPECT_NE(result.status().message().find(std::string(kDefaultPolicyName)), std::string::npos);
}

TEST(Engine, SqliteBytesAreRefusedSayingToPassThePath) {
  std::string bytes("SQLite format 3\0 and then some pages", 37);
  RunOptions options;
  options.input_bytes = {{"run.sqlite", bytes}};
  Result<SummaryResult> result = RunSummary(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "run.sqlite: an nsys SQLite export is read from a file (SQLite and nsys open files, "
            "not bytes): pass its path");
  options.input_bytes = {{"run.nsys-rep", bytes}};
  EXPECT_NE(RunSummary(options).status().message().find("pass its path"), std::string::npos);
}

TEST(Engine, UnknownBytesAreAnErrorNamingThem) {
  std::string bytes = "hello, world\n";
  RunOptions options;
  options.input_bytes = {{"notes.txt", bytes}};
  Result<SummaryResult> result = RunSummary(options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message().rfind("notes.txt: unknown format", 0), 0u)
      << result.status().message();
}

}  // namespace
}  // namespace stepstat
