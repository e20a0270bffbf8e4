#include "analysis/steps/steps_sink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "analysis/steps/steps_attribution.h"
#include "analysis/steps/steps_distribution.h"
#include "analysis/steps/steps_ranges.h"

namespace stepstat {
namespace {

TEST(StepKeyRuns, IncreasingKeysFormOneRunPerStep) {
  StepKeyRuns runs;
  for (int64_t key = 10; key < 20; key += 2) runs.Add(key, 0);
  runs.Add(21, kNoStep);
  for (int64_t key = 30; key < 40; key += 3) runs.Add(key, 1);
  runs.Freeze();
  EXPECT_EQ(runs.runs(), 3u);
  EXPECT_EQ(runs.Find(9), kUnknownKey);
  EXPECT_EQ(runs.Find(10), 0);
  EXPECT_EQ(runs.Find(13), 0);            // between two launches of step 0: a memcpy's id
  EXPECT_EQ(runs.Find(21), kNoStep);      // a launch outside every step
  EXPECT_EQ(runs.Find(25), kUnknownKey);  // between runs of different steps: unknown
  EXPECT_EQ(runs.Find(31), 1);
  EXPECT_EQ(runs.Find(40), kUnknownKey);
}

TEST(StepKeyRuns, OutOfOrderKeysSplitRuns) {
  StepKeyRuns runs;
  runs.Add(10, 0);
  runs.Add(20, 0);
  runs.Add(15, 1);  // inside step 0's run
  runs.Add(5, 0);   // before: extends the first run
  runs.Add(25, 2);
  runs.Add(22, 2);  // between runs: joins the next
  runs.Freeze();
  EXPECT_EQ(runs.Find(5), 0);
  EXPECT_EQ(runs.Find(14), 0);
  EXPECT_EQ(runs.Find(15), 1);
  EXPECT_EQ(runs.Find(16), 0);
  EXPECT_EQ(runs.Find(20), 0);
  EXPECT_EQ(runs.Find(21), kUnknownKey);
  EXPECT_EQ(runs.Find(22), 2);
  EXPECT_EQ(runs.Find(25), 2);
}

TEST(LaunchStepFinder, SameThreadFirstThenSameProcess) {
  std::vector<StepRange> steps = {
      {100, 200, 1, 10, "step 0"},
      {200, 300, 1, 10, "step 1"},
      {150, 250, 2, 20, "other process"},
  };
  LaunchStepFinder finder(steps);
  EXPECT_EQ(finder.StepOf(1, 10, 99), kNoStep);
  EXPECT_EQ(finder.StepOf(1, 10, 100), 0);
  EXPECT_EQ(finder.StepOf(1, 10, 199), 0);
  EXPECT_EQ(finder.StepOf(1, 10, 200), 1);
  EXPECT_EQ(finder.StepOf(1, 11, 120), 0);  // a worker thread of process 1
  EXPECT_EQ(finder.StepOf(2, 20, 210), 2);
  EXPECT_EQ(finder.StepOf(3, 30, 210), kNoStep);  // a process with no steps
}

TEST(RangeCollector, KeepsOutermostMatchPerThreadSortedByStart) {
  auto collector = std::move(RangeCollector::Create("step").value());
  StringPool names;
  auto range = [&](int64_t start, int64_t end, int64_t tid, std::string_view name) {
    CpuRange r;
    r.start_ns = start, r.end_ns = end, r.pid = 1, r.tid = tid;
    r.name = names.Intern(name);
    return r;
  };
  std::vector<CpuRange> ranges = {
      range(0, 100, 1, "train_step"),   range(10, 20, 1, "step_forward"),  // nested
      range(100, 200, 1, "train_step"), range(5, 50, 2, "data_step"),      // other thread
      range(0, 1000, 1, "epoch"),       range(300, 400, 1, "eval"),
  };
  ASSERT_TRUE(collector->OnRanges(ranges, names).ok());
  std::vector<StepRange> steps = collector->TakeSteps();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].name, "train_step");
  EXPECT_EQ(steps[0].start_ns, 0);
  EXPECT_EQ(steps[1].name, "data_step");
  EXPECT_EQ(steps[2].start_ns, 100);
  EXPECT_EQ(collector->ranges_seen(), 6);
  EXPECT_EQ(collector->sample_names(), (std::vector<std::string>{"epoch", "eval"}));
}

