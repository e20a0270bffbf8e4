// Details on real traces and on the hand-checkable golden fixture, through the real readers
// and the built-in policy. Real traces come from STEPSTAT_SHARED_DIR/data/real; a test
// skips when they are absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "analysis/details/details_sink.h"
#include "analysis/details/details_values.h"
#include "analysis/details/launch_key_matcher.h"
#include "analysis/pipeline/start_order.h"
#include "analysis/pipeline/trace_reads.h"
#include "analysis/summary/summarize_internal.h"
#include "stepstat/details.h"
#include "stepstat/read.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

const fs::path kRealDir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";

// Reads one file into a DetailsSink the way summarize does: streaming first, held and
// sorted when the start-order stage finds the input out of order.
// `unmatched` (when not null): the launch rows no kernel of the file answered.
Result<DetailsTotals> ReadTotals(const fs::path& path, InputKind kind,
                                 int64_t* unmatched = nullptr) {
  StartOrder order;
  return RunInStartOrder<Result<DetailsTotals>>(order, [&](bool hold) -> Result<DetailsTotals> {
    std::string name = path.filename().string();
    LaunchKeyMatcher matcher;
    DetailsSink sink(name, !hold, &matcher);
    StartOrderSink in_order(sink, name, hold);
    Result<ReadReport> read = ReadInput(path, name, kind, in_order);  // finishes the sink
    order.Learn(in_order.broke());
    RETURN_IF_ERROR(read.status());
    if (unmatched != nullptr) *unmatched = matcher.unmatched();
    return sink.totals();
  });
}

const StreamTotals* FindStream(const DetailsTotals& t, int64_t stream) {
  for (const StreamTotals& s : t.streams) {
    if (s.stats.stream == stream) return &s;
  }
  return nullptr;
}

// The 51 rows of the RTX 2080 Ti 4-stream pipeline: 4 rounds of (HtoD on streams 13-16,
// simpleKernel on each stream, DtoH on each), then one more HtoD/kernel/DtoH on stream 13.
// Expected values were worked out from the rows' Start/Duration columns by hand and
// cross-checked with a 20-line Python script (sorted-interval walk), not with this code:
//   stream 13: kernels end 30425147, 33891922, 37172011, 40909950, 42742376
//     durations 17055+17760+14336+15968+3104 = 68223; gaps 3449015, 3265753, 3721971, 1829322
//   stream 14: durations 17632+17887+17824+17440 = 70783; gaps 3449335, 3263097, 3718707
//   stream 15: durations 17824+17824+17760+17695 = 71103; gaps 3449367, 3263064, 3718644
//   stream 16: durations 17695+17824+17471+17664 = 70654; gaps 3449367, 3263449, 3718772
//   Within each round the four kernels overlap across streams (each starts before the
//   previous one ends), so the device union is 64671 + 65823 + 63231 + 63071 + 3104 = 259900
//   and its gaps are 3401399, 3217690, 3673076, 1782219. Span: 28717008 to 42827303.
TEST(DetailsOnRealTraces, FourStreamPipelineByHand) {
  fs::path path = kRealDir / "cudalearning_rtx2080ti_4stream_cuda_gpu_trace.csv";
  if (!fs::exists(path)) GTEST_SKIP() << "needs " << path;
  Result<DetailsTotals> read = ReadTotals(path, InputKind::kNsysGpuTraceCsv);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const DetailsTotals& t = read.value();

  EXPECT_EQ(t.operation_count, 51);
  EXPECT_EQ(t.kernel_count, 17);
  EXPECT_EQ(t.memory_operation_count, 34);
  EXPECT_EQ(t.kernel_time_ns, 280763);
  EXPECT_EQ(t.last_end_ns - t.first_start_ns, 14110295);
  EXPECT_EQ(t.zero_duration_kernels, 0);

  struct Expected {
    int64_t stream, count, time, gap_count, gap_total, gap_max;
  };
  for (const Expected& e :
       {Expected{13, 5, 68223, 4, 12266061, 3721971}, Expected{14, 4, 70783, 3, 10431139, 3718707},
        Expected{15, 4, 71103, 3, 10431075, 3718644},
        Expected{16, 4, 70654, 3, 10431588, 3718772}}) {
    const StreamTotals* s = FindStream(t, e.stream);
    ASSERT_NE(s, nullptr) << e.stream;
    EXPECT_EQ(s->stats.kernel_count, e.count) << e.stream;
    EXPECT_EQ(s->stats.kernel_time_ns, e.time) << e.stream;
    EXPECT_EQ(s->stats.kernel_union_ns, e.time) << e.stream;  // no overlap within a stream
    EXPECT_EQ(s->stats.gaps.count, e.gap_count) << e.stream;
    EXPECT_EQ(s->stats.gaps.total_ns, e.gap_total) << e.stream;
    EXPECT_EQ(s->stats.gaps.maximum_ns, e.gap_max) << e.stream;
    EXPECT_EQ(s->stats.overlapping_kernels, 0) << e.stream;
  }

  ASSERT_EQ(t.devices.size(), 1u);
  const DeviceTotals& d = t.devices[0];
  EXPECT_EQ(d.name, "NVIDIA GeForce RTX 2080 Ti (0)");
  EXPECT_EQ(d.union_ns, 259900);
  EXPECT_EQ(t.kernel_union_ns, 259900);
  EXPECT_EQ(d.gaps.count(), 4);
  EXPECT_EQ(d.gaps.total(), 12074384);
  EXPECT_EQ(d.gaps.maximum(), 3673076);
  EXPECT_EQ(d.first_kernel_start_ns - t.first_start_ns, 1691084);
  EXPECT_EQ(t.last_end_ns - d.last_kernel_end_ns, 84927);

  EXPECT_EQ(t.memory.at("memcpy HtoD").count, 17);
  EXPECT_EQ(t.memory.at("memcpy DtoH").count, 17);
}

