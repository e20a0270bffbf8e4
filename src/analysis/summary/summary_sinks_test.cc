#include "analysis/summary/summary_sinks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "analysis/summary/summary_values.h"
#include "deadline.h"

namespace stepstat {
namespace {

Policy TwoComponentPolicy() {
  Policy p;
  p.name = "test";
  p.components.push_back({"gemm", "matrix multiplies", {"gemm"}, {}});
  p.components.push_back({"attn", "attention", {"attn"}, {}});
  return p;
}

struct Harness {
  Policy policy = TwoComponentPolicy();
  Classifier classifier = std::move(Classifier::Create(policy).value());
  StringPool names;
  OverlapMeter meter;  // unbounded: one thread feeds both sides

  GpuOp Kernel(int64_t start, int64_t duration, std::string_view name, int64_t stream = 7) {
    GpuOp op;
    op.start_ns = start;
    op.duration_ns = duration;
    op.name = names.Intern(name);
    op.stream = stream;
    return op;
  }
  GpuOp Memcpy(int64_t start, int64_t duration) {
    GpuOp op = Kernel(start, duration, "[CUDA memcpy Host-to-Device]");
    op.kind = OpKind::kMemcpy;
    return op;
  }
};

TEST(GpuTotalsSink, CountsSumsAndGapsOfConcurrentStreams) {
  Harness h;
  GpuTotalsSink sink("t.csv", h.classifier, h.meter.TakeProducer(OverlapMeter::kA),
                     /*assume_sorted=*/true);
  std::vector<GpuOp> ops = {
      h.Memcpy(0, 50),                      // before the first kernel: widens the span only
      h.Kernel(100, 100, "sgemm_128"),      // stream 7: [100,200)
      h.Kernel(150, 100, "flash_attn", 8),  // stream 8 overlaps: [150,250)
      h.Kernel(260, 10, "elementwise"),     // gap of 10 after the frontier 250
      h.Kernel(300, 0, "elementwise"),      // zero-duration: ends a gap of 30 on its own
      h.Kernel(310, 5, "gemm_small"),       // gap of 10
  };
  ASSERT_TRUE(sink.OnGpuOps(ops, h.names).ok());
  ASSERT_TRUE(sink.OnFinish().ok());

  const GpuTotals& g = sink.totals();
  EXPECT_EQ(g.operation_count, 6);
  EXPECT_EQ(g.kernel_count, 5);
  EXPECT_EQ(g.kernel_time_ns, 215);
  EXPECT_EQ(g.first_start_ns, 0);
  EXPECT_EQ(g.last_end_ns, 315);
  EXPECT_EQ(g.gap_count, 3);
  EXPECT_EQ(g.gap_total_ns, 10 + 30 + 10);
  EXPECT_EQ(g.gap_max_ns, 30);
  EXPECT_EQ(g.component_time_ns, (std::vector<int64_t>{105, 100, 10}));
  EXPECT_EQ(g.component_launches, (std::vector<int64_t>{2, 1, 2}));

  StepStats s = MakeStepStats(h.policy, g, std::nullopt, {"t.csv", std::nullopt});
  EXPECT_EQ(s.gpu_span_ns, 315);
  EXPECT_EQ(s.kernel_busy_percent_of_span, 215.0 / 315.0 * 100.0);
  EXPECT_EQ(s.launch_gaps.average_ns, 50.0 / 3.0);
  ASSERT_EQ(s.components.size(), 3u);
  EXPECT_EQ(s.components[2].name, "other");
  EXPECT_EQ(s.components[2].description, "all unmatched kernels");
  EXPECT_EQ(s.components[0].milliseconds, 105 / 1e6);
  EXPECT_FALSE(s.cpu_gpu_overlap.has_value());
}

TEST(GpuTotalsSink, LaunchUnionAndOverlapWithKernels) {
  Harness h;
  GpuTotalsSink gpu("t", h.classifier, h.meter.TakeProducer(OverlapMeter::kA), true);
  LaunchTotalsSink launch(h.meter.TakeProducer(OverlapMeter::kB), true);
  std::vector<GpuOp> ops = {h.Kernel(100, 100, "k"), h.Kernel(300, 100, "k")};
  std::vector<LaunchCall> calls(3);
  calls[0].api_start_ns = 50, calls[0].api_duration_ns = 100;   // [50,150): 50 overlap
  calls[1].api_start_ns = 140, calls[1].api_duration_ns = 20;   // joins: [50,160)
  calls[2].api_start_ns = 250, calls[2].api_duration_ns = 100;  // [250,350): 50 overlap
  ASSERT_TRUE(gpu.OnGpuOps(ops, h.names).ok());
  ASSERT_TRUE(launch.OnLaunchCalls(calls, h.names).ok());
  ASSERT_TRUE(gpu.OnFinish().ok());
  ASSERT_TRUE(launch.OnFinish().ok());
  EXPECT_EQ(launch.totals().call_count, 3);
  EXPECT_EQ(launch.totals().union_ns, 110 + 100);
  EXPECT_EQ(h.meter.overlap(), 60 + 50);
}

TEST(GpuTotalsSink, OutOfOrderStopsASortedPassAndBufferedPassAgrees) {
  Harness h;
  std::vector<GpuOp> ops;
  std::mt19937_64 random(7);
  for (int i = 0; i < 2000; ++i) {
    ops.push_back(h.Kernel(static_cast<int64_t>(random() % 100000),
                           static_cast<int64_t>(random() % 300), i % 3 ? "gemm" : "attn", i % 4));
  }
  std::vector<GpuOp> sorted = ops;
  std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.start_ns < b.start_ns; });

