#include "readers/kineto/kineto_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/decimal.h"
#include "fixtures/formats/collecting_sink.h"
#include "readers/kineto/kineto_json_internal.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_support::CollectingSink;

fs::path RealFile(const std::string& name) {
  return fs::path(STEPSTAT_SHARED_DIR) / "data/real" / name;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Test-side gunzip, so the gzipped real trace is checked before .gz ByteSources exist.
std::string Gunzip(const fs::path& path) {
  std::string out;
  gzFile file = gzopen(path.string().c_str(), "rb");
  if (file == nullptr) return out;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  gzclose(file);
  return out;
}

Result<ReadReport> Parse(std::string json, CollectingSink& sink) {
  return ParseKinetoJson(json, "trace.json", sink);
}

// ---- an independent count with simdjson's DOM API (numbers as int64 or double) ----

struct DomTotals {
  std::map<std::string, int64_t> count_by_cat;  // X events of GPU categories
  int64_t kernel_dur_ns = 0;
  std::map<int64_t, int64_t> ops_by_stream;
  int64_t kernels_with_launch = 0;  // kernels whose correlation id a launch call has
  int64_t launches_without_kernel = 0;
  std::vector<std::pair<int64_t, double>> kernel_ts;  // exact ns when integral, else -1
};

int64_t DomNs(simdjson::dom::element value) {  // µs → ns; durations here are small
  if (value.is_int64()) return value.get_int64().value() * 1000;
  if (value.is_uint64()) return static_cast<int64_t>(value.get_uint64().value()) * 1000;
  return std::llround(value.get_double().value() * 1000.0);
}

bool IsLaunchName(std::string_view name) {
  for (std::string_view prefix : {"cudaLaunchKernel", "cuLaunchKernel", "cudaGraphLaunch",
                                  "cuGraphLaunch", "cudaLaunchCooperativeKernel"}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

DomTotals CountWithDom(const std::string& json) {
  DomTotals totals;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(json);
  std::vector<int64_t> kernel_correlations;
  std::vector<int64_t> launch_correlations;
  for (simdjson::dom::element event : doc["traceEvents"].get_array()) {
    std::string_view ph, cat;
    if (event["ph"].get(ph) || ph != "X" || event["cat"].get(cat)) continue;
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
      ++totals.count_by_cat[std::string(cat)];
      ++totals.ops_by_stream[event["args"]["stream"].get_int64().value()];
      if (cat == "kernel") {
        totals.kernel_dur_ns += DomNs(event["dur"]);
        kernel_correlations.push_back(event["args"]["correlation"].get_int64().value());
        simdjson::dom::element ts = event["ts"];
        totals.kernel_ts.emplace_back(ts.is_double() ? -1 : DomNs(ts), double(ts.get_double()));
      }
    } else if ((cat == "cuda_runtime" || cat == "cuda_driver") &&
               IsLaunchName(event["name"].get_string().value())) {
      launch_correlations.push_back(event["args"]["correlation"].get_int64().value());
    }
  }
  std::set<int64_t> launches(launch_correlations.begin(), launch_correlations.end());
  std::set<int64_t> kernels(kernel_correlations.begin(), kernel_correlations.end());
  for (int64_t c : kernel_correlations) totals.kernels_with_launch += launches.count(c);
  for (int64_t c : launch_correlations) totals.launches_without_kernel += !kernels.count(c);
  return totals;
}

class RealKineto : public ::testing::TestWithParam<const char*> {};

TEST_P(RealKineto, CountsKernelTimeAndStreamsAgreeWithDomCount) {
  fs::path path = RealFile(GetParam());
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent (shared data not mounted)";
  std::string json = path.extension() == ".gz" ? Gunzip(path) : Slurp(path);
  ASSERT_FALSE(json.empty());
  DomTotals expected = CountWithDom(json);
  CollectingSink sink;
  Result<ReadReport> report = Parse(json, sink);
  ASSERT_TRUE(report.ok()) << report.status().message();

  std::map<std::string, int64_t> count_by_cat;
  std::map<int64_t, int64_t> ops_by_stream;
  int64_t kernel_dur_ns = 0;
  std::vector<int64_t> kernel_starts;
  for (const auto& c : sink.ops()) {
    const char* cat = c.op.kind == OpKind::kKernel   ? "kernel"
                      : c.op.kind == OpKind::kMemcpy ? "gpu_memcpy"
                                                     : "gpu_memset";
    ++count_by_cat[cat];
    ++ops_by_stream[c.op.stream];
    if (c.op.kind == OpKind::kKernel) {
      kernel_dur_ns += c.op.duration_ns;
      kernel_starts.push_back(c.op.start_ns);
    }
  }
  EXPECT_GT(count_by_cat["kernel"], 0);
  EXPECT_EQ(count_by_cat, expected.count_by_cat);
  EXPECT_EQ(kernel_dur_ns, expected.kernel_dur_ns);
  EXPECT_EQ(ops_by_stream, expected.ops_by_stream);

  // Kernel starts: exact where the file wrote integers, within a µs where it wrote decimals.
  std::sort(kernel_starts.begin(), kernel_starts.end());
  std::sort(expected.kernel_ts.begin(), expected.kernel_ts.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  ASSERT_EQ(kernel_starts.size(), expected.kernel_ts.size());
  for (size_t i = 0; i < kernel_starts.size(); ++i) {
    if (expected.kernel_ts[i].first >= 0) {
      EXPECT_EQ(kernel_starts[i], expected.kernel_ts[i].first);
    } else {
      EXPECT_NEAR(double(kernel_starts[i]), expected.kernel_ts[i].second * 1000.0, 1000.0);
    }
  }

  int64_t joined = 0, unjoined = 0;
  for (const auto& c : sink.calls()) (c.call.kernel_start_ns >= 0 ? joined : unjoined)++;
  EXPECT_EQ(joined, expected.kernels_with_launch);
  EXPECT_EQ(unjoined, expected.launches_without_kernel);

  const auto& ops = sink.ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.op.start_ns < b.op.start_ns;
  }));
  const auto& calls = sink.calls();
  EXPECT_TRUE(std::is_sorted(calls.begin(), calls.end(), [](const auto& a, const auto& b) {
    return a.call.api_start_ns < b.call.api_start_ns;
  }));
  EXPECT_EQ(report->kind, InputKind::kKinetoJson);
}

