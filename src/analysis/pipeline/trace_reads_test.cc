// TraceReads: a Kineto trace is parsed once and its replays hand every pass what a read of
// the file would, row for row and name for name, from a scratch file that leaves nothing
// behind, on one thread or both sides at once on two; other formats are read again on every
// pass.
#include "analysis/pipeline/trace_reads.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/pipeline/two_sides.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

// Every row as text: its bytes with each name id replaced by the name, in the order given,
// and where each batch ended (a replay gives the reader's batches back as they were).
class RowsText : public TraceSink {
 public:
  explicit RowsText(bool copy_calls = false) : copy_calls_(copy_calls) {}
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    const size_t from = text.size();
    for (const GpuOp& op : ops) {
      Add("op",
          {op.start_ns, op.duration_ns, op.stream, op.bytes, op.correlation_id, op.line,
           int64_t(op.kind), op.pid},
          {names.Get(op.name), names.Get(op.device)});
    }
    return EndBatch(from, this->ops);
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    const size_t from = text.size();
    for (const LaunchCall& call : calls) {
      Add("call",
          {call.api_start_ns, call.api_duration_ns, call.queue_duration_ns, call.kernel_start_ns,
           call.kernel_duration_ns, call.pid, call.tid, call.correlation_id, call.line,
           int64_t(call.kind)},
          {names.Get(call.api_name), names.Get(call.kernel_name), names.Get(call.device)});
    }
    return EndBatch(from, this->calls);
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    const size_t from = text.size();
    for (const CpuRange& range : ranges) {
      Add("range", {range.start_ns, range.end_ns, range.pid, range.tid, range.depth, range.line},
          {names.Get(range.name)});
    }
    return EndBatch(from, this->ranges);
  }
  Status OnFinish() override {
    text += "finish\n";
    return Status::Ok();
  }
  TraceFields reads() const override {
    return copy_calls_ ? TraceFields::All() | TraceFields{0, TraceFields::kCopyCalls}
                       : TraceFields::All();
  }
  std::string text;
  std::string ops, calls, ranges;  // each kind's batches alone
  size_t rows = 0;

 private:
  void Add(const char* what, std::initializer_list<int64_t> fields,
           std::initializer_list<std::string_view> names) {
    text += what;
    for (int64_t field : fields) text.append(" ").append(std::to_string(field));
    for (std::string_view name : names) text.append(" |").append(name);
    text += "\n";
    ++rows;
  }
  // Ends the batch written into `text` from `from` on, and copies it into `side` too.
  Status EndBatch(size_t from, std::string& side) {
    text += "batch\n";
    side += text.substr(from);
    return Status::Ok();
  }
  bool copy_calls_;
};

class TraceReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A folder of each test's own (ctest runs them at once), which is also the temporary
    // folder while it runs: the scratch files counted are this test's alone.
    dir_ = fs::temp_directory_path() /
           ("stepstat_trace_reads_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tmp");
    SetTempFolder(dir_ / "tmp");
    synth::SynthOptions options;
    options.out_base = dir_ / "run";
    options.steps = 5;
    options.nvtx = true;
    options.format = synth::SynthFormat::kKineto;
    Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
    ASSERT_TRUE(written.ok()) << written.status().message();
    input_.path = written->gpu_trace;
    input_.display_name = input_.path.filename().string();
    input_.kind = InputKind::kKinetoJson;
  }
  void TearDown() override {
    SetTempFolder(dir_.parent_path());
    fs::remove_all(dir_);
  }

  static void SetTempFolder(const fs::path& folder) {
#if defined(_WIN32)
    _wputenv_s(L"TMP", folder.c_str());
#else
    setenv("TMPDIR", folder.c_str(), 1);
#endif
  }
  size_t FilesInTemp() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_ / "tmp"), {}));
  }

  fs::path dir_;
  TraceInput input_;
};

