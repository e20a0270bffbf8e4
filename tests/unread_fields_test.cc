// A pass reads only what its sinks say they read (TraceFields, trace.h): the CSV readers pass
// over the columns no sink reads, the Kineto reader skips the launch join. A sink that read a
// field it had not declared would silently see a default: so every run here is made three
// times, as is, with every field read whatever the sinks say, and with each field no sink
// declared poisoned (unread_fields.h), and all three must print the same bytes.
#include "readers/unread_fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_suite.h"
#include "readers/test_sink.h"
#include "stepstat/engine.h"
#include "stepstat/read.h"
#include "stepstat/report.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
using testing_support::RealFiles;

const fs::path kExampleBase =
    fs::path(STEPSTAT_SOURCE_DIR) / "examples" / "gb10-dit-step" / "gb10-dit-step";
const fs::path kRealDir = testing_support::RealDir();

// The hook for one scope: it is process-wide.
class ReadsHooked {
 public:
  explicit ReadsHooked(UnreadFieldsHook hook) { SetUnreadFieldsHookForTesting(hook); }
  ~ReadsHooked() { SetUnreadFieldsHookForTesting(UnreadFieldsHook::kNone); }
};

// What a user of the run sees: the JSON (with details when asked), the warnings and the
// policy hint; or the error.
std::string Printed(const RunOptions& options) {
  Result<SummaryResult> result = RunSummary(options);
  if (!result.ok()) return "error: " + result.status().message();
  std::string printed = result->details
                            ? StepStatsWithDetailsToJson(result->stats, *result->details)
                            : StepStatsToJson(result->stats);
  for (const std::string& warning : result->context.warnings) printed += "\nwarning: " + warning;
  if (result->context.policy_hint) printed += "\n" + result->context.policy_hint->Message();
  return printed;
}

void ExpectSameReadEverythingOrPoisoned(const std::string& label, const RunOptions& options) {
  SCOPED_TRACE(label);
  const std::string clean = Printed(options);
  EXPECT_EQ(clean.rfind("error: ", 0), std::string::npos) << clean;
  for (UnreadFieldsHook hook : {UnreadFieldsHook::kReadEverything, UnreadFieldsHook::kPoison}) {
    ReadsHooked hooked(hook);
    EXPECT_EQ(clean, Printed(options))
        << (hook == UnreadFieldsHook::kPoison ? "poisoned" : "every field");
  }
}

RunOptions On(std::vector<fs::path> inputs) {
  RunOptions options;
  options.inputs = std::move(inputs);
  return options;
}

TEST(UnreadFields, TheHookPoisonsWhatASinkDoesNotRead) {
  CollectingSink sink;
  // One field of the operations (a sink that reads none of them wants none: TraceFields).
  sink.fields = {TraceFields::kOpPid, 0};
  {
    ReadsHooked poison(UnreadFieldsHook::kPoison);
    Result<ReadReport> read = ReadInput(kExampleBase.string() + "_cuda_gpu_trace.csv", "gpu.csv",
                                        InputKind::kNsysGpuTraceCsv, sink);
    ASSERT_TRUE(read.ok()) << read.status().message();
  }
  ASSERT_FALSE(sink.ops.empty());
  // The reader's own sink (start-order measuring) reads the start; nothing reads the rest.
  EXPECT_NE(sink.ops.front().op.start_ns, kUnreadPoison);
  EXPECT_EQ(sink.ops.front().op.duration_ns, kUnreadPoison);
  EXPECT_EQ(sink.ops.front().op.stream, kUnreadPoison);
  EXPECT_EQ(sink.ops.front().name, kUnreadName);
  EXPECT_EQ(sink.ops.front().device, kUnreadName);
}