INSTANTIATE_TEST_SUITE_P(HtaTraces, RealKineto,
                         ::testing::Values("hta_alexnet_a100_kineto.json",
                                           "hta_event_sync_multistream_a100_kineto.json",
                                           "hta_sampled_rank0_kineto.json",
                                           "hta_a100_80g_rank0_ws16_kineto.json.gz"));

// ---- whole files through ReadKinetoJson (plain, .gz and .zst ByteSources) ----

std::vector<std::tuple<int64_t, int64_t, std::string>> Summary(const CollectingSink& sink) {
  std::vector<std::tuple<int64_t, int64_t, std::string>> out;
  for (const auto& c : sink.ops()) out.emplace_back(c.op.start_ns, c.op.duration_ns, c.name);
  for (const auto& c : sink.calls())
    out.emplace_back(c.call.api_start_ns, c.call.kernel_start_ns, c.api_name);
  return out;
}

TEST(KinetoFiles, GzipFileReadsLikeItsContent) {
  fs::path path = RealFile("hta_a100_80g_rank0_ws16_kineto.json.gz");
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent (shared data not mounted)";
  CollectingSink from_file, from_memory;
  Result<ReadReport> a = ReadKinetoJson(path, "rank0.json.gz", from_file);
  ASSERT_TRUE(a.ok()) << a.status().message();
  Result<ReadReport> b = Parse(Gunzip(path), from_memory);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_GT(from_file.ops().size(), 6000u);
  int steps = 0;
  for (const auto& r : from_file.ranges()) steps += r.name.starts_with("ProfilerStep#");
  EXPECT_EQ(steps, 5);  // ProfilerStep#550..554
  EXPECT_EQ(Summary(from_file), Summary(from_memory));
  EXPECT_EQ(a->rows, b->rows);
}