TEST(RangeCollector, ProfilerStepPatternAndBadPattern) {
  auto collector = std::move(RangeCollector::Create(kProfilerStepPattern).value());
  StringPool names;
  std::vector<CpuRange> ranges(3);
  ranges[0].name = names.Intern("ProfilerStep#550");
  ranges[1].name = names.Intern("ProfilerStep#551 extra");
  ranges[2].name = names.Intern("aten::mm");
  ASSERT_TRUE(collector->OnRanges(ranges, names).ok());
  EXPECT_EQ(collector->TakeSteps().size(), 1u);
  auto bad = RangeCollector::Create("(unclosed");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("(unclosed"), std::string::npos);
}

// A run of `steps` steps: a CPU range per step on thread 7, launches inside it, kernels on
// two streams lagging behind, a memcpy per step issued between launches.
struct SyntheticRun {
  std::vector<StepRange> ranges;
  std::vector<LaunchCall> calls;
  std::vector<GpuOp> ops;
  std::vector<int32_t> true_step;  // per op
  StringPool names;
};

SyntheticRun MakeRun(int steps, unsigned seed) {
  std::mt19937 random(seed);
  SyntheticRun run;
  NameId gemm = run.names.Intern("gemm_big"), attn = run.names.Intern("flash_attn");
  NameId copy = run.names.Intern("[CUDA memcpy Host-to-Device]");
  int64_t cpu = 1000, gpu = 5000, corr = 1;
  for (int s = 0; s < steps; ++s) {
    int64_t cpu_start = cpu;
    int kernels = 5 + static_cast<int>(random() % 10);
    for (int k = 0; k < kernels; ++k) {
      LaunchCall call;
      call.api_start_ns = cpu;
      call.api_duration_ns = 5 + random() % 20;
      call.pid = 1, call.tid = 7;
      call.correlation_id = corr;
      cpu = call.api_end_ns() + 1 + random() % 10;
      GpuOp op;
      op.start_ns = std::max(gpu, call.api_end_ns()) + static_cast<int64_t>(random() % 30);
      op.duration_ns = 1 + random() % 100;
      op.stream = k % 2 ? 7 : 8;
      op.correlation_id = corr;
      op.name = k % 3 ? gemm : attn;
      gpu = op.start_ns + (k % 2 ? op.duration_ns : op.duration_ns / 2);  // some overlap
      call.kernel_start_ns = op.start_ns;
      call.kernel_duration_ns = op.duration_ns;
      run.calls.push_back(call);
      run.ops.push_back(op);
      run.true_step.push_back(s);
      ++corr;
      if (k == 2) {  // a memcpy, no launch record of its own
        GpuOp m;
        m.kind = OpKind::kMemcpy;
        m.name = copy;
        m.start_ns = gpu + 3;
        m.duration_ns = 7;
        m.correlation_id = corr++;
        gpu = m.end_ns();
        run.ops.push_back(m);
        run.true_step.push_back(s);
      }
    }
    run.ranges.push_back({cpu_start, cpu + 1, 1, 7, "step"});
    cpu += 50 + random() % 1000;  // host work between steps
  }
  // GPU ops in start order, as nsys writes them.
  std::vector<size_t> order(run.ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return run.ops[a].start_ns < run.ops[b].start_ns; });
  std::vector<GpuOp> ops;
  std::vector<int32_t> truth;
  for (size_t i : order) ops.push_back(run.ops[i]), truth.push_back(run.true_step[i]);
  run.ops = std::move(ops);
  run.true_step = std::move(truth);
  return run;
}

int ClassifyTwo(std::string_view name) { return name.find("gemm") != name.npos ? 0 : 1; }

