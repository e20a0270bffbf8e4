#include "analysis/details/details_sink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "analysis/details/launch_key_matcher.h"

namespace stepstat {
namespace {

struct Builder {
  StringPool names;
  GpuOp Kernel(int64_t start, int64_t duration, int64_t stream, std::string_view name = "k",
               std::string_view device = "GPU (0)") {
    GpuOp op;
    op.start_ns = start;
    op.duration_ns = duration;
    op.stream = stream;
    op.name = names.Intern(name);
    op.device = names.Intern(device);
    return op;
  }
  GpuOp Memory(int64_t start, int64_t duration, std::string_view name, int64_t bytes,
               std::string_view device = "GPU (0)") {
    GpuOp op = Kernel(start, duration, 7, name, device);
    op.kind = name.find("memset") != std::string_view::npos ? OpKind::kMemset : OpKind::kMemcpy;
    op.bytes = bytes;
    return op;
  }
};

const StreamTotals* FindStream(const DetailsTotals& t, std::string_view device, int64_t stream) {
  for (const StreamTotals& s : t.streams) {
    if (t.devices[s.device].name == device && s.stats.stream == stream) return &s;
  }
  return nullptr;
}

// The invariants of issue 6, for any trace:
//  per-stream kernel time sums to the total; union <= sum on every level;
//  per device: union + gaps + idle before + idle after == span.
void ExpectInvariants(const DetailsTotals& t) {
  int64_t stream_sum = 0;
  for (const StreamTotals& s : t.streams) {
    stream_sum += s.stats.kernel_time_ns;
    EXPECT_LE(s.stats.kernel_union_ns, s.stats.kernel_time_ns);
  }
  EXPECT_EQ(stream_sum, t.kernel_time_ns);
  EXPECT_LE(t.kernel_union_ns, t.kernel_time_ns);
  int64_t span = t.last_end_ns - t.first_start_ns;
  for (const DeviceTotals& d : t.devices) {
    if (d.kernel_count == 0) continue;
    EXPECT_LE(d.union_ns, d.kernel_time_ns);
    EXPECT_LE(d.union_ns, span);
    int64_t before = d.first_kernel_start_ns - t.first_start_ns;
    int64_t after = t.last_end_ns - d.last_kernel_end_ns;
    EXPECT_EQ(d.union_ns + d.gaps.total() + before + after, span) << d.name;
  }
}

std::vector<GpuOp> MixedTrace(Builder& b) {
  return {
      b.Memory(0, 100, "[CUDA memcpy Host-to-Device]", 4096),
      b.Kernel(100, 50, 7, "gemm"),   // s7 [100,150)
      b.Kernel(120, 100, 8, "attn"),  // s8 [120,220)
      b.Kernel(140, 20, 7, "gemm"),   // s7 overlaps its own stream: [140,160)
      b.Kernel(200, 0, 7, "zero"),    // s7 zero duration at 200: a gap of 40 on s7
      b.Kernel(210, 30, 1, "gemm", "GPU (1)"),
      b.Memory(230, 20, "[CUDA memset]", -1),
      b.Kernel(260, 40, 8, "attn"),  // s8 gap 40
      b.Memory(300, 100, "[CUDA memcpy DtoH]", 1000),
      b.Kernel(320, 10, 1, "gemm", "GPU (1)"),
  };
}

TEST(DetailsSink, HandBuiltTraceByStreamAndDevice) {
  Builder b;
  DetailsSink sink("t.csv", /*assume_sorted=*/true, /*matcher=*/nullptr);
  std::vector<GpuOp> ops = MixedTrace(b);
  ASSERT_TRUE(sink.OnGpuOps(ops, b.names).ok());
  ASSERT_TRUE(sink.OnFinish().ok());
  const DetailsTotals& t = sink.totals();

  EXPECT_EQ(t.operation_count, 10);
  EXPECT_EQ(t.kernel_count, 7);
  EXPECT_EQ(t.kernel_time_ns, 50 + 100 + 20 + 0 + 30 + 40 + 10);
  EXPECT_EQ(t.first_start_ns, 0);
  EXPECT_EQ(t.last_end_ns, 400);
  EXPECT_EQ(t.zero_duration_kernels, 1);
  // All kernels merged: [100,240) ∪ [260,300) ∪ [320,330) = 140 + 40 + 10.
  EXPECT_EQ(t.kernel_union_ns, 190);

  const StreamTotals* s7 = FindStream(t, "GPU (0)", 7);
  ASSERT_NE(s7, nullptr);
  EXPECT_EQ(s7->stats.kernel_count, 3);
  EXPECT_EQ(s7->stats.kernel_time_ns, 70);
  EXPECT_EQ(s7->stats.kernel_union_ns, 60);  // [100,160) and the empty [200,200)
  EXPECT_EQ(s7->stats.gaps.count, 1);
  EXPECT_EQ(s7->stats.gaps.total_ns, 40);
  EXPECT_EQ(s7->stats.overlapping_kernels, 1);
  const StreamTotals* s8 = FindStream(t, "GPU (0)", 8);
  ASSERT_NE(s8, nullptr);
  EXPECT_EQ(s8->stats.kernel_union_ns, 140);
  EXPECT_EQ(s8->stats.gaps.total_ns, 40);
  EXPECT_EQ(s8->stats.overlapping_kernels, 0);

  ASSERT_EQ(t.devices.size(), 2u);
  const DeviceTotals& d0 = t.devices[0];
  EXPECT_EQ(d0.name, "GPU (0)");
  EXPECT_EQ(d0.union_ns, 120 + 40);  // [100,220) ∪ [260,300)
  EXPECT_EQ(d0.gaps.count(), 1);
  EXPECT_EQ(d0.gaps.total(), 40);
  EXPECT_EQ(d0.first_kernel_start_ns, 100);
  EXPECT_EQ(d0.last_kernel_end_ns, 300);
  const DeviceTotals& d1 = t.devices[1];
  EXPECT_EQ(d1.union_ns, 40);
  EXPECT_EQ(d1.gaps.total(), 320 - 240);

  ASSERT_EQ(t.memory.size(), 3u);
  EXPECT_EQ(t.memory.at("memcpy HtoD").bytes, 4096);
  EXPECT_EQ(t.memory.at("memcpy DtoH").time_ns, 100);
  EXPECT_EQ(t.memory.at("memset").unknown_size_count, 1);
  EXPECT_EQ(t.memory_operation_count, 3);

  ASSERT_EQ(t.names.size(), 3u);
  EXPECT_EQ(t.names[0].name, "gemm");
  EXPECT_EQ(t.names[0].launches, 4);
  EXPECT_EQ(t.names[0].total_ns, 110);
  EXPECT_EQ(t.names[0].max_ns, 50);
  ExpectInvariants(t);
}

TEST(DetailsSink, UnsortedInputStopsTheSortedPass) {
  Builder b;
  DetailsSink sink("t.csv", true, nullptr);
  std::vector<GpuOp> ops = {b.Kernel(100, 10, 7), b.Kernel(50, 10, 7)};
  EXPECT_FALSE(sink.OnGpuOps(ops, b.names).ok());
}

TEST(DetailsSink, BufferedModeMatchesStreamingOnShuffledInput) {
  Builder b;
  std::vector<GpuOp> sorted = MixedTrace(b);
  DetailsSink streaming("t.csv", true, nullptr);
  ASSERT_TRUE(streaming.OnGpuOps(sorted, b.names).ok());
  ASSERT_TRUE(streaming.OnFinish().ok());

  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    std::vector<GpuOp> shuffled = sorted;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    DetailsSink buffered("t.csv", false, nullptr);
    // Batches of 3, as a reader delivers them.
    for (size_t i = 0; i < shuffled.size(); i += 3) {
      size_t n = std::min<size_t>(3, shuffled.size() - i);
      ASSERT_TRUE(buffered.OnGpuOps(std::span(shuffled).subspan(i, n), b.names).ok());
    }
    ASSERT_TRUE(buffered.OnFinish().ok());
    const DetailsTotals& x = streaming.totals();
    const DetailsTotals& y = buffered.totals();
    EXPECT_EQ(y.kernel_union_ns, x.kernel_union_ns);
    for (const StreamTotals& s : x.streams) {
      const StreamTotals* other = FindStream(y, x.devices[s.device].name, s.stats.stream);
      ASSERT_NE(other, nullptr);
      EXPECT_EQ(other->stats.kernel_union_ns, s.stats.kernel_union_ns);
      EXPECT_EQ(other->stats.gaps.total_ns, s.stats.gaps.total_ns);
      EXPECT_EQ(other->stats.overlapping_kernels, s.stats.overlapping_kernels);
    }
    ExpectInvariants(y);
  }
}

TEST(DetailsSink, RandomTracesKeepTheInvariants) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 50; ++round) {
    Builder b;
    std::vector<GpuOp> ops;
    int64_t t = static_cast<int64_t>(rng() % 100);
    for (int i = 0; i < 200; ++i) {
      t += static_cast<int64_t>(rng() % 50);
      int64_t duration = static_cast<int64_t>(rng() % 5 == 0 ? 0 : rng() % 200);
      std::string device = rng() % 3 == 0 ? "GPU (1)" : "GPU (0)";
      if (rng() % 6 == 0) {
        ops.push_back(b.Memory(t, duration, "[CUDA memcpy HtoD]", 10, device));
      } else {
        ops.push_back(b.Kernel(t, duration, static_cast<int64_t>(rng() % 4), "k", device));
      }
    }
    DetailsSink sink("t.csv", true, nullptr);
    ASSERT_TRUE(sink.OnGpuOps(ops, b.names).ok());
    ASSERT_TRUE(sink.OnFinish().ok());
    ExpectInvariants(sink.totals());
  }
}