TEST(KinetoFiles, PlainAndZstdFiles) {
  const std::string json = R"json({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5.5, "dur": 1, "args": {"stream": 7}}
]})json";
  fs::path dir = fs::path(::testing::TempDir()) / "stepstat_kineto_files";
  fs::create_directories(dir);
  std::ofstream(dir / "t.json", std::ios::binary) << json;
  std::string compressed(ZSTD_compressBound(json.size()), '\0');
  compressed.resize(
      ZSTD_compress(compressed.data(), compressed.size(), json.data(), json.size(), 3));
  std::ofstream(dir / "t.json.zst", std::ios::binary) << compressed;
  for (const char* name : {"t.json", "t.json.zst"}) {
    CollectingSink sink;
    Result<ReadReport> report = ReadKinetoJson(dir / name, name, sink);
    ASSERT_TRUE(report.ok()) << report.status().message();
    ASSERT_EQ(sink.ops().size(), 1u) << name;
    EXPECT_EQ(sink.ops()[0].op.start_ns, 5500) << name;
  }
  CollectingSink sink;
  Result<ReadReport> missing = ReadKinetoJson(dir / "absent.json", "absent.json", sink);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), ::testing::StartsWith("absent.json"));
}

// ---- fixtures: every timestamp form, names, devices, joins ----

TEST(KinetoFixture, IntegerMicroseconds) {
  CollectingSink sink;
  Result<ReadReport> report = Parse(R"json({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1695835572943613, "dur": 12,
   "args": {"stream": 7, "correlation": 14}}
]})json",
                                    sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.ops().size(), 1u);
  EXPECT_EQ(sink.ops()[0].op.start_ns, 1695835572943613000);
  EXPECT_EQ(sink.ops()[0].op.duration_ns, 12000);
  EXPECT_EQ(sink.ops()[0].op.line, 2);
  EXPECT_EQ(report->layout, "Kineto JSON, integer us");
  EXPECT_EQ(report->time_unit, "us");
  EXPECT_EQ(report->rows, 1);
}

TEST(KinetoFixture, DecimalMicrosecondsAreExactPastADoublesPrecision) {
  CollectingSink sink;
  // 1712867402348700.123 µs = 1712867402348700123 ns: a double would round it.
  Result<ReadReport> report = Parse(R"json({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
   "ts": 1712867402348700.123, "dur": 2.5, "args": {"stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
   "tid": 7, "ts": 1712867402348690.001, "dur": 1.0005, "args": {"stream": 7, "bytes": 92928}}
]})json",
                                    sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.ops().size(), 2u);
  EXPECT_EQ(sink.ops()[0].name, "Memcpy HtoD (Pageable -> Device)");  // sorted by start
  EXPECT_EQ(sink.ops()[0].op.kind, OpKind::kMemcpy);
  EXPECT_EQ(sink.ops()[0].op.bytes, 92928);
  EXPECT_EQ(sink.ops()[0].op.duration_ns, 1000);  // 1000.5 ns: half to even
  EXPECT_EQ(sink.ops()[0].op.correlation_id, -1);
  EXPECT_EQ(sink.ops()[1].op.start_ns, 1712867402348700123);
  EXPECT_EQ(sink.ops()[1].op.duration_ns, 2500);
  EXPECT_EQ(sink.ops()[1].op.bytes, -1);
  EXPECT_EQ(report->layout, "Kineto JSON, decimal us");
}