std::vector<StepTotals> Attribute(SyntheticRun& run, bool buffer) {
  StepAccumulators steps(run.ranges.size(), ClassifyTwo, 2, 0.5, buffer);
  LaunchStepFinder finder(run.ranges);
  StepKeyRuns keys;
  StepLaunchSink launches(steps, [&](const LaunchCall& c) {
    int32_t step = finder.StepOf(c.pid, c.tid, c.api_start_ns);
    keys.Add(c.correlation_id, step);
    return step;
  });
  EXPECT_TRUE(launches.OnLaunchCalls(run.calls, run.names).ok());
  steps.FinishLaunches();
  keys.Freeze();
  StepGpuSink gpu(
      steps, [&](const GpuOp& op) { return keys.Find(op.correlation_id); }, "t");
  EXPECT_TRUE(gpu.OnGpuOps(run.ops, run.names).ok());
  steps.FinishOps();
  return steps.TakeTotals();
}

TEST(StepAccumulators, EveryOpInItsStepAndTotalsMatchABruteForce) {
  SyntheticRun run = MakeRun(50, 5);
  std::vector<StepTotals> totals = Attribute(run, false);
  ASSERT_EQ(totals.size(), run.ranges.size() + 1);
  EXPECT_EQ(totals.back().operation_count, 0);  // nothing outside
  std::vector<Interval> every_kernel;
  for (const GpuOp& op : run.ops) {
    if (op.kind == OpKind::kKernel) every_kernel.push_back({op.start_ns, op.end_ns()});
  }
  const std::vector<Interval> gpu_union = UnionOf(every_kernel);

  for (size_t s = 0; s < run.ranges.size(); ++s) {
    std::vector<Interval> kernels, launches;
    int64_t ops = 0, kernel_time = 0, gemm_time = 0, first = INT64_MAX, last = 0;
    for (size_t i = 0; i < run.ops.size(); ++i) {
      if (run.true_step[i] != static_cast<int32_t>(s)) continue;
      const GpuOp& op = run.ops[i];
      ++ops;
      first = std::min(first, op.start_ns), last = std::max(last, op.end_ns());
      if (op.kind != OpKind::kKernel) continue;
      kernels.push_back({op.start_ns, op.end_ns()});
      kernel_time += op.duration_ns;
      if (ClassifyTwo(run.names.Get(op.name)) == 0) gemm_time += op.duration_ns;
    }
    for (const LaunchCall& c : run.calls) {
      if (c.api_start_ns >= run.ranges[s].start_ns && c.api_start_ns < run.ranges[s].end_ns) {
        launches.push_back({c.api_start_ns, c.api_end_ns()});
      }
    }
    std::vector<Interval> kernel_union = UnionOf(kernels), launch_union = UnionOf(launches);
    int64_t gaps = 0, gap_count = 0;
    for (size_t i = 1; i < kernel_union.size(); ++i) {
      gaps += kernel_union[i].start - kernel_union[i - 1].end;
      ++gap_count;
    }
    const StepTotals& t = totals[s];
    SCOPED_TRACE("step " + std::to_string(s));
    EXPECT_EQ(t.operation_count, ops);
    EXPECT_EQ(t.kernel_time_ns, kernel_time);
    EXPECT_EQ(t.component_time_ns[0], gemm_time);
    EXPECT_EQ(t.first_start_ns, first);
    EXPECT_EQ(t.last_end_ns, last);
    EXPECT_EQ(t.gap_count, gap_count);
    EXPECT_EQ(t.gap_total_ns, gaps);
    EXPECT_EQ(t.launch_union_ns, TotalLength(launch_union));
    EXPECT_EQ(t.kernel_busy_ns, TotalLength(kernel_union));
    // Issue 12: against every kernel, whichever step it belongs to; and against its own.
    EXPECT_EQ(t.launch_overlap_ns, IntersectionLength(launch_union, gpu_union));
    EXPECT_EQ(t.launch_own_kernels_overlap_ns, IntersectionLength(launch_union, kernel_union));
  }
}

