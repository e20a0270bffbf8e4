#include "stepstat/synth.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "synth/kernel_catalog.h"
#include "synth/step_timeline.h"
#include "synth/test_csv.h"
#include "synth/trace_writer.h"
#include "test_platform.h"

namespace stepstat::synth {
namespace {

fs::path TestDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("stepstat_synth_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

struct Kernel {
  int64_t start, end, stream;
};

TEST(Synth, ManyStepsOnTwoStreamsAreConsistentAndConcurrent) {
  fs::path dir = TestDir("streams");
  SynthOptions options;
  options.out_base = dir / "t";
  options.steps = 3;
  options.streams = 2;
  Result<SynthResult> result = WriteSynthTraces(options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->gpu_rows, 3 * 2803);
  EXPECT_EQ(result->kern_exec_rows, 3 * 2744);
  EXPECT_EQ(result->bytes, static_cast<int64_t>(fs::file_size(result->gpu_trace) +
                                                fs::file_size(result->kern_exec_trace)));
  Table gpu = ReadCsv(result->gpu_trace);
  Table exec = ReadCsv(result->kern_exec_trace);
  ASSERT_EQ(static_cast<int64_t>(gpu.rows.size()), result->gpu_rows);
  ASSERT_EQ(static_cast<int64_t>(exec.rows.size()), result->kern_exec_rows);

  std::vector<Kernel> kernels;
  int64_t previous = 0;
  for (size_t r = 0; r < gpu.rows.size(); ++r) {
    int64_t start = gpu.Int(r, "Start (ns)");
    ASSERT_GE(start, previous) << "row " << r;
    previous = start;
    if (gpu.Text(r, "Name").rfind("[CUDA mem", 0) == 0) continue;
    kernels.push_back({start, start + gpu.Int(r, "Duration (ns)"), gpu.Int(r, "Strm")});
  }
  // No stream runs two kernels at once, but the two streams do overlap each other.
  int64_t cross_stream_overlaps = 0;
  std::vector<int64_t> stream_end(32, 0);
  int64_t latest_end = 0;
  for (const Kernel& k : kernels) {
    ASSERT_LT(k.stream, 32);
    EXPECT_GE(k.start, stream_end[k.stream]);
    if (k.start < latest_end) ++cross_stream_overlaps;
    stream_end[k.stream] = k.end;
    latest_end = std::max(latest_end, k.end);
  }
  EXPECT_GT(cross_stream_overlaps, 100);
  EXPECT_GT(stream_end[13], 0) << "the side stream is nsys stream 13";

  // One launching thread: calls are disjoint, in order, and each precedes its kernel.
  int64_t previous_end = 0;
  for (size_t r = 0; r < exec.rows.size(); ++r) {
    int64_t api_start = exec.Int(r, "API Start (ns)");
    EXPECT_GE(api_start, previous_end) << "row " << r;
    previous_end = api_start + exec.Int(r, "API Dur (ns)");
    EXPECT_GE(exec.Int(r, "Queue Dur (ns)"), 0) << "row " << r;
  }
  fs::remove_all(dir);
}

TEST(Synth, EveryExtraStreamGetsWork) {
  fs::path dir = TestDir("five");
  SynthOptions options;
  options.out_base = dir / "t";
  options.streams = 5;
  ASSERT_TRUE(WriteSynthTraces(options).ok());
  Table gpu = ReadCsv(fs::path(options.out_base).concat("_cuda_gpu_trace.csv"));
  std::map<int64_t, int64_t> rows_per_stream;
  for (size_t r = 0; r < gpu.rows.size(); ++r) ++rows_per_stream[gpu.Int(r, "Strm")];
  EXPECT_EQ(rows_per_stream.size(), 5u);
  for (int64_t stream : {7, 13, 14, 15, 16}) EXPECT_GT(rows_per_stream[stream], 100) << stream;
  fs::remove_all(dir);
}

TEST(Synth, LaterStepsVaryButKeepTheShape) {
  fs::path dir = TestDir("steps");
  SynthOptions options;
  options.out_base = dir / "t";
  options.steps = 2;
  ASSERT_TRUE(WriteSynthTraces(options).ok());
  Table exec = ReadCsv(fs::path(options.out_base).concat("_cuda_kern_exec_trace.csv"));
  ASSERT_EQ(exec.rows.size(), 2u * 2744);
  int64_t step_time[2] = {0, 0};
  for (size_t r = 0; r < exec.rows.size(); ++r) {
    EXPECT_EQ(exec.Text(r, "Kernel Name"), exec.Text(r % 2744, "Kernel Name"));
    step_time[r / 2744] += exec.Int(r, "Kernel Dur (ns)");
  }
  EXPECT_NE(step_time[0], step_time[1]);
  EXPECT_NEAR(static_cast<double>(step_time[1]) / step_time[0], 1.0, 0.03);
  // The second step starts after the first ended: the host synchronizes between steps.
  EXPECT_GT(exec.Int(2744, "API Start (ns)"),
            exec.Int(2743, "Kernel Start (ns)") + exec.Int(2743, "Kernel Dur (ns)"));
  fs::remove_all(dir);
}

TEST(Synth, SlowerStretchesOneComponentAndShiftsTheWorkAfterIt) {
  fs::path dir = TestDir("slower");
  SynthOptions options;
  options.out_base = dir / "base";
  options.steps = 2;
  ASSERT_TRUE(WriteSynthTraces(options).ok());
  options.out_base = dir / "cand";
  options.slower_component = "nvfp4_gemms";
  options.slower_percent = 10;
  Result<SynthResult> written = WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  Table base = ReadCsv(dir / "base_cuda_kern_exec_trace.csv");
  Table cand = ReadCsv(dir / "cand_cuda_kern_exec_trace.csv");
  ASSERT_EQ(base.rows.size(), cand.rows.size());
  std::map<std::string, Component> component_of;
  for (const KernelKind& kind : AllKinds()) component_of[std::string(kind.name)] = kind.component;
  int64_t stretched = 0;
  for (size_t r = 0; r < base.rows.size(); ++r) {
    std::string name = base.Text(r, "Kernel Name");
    ASSERT_EQ(cand.Text(r, "Kernel Name"), name) << "row " << r;
    int64_t was = base.Int(r, "Kernel Dur (ns)");
    int64_t now = cand.Int(r, "Kernel Dur (ns)");
    if (component_of.at(name) == Component::kNvfp4Gemms) {
      EXPECT_EQ(now, RoundToTick(was * 110 / 100)) << "row " << r;
      ++stretched;
    } else {
      EXPECT_EQ(now, was) << "row " << r << ": " << name;
    }
  }
  EXPECT_GT(stretched, 100);
  size_t last = base.rows.size() - 1;
  EXPECT_GT(cand.Int(last, "Kernel Start (ns)"), base.Int(last, "Kernel Start (ns)"));

  options.slower_component = "no_such_component";
  EXPECT_FALSE(WriteSynthTraces(options).ok());
  fs::remove_all(dir);
}

TEST(Synth, BadOptionsAndPathsFailWithoutPartialFiles) {
  fs::path dir = TestDir("errors");
  SynthOptions options;
  options.out_base = dir / "missing-dir" / "t";
  Result<SynthResult> result = WriteSynthTraces(options);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("cannot create"), std::string::npos);
  options.out_base = dir / "t";
  options.steps = 0;
  EXPECT_FALSE(WriteSynthTraces(options).ok());
  options.steps = 1;
  options.streams = 0;
  EXPECT_FALSE(WriteSynthTraces(options).ok());
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(TraceWriter, QuotesOnlyWhatNeedsQuoting) {
  EXPECT_EQ(CsvField("nvjet_sm121_tst"), "nvjet_sm121_tst");
  EXPECT_EQ(CsvField("f<int, float>(T1)"), "\"f<int, float>(T1)\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(TraceWriter, FormatsFixedPointAndPaddedFields) {
  fs::path dir = TestDir("format");
  fs::path path = dir / "out.csv";
  std::FILE* file = std::fopen(path.string().c_str(), "wb");
  ASSERT_NE(file, nullptr);
  TextOut out(file, path.string());
  out.Fixed3(524);
  out.Char(' ');
  out.Fixed3(17'522'229);
  out.Char(' ');
  out.Fixed3(0);
  out.Char('|');
  out.Padded(32, 4);
  out.Padded(1, 4);
  out.Padded(123'456, 4);
  ASSERT_TRUE(out.Flush().ok());
  std::fclose(file);
  EXPECT_EQ(ReadFile(path), "0.524 17522.229 0.000|  32   1123456");
  fs::remove_all(dir);
}

TEST(SynthCommand, ReportsErrorsOnOneLineWithExitCode2) {
  fs::path dir = TestDir("cli");
  testing_support::ShellCommand command;
  command.argv = {STEPSTAT_BINARY, "synth", "--out", (dir / "nowhere" / "t").string()};
  command.stderr_file = (dir / "err").string();
  EXPECT_EQ(testing_support::RunShell(command), 2);
  std::string err = ReadFile(dir / "err");
  EXPECT_EQ(err.rfind("stepstat: cannot create ", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stepstat::synth