TEST(KinetoFixture, RelativeToBaseTimeNanosecondsWrittenAfterTheEvents) {
  CollectingSink sink;
  Result<ReadReport> report = Parse(R"json({
  "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4037, "tid": 4038,
     "ts": 10.5, "dur": 3.25, "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 15.000, "dur": 1.5,
     "args": {"stream": 7, "correlation": 9}}
  ],
  "traceName": "x.json",
  "baseTimeNanoseconds": 1727000000000000000
})json",
                                    sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.ops().size(), 1u);
  EXPECT_EQ(sink.ops()[0].op.start_ns, 1727000000000015000);
  ASSERT_EQ(sink.calls().size(), 1u);
  const LaunchCall& call = sink.calls()[0].call;
  EXPECT_EQ(call.api_start_ns, 1727000000000010500);
  EXPECT_EQ(call.api_duration_ns, 3250);
  EXPECT_EQ(call.kernel_start_ns, 1727000000000015000);
  EXPECT_EQ(call.kernel_duration_ns, 1500);
  EXPECT_EQ(call.queue_duration_ns, 15000 - 13750);
  EXPECT_EQ(call.pid, 4037);
  EXPECT_EQ(call.tid, 4038);
  EXPECT_EQ(call.correlation_id, 9);
  EXPECT_EQ(call.line, 3);
  EXPECT_EQ(sink.calls()[0].api_name, "cudaLaunchKernel");
  EXPECT_EQ(sink.calls()[0].kernel_name, "k");
  EXPECT_EQ(report->layout, "Kineto JSON, decimal us, relative to baseTimeNanoseconds");
}

TEST(KinetoFixture, LaunchApisOnlyAndGraphLaunchesGetOneCallPerKernel) {
  CollectingSink sink;
  Result<ReadReport> report = Parse(R"json({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 2, "dur": 5, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 3, "dur": 1, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "g1", "pid": 0, "tid": 7, "ts": 4, "dur": 1, "args": {"stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "g2", "pid": 0, "tid": 7, "ts": 6, "dur": 1, "args": {"stream": 7, "correlation": 2}},
  {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 2, "pid": 0, "tid": 7, "ts": 4},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 9, "args": {"correlation": 2, "Input Dims": [[1, 2], [2, 3]]}}
]})json",
                                    sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->rows, 7);
  EXPECT_EQ(sink.ops().size(), 2u);
  ASSERT_EQ(sink.calls().size(), 3u);
  EXPECT_EQ(sink.calls()[0].kernel_name, "g1");
  EXPECT_EQ(sink.calls()[0].call.queue_duration_ns, -1);  // starts before the call returns
  EXPECT_EQ(sink.calls()[1].kernel_name, "g2");
  EXPECT_EQ(sink.calls()[1].call.queue_duration_ns, -1);  // 6 µs < 7 µs
  EXPECT_EQ(sink.calls()[2].api_name, "cuLaunchKernel");
  EXPECT_EQ(sink.calls()[2].call.kernel_start_ns, -1);  // no kernel has correlation 3
  EXPECT_EQ(sink.calls()[2].kernel_name, "");
}

// Issue 30: a sink that asks for copy calls gets the copy and memset calls too, marked as
// such, in the same batches; other sinks never see one.
TEST(KinetoFixture, CopyCallsOnlyForASinkThatAsks) {
  const std::string json = R"json({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 2, "ts": 3, "dur": 1, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 4, "dur": 1, "args": {"correlation": 4}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 5, "dur": 1, "args": {"stream": 7, "correlation": 1, "bytes": 8}},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 6, "dur": 1, "args": {"stream": 7, "correlation": 2}}
]})json";
  CollectingSink launches_only;
  ASSERT_TRUE(Parse(json, launches_only).ok());
  ASSERT_EQ(launches_only.calls().size(), 1u);
  EXPECT_EQ(launches_only.calls()[0].api_name, "cudaLaunchKernel");
  EXPECT_EQ(launches_only.calls()[0].call.kind, CallKind::kKernelLaunch);

  CollectingSink with_copies;
  with_copies.fields = TraceFields::All() | TraceFields{0, TraceFields::kCopyCalls};
  ASSERT_TRUE(Parse(json, with_copies).ok());
  ASSERT_EQ(with_copies.calls().size(), 3u);  // not cudaStreamSynchronize
  EXPECT_EQ(with_copies.calls()[0].api_name, "cudaMemcpyAsync");
  EXPECT_EQ(with_copies.calls()[0].call.kind, CallKind::kCopy);
  EXPECT_EQ(with_copies.calls()[0].call.correlation_id, 1);
  EXPECT_EQ(with_copies.calls()[0].call.kernel_start_ns, -1);  // joined to no kernel
  EXPECT_EQ(with_copies.calls()[1].call.kind, CallKind::kKernelLaunch);
  EXPECT_EQ(with_copies.calls()[1].kernel_name, "k");
  EXPECT_EQ(with_copies.calls()[2].api_name, "cudaMemsetAsync");
  EXPECT_EQ(with_copies.calls()[2].call.kind, CallKind::kCopy);
  EXPECT_EQ(with_copies.calls()[2].call.tid, 2);
}