TEST(DetailsSink, LaunchPathCountsGraphCallsOncePerCall) {
  StringPool names;
  auto call = [&](int64_t start, int64_t dur, int64_t queue, std::string_view api) {
    LaunchCall c;
    c.api_start_ns = start;
    c.api_duration_ns = dur;
    c.queue_duration_ns = queue;
    c.kernel_start_ns = start + dur + queue;
    c.kernel_duration_ns = 5;
    c.tid = 1;
    c.api_name = names.Intern(api);
    return c;
  };
  std::vector<LaunchCall> calls = {
      call(0, 10, 5, "cudaLaunchKernel"), call(20, 30, -1, "cudaGraphLaunch"),
      call(20, 30, 7, "cudaGraphLaunch"), call(20, 30, 9, "cudaGraphLaunch"),
      call(100, 4, 2, "cudaGraphLaunch"), call(200, 6, 1, "cuLaunchKernel"),
  };
  LaunchKeyMatcher matcher;
  DetailsSink sink("k.csv", true, &matcher);
  ASSERT_TRUE(sink.OnLaunchCalls(calls, names).ok());
  ASSERT_TRUE(sink.OnFinish().ok());
  const DetailsTotals& t = sink.totals();
  EXPECT_EQ(t.launch_rows, 6);
  EXPECT_EQ(t.graph_launch_calls, 2);
  EXPECT_EQ(t.graph_launched_kernels, 4);
  EXPECT_EQ(t.api_duration.count(), 6);
  EXPECT_EQ(t.queue_time.count(), 5);  // the unknown queue time is left out
  EXPECT_EQ(t.api_duration.max(), 30);
  ASSERT_EQ(t.by_api.size(), 3u);
  EXPECT_EQ(t.by_api[1].api, "cudaGraphLaunch");
  EXPECT_EQ(t.by_api[1].count, 4);
  EXPECT_EQ(matcher.launches(), 6);   // every row has a kernel side
  EXPECT_EQ(matcher.unmatched(), 6);  // and no kernel was fed
}