// While a format's reader is not in the build, its files are skipped (and said so).
bool ReaderMissing(const Status& status) {
  if (status.message().find("not supported yet") == std::string::npos) return false;
  std::printf("skipped: %s\n", status.message().c_str());
  return true;
}

// Every real file that a reader of ours understands as a trace with GPU operations.
std::vector<std::pair<fs::path, InputKind>> RealTraces() {
  std::vector<std::pair<fs::path, InputKind>> traces;
  std::error_code ec;
  if (!fs::is_directory(kRealDir, ec)) return traces;
  for (const auto& entry : fs::directory_iterator(kRealDir)) {
    Result<InputKind> kind = DetectInputKind(entry.path(), entry.path().filename().string());
    if (!kind.ok()) continue;
    if (*kind == InputKind::kNsysGpuTraceCsv || *kind == InputKind::kNsysSqlite ||
        *kind == InputKind::kKinetoJson) {
      traces.emplace_back(entry.path(), *kind);
    }
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

// Per-stream kernel time sums to the total; union <= sum on every level; per device,
// union + idle gaps + idle before the first and after the last kernel == span.
TEST(DetailsOnRealTraces, InvariantsHoldOnEveryRealTrace) {
  auto traces = RealTraces();
  if (traces.empty()) GTEST_SKIP() << "no readable real traces in " << kRealDir;
  int checked = 0;
  for (const auto& [path, kind] : traces) {
    SCOPED_TRACE(path.filename().string());
    int64_t unmatched = 0;
    Result<DetailsTotals> read = ReadTotals(path, kind, &unmatched);
    if (!read.ok() && ReaderMissing(read.status())) continue;
    if (!read.ok()) {
      ADD_FAILURE() << read.status().message();
      continue;
    }
    const DetailsTotals& t = read.value();
    if (t.kernel_count == 0) continue;
    ++checked;
    int64_t overlapping = 0;
    for (const StreamTotals& s : t.streams) overlapping += s.stats.overlapping_kernels;
    std::printf(
        "%s: %lld kernels on %zu devices / %zu streams, union/sum %.4f, "
        "%lld overlapping on their stream, %lld zero-duration, %lld launch rows, "
        "%lld unmatched\n",
        path.filename().string().c_str(), static_cast<long long>(t.kernel_count), t.devices.size(),
        t.streams.size(),
        static_cast<double>(t.kernel_union_ns) / static_cast<double>(t.kernel_time_ns),
        static_cast<long long>(overlapping), static_cast<long long>(t.zero_duration_kernels),
        static_cast<long long>(t.launch_rows), static_cast<long long>(unmatched));
    int64_t stream_sum = 0;
    int64_t stream_count = 0;
    for (const StreamTotals& s : t.streams) {
      stream_sum += s.stats.kernel_time_ns;
      stream_count += s.stats.kernel_count;
      EXPECT_LE(s.stats.kernel_union_ns, s.stats.kernel_time_ns);
    }
    EXPECT_EQ(stream_sum, t.kernel_time_ns);
    EXPECT_EQ(stream_count, t.kernel_count);
    EXPECT_LE(t.kernel_union_ns, t.kernel_time_ns);
    int64_t span = t.last_end_ns - t.first_start_ns;
    for (const DeviceTotals& d : t.devices) {
      if (d.kernel_count == 0) continue;
      EXPECT_LE(d.union_ns, d.kernel_time_ns);
      EXPECT_EQ(d.union_ns + d.gaps.total() + (d.first_kernel_start_ns - t.first_start_ns) +
                    (t.last_end_ns - d.last_kernel_end_ns),
                span)
          << d.name;
    }
  }
  std::printf("checked the invariants on %d real traces\n", checked);
  EXPECT_GT(checked, 0);
}

// Details agree with the reference summary where they overlap, on every real trace:
// same span and kernel time; on one device, the device's gaps are the summary's gaps.
// ListKernels (classify) adds up to the same kernels and the same `other` time.
TEST(DetailsOnRealTraces, AgreeWithTheSummaryAndWithClassify) {
  auto traces = RealTraces();
  if (traces.empty()) GTEST_SKIP() << "no readable real traces in " << kRealDir;
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  for (const auto& [path, kind] : traces) {
    SCOPED_TRACE(path.filename().string());
    SummaryInputs inputs;
    inputs.gpu = {path, path.filename().string(), kind};
    Details details;
    Result<StepStats> stats = SummarizeWithDetails(inputs, *policy, details);
    if (!stats.ok() && ReaderMissing(stats.status())) continue;
    if (!stats.ok()) {
      // A trace without GPU operations is an error for summarize; others are failures.
      EXPECT_NE(stats.status().message().find("no GPU operations"), std::string::npos)
          << stats.status().message();
      continue;
    }
    Result<StepStats> plain = Summarize(inputs, *policy);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(StepStatsToJson(*stats), StepStatsToJson(*plain));  // --details changes nothing
    EXPECT_EQ(details.span_ns, stats->gpu_span_ns);
    EXPECT_EQ(details.kernel_time_ns, stats->kernel_time_ns);
    if (details.devices.size() == 1) {
      EXPECT_EQ(details.devices[0].gaps.count, stats->launch_gaps.positive_gap_count);
      EXPECT_EQ(details.devices[0].gaps.total_ns, stats->launch_gaps.total_ns);
      EXPECT_EQ(details.devices[0].gaps.maximum_ns, stats->launch_gaps.maximum_ns);
    }
    EXPECT_EQ(details.coverage.other_time_ns, stats->components.back().time_ns);

    Result<std::vector<KernelDetails>> kernels = ListKernels(inputs, *policy);
    ASSERT_TRUE(kernels.ok()) << kernels.status().message();
    int64_t launches = 0;
    int64_t total = 0;
    std::map<std::string, int64_t> by_component;
    for (const KernelDetails& k : *kernels) {
      launches += k.launches;
      total += k.total_ns;
      by_component[k.component] += k.total_ns;
    }
    EXPECT_EQ(launches, stats->kernel_count);
    EXPECT_EQ(total, stats->kernel_time_ns);
    for (const ComponentStats& c : stats->components) {
      EXPECT_EQ(by_component[c.name], c.time_ns) << c.name;
    }
  }
}

// tests/golden/pair-2024, worked out by hand from its 10 rows (see the CSVs):
//   kernels [2000,3000) s7, [2500,3500) s8, [3600,3800) s7, [3900,4000) s7, [4100,4100) s8,
//   [4200,4600) s7, [5000,5050) s8; memcpy HtoD [1000,1500), memset [4000,4300),
//   memcpy DtoH [5050,5600). Span 1000..5600 = 4600; kernel sum 2750;
//   union 1500+200+100+0+400+50 = 2250; device gaps 100,100,100,100,400 = 800;
//   idle before 2000-1000 = 1000, after 5600-5050 = 550; 2250+800+1000+550 = 4600.
//   stream 7: 4 kernels, 1700 ns, gaps 600,100,200; stream 8: 3 kernels, 1050 ns, gaps 600,900.
//   Launch rows: API durations 10,150,150,200,200,300,400 → p50 200, p90 = p99 = max 400;
//   queue 50,100,200,300,340,400,1300 → p50 300, p90 = p99 = max 1300 (all exact: < 2^11
//   needs at most 4 ns buckets and these are multiples of 4 above 1024). Every launch row's
//   (kernel start, duration) is a GPU kernel.
TEST(DetailsOnFixture, Pair2024ByHand) {
  fs::path dir = fs::path(STEPSTAT_SOURCE_DIR) / "tests" / "golden" / "pair-2024";
  Result<SummaryInputs> inputs = ResolveInputs({(dir / "step").string()});
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok());
  Details d;
  Result<StepStats> stats = SummarizeWithDetails(*inputs, *policy, d);
  ASSERT_TRUE(stats.ok()) << stats.status().message();

  EXPECT_EQ(d.span_ns, 4600);
  EXPECT_EQ(d.kernel_time_ns, 2750);
  EXPECT_EQ(d.kernel_union_ns, 2250);
  EXPECT_DOUBLE_EQ(d.kernel_union_percent_of_span, 2250.0 / 4600.0 * 100.0);
  ASSERT_EQ(d.devices.size(), 1u);
  const DeviceDetails& dev = d.devices[0];
  EXPECT_EQ(dev.device, "NVIDIA GB10 (0)");
  EXPECT_EQ(dev.gaps.count, 5);
  EXPECT_EQ(dev.gaps.total_ns, 800);
  EXPECT_EQ(dev.gaps.maximum_ns, 400);
  EXPECT_EQ(dev.idle_before_first_kernel_ns, 1000);
  EXPECT_EQ(dev.idle_after_last_kernel_ns, 550);
  ASSERT_EQ(dev.streams.size(), 2u);
  EXPECT_EQ(dev.streams[0].stream, 7);
  EXPECT_EQ(dev.streams[0].kernel_count, 4);
  EXPECT_EQ(dev.streams[0].kernel_time_ns, 1700);
  EXPECT_EQ(dev.streams[0].kernel_union_ns, 1700);
  EXPECT_EQ(dev.streams[0].gaps.total_ns, 900);
  EXPECT_EQ(dev.streams[0].gaps.maximum_ns, 600);
  EXPECT_EQ(dev.streams[1].stream, 8);
  EXPECT_EQ(dev.streams[1].kernel_count, 3);
  EXPECT_EQ(dev.streams[1].kernel_time_ns, 1050);
  EXPECT_EQ(dev.streams[1].gaps.count, 2);
  EXPECT_EQ(dev.streams[1].gaps.total_ns, 1500);

  ASSERT_EQ(d.memory_operations.size(), 3u);  // by kind name
  EXPECT_EQ(d.memory_operations[0].kind, "memcpy DtoH");
  EXPECT_EQ(d.memory_operations[0].time_ns, 550);
  EXPECT_EQ(d.memory_operations[1].kind, "memcpy HtoD");
  EXPECT_EQ(d.memory_operations[1].time_ns, 500);
  EXPECT_EQ(d.memory_operations[2].kind, "memset");
  EXPECT_EQ(d.memory_operations[2].time_ns, 300);

  ASSERT_EQ(d.top_kernels.size(), 7u);
  EXPECT_EQ(d.top_kernels[0].total_ns, 1000);  // two 1000 ns kernels, by name: cutlass first
  EXPECT_TRUE(d.top_kernels[0].name.starts_with("cutlass3x_sm120"));
  EXPECT_TRUE(d.top_kernels[1].name.starts_with("void qk_int_sv_f8_attn_kernel"));
  EXPECT_EQ(d.top_kernels[6].name, "triton_poi_fused_cat_3");
  EXPECT_EQ(d.coverage.classified_time_ns + d.coverage.other_time_ns, 2750);

  ASSERT_TRUE(d.launch_path.has_value());
  EXPECT_EQ(d.launch_path->launch_rows, 7);
  EXPECT_EQ(d.launch_path->api_duration.p50_ns, 200);
  EXPECT_EQ(d.launch_path->api_duration.p90_ns, 400);
  EXPECT_EQ(d.launch_path->api_duration.max_ns, 400);
  EXPECT_EQ(d.launch_path->queue_time.p50_ns, 300);
  EXPECT_EQ(d.launch_path->queue_time.p99_ns, 1300);
  ASSERT_EQ(d.launch_path->by_api.size(), 1u);
  EXPECT_EQ(d.launch_path->by_api[0].api, "cudaLaunchKernel");
  EXPECT_EQ(d.launch_path->graph_launch_calls, 0);

  EXPECT_EQ(d.data_quality.memory_operations, 3);
  EXPECT_EQ(d.data_quality.zero_duration_kernels, 1);
  EXPECT_EQ(d.data_quality.kernels_overlapping_on_their_stream, 0);
  EXPECT_EQ(d.data_quality.launches_without_gpu_kernel, std::optional<int64_t>(0));
  ASSERT_EQ(d.data_quality.inputs.size(), 2u);
  EXPECT_EQ(d.data_quality.inputs[0].rows, 10);
  EXPECT_EQ(d.data_quality.inputs[1].rows, 7);
}

}  // namespace
}  // namespace stepstat

