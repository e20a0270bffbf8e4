// The early routes (steps_then.h): the residue pass hands the chosen steps the very GPU
// operations, in the very order, that a whole-file replay routes to them, and the replay
// still brings their launch calls. Checked on multi-stream synth runs (sorted, and out of
// start order, so that the residue pass holds its rows) and on the real traces.
#include "analysis/steps/steps_then.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "stepstat/read.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
const fs::path kRealDir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";

// Everything a sink can tell of a row, names spelled out (pools differ between reads).
using OpRow = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, std::string,
                         std::string, int, int32_t>;
using CallRow = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>;

class RecordingSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    for (const GpuOp& op : ops) {
      this->ops.emplace_back(op.start_ns, op.duration_ns, op.stream, op.bytes, op.correlation_id,
                             op.line, std::string(names.Get(op.name)),
                             std::string(names.Get(op.device)), static_cast<int>(op.kind), op.pid);
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    for (const LaunchCall& call : calls) {
      this->calls.emplace_back(call.api_start_ns, call.api_duration_ns, call.kernel_start_ns,
                               call.correlation_id, call.line);
    }
    return Status::Ok();
  }
  Status OnFinish() override {
    ++finished;
    return Status::Ok();
  }
  std::vector<OpRow> ops;
  std::vector<CallRow> calls;
  int finished = 0;
};

// The steps both reads route: the median, the first, the last, and one in between.
std::vector<size_t> Chosen(const StepsReport& report) {
  std::vector<size_t> steps;
  auto add = [&steps](int64_t step) {
    if (step < 0) return;
    for (size_t s : steps) {
      if (s == static_cast<size_t>(step)) return;
    }
    steps.push_back(static_cast<size_t>(step));
  };
  add(report.median_step);
  const auto count = static_cast<int64_t>(report.steps.size());
  add(count > 0 ? 0 : -1);
  add(count - 1);
  add(count / 3);
  return steps;
}

struct Routed {
  std::vector<RecordingSink> sinks;
  int early_calls = 0;
};

// One steps run replaying the chosen steps into recording sinks, early or by a whole read.
Routed RouteSteps(const StepsInputs& inputs, const StepsOptions& options, bool early) {
  Policy policy = BuiltinPolicy(kDefaultPolicyName).value();
  Routed out;
  std::vector<StepRoute> routes;
  auto choose = [&](const StepsReport& report) {
    ++out.early_calls;
    const std::vector<size_t> steps = Chosen(report);
    out.sinks.assign(steps.size(), RecordingSink());
    routes.clear();
    for (size_t i = 0; i < steps.size(); ++i) routes.push_back({steps[i], &out.sinks[i]});
    return routes;
  };
  auto replay_them = [&](const StepsReport& report, const StepReplay& replay) -> Status {
    if (!early) choose(report);
    if (routes.empty()) return Status::Ok();
    return replay(routes).status();
  };
  Result<StepsReport> report = AnalyzeStepsThen(
      inputs, policy, options, replay_them, early ? StepsEarlyRoutes(choose) : StepsEarlyRoutes());
  EXPECT_TRUE(report.ok()) << report.status().message();
  return out;
}

void ExpectSameRoutes(const std::vector<std::string>& args, const StepsOptions& options,
                      int expected_early_calls = 1) {
  SCOPED_TRACE(args.front());
  Result<StepsInputs> inputs = ResolveStepsInputs(args);
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  const Routed whole = RouteSteps(inputs.value(), options, false);
  const Routed early = RouteSteps(inputs.value(), options, true);
  // Once more, up front, when the launch side is read beside the residue pass (steps_then.h).
  EXPECT_GE(early.early_calls, expected_early_calls);
  EXPECT_LE(early.early_calls, expected_early_calls + 1);
  ASSERT_EQ(whole.sinks.size(), early.sinks.size());
  ASSERT_FALSE(whole.sinks.empty());
  size_t ops = 0;
  for (size_t i = 0; i < whole.sinks.size(); ++i) {
    EXPECT_EQ(whole.sinks[i].ops, early.sinks[i].ops) << "route " << i;
    EXPECT_EQ(whole.sinks[i].calls, early.sinks[i].calls) << "route " << i;
    EXPECT_EQ(early.sinks[i].finished, 1);
    ops += whole.sinks[i].ops.size();
  }
  EXPECT_GT(ops, 0u);  // the steps held operations: the comparison compared something
}

struct SynthFiles {
  fs::path base, gpu, nvtx;  // base: the CSV pair (GPU trace and kern_exec launches)
};

SynthFiles WriteRun(const std::string& tag, int streams) {
  const fs::path dir = fs::temp_directory_path() / ("stepstat_steps_then_" + tag);
  fs::create_directories(dir);
  synth::SynthOptions options;
  options.out_base = dir / "run";
  options.steps = 5;
  options.streams = streams;
  options.nvtx = true;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  EXPECT_TRUE(written.ok()) << written.status().message();
  if (!written.ok()) return {};
  return {options.out_base, written->gpu_trace, written->nvtx_trace};
}

TEST(StepsEarlyRoutes, SameOperationsAsTheWholeReplayOnFourStreams) {
  const SynthFiles run = WriteRun("four_streams", 4);
  StepsOptions by_range;
  by_range.range_regex = "denoise";
  ExpectSameRoutes({run.base.string(), run.nvtx.string()}, by_range);
  ExpectSameRoutes({run.gpu.string()}, StepsOptions{});  // the kernel period, no launches
}

TEST(StepsEarlyRoutes, SameOperationsWhenTheGpuSideIsOutOfStartOrder) {
  const SynthFiles run = WriteRun("unsorted", 4);
  // Each pair of rows swapped: out of start order.
  std::ifstream in(run.gpu, std::ios::binary);
  std::string header, first, second, shuffled;
  std::getline(in, header);
  shuffled = header + "\n";
  while (std::getline(in, first)) {
    if (std::getline(in, second)) shuffled += second + "\n";
    shuffled += first + "\n";
  }
  const fs::path unsorted = run.gpu.parent_path() / "unsorted_cuda_gpu_trace.csv";
  std::ofstream(unsorted, std::ios::binary) << shuffled;
  StepsOptions by_range;
  by_range.range_regex = "denoise";
  // Without launches the ranges cut by GPU time windows; the first pass over the GPU side
  // meets the break, so the residue pass holds from its start (one early call).
  ExpectSameRoutes({unsorted.string(), run.nvtx.string()}, by_range);
}

TEST(StepsEarlyRoutes, SameOperationsAsTheWholeReplayOnRealTraces) {
  int tested = 0;
  const std::vector<std::vector<std::string>> traces = {
      {"cudalearning_rtx2080ti_4stream_cuda_gpu_trace.csv"},
      {"hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv"},
      {"hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv", "hcc_h100nvl_kmeans_cc_cuda_api_trace.csv"},
      {"nsightful_power_iteration_t4.sqlite"},
      {"pipit_cloverleaf_perlmutter.sqlite"},
      {"hta_sampled_rank0_kineto.json"},
      {"hta_a100_80g_rank0_ws16_kineto.json.gz"}};
  for (const std::vector<std::string>& names : traces) {
    std::vector<std::string> args;
    for (const std::string& name : names) args.push_back((kRealDir / name).string());
    if (!fs::exists(args.front())) continue;
    ExpectSameRoutes(args, StepsOptions{});
    ++tested;
  }
  if (tested == 0) GTEST_SKIP() << "no real traces in " << kRealDir;
}

}  // namespace
}  // namespace stepstat
