// TraceSink's contract (trace.h): batches, then exactly one OnFinish after a whole read, and
// none after a failed one. The pipelines rely on it instead of finishing sinks by hand, so it
// is checked on every entry point that reads a file: ReadInput on each format, and the two
// halves of an SQLite export read apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "readers/sqlite/nsys_sqlite.h"
#include "stepstat/read.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

// Records the order of calls: finishing before the last batch, or twice, is a failure.
class ContractSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    return Batch(ops.size());
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    return Batch(calls.size());
  }
  Status OnFinish() override {
    ++finishes;
    return Status::Ok();
  }

  int batches = 0;
  int64_t rows = 0;
  int finishes = 0;
  bool batch_after_finish = false;
  int fail_at_batch = 0;  ///< > 0: that batch returns an error

 private:
  Status Batch(size_t size) {
    if (finishes > 0) batch_after_finish = true;
    ++batches;
    rows += static_cast<int64_t>(size);
    return batches == fail_at_batch ? Status::Error("sink refused the batch") : Status::Ok();
  }
};

// A directory of this process's own: other test binaries (and other checkouts) run at once.
fs::path Dir() {
  static const fs::path dir = [] {
    std::random_device random;
    fs::path made =
        fs::path(::testing::TempDir()) /
        ("stepstat_sink_contract_" + std::to_string(random()) + std::to_string(random()));
    fs::create_directories(made);
    return made;
  }();
  return dir;
}

synth::SynthResult Synth(synth::SynthFormat format, const std::string& name) {
  synth::SynthOptions options;
  options.out_base = Dir() / name;
  options.format = format;
  options.steps = 3;
  options.nvtx = true;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  EXPECT_TRUE(written.ok()) << written.status().message();
  return written.ok() ? written.value() : synth::SynthResult{};
}

Result<ReadReport> Read(const fs::path& path, TraceSink& sink) {
  ASSIGN_OR_RETURN(InputKind kind, DetectInputKind(path, path.filename().string()));
  return ReadInput(path, path.filename().string(), kind, sink);
}

class EveryFormat : public ::testing::TestWithParam<synth::SynthFormat> {};

TEST_P(EveryFormat, OneFinishAfterTheLastBatchOfAWholeRead) {
  synth::SynthResult trace = Synth(GetParam(), "whole");
  ContractSink sink;
  ASSERT_TRUE(Read(trace.gpu_trace, sink).ok());
  EXPECT_GT(sink.rows, 0);
  EXPECT_EQ(sink.finishes, 1);
  EXPECT_FALSE(sink.batch_after_finish);
}

TEST_P(EveryFormat, NoFinishWhenTheSinkFailsTheRead) {
  synth::SynthResult trace = Synth(GetParam(), "refused");
  ContractSink sink;
  sink.fail_at_batch = 1;
  EXPECT_FALSE(Read(trace.gpu_trace, sink).ok());
  EXPECT_EQ(sink.finishes, 0);
}

INSTANTIATE_TEST_SUITE_P(Synth, EveryFormat,
                         ::testing::Values(synth::SynthFormat::kCsv, synth::SynthFormat::kSqlite,
                                           synth::SynthFormat::kKineto));

TEST(SinkContract, NoFinishWhenTheFileBreaksMidway) {
  synth::SynthResult trace = Synth(synth::SynthFormat::kCsv, "broken");
  std::ofstream(trace.gpu_trace, std::ios::app) << "12,not a number,\n";
  ContractSink sink;
  EXPECT_FALSE(Read(trace.gpu_trace, sink).ok());
  EXPECT_GT(sink.rows, 0);      // the rows before the bad one were delivered...
  EXPECT_EQ(sink.finishes, 0);  // ...and are not to be used
}

TEST(SinkContract, BytesInMemoryFinishOnceToo) {
  synth::SynthResult trace = Synth(synth::SynthFormat::kCsv, "bytes");
  std::ifstream file(trace.gpu_trace, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  TraceInput input;
  input.display_name = "gpu.csv";
  input.kind = InputKind::kNsysGpuTraceCsv;
  input.bytes = bytes;
  ContractSink sink;
  ASSERT_TRUE(ReadInput(input, sink).ok());
  EXPECT_EQ(sink.rows, trace.gpu_rows);
  EXPECT_EQ(sink.finishes, 1);

  ContractSink refused;
  refused.fail_at_batch = 1;
  EXPECT_FALSE(ReadInput(input, refused).ok());
  EXPECT_EQ(refused.finishes, 0);
}

TEST(SinkContract, SqliteHalvesReadApartFinishOnceEach) {
  synth::SynthResult trace = Synth(synth::SynthFormat::kSqlite, "halves");
  std::string name = trace.gpu_trace.filename().string();
  ContractSink gpu, launches;
  ASSERT_TRUE(ReadNsysSqliteGpuSide(trace.gpu_trace, name, gpu).ok());
  ASSERT_TRUE(ReadNsysSqliteLaunchSide(trace.gpu_trace, name, launches).ok());
  EXPECT_EQ(gpu.rows, trace.gpu_rows);
  EXPECT_EQ(launches.rows, trace.kern_exec_rows);
  EXPECT_EQ(gpu.finishes, 1);
  EXPECT_EQ(launches.finishes, 1);
  EXPECT_FALSE(gpu.batch_after_finish || launches.batch_after_finish);

  ContractSink refused;
  refused.fail_at_batch = 1;
  EXPECT_FALSE(ReadNsysSqliteLaunchSide(trace.gpu_trace, name, refused).ok());
  EXPECT_EQ(refused.finishes, 0);
}

}  // namespace
}  // namespace stepstat
