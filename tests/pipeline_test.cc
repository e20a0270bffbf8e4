// The two-thread summarize pipeline on inputs large enough to exercise its back-pressure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/intervals.h"
#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/read.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

class Intervals : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    for (const GpuOp& op : ops) {
      if (op.kind == OpKind::kKernel) kernels.push_back({op.start_ns, op.end_ns()});
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    for (const LaunchCall& c : calls) launches.push_back({c.api_start_ns, c.api_end_ns()});
    return Status::Ok();
  }
  std::vector<Interval> kernels;
  std::vector<Interval> launches;
};

// Regression: the kern-exec thread once fed kernels into the GPU side of the OverlapMeter
// too, so a pair with more union components than the meter's back-pressure bound (65536)
// deadlocked, and smaller ones could mix the two sides. 40 steps give ~110k components.
TEST(Pipeline, LargePairOnTwoThreadsMatchesAnIndependentOverlap) {
  fs::path dir = fs::temp_directory_path() / "stepstat-pipeline-test";
  fs::create_directories(dir);
  synth::SynthOptions options;
  options.out_base = dir / "dit";
  options.steps = 40;
  options.streams = 2;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();

  Result<SummaryInputs> inputs = ResolveInputs({options.out_base.string()});
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ASSERT_TRUE(inputs->launches.has_value());
  Result<StepStats> stats = Summarize(inputs.value(), BuiltinPolicy(kDefaultPolicyName).value());
  ASSERT_TRUE(stats.ok()) << stats.status().message();

  Intervals gpu;
  Intervals exec;
  ASSERT_TRUE(ReadInput(written->gpu_trace, "gpu", InputKind::kNsysGpuTraceCsv, gpu).ok());
  ASSERT_TRUE(
      ReadInput(written->kern_exec_trace, "exec", InputKind::kNsysKernExecTraceCsv, exec).ok());
  std::vector<Interval> kernel_union = UnionOf(gpu.kernels);
  std::vector<Interval> launch_union = UnionOf(exec.launches);
  ASSERT_GT(kernel_union.size(), 65536u);
  ASSERT_TRUE(stats->cpu_gpu_overlap.has_value());
  EXPECT_EQ(stats->cpu_gpu_overlap->launch_api_union_ns, TotalLength(launch_union));
  EXPECT_EQ(stats->cpu_gpu_overlap->launch_api_gpu_overlap_ns,
            IntersectionLength(kernel_union, launch_union));
  EXPECT_EQ(stats->launch_gaps.positive_gap_count, static_cast<int64_t>(kernel_union.size()) - 1);
  fs::remove_all(dir);
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// Two adjacent data rows swapped in the bundled example's GPU trace: the summary (and its
// details) equal the sorted trace's, and the data-quality notes say where order broke.
TEST(Pipeline, RowsOutOfStartOrderGiveTheSortedFiguresAndANoteSayingWhere) {
  const fs::path example = fs::path(STEPSTAT_SOURCE_DIR) / "examples" / "gb10-dit-step";
  const fs::path dir = fs::temp_directory_path() / "stepstat-pipeline-out-of-order";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string gpu_name = "gb10-dit-step_cuda_gpu_trace.csv";
  const std::string exec_name = "gb10-dit-step_cuda_kern_exec_trace.csv";
  fs::copy_file(example / exec_name, dir / exec_name);

  std::vector<std::string> lines;
  std::stringstream text(ReadText(example / gpu_name));
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  // The first data rows i, i+1 (0-based lines) whose starts differ; swapped, the row on
  // file line i+2 (1-based) is the first that starts before the row above it.
  size_t swap_at = 0;
  for (size_t i = 100; i + 1 < lines.size(); ++i) {
    if (std::stoll(lines[i]) < std::stoll(lines[i + 1])) {
      swap_at = i;
      break;
    }
  }
  ASSERT_GT(swap_at, 0u);
  std::swap(lines[swap_at], lines[swap_at + 1]);
  {
    std::ofstream out(dir / gpu_name, std::ios::binary);
    for (const std::string& line : lines) out << line << "\n";
  }

  Policy policy = BuiltinPolicy(kDefaultPolicyName).value();
  auto summarize = [&](const fs::path& base, Details& details) {
    Result<SummaryInputs> inputs = ResolveInputs({(base / "gb10-dit-step").string()});
    EXPECT_TRUE(inputs.ok()) << inputs.status().message();
    return SummarizeWithDetails(inputs.value(), policy, details);
  };
  auto json_of = [](const StepStats& stats, const Details& details, const fs::path& base) {
    std::string json = StepStatsWithDetailsToJson(stats, details);
    // The JSON holds the folder escaped: a Windows path's backslashes come doubled.
    std::string base_in_json = base.string();
    ReplaceAll(base_in_json, "\\", "\\\\");
    ReplaceAll(json, base_in_json, "BASE");
    return json;
  };
  Details sorted_details;
  Details shuffled_details;
  Result<StepStats> sorted = summarize(example, sorted_details);
  Result<StepStats> shuffled = summarize(dir, shuffled_details);
  ASSERT_TRUE(sorted.ok()) << sorted.status().message();
  ASSERT_TRUE(shuffled.ok()) << shuffled.status().message();

  std::vector<std::string>& notes = shuffled_details.data_quality.notes;
  ASSERT_EQ(notes.size(), sorted_details.data_quality.notes.size() + 1);
  std::string where = gpu_name;  // appended piecewise: GCC 12's false -Wrestrict (bug 105329)
  where += ':';
  where += std::to_string(swap_at + 2);
  where += ": GPU operations are not in start order";
  EXPECT_NE(notes.back().find(where), std::string::npos) << notes.back();
  notes.pop_back();  // without the note, every byte agrees
  EXPECT_EQ(json_of(*shuffled, shuffled_details, dir), json_of(*sorted, sorted_details, example));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stepstat