TEST_F(TraceReadsTest, KinetoReplaysHandEveryPassWhatTheFileHolds) {
  for (bool copy_calls : {false, true}) {
    SCOPED_TRACE(copy_calls ? "with copy calls" : "kernel launches only");
    RowsText direct(copy_calls);
    Result<ReadReport> read = ReadInput(input_, direct);
    ASSERT_TRUE(read.ok()) << read.status().message();
    ASSERT_GT(direct.rows, 1000u);  // many batches: the replay reads each back at its offset

    TraceReads reads;
    EXPECT_FALSE(reads.Keeps(input_));
    RowsText first(copy_calls), second(copy_calls), gpu(copy_calls), launches(copy_calls);
    ASSERT_TRUE(reads.Whole(input_, first).ok());
    EXPECT_TRUE(reads.Keeps(input_));
    Result<ReadReport> replayed = reads.Whole(input_, second);
    ASSERT_TRUE(replayed.ok()) << replayed.status().message();
    ASSERT_TRUE(reads.GpuSide(input_, gpu).ok());
    ASSERT_TRUE(reads.LaunchSide(input_, launches).ok());
    EXPECT_EQ(first.text, direct.text);
    EXPECT_EQ(second.text, direct.text);
    EXPECT_EQ(gpu.text, direct.ops + "finish\n");  // one file: each side gets its rows
    EXPECT_EQ(launches.text, direct.calls + "finish\n");
    EXPECT_EQ(replayed->rows, read->rows);
    EXPECT_EQ(replayed->layout, read->layout);
  }
}

// The steps' accumulation replays both sides of a kept trace at once (two_sides.h); under
// ThreadSanitizer this also checks that the scratch file's reads are locked.
TEST_F(TraceReadsTest, BothSidesOfAKeptTraceReplayAtOnceOnTwoThreads) {
  RowsText direct;
  ASSERT_TRUE(ReadInput(input_, direct).ok());
  TraceReads reads;
  ASSERT_TRUE(reads.Prepare(input_).ok());
  ASSERT_TRUE(reads.Keeps(input_));
  for (int round = 0; round < 4; ++round) {
    RowsText gpu, launches;
    SideStatuses statuses =
        ReadBothSides([&] { return reads.GpuSide(input_, gpu).status(); },
                      [&] { return reads.LaunchSide(input_, launches).status(); }, [] {});
    ASSERT_TRUE(statuses.gpu.ok()) << statuses.gpu.message();
    ASSERT_TRUE(statuses.launch.ok()) << statuses.launch.message();
    EXPECT_EQ(gpu.text, direct.ops + "finish\n");
    EXPECT_EQ(launches.text, direct.calls + "finish\n");
  }
}

TEST_F(TraceReadsTest, TheScratchFileHasNoNameWhileKeptAndIsGoneAfter) {
  const size_t before = FilesInTemp();
  ASSERT_EQ(before, 0u);
  {
    TraceReads reads;
    RowsText rows;
    ASSERT_TRUE(reads.Whole(input_, rows).ok());
    ASSERT_TRUE(reads.Keeps(input_));
#if !defined(_WIN32)
    EXPECT_EQ(FilesInTemp(), before);  // removed as soon as it was opened
#endif
  }
  EXPECT_EQ(FilesInTemp(), before);
}

TEST_F(TraceReadsTest, CsvInputsAreReadAgainNotKept) {
  synth::SynthOptions options;
  options.out_base = dir_ / "csv";
  options.steps = 2;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  TraceInput csv{written->gpu_trace, "gpu.csv", InputKind::kNsysGpuTraceCsv};
  TraceReads reads;
  RowsText once, again;
  ASSERT_TRUE(reads.Whole(csv, once).ok());
  EXPECT_FALSE(reads.Keeps(csv));
  fs::remove(written->gpu_trace);  // a second pass reads the file: it must be there
  Result<ReadReport> gone = reads.Whole(csv, again);
  EXPECT_FALSE(gone.ok());
}

}  // namespace
}  // namespace stepstat