TEST(KinetoFixture, OldCategoriesStringIdsEscapesAndDevices) {
  CollectingSink sink;
  Result<ReadReport> report = Parse(R"json({
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}],
  "traceEvents": [
  {"ph": "X", "cat": "Kernel", "name": "void f<\"q\">(\u00e9\ud83d\ude00)", "pid": 0, "tid": "stream 7", "ts": 5, "dur": 1, "args": {"correlation": 4}},
  {"ph": "X", "cat": "Memset", "name": "Memset (Device)", "pid": "GPU 1", "tid": "stream 9", "ts": 6, "dur": 1, "args": {"bytes": 8}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 3, "tid": 9, "ts": 7, "dur": 0, "args": {"bytes": 8, "stream": 9}}
]})json",
                                    sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.ops().size(), 3u);
  EXPECT_EQ(sink.ops()[0].name, "void f<\"q\">(\xc3\xa9\xf0\x9f\x98\x80)");
  EXPECT_EQ(sink.ops()[0].op.stream, 7);
  EXPECT_EQ(sink.ops()[0].device, "NVIDIA A100-SXM4-80GB (0)");
  EXPECT_EQ(sink.ops()[1].op.kind, OpKind::kMemset);
  EXPECT_EQ(sink.ops()[1].op.stream, 9);
  EXPECT_EQ(sink.ops()[1].device, "GPU 1");
  EXPECT_EQ(sink.ops()[2].device, "GPU 3");
  EXPECT_EQ(sink.ops()[2].op.duration_ns, 0);
}

TEST(KinetoTimes, SimpleFormsAgreeWithParseScaledDecimalAndOthersAreLeftToIt) {
  // Every string over a small alphabet up to 6 characters, plus long digit runs near the
  // int64 limit: the fast path must either give ParseScaledDecimal's exact value or decline.
  std::vector<std::string> texts = {
      "9223372036854775",     "9223372036854775.807", "9223372036854775.808", "9223372036854776",
      "999999999999999999",   "99999999999999999.9",  "9999999999999999999",  "9223372036854775807",
      "1712867402000000.123", "1712867402000000"};
  const std::string alphabet = "09.5e-";
  std::vector<std::string> frontier = {""};
  for (int length = 1; length <= 6; ++length) {
    std::vector<std::string> next;
    for (const std::string& prefix : frontier) {
      for (char c : alphabet) next.push_back(prefix + c);
    }
    texts.insert(texts.end(), next.begin(), next.end());
    frontier = std::move(next);
  }
  int fast = 0;
  for (const std::string& text : texts) {
    bool has_fraction = false;
    std::optional<int64_t> simple = kineto::SimpleMicrosToNs(text, has_fraction);
    if (!simple) continue;
    ++fast;
    DecimalResult exact = ParseScaledDecimal(text, 3);
    ASSERT_TRUE(exact.ok()) << text;
    EXPECT_EQ(*simple, exact.value) << text;
    EXPECT_EQ(has_fraction, text.find('.') != std::string::npos) << text;
  }
  EXPECT_GT(fast, 1000);  // the common forms do take the fast path
  bool has_fraction = false;
  EXPECT_EQ(kineto::SimpleMicrosToNs("12.3456", has_fraction), std::nullopt);  // needs rounding
  EXPECT_EQ(kineto::SimpleMicrosToNs("9223372036854776", has_fraction), std::nullopt);
  EXPECT_EQ(kineto::SimpleMicrosToNs("1712867402000000.123", has_fraction),
            int64_t{1712867402000000123});
}

