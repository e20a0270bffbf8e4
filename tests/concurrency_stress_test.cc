// Issue 11: every two-thread path (summarize, summarize --details, steps over NVTX ranges and
// detected steps, the SQLite halves) run many times with the readers' lag bound squeezed to
// a few components, on inputs whose two sides are skewed against each other; every run
// under a deadline, every result identical. Then a file that fails mid-way, on each side:
// the error comes back (never a hang), naming the failing file and line.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "analysis/summary/summarize_internal.h"
#include "core/intervals.h"
#include "deadline.h"
#include "fixtures/formats/collecting_sink.h"
#include "io/read_progress.h"
#include "readers/kineto/kineto_json_internal.h"
#include "stepstat/engine.h"
#include "stepstat/engine_report.h"
#include "stepstat/html_report.h"
#include "stepstat/policy.h"
#include "stepstat/progress.h"
#include "stepstat/report.h"
#include "stepstat/steps.h"
#include "stepstat/synth.h"
#include "test_platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr size_t kDefaultLimit = PipelineLimits{}.max_pending_components;
const size_t kLimits[] = {1, 3, 64, kDefaultLimit};

fs::path TempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("stepstat-stress-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The shape of bench/skewed_pair.py, small: one stream of kernels each followed by an idle
// gap (a union component apiece), launched by two CPU threads whose calls overlap into a
// few long launch components. `bad_gpu_row` / `bad_launch_row` (1-based data rows, 0: none)
// write a row that fails to parse.
struct SkewedPair {
  fs::path base;
  int64_t kernels = 0;
};

SkewedPair WriteSkewedPair(const fs::path& dir, int64_t kernels, int64_t burst,
                           int64_t bad_gpu_row = 0, int64_t bad_launch_row = 0) {
  SkewedPair pair{dir / "skew", kernels};
  std::ofstream gpu(pair.base.string() + "_cuda_gpu_trace.csv");
  std::ofstream exec(pair.base.string() + "_cuda_kern_exec_trace.csv");
  gpu << "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
         "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,"
         "Strm,Name\n";
  exec << "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
          "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,"
          "Kernel Name\n";
  const char* names[] = {"gemm_nt", "flash_fwd", "rms_norm", "quantize_nvfp4"};
  int64_t api = 1'000'000, gpu_free = api + 50'000;
  for (int64_t i = 0; i < kernels; ++i) {
    if (i > 0 && i % burst == 0) api += 20'000;
    int64_t duration = 1'500 + (i * 37) % 2'000;
    int64_t start = std::max(gpu_free, api + 3'500);
    gpu_free = start + duration + 400;
    const char* name = names[i % 4];
    if (i + 1 == bad_gpu_row) {
      gpu << "not-a-time," << duration << "," << i + 1 << ",,,,,,,,,,,,,,GPU (0),1,,7," << name
          << "\n";
    } else {
      gpu << start << "," << duration << "," << i + 1 << ",1,1,1,128,1,1,32,0,0,,,,,GPU (0),1,,7,"
          << name << "\n";
    }
    if (i + 1 == bad_launch_row) {
      exec << api << ",-5,0,0,0,0,0,1,1,0,cudaLaunchKernel,1 1 1,1 1 1," << name << "\n";
    } else {
      exec << api << ",3000," << api + 3'000 << "," << start - api - 3'000 << "," << start << ","
           << duration << "," << start + duration - api << ",70412," << 70412 + i % 2
           << ",0,cudaLaunchKernel,   1    1    1, 128    1    1," << name << "\n";
    }
    api += 2'000;
  }
  return pair;
}

Policy DefaultPolicy() { return BuiltinPolicy(kDefaultPolicyName).value(); }

std::string SummaryJson(const SummaryInputs& inputs, size_t limit, bool details) {
  std::string json;
  MustFinishWithin(60s, "summarize", [&] {
    Details d;
    Result<StepStats> stats =
        SummarizeWith(inputs, DefaultPolicy(), details ? &d : nullptr, PipelineLimits{limit});
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    json = details ? StepStatsWithDetailsToJson(*stats, d) : StepStatsToJson(*stats);
  });
  return json;
}

TEST(ConcurrencyStress, SummarizeOnASkewedPairGivesOneAnswerWithEveryLagBound) {
  SkewedPair pair = WriteSkewedPair(TempDir("summarize"), 30'000, 5'000);
  SummaryInputs inputs = ResolveInputs({pair.base.string()}).value();
  ASSERT_TRUE(inputs.launches.has_value());
  const std::string expected = SummaryJson(inputs, kDefaultLimit, false);
  for (size_t limit : kLimits) {
    for (int run = 0; run < 8; ++run) {
      ASSERT_EQ(SummaryJson(inputs, limit, false), expected) << "limit " << limit;
    }
  }
  // And the overlap in it is the independent one.
  Result<StepStats> stats = Summarize(inputs, DefaultPolicy());
  ASSERT_TRUE(stats.ok() && stats->cpu_gpu_overlap);
  EXPECT_GT(stats->cpu_gpu_overlap->launch_api_gpu_overlap_ns, 0);
}

TEST(ConcurrencyStress, SummarizeWithDetailsGivesOneAnswerWithEveryLagBound) {
  SkewedPair pair = WriteSkewedPair(TempDir("details"), 20'000, 20'000);
  SummaryInputs inputs = ResolveInputs({pair.base.string()}).value();
  const std::string expected = SummaryJson(inputs, kDefaultLimit, true);
  for (size_t limit : kLimits) {
    for (int run = 0; run < 4; ++run) ASSERT_EQ(SummaryJson(inputs, limit, true), expected);
  }
}

TEST(ConcurrencyStress, SqliteHalvesGiveOneAnswerWithEveryLagBound) {
  synth::SynthOptions options;
  options.out_base = TempDir("sqlite") / "dit";
  options.steps = 4;
  options.format = synth::SynthFormat::kSqlite;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  SummaryInputs inputs = ResolveInputs({written->gpu_trace.string()}).value();
  const std::string expected = SummaryJson(inputs, kDefaultLimit, false);
  for (size_t limit : kLimits) {
    for (int run = 0; run < 4; ++run) ASSERT_EQ(SummaryJson(inputs, limit, false), expected);
  }
}

std::string StepsJson(const StepsInputs& inputs, const StepsOptions& options) {
  std::string json;
  MustFinishWithin(60s, "steps", [&] {
    Result<StepsReport> report = AnalyzeSteps(inputs, DefaultPolicy(), options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    json = StepsToJson(*report, DefaultPolicy());
  });
  return json;
}

TEST(ConcurrencyStress, StepsOverRangesAndDetectedGiveOneAnswerWithEveryLagBound) {
  synth::SynthOptions synth_options;
  synth_options.out_base = TempDir("steps") / "dit";
  synth_options.steps = 5;
  synth_options.nvtx = true;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(synth_options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  for (bool with_ranges : {true, false}) {
    std::vector<std::string> args = {synth_options.out_base.string()};
    if (with_ranges) args.push_back(written->nvtx_trace.string());
    Result<StepsInputs> inputs = ResolveStepsInputs(args);
    ASSERT_TRUE(inputs.ok()) << inputs.status().message();
    StepsOptions options;
    if (with_ranges) options.range_regex = "denoise";
    const std::string expected = StepsJson(*inputs, options);
    for (size_t limit : kLimits) {
      options.max_pending_components = limit;
      for (int run = 0; run < 4; ++run) {
        ASSERT_EQ(StepsJson(*inputs, options), expected) << with_ranges << " " << limit;
      }
    }
  }
}

// `stepstat report`'s threads (RunReport: the summary riding on the steps' two-sided pass,
// then the residue pass with the drawn steps' launch calls read beside it), with the
// readers' lag squeezed: every page the same, none hung.
TEST(ConcurrencyStress, ReportGivesOnePageWithEveryLagBound) {
  synth::SynthOptions synth_options;
  synth_options.out_base = TempDir("report") / "dit";
  synth_options.steps = 4;
  synth_options.nvtx = true;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(synth_options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  ReportRunOptions options;
  options.run.inputs = {synth_options.out_base, written->nvtx_trace};
  options.run.steps.range_regex = "denoise";
  auto page = [&options] {
    std::string html;
    MustFinishWithin(kHangLimit, "report", [&] {
      Result<ReportResult> report = RunReport(options);
      ASSERT_TRUE(report.ok()) << report.status().message();
      ASSERT_EQ(report->timelines.size(), 2u);
      html = ReportToHtml(*report, "stepstat report");
    });
    return html;
  };
  const std::string expected = page();
  for (size_t limit : kLimits) {
    options.run.steps.max_pending_components = limit;
    for (int run = 0; run < 3; ++run) ASSERT_EQ(page(), expected) << "limit " << limit;
  }
}

// A side that fails mid-way releases the other, whichever is ahead; the message is the
// failing file's own, not the other side's cancellation.
TEST(ConcurrencyStress, ASideFailingMidwayIsReportedNotHung) {
  fs::path dir = TempDir("failing");
  for (bool gpu_fails : {true, false}) {
    SkewedPair pair =
        WriteSkewedPair(dir, 20'000, 20'000, gpu_fails ? 15'000 : 0, gpu_fails ? 0 : 15'000);
    SummaryInputs inputs = ResolveInputs({pair.base.string()}).value();
    std::string failing = gpu_fails ? inputs.gpu.display_name : inputs.launches->display_name;
    for (size_t limit : kLimits) {
      for (int run = 0; run < 3; ++run) {
        MustFinishWithin(60s, "a failing side", [&] {
          Result<StepStats> stats =
              SummarizeWith(inputs, DefaultPolicy(), nullptr, PipelineLimits{limit});
          ASSERT_FALSE(stats.ok());
          EXPECT_EQ(stats.status().message().rfind(failing + ":15001: ", 0), 0u)
              << stats.status().message();
        });
      }
    }
    Result<StepsInputs> steps_inputs = ResolveStepsInputs({pair.base.string()});
    ASSERT_TRUE(steps_inputs.ok());
    StepsOptions options;
    options.max_pending_components = 1;
    MustFinishWithin(60s, "steps with a failing side", [&] {
      Result<StepsReport> report = AnalyzeSteps(*steps_inputs, DefaultPolicy(), options);
      ASSERT_FALSE(report.ok());
      EXPECT_NE(report.status().message().find(failing), std::string::npos)
          << report.status().message();
    });
  }
}

// The same through the CLI: exit 2, one line naming the failing file and line, no output.
TEST(ConcurrencyStress, TheCliExitsTwoWhenASideFailsMidway) {
  fs::path dir = TempDir("failing-cli");
  for (bool gpu_fails : {true, false}) {
    SkewedPair pair =
        WriteSkewedPair(dir, 20'000, 20'000, gpu_fails ? 15'000 : 0, gpu_fails ? 0 : 15'000);
    fs::path out = dir / "out.json", err = dir / "err.txt";
    testing_support::ShellCommand command;
    command.argv = {STEPSTAT_BINARY, "summarize", pair.base.string(), "-o", out.string()};
    command.stderr_file = err.string();
    EXPECT_EQ(testing_support::RunShell(command), 2);
    EXPECT_FALSE(fs::exists(out));
    std::ifstream in(err);
    std::string line, rest;
    std::getline(in, line);
    EXPECT_FALSE(std::getline(in, rest)) << "more than one line: " << rest;
    std::string file =
        pair.base.string() + (gpu_fails ? "_cuda_gpu_trace.csv" : "_cuda_kern_exec_trace.csv");
    EXPECT_EQ(line.rfind("stepstat: " + file + ":15001: ", 0), 0u) << line;
  }
}

// The progress meter as `report` uses it: a summary and a steps run at once on two threads
// (each with its two reader threads) counting into one meter, while a third thread polls it
// as the CLI's ticker does. Every run under the hang limit; the figures a poller sees never
// go back, the bytes read never pass the total; the results are those of runs without it.
TEST(ConcurrencyStress, ProgressMeterSharedByConcurrentCallsWhilePolled) {
  fs::path dir = TempDir("progress");
  SkewedPair pair = WriteSkewedPair(dir, 20'000, 64);
  RunOptions plain;
  plain.inputs = {pair.base};
  plain.details = true;
  Result<SummaryResult> summary_alone = RunSummary(plain);
  Result<StepsResult> steps_alone = RunSteps(plain);
  ASSERT_TRUE(summary_alone.ok()) << summary_alone.status().message();
  ASSERT_TRUE(steps_alone.ok()) << steps_alone.status().message();
  const std::string summary_json =
      StepStatsWithDetailsToJson(summary_alone->stats, *summary_alone->details);
  const std::string steps_json = StepsToJson(steps_alone->report, steps_alone->context.policy);

  for (int round = 0; round < 10; ++round) {
    MustFinishWithin(kHangLimit, "two calls counting into one polled meter", [&] {
      ProgressMeter meter;
      RunOptions counted = plain;
      counted.progress = &meter;
      std::atomic<bool> done{false};
      // The poller owns `last` and the counters of what it saw; it only loads the meter.
      int64_t backwards = 0, beyond_total = 0, polls = 0;
      std::thread poller([&] {
        ProgressSnapshot last;
        while (!done.load(std::memory_order_acquire)) {
          ProgressSnapshot now = meter.Snapshot();
          if (now.bytes_read < last.bytes_read || now.bytes_total < last.bytes_total) ++backwards;
          if (now.bytes_read > now.bytes_total) ++beyond_total;
          last = now;
          ++polls;
          std::this_thread::yield();
        }
      });
      std::optional<Result<SummaryResult>> summary;
      std::thread summary_thread([&] { summary = RunSummary(counted); });
      Result<StepsResult> steps = RunSteps(counted);
      summary_thread.join();
      done.store(true, std::memory_order_release);
      poller.join();
      ASSERT_TRUE(summary->ok()) << summary->status().message();
      ASSERT_TRUE(steps.ok()) << steps.status().message();
      EXPECT_EQ(StepStatsWithDetailsToJson((*summary)->stats, *(*summary)->details), summary_json);
      EXPECT_EQ(StepsToJson(steps->report, steps->context.policy), steps_json);
      EXPECT_EQ(backwards, 0);
      EXPECT_EQ(beyond_total, 0);
      EXPECT_GT(polls, 0);
      const ProgressSnapshot end = meter.Snapshot();
      EXPECT_GT(end.bytes_read, 0u);
      EXPECT_EQ(end.bytes_total, end.bytes_read);  // the plans covered every read
    });
  }
}

// Every field the Kineto reader hands a sink, as text: two reads agree when their texts do.
std::string KinetoDigest(const testing_support::CollectingSink& sink) {
  std::ostringstream out;
  for (const auto& o : sink.ops()) {
    out << o.op.start_ns << ' ' << o.op.duration_ns << ' ' << o.op.stream << ' ' << o.op.bytes
        << ' ' << o.op.correlation_id << ' ' << o.op.line << ' ' << o.name << ' ' << o.device << ' '
        << static_cast<int>(o.op.kind) << ' ' << o.op.name << ' ' << o.op.device << '\n';
  }
  for (const auto& c : sink.calls()) {
    out << c.call.api_start_ns << ' ' << c.call.api_duration_ns << ' ' << c.call.kernel_start_ns
        << ' ' << c.call.correlation_id << ' ' << c.call.line << ' ' << c.api_name << ' '
        << c.kernel_name << ' ' << c.call.api_name << '\n';
  }
  for (const auto& r : sink.ranges()) {
    out << r.range.start_ns << ' ' << r.range.end_ns << ' ' << r.range.line << ' ' << r.name << ' '
        << r.range.name << '\n';
  }
  return out.str();
}

// Issue 15: the Kineto reader's parse threads (kineto_json_chunks.cc). A synthesized trace
// read with tiny chunks (hundreds of hand-offs between the parse threads and the reader's
// thread, the slots recycled each time) on 1 to 4 parse threads, with a progress meter
// counting the window as it moves: every read under the hang limit, every result the same
// to the byte and name id. Then a bad event near the end: every read fails (never hangs)
// with the one message naming its line.
TEST(ConcurrencyStress, KinetoParseThreadsGiveOneAnswerWithManyHandOffs) {
  fs::path dir = TempDir("kineto-threads");
  synth::SynthOptions options;
  options.out_base = dir / "t";
  options.format = synth::SynthFormat::kKineto;
  options.steps = 2;
  options.nvtx = true;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  const fs::path path = written->gpu_trace;
  auto read = [&](const fs::path& file, const kineto::ChunkOptions& chunks) {
    std::string digest;
    MustFinishWithin(kHangLimit, "a Kineto read on parse threads", [&] {
      ProgressMeter meter;
      ProgressScope scope(&meter);
      testing_support::CollectingSink sink;
      Result<ReadReport> report = kineto::ReadKinetoJsonWith(file, "t.json", sink, {}, chunks);
      digest = report.ok() ? KinetoDigest(sink) : report.status().message();
    });
    return digest;
  };
  const std::string one_thread = read(path, {size_t{1} << 30, 1});  // parsed whole
  ASSERT_GT(one_thread.size(), 100000u);
  for (int round = 0; round < 3; ++round) {
    for (int threads : {1, 2, 4}) {
      for (size_t chunk_bytes : {size_t{2} << 10, size_t{16} << 10}) {
        ASSERT_EQ(read(path, {chunk_bytes, threads}), one_thread)
            << threads << " threads, chunks of " << chunk_bytes;
      }
    }
  }

  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  {
    // The reads above went through the chunks, not the whole parse a failed cut falls back to.
    // (The chunks are copied out: the text needs no padding.)
    StringPool pool;
    kineto::Records records;
    EXPECT_TRUE(
        kineto::ParseEventsInChunks(text, "t.json", pool, records, {}, {}, {size_t{2} << 10, 4})
            .ok());
  }
  const size_t at = text.find("\"dur\": ", text.size() * 9 / 10);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 8, "\"dur\": -");
  const fs::path bad = dir / "bad.pt.trace.json";
  std::ofstream(bad, std::ios::binary) << text;
  const std::string whole_error = read(bad, {size_t{1} << 30, 1});
  EXPECT_NE(whole_error.find("t.json:"), std::string::npos) << whole_error;
  for (int threads : {1, 2, 4}) {
    EXPECT_EQ(read(bad, {size_t{2} << 10, threads}), whole_error) << threads << " threads";
  }
}

}  // namespace
}  // namespace stepstat