namespace stepstat {
namespace {

// Regression: a kern-exec trace read beside a GPU trace also fed its kernels to the overlap
// meter's kernel side, from the second thread, so launch_api_gpu_overlap_ns depended on
// thread timing (610 or 710 on pair-2024). 610 by hand: launch union [1500,1900) [1950,2300)
// [3400,3700) [3750,3760) [4000,4150) [4500,4700) against the kernel union gives
// 300 + (100 + 100) + 10 + 0 + 100.
TEST(SummarizeRegression, KernExecBesideGpuTraceDoesNotRaceTheOverlapMeter) {
  fs::path dir = fs::path(STEPSTAT_SOURCE_DIR) / "tests" / "golden" / "pair-2024";
  Result<SummaryInputs> inputs = ResolveInputs({(dir / "step").string()});
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok());
  for (int run = 0; run < 50; ++run) {
    Details details;
    Result<StepStats> stats = run % 2 == 0 ? Summarize(*inputs, *policy)
                                           : SummarizeWithDetails(*inputs, *policy, details);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    ASSERT_TRUE(stats->cpu_gpu_overlap.has_value());
    EXPECT_EQ(stats->cpu_gpu_overlap->launch_api_union_ns, 1410);
    ASSERT_EQ(stats->cpu_gpu_overlap->launch_api_gpu_overlap_ns, 610) << "run " << run;
    EXPECT_EQ(stats->kernel_count, 7);
  }
}

// `report` and `record` summarize a PyTorch profiler trace from the steps' kept parse, its
// two sides replayed at once on two threads (trace_reads.h, summarize.cc): the same summary
// and details, to the byte, as a read of the file on one thread, on every real Kineto trace;
// also with a meter bound of a few components, so that the two replays wait for each other.
TEST(DetailsOnRealTraces, AKeptKinetoParseReplayedOnTwoThreadsSummarizesAsTheFile) {
  auto traces = RealTraces();
  Policy policy = BuiltinPolicy(kDefaultPolicyName).value();
  int checked = 0;
  for (const auto& [path, kind] : traces) {
    if (kind != InputKind::kKinetoJson) continue;
    SCOPED_TRACE(path.filename().string());
    SummaryInputs inputs;
    inputs.gpu = {path, path.filename().string(), kind};
    Details direct_details;
    Result<StepStats> direct = SummarizeWithDetails(inputs, policy, direct_details);
    if (!direct.ok()) continue;  // a trace without GPU work: no summary either way
    const std::string want = StepStatsWithDetailsToJson(*direct, direct_details);
    for (size_t bound : {size_t{1} << 16, size_t{2}}) {
      TraceReads reads;
      ASSERT_TRUE(reads.Prepare(inputs.gpu).ok());
      ASSERT_TRUE(reads.Keeps(inputs.gpu));
      PipelineLimits limits;
      limits.max_pending_components = bound;
      Details details;
      Result<StepStats> replayed = SummarizeWith(inputs, policy, &details, limits, nullptr, &reads);
      ASSERT_TRUE(replayed.ok()) << replayed.status().message();
      EXPECT_EQ(StepStatsWithDetailsToJson(*replayed, details), want) << "bound " << bound;
    }
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no Kineto trace in " << kRealDir;
  EXPECT_GE(checked, 3);
}

}  // namespace
}  // namespace stepstat