  GpuTotalsSink streaming("t", h.classifier, h.meter.TakeProducer(OverlapMeter::kA), true);
  EXPECT_FALSE(streaming.OnGpuOps(ops, h.names).ok());

  OverlapMeter m1, m2;
  GpuTotalsSink reference("t", h.classifier, m1.TakeProducer(OverlapMeter::kA), true);
  ASSERT_TRUE(reference.OnGpuOps(sorted, h.names).ok());
  ASSERT_TRUE(reference.OnFinish().ok());
  GpuTotalsSink buffered("t", h.classifier, m2.TakeProducer(OverlapMeter::kA), false);
  ASSERT_TRUE(buffered.OnGpuOps(ops, h.names).ok());
  ASSERT_TRUE(buffered.OnFinish().ok());
  EXPECT_EQ(buffered.totals().gap_count, reference.totals().gap_count);
  EXPECT_EQ(buffered.totals().gap_total_ns, reference.totals().gap_total_ns);
  EXPECT_EQ(buffered.totals().gap_max_ns, reference.totals().gap_max_ns);
  EXPECT_EQ(buffered.totals().kernel_time_ns, reference.totals().kernel_time_ns);
  EXPECT_GT(reference.totals().gap_count, 0);
}

TEST(GpuTotalsSink, SummedKernelTimeOverflowIsAnError) {
  Harness h;
  GpuTotalsSink sink("big.csv", h.classifier, h.meter.TakeProducer(OverlapMeter::kA), true);
  std::vector<GpuOp> ops = {h.Kernel(0, INT64_MAX - 10, "a", 1),
                            h.Kernel(0, INT64_MAX - 10, "b", 2)};
  ops[1].line = 3;
  Status s = sink.OnGpuOps(ops, h.names);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "big.csv:3: summed kernel time overflows 64-bit nanoseconds");
}