TEST(UnreadFields, SummariesOfTheExampleAndSynthRunsReadOnlyWhatTheyDeclare) {
  ExpectSameReadEverythingOrPoisoned("example", On({kExampleBase}));
  RunOptions one_device = On({kExampleBase});
  one_device.device = "NVIDIA GB10 (0)";
  ExpectSameReadEverythingOrPoisoned("example, one device", one_device);
  RunOptions details = On({kExampleBase});
  details.details = true;
  ExpectSameReadEverythingOrPoisoned("example, details", details);

  const fs::path dir = fs::temp_directory_path() /
                       ("stepstat_unread_" + std::to_string(testing_support::ProcessId()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  synth::SynthOptions synth_options;
  synth_options.out_base = dir / "run";
  synth_options.steps = 4;
  synth_options.streams = 2;
  synth_options.nvtx = true;
  Result<synth::SynthResult> synth = synth::WriteSynthTraces(synth_options);
  ASSERT_TRUE(synth.ok()) << synth.status().message();
  ExpectSameReadEverythingOrPoisoned("synth", On({synth->gpu_trace, synth->kern_exec_trace}));
  RunOptions step = On({synth->gpu_trace, synth->kern_exec_trace, synth->nvtx_trace});
  step.step = "median";
  ExpectSameReadEverythingOrPoisoned("synth, median step", step);
  ExpectSameReadEverythingOrPoisoned("synth, kern-exec alone", On({synth->kern_exec_trace}));
  // A Kineto trace: its launch calls are joined to their kernels only for a pass that
  // reads a call's kernel fields (one device, details).
  synth_options.format = synth::SynthFormat::kKineto;
  synth_options.out_base = dir / "kineto";
  Result<synth::SynthResult> kineto = synth::WriteSynthTraces(synth_options);
  ASSERT_TRUE(kineto.ok()) << kineto.status().message();
  ExpectSameReadEverythingOrPoisoned("synth Kineto", On({kineto->gpu_trace}));
  RunOptions kineto_details = On({kineto->gpu_trace});
  kineto_details.details = true;
  ExpectSameReadEverythingOrPoisoned("synth Kineto, details", kineto_details);
  RunOptions kineto_step = On({kineto->gpu_trace});
  kineto_step.step = "median";
  ExpectSameReadEverythingOrPoisoned("synth Kineto, median step", kineto_step);
  fs::remove_all(dir);
}

TEST(UnreadFields, SummariesOfRealTracesReadOnlyWhatTheyDeclare) {
  const std::vector<fs::path> gpu_traces = RealFiles("_cuda_gpu_trace.csv");
  if (gpu_traces.empty()) GTEST_SKIP() << "no real traces at " << kRealDir;
  for (const fs::path& file : gpu_traces) {
    ExpectSameReadEverythingOrPoisoned(file.filename().string(), On({file}));
  }
  for (const fs::path& file : RealFiles("_cuda_kern_exec_trace.csv")) {
    ExpectSameReadEverythingOrPoisoned(file.filename().string(), On({file}));
  }
  for (const std::string suffix : {"_kineto.json", "_kineto.json.gz"}) {
    for (const fs::path& file : RealFiles(suffix)) {
      ExpectSameReadEverythingOrPoisoned(file.filename().string(), On({file}));
      // Its first device alone: the launch calls are then joined to their kernels.
      RunOptions details = On({file});
      details.details = true;
      Result<SummaryResult> described = RunSummary(details);
      ASSERT_TRUE(described.ok()) << described.status().message();
      ASSERT_FALSE(described->details->devices.empty());
      RunOptions one_device = On({file});
      one_device.device = described->details->devices.front().device;
      ExpectSameReadEverythingOrPoisoned(file.filename().string() + ", " + one_device.device,
                                         one_device);
    }
  }
  // A GPU trace with the API trace of its capture.
  const fs::path kmeans = kRealDir / "hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv";
  const fs::path kmeans_api = kRealDir / "hcc_h100nvl_kmeans_cc_cuda_api_trace.csv";
  if (fs::exists(kmeans) && fs::exists(kmeans_api)) {
    ExpectSameReadEverythingOrPoisoned("kmeans with its API trace", On({kmeans, kmeans_api}));
  }
}

}  // namespace
}  // namespace stepstat