TEST(MemoryKindOf, OneSpellingAcrossNsysVersions) {
  EXPECT_EQ(MemoryKindOf("[CUDA memcpy Host-to-Device]"), "memcpy HtoD");
  EXPECT_EQ(MemoryKindOf("[CUDA memcpy HtoD]"), "memcpy HtoD");
  EXPECT_EQ(MemoryKindOf("[CUDA memcpy Unified Device-to-Host]"), "memcpy Unified DtoH");
  EXPECT_EQ(MemoryKindOf("[CUDA memcpy Peer-to-Peer]"), "memcpy PtoP");
  EXPECT_EQ(MemoryKindOf("[CUDA memset]"), "memset");
}

// Issue 12: stream ids are per process. Two ranks sharing a GPU each have a "stream 7";
// their kernels overlap in time but not on one stream.
TEST(DetailsSink, StreamsOfTwoProcessesOnOneGpuAreTwoStreams) {
  Builder b;
  std::vector<GpuOp> ops;
  for (int i = 0; i < 4; ++i) {
    for (int32_t pid : {101, 202}) {
      GpuOp op = b.Kernel(1000 * i + pid / 101 * 10, 900, 7);
      op.pid = pid;
      ops.push_back(op);
    }
  }
  DetailsSink sink("t.csv", /*assume_sorted=*/true, /*matcher=*/nullptr);
  ASSERT_TRUE(sink.OnGpuOps(ops, b.names).ok());
  ASSERT_TRUE(sink.OnFinish().ok());
  const DetailsTotals& t = sink.totals();
  ASSERT_EQ(t.devices.size(), 1u);
  ASSERT_EQ(t.streams.size(), 2u);
  EXPECT_EQ(t.processes, (std::vector<int32_t>{101, 202}));
  for (const StreamTotals& s : t.streams) {
    EXPECT_EQ(s.stats.stream, 7);
    EXPECT_EQ(s.stats.kernel_count, 4);
    EXPECT_EQ(s.stats.overlapping_kernels, 0) << s.stats.process;
  }
  ExpectInvariants(t);
}

}  // namespace
}  // namespace stepstat