// Issue 11: the two summary sinks on two threads with a tiny meter bound, each order forced
// (the first side runs until it waits or is done, only then the other starts), with empty,
// one-element and whole-trace batches. The launch side once flushed an empty batch into the
// full kernel side from its own Finish and waited there forever.
TEST(SummarySinkPair, NoReaderOrderOrBatchShapeHangs) {
  Harness h;
  std::vector<GpuOp> ops;
  for (int i = 0; i < 3000; ++i) ops.push_back(h.Kernel(i * 100, 60, i % 2 ? "gemm" : "attn"));
  std::vector<LaunchCall> calls(400);  // overlapping calls: one long launch component
  for (size_t i = 0; i < calls.size(); ++i) {
    calls[i].api_start_ns = 50 + static_cast<int64_t>(i) * 500;
    calls[i].api_duration_ns = 700;
  }
  std::vector<Interval> kernel_union, launch_union;
  for (const GpuOp& op : ops) kernel_union.push_back({op.start_ns, op.end_ns()});
  for (const LaunchCall& c : calls) launch_union.push_back({c.api_start_ns, c.api_end_ns()});
  const int64_t expected = IntersectionLength(UnionOf(kernel_union), UnionOf(launch_union));

  for (bool gpu_first : {true, false}) {
    for (size_t batch : {size_t{0}, size_t{1}, size_t{7}, size_t{5000}}) {
      for (size_t max_pending : {1, 4}) {
        OverlapMeter meter(max_pending);
        GpuTotalsSink gpu("g", h.classifier, meter.TakeProducer(OverlapMeter::kA), true);
        LaunchTotalsSink launch(meter.TakeProducer(OverlapMeter::kB), true);
        // batch 0: every real batch is followed by an empty one.
        auto feed = [&](auto& sink, const auto& rows, auto deliver) {
          size_t step = std::max<size_t>(batch, 1);
          for (size_t i = 0; i < rows.size(); i += step) {
            auto part = std::span(rows).subspan(i, std::min(step, rows.size() - i));
            ASSERT_TRUE(deliver(sink, part).ok());
            if (batch == 0) {
              ASSERT_TRUE(deliver(sink, part.first(0)).ok());
            }
          }
          ASSERT_TRUE(sink.OnFinish().ok());
        };
        std::atomic<bool> gpu_done = false, launch_done = false;
        auto run_gpu = [&] {
          feed(gpu, ops, [&](auto& sink, auto part) { return sink.OnGpuOps(part, h.names); });
          gpu_done = true;
        };
        auto run_launch = [&] {
          feed(launch, calls,
               [&](auto& sink, auto part) { return sink.OnLaunchCalls(part, h.names); });
          launch_done = true;
        };
        MustFinishWithin(kHangLimit, "the summary sink pair", [&] {
          std::thread first(gpu_first ? std::function<void()>(run_gpu) : run_launch);
          OverlapMeter::Side side = gpu_first ? OverlapMeter::kA : OverlapMeter::kB;
          std::atomic<bool>& done = gpu_first ? gpu_done : launch_done;
          ASSERT_TRUE(EventuallyTrue([&] { return done || meter.waiting(side); }));
          std::thread second(gpu_first ? std::function<void()>(run_launch) : run_gpu);
          first.join();
          second.join();
        });
        ASSERT_EQ(meter.overlap(), expected) << gpu_first << " " << batch << " " << max_pending;
        ASSERT_EQ(gpu.totals().kernel_count, 3000);
        ASSERT_EQ(launch.totals().call_count, 400);
      }
    }
  }
}

TEST(MakeStepStats, EmptyDenominatorsGiveZero) {
  Policy p = TwoComponentPolicy();
  GpuTotals g;
  g.operation_count = 1;
  g.component_time_ns = {0, 0, 0};
  g.component_launches = {0, 0, 0};
  StepStats s = MakeStepStats(p, g, LaunchOverlapTotals{0, 0}, {"x", "y"});
  EXPECT_EQ(s.kernel_busy_percent_of_span, 0.0);
  EXPECT_EQ(s.launch_gaps.average_ns, 0.0);
  ASSERT_TRUE(s.cpu_gpu_overlap.has_value());
  EXPECT_EQ(s.cpu_gpu_overlap->launch_api_overlap_percent, 0.0);
  EXPECT_EQ(s.components[0].percent_of_kernel_time, 0.0);
}

}  // namespace
}  // namespace stepstat