TEST(StepAccumulators, UnsortedOpsStopTheStreamingPassAndTheBufferedPassAgrees) {
  SyntheticRun run = MakeRun(20, 9);
  std::vector<StepTotals> sorted = Attribute(run, false);
  std::mt19937 random(1);
  std::vector<size_t> order(run.ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), random);
  SyntheticRun shuffled = MakeRun(20, 9);
  for (size_t i = 0; i < order.size(); ++i) shuffled.ops[i] = run.ops[order[i]];

  StepAccumulators streaming(shuffled.ranges.size(), ClassifyTwo, 2, 0.5, false);
  bool stopped = false;
  for (const GpuOp& op : shuffled.ops) {
    stopped = !streaming.AddOp(0, op, shuffled.names, "t").ok();
    if (stopped) break;
  }
  EXPECT_TRUE(stopped);

  std::vector<StepTotals> buffered = Attribute(shuffled, true);
  ASSERT_EQ(buffered.size(), sorted.size());
  for (size_t s = 0; s < sorted.size(); ++s) {
    EXPECT_EQ(buffered[s].kernel_time_ns, sorted[s].kernel_time_ns);
    EXPECT_EQ(buffered[s].gap_total_ns, sorted[s].gap_total_ns);
    EXPECT_EQ(buffered[s].gap_count, sorted[s].gap_count);
    EXPECT_EQ(buffered[s].launch_overlap_ns, sorted[s].launch_overlap_ns);
    EXPECT_EQ(buffered[s].launch_own_kernels_overlap_ns, sorted[s].launch_own_kernels_overlap_ns);
    EXPECT_EQ(buffered[s].kernel_busy_ns, sorted[s].kernel_busy_ns);
  }
}

TEST(StepsDistribution, QuantilesInterpolateLikeNumpy) {
  std::vector<double> v = {1, 2, 3, 4, 10};
  EXPECT_DOUBLE_EQ(Quantile(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.1), 1.4);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.9), 7.6);
  EXPECT_DOUBLE_EQ(Quantile(v, 1.0), 10);
}

StepRecord StepWithSpan(int64_t index, int64_t span, int64_t longest = 1) {
  StepRecord r;
  r.index = index;
  r.totals.operation_count = span > 0 ? 1 : 0;
  r.totals.kernel_count = r.totals.operation_count;
  r.totals.first_start_ns = 1000 * index;
  r.totals.last_end_ns = 1000 * index + span;
  r.totals.kernel_time_ns = span;
  r.totals.longest_kernel_ns = longest;
  r.totals.component_time_ns = {span, 0};
  r.totals.component_launches = {1, 0};
  return r;
}

TEST(StepsDistribution, WarmupSlowAndMedianStep) {
  Policy policy;
  policy.components.push_back({"gemm", "matrix multiplies", {"gemm"}, {}});
  StepsReport report;
  std::vector<int64_t> spans = {500, 180, 100, 102, 98, 101, 250, 99, 0, 100};
  for (size_t i = 0; i < spans.size(); ++i) {
    report.steps.push_back(StepWithSpan(static_cast<int64_t>(i), spans[i]));
  }
  FinishStepsReport(report, policy, StepsOptions{});
  EXPECT_TRUE(report.steps[0].warmup);
  EXPECT_TRUE(report.steps[1].warmup);
  EXPECT_FALSE(report.steps[2].warmup);
  EXPECT_EQ(report.warmup_count, 2);
  EXPECT_EQ(report.steady_count, 8);
  EXPECT_TRUE(report.steps[6].flags & kStepSlow);  // 250 >= 2 x median 100
  EXPECT_TRUE(report.steps[0].flags & kStepSlow);
  EXPECT_FALSE(report.steps[1].flags & kStepSlow);
  EXPECT_TRUE(report.steps[8].flags & kStepNoGpuWork);
  EXPECT_EQ(report.median_step, 2);  // span 100, the first at the median
  ASSERT_FALSE(report.steady_state.empty());
  EXPECT_EQ(report.steady_state[0].metric, "gpu_span_ns");
  EXPECT_DOUBLE_EQ(report.steady_state[0].median, 100);
  EXPECT_DOUBLE_EQ(report.steady_state[0].max, 250);
  EXPECT_DOUBLE_EQ(report.steady_state[0].min, 0);
  EXPECT_EQ(report.steady_state.back().metric, "components.other.milliseconds");
}

}  // namespace
}  // namespace stepstat
