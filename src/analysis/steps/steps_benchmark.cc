// Steps on a long run: 100k steps (ranges) of 10 kernels each, 1M launches and 1M GPU ops,
// through range selection, attribution, per-step accumulation and the distribution; and the
// period detector on a 1M-kernel sequence; and the whole trace through the summary's sinks
// against the same as one step of the steps accumulators (issue 20, item c: what making the
// summary one step would cost). Inputs are generated in memory.
#include <benchmark/benchmark.h>

#include <random>

#include "analysis/pipeline/two_sides.h"
#include "analysis/steps/period/period_detector.h"
#include "analysis/steps/steps_attribution.h"
#include "analysis/steps/steps_distribution.h"
#include "analysis/steps/steps_ranges.h"
#include "analysis/steps/steps_sink.h"
#include "analysis/summary/summary_sinks.h"
#include "stepstat/policy.h"

namespace stepstat {
namespace {

constexpr int kKernelsPerStep = 10;

struct LongRun {
  StringPool names;
  std::vector<CpuRange> ranges;  // a step range and a nested range per step
  std::vector<LaunchCall> calls;
  std::vector<GpuOp> ops;
};

LongRun MakeLongRun(int64_t steps) {
  LongRun run;
  NameId step = run.names.Intern("train_step"), inner = run.names.Intern("forward");
  NameId kernels[kKernelsPerStep];
  for (int k = 0; k < kKernelsPerStep; ++k) {
    kernels[k] =
        run.names.Intern(k % 3 ? "sgemm_nvfp4_128x128" : "flash_attn_fwd_" + std::to_string(k));
  }
  int64_t cpu = 0, gpu = 0, corr = 1;
  for (int64_t s = 0; s < steps; ++s) {
    int64_t start = cpu;
    for (int k = 0; k < kKernelsPerStep; ++k) {
      LaunchCall c;
      c.api_start_ns = cpu, c.api_duration_ns = 3000, c.pid = 1, c.tid = 1;
      c.correlation_id = corr;
      cpu += 4000;
      GpuOp op;
      op.start_ns = std::max(gpu, cpu) + 100, op.duration_ns = 5000 + 37 * k;
      op.correlation_id = corr++;
      op.name = kernels[k];
      gpu = op.end_ns();
      run.calls.push_back(c);
      run.ops.push_back(op);
    }
    CpuRange r;
    r.start_ns = start, r.end_ns = cpu, r.pid = 1, r.tid = 1, r.name = step;
    run.ranges.push_back(r);
    r.start_ns = start + 10, r.end_ns = start + 20, r.name = inner;
    run.ranges.push_back(r);
    cpu = std::max(cpu, gpu) + 20000;
  }
  return run;
}

const LongRun& Run100k() {
  static const LongRun run = MakeLongRun(100'000);
  return run;
}

int Classify(std::string_view name) { return name.find("gemm") != name.npos ? 0 : 1; }

void BM_SelectStepRanges(benchmark::State& state) {
  const LongRun& run = Run100k();
  for (auto _ : state) {
    auto collector = std::move(RangeCollector::Create("train_step").value());
    benchmark::DoNotOptimize(collector->OnRanges(run.ranges, run.names).ok());
    std::vector<StepRange> steps = collector->TakeSteps();
    benchmark::DoNotOptimize(steps.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(run.ranges.size()));
}
BENCHMARK(BM_SelectStepRanges)->Unit(benchmark::kMillisecond);

// Launch pass + GPU pass + distribution: everything AnalyzeSteps does after reading.
void BM_AttributeAndAccumulate(benchmark::State& state) {
  const LongRun& run = Run100k();
  auto collector = std::move(RangeCollector::Create("train_step").value());
  (void)collector->OnRanges(run.ranges, run.names);
  std::vector<StepRange> steps = collector->TakeSteps();
  size_t runs = 0;
  for (auto _ : state) {
    StepAccumulators acc(steps.size(), Classify, 2, 0.5, false);
    LaunchStepFinder finder(steps);
    StepKeyRuns keys;
    StepLaunchSink launches(acc, [&](const LaunchCall& c) {
      int32_t s = finder.StepOf(c.pid, c.tid, c.api_start_ns);
      keys.Add(c.correlation_id, s);
      return s;
    });
    (void)launches.OnLaunchCalls(run.calls, run.names);
    acc.FinishLaunches();
    keys.Freeze();
    StepGpuSink gpu(
        acc, [&](const GpuOp& op) { return keys.Find(op.correlation_id); }, "bench");
    (void)gpu.OnGpuOps(run.ops, run.names);
    acc.FinishOps();
    std::vector<StepTotals> totals = acc.TakeTotals();
    runs = keys.runs();
    benchmark::DoNotOptimize(totals.data());
  }
  state.counters["key_runs"] = static_cast<double>(runs);
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(run.calls.size() + run.ops.size()));
}
BENCHMARK(BM_AttributeAndAccumulate)->Unit(benchmark::kMillisecond);

void BM_SteadyStateDistribution(benchmark::State& state) {
  const LongRun& run = Run100k();
  StepsReport base;
  int64_t index = 0;
  std::mt19937 random(1);
  for (size_t i = 0; i < run.ranges.size(); i += 2) {
    StepRecord r;
    r.index = index++;
    r.totals.operation_count = r.totals.kernel_count = kKernelsPerStep;
    r.totals.first_start_ns = run.ranges[i].start_ns;
    r.totals.last_end_ns = run.ranges[i].end_ns + static_cast<int64_t>(random() % 5000);
    r.totals.kernel_time_ns = 50000;
    r.totals.component_time_ns = {30000, 20000};
    r.totals.component_launches = {6, 4};
    base.steps.push_back(std::move(r));
  }
  Policy policy;
  policy.components.push_back({"gemm", "GEMMs", {"gemm"}, {}});
  for (auto _ : state) {
    StepsReport report = base;
    FinishStepsReport(report, policy, StepsOptions{});
    benchmark::DoNotOptimize(report.steady_state.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(base.steps.size()));
}
BENCHMARK(BM_SteadyStateDistribution)->Unit(benchmark::kMillisecond);

// 100k steps of a 10-kernel sequence with an idle gap before each step.
void BM_DetectPeriod(benchmark::State& state) {
  std::vector<NameId> names;
  std::vector<int64_t> idle;
  std::mt19937 random(2);
  for (int s = 0; s < 100'000; ++s) {
    for (int k = 0; k < kKernelsPerStep; ++k) {
      names.push_back(static_cast<NameId>(k % 7));
      idle.push_back(k == 0 ? 20000 + static_cast<int64_t>(random() % 1000) : 100);
    }
  }
  size_t period = 0;
  for (auto _ : state) {
    PeriodDetection d = DetectPeriod(names, idle);
    period = d.period;
    benchmark::DoNotOptimize(d.boundaries.data());
  }
  state.counters["period"] = static_cast<double>(period);
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(names.size()));
}
BENCHMARK(BM_DetectPeriod)->Unit(benchmark::kMillisecond);

// The whole trace as the two-file pipeline reads it: GPU operations on this thread,
// launch calls on another (ReadBothSides, whose opening comment is the threads' contract),
// each side in batches of kBatch into its meter producer, bounded as the pipelines bound it.
constexpr size_t kBatch = 4096;
constexpr size_t kMaxPending = size_t{1} << 16;

template <typename Row, typename Feed>
Status FeedBatches(const std::vector<Row>& rows, const Feed& feed) {
  std::span<const Row> all(rows);
  for (size_t at = 0; at < all.size(); at += kBatch) {
    RETURN_IF_ERROR(feed(all.subspan(at, std::min(kBatch, all.size() - at))));
  }
  return Status::Ok();
}

void BM_WholeTraceSummarySinks(benchmark::State& state) {
  const LongRun& run = Run100k();
  Policy policy = BuiltinPolicy(kDefaultPolicyName).value();
  Classifier classifier = Classifier::Create(policy).value();
  int64_t overlap = 0;
  for (auto _ : state) {
    OverlapMeter meter(kMaxPending);
    OverlapMeter::Producer kernels = meter.TakeProducer(OverlapMeter::kA);
    OverlapMeter::Producer launches = meter.TakeProducer(OverlapMeter::kB);
    GpuTotals totals;
    SideStatuses statuses = ReadBothSides(
        [&] {
          GpuTotalsSink gpu("bench", classifier, std::move(kernels), true);
          RETURN_IF_ERROR(
              FeedBatches(run.ops, [&](auto ops) { return gpu.OnGpuOps(ops, run.names); }));
          RETURN_IF_ERROR(gpu.OnFinish());
          totals = gpu.totals();
          return Status::Ok();
        },
        [&] {
          LaunchTotalsSink launch(std::move(launches), true);
          RETURN_IF_ERROR(FeedBatches(
              run.calls, [&](auto calls) { return launch.OnLaunchCalls(calls, run.names); }));
          return launch.OnFinish();
        },
        [&meter] { meter.Abort(); });
    if (!FirstFailure(statuses).ok()) state.SkipWithError("the summary sinks failed");
    overlap = meter.overlap();
    benchmark::DoNotOptimize(totals.gap_total_ns);
  }
  state.counters["overlap_ms"] = static_cast<double>(overlap) / 1e6;
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(run.calls.size() + run.ops.size()));
}
BENCHMARK(BM_WholeTraceSummarySinks)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WholeTraceAsOneStep(benchmark::State& state) {
  const LongRun& run = Run100k();
  Policy policy = BuiltinPolicy(kDefaultPolicyName).value();
  Classifier classifier = Classifier::Create(policy).value();
  int64_t overlap = 0;
  for (auto _ : state) {
    StepAccumulators steps(
        1, [&classifier](std::string_view name) { return classifier.Classify(name); },
        static_cast<int>(policy.components.size()) + 1, 0.5, false);
    StepOverlapMeter meter(steps.size(), kMaxPending);
    StepOverlapMeter::Producer launches = meter.TakeProducer(StepOverlapMeter::kLaunches);
    steps.UseMeter(meter.TakeProducer(StepOverlapMeter::kKernels));
    std::vector<int64_t> calls(steps.size(), 0);
    SideStatuses statuses = ReadBothSides(
        [&] {
          StepGpuSink gpu(
              steps, [](const GpuOp&) { return 0; }, "bench");
          Status fed = FeedBatches(run.ops, [&](auto ops) { return gpu.OnGpuOps(ops, run.names); });
          if (fed.ok()) fed = gpu.OnFinish();
          steps.CloseMeter();
          return fed;
        },
        [&] {
          StepMeterLaunchSink launch(
              std::move(launches), [](const LaunchCall&) { return 0; }, calls, "bench");
          return FeedBatches(run.calls,
                             [&](auto batch) { return launch.OnLaunchCalls(batch, run.names); });
        },
        [&meter] { meter.Abort(); });
    if (!FirstFailure(statuses).ok()) state.SkipWithError("the step accumulators failed");
    overlap = meter.overlap(0);
    std::vector<StepTotals> totals = steps.TakeTotals();
    benchmark::DoNotOptimize(totals.data());
  }
  state.counters["overlap_ms"] = static_cast<double>(overlap) / 1e6;
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(run.calls.size() + run.ops.size()));
}
BENCHMARK(BM_WholeTraceAsOneStep)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace stepstat