TEST(KinetoLines, CountsNewlinesExactlyAcrossWordsAndRounds) {
  std::string text;
  int64_t expected = 0;
  for (int i = 0; i < 20000; ++i) {  // more than 255 words of newlines in a row, and mixes
    bool newline = i < 3000 || i % 7 == 0 || i % 13 == 5;
    text += newline ? '\n' : static_cast<char>(i % 10 == 0 ? 0x8A : 'a' + i % 26);
    expected += newline;
  }
  EXPECT_EQ(kineto::CountNewlines(text), expected);
  EXPECT_EQ(kineto::CountNewlines(std::string_view(text).substr(3, 9)), 9);
  EXPECT_EQ(kineto::LineAt("a\nb\nc", 4), 3);
  EXPECT_EQ(kineto::LineAt("a\nb", 99), 2);
}

TEST(KinetoFixture, UserAnnotationsAndOldProfilerStepsAreCpuRanges) {
  CollectingSink sink;
  Result<ReadReport> report = Parse(R"json({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 10, "tid": 11, "ts": 100, "dur": 50.5},
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#6", "pid": 10, "tid": 11, "ts": 40, "dur": 60, "args": {"x": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 41, "dur": 6},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7", "pid": 0, "tid": 7, "ts": 101, "dur": 40}
], "baseTimeNanoseconds": 1000000})json",
                                    sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.ranges().size(), 2u);
  EXPECT_EQ(sink.ranges()[0].name, "ProfilerStep#6");
  EXPECT_EQ(sink.ranges()[0].range.start_ns, 1040000);
  EXPECT_EQ(sink.ranges()[0].range.end_ns, 1100000);
  EXPECT_EQ(sink.ranges()[0].range.line, 3);
  EXPECT_EQ(sink.ranges()[1].name, "ProfilerStep#7");
  EXPECT_EQ(sink.ranges()[1].range.end_ns, 1150500);
  EXPECT_EQ(sink.ranges()[1].range.pid, 10);
  EXPECT_EQ(sink.ranges()[1].range.tid, 11);
  EXPECT_EQ(sink.ranges()[1].range.depth, -1);
}

// ---- errors ----

std::string ParseError(std::string json) {
  CollectingSink sink;
  Result<ReadReport> report = Parse(std::move(json), sink);
  EXPECT_FALSE(report.ok());
  return report.status().message();
}

TEST(KinetoErrors, BrokenJsonNamesTheLine) {
  EXPECT_THAT(ParseError("{\"traceEvents\": [\n"
                         "  {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 2},\n"
                         "  {\"ph\": \"X\" \"cat\": \"kernel\"}\n"
                         "]}"),
              ::testing::MatchesRegex("trace\\.json:3: invalid JSON while reading .*"));
  EXPECT_THAT(ParseError("{\"traceEvents\": [\n{\"ph\": \"X\"}\n"),
              ::testing::StartsWith("trace.json"));
  EXPECT_THAT(ParseError("{\"traceEvents\": []}\n{}"),
              HasSubstr("trace.json:2: unexpected content after the top-level object"));
  EXPECT_THAT(ParseError(""), ::testing::StartsWith("trace.json: invalid JSON"));
}

TEST(KinetoErrors, NotAKinetoTrace) {
  EXPECT_EQ(ParseError(R"({"schemaVersion": 1})"),
            "trace.json: no \"traceEvents\" array: not a PyTorch profiler trace");
  EXPECT_EQ(ParseError(R"([1, 2])"),
            "trace.json: the top level is not a JSON object: not a PyTorch profiler trace");
}

TEST(KinetoErrors, BadTimesNameTheLine) {
  EXPECT_EQ(
      ParseError("{\"traceEvents\": [\n"
                 "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": -5, \"dur\": 1}]}"),
      "trace.json:2: bad \"ts\" -5: negative value");
  EXPECT_EQ(ParseError("{\"traceEvents\": [\n\n"
                       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5}]}"),
            "trace.json:3: event without \"dur\"");
  EXPECT_EQ(ParseError("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                       "\"ts\": 9223372036854775.807, \"dur\": 1}]}"),
            "trace.json:1: ts + dur overflows 64-bit nanoseconds");
}

}  // namespace
}  // namespace stepstat
