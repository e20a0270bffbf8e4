// How many times each command opens and reads its inputs, per format (issue 20: each input
// read as few times as the result needs). Counted by the hook in src/io/read_counts.h; the
// counts per command and format are printed (the table in bench/results/pipeline-*.md comes
// from this output) and held to what the pipeline promises.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/read_counts.h"
#include "ledger/ledger_test_support.h"
#include "stepstat/engine.h"
#include "stepstat/engine_compare.h"
#include "stepstat/engine_ranks.h"
#include "stepstat/engine_report.h"
#include "stepstat/report.h"
#include "stepstat/synth.h"
#include "test_platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

// A synth run of 8 steps in a folder of its own; files large enough that a format sniff
// or a bounded prefix check does not reach their end.
class SynthRun {
 public:
  SynthRun(const std::string& tag, synth::SynthFormat format, bool nvtx) {
    dir_ = fs::temp_directory_path() /
           ("stepstat_read_count_" + tag + "_" + std::to_string(testing_support::ProcessId()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    synth::SynthOptions options;
    options.out_base = dir_ / "run";
    options.format = format;
    options.steps = 8;
    options.nvtx = nvtx;
    Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
    EXPECT_TRUE(written.ok()) << written.status().message();
    if (written.ok()) files = written.value();
    base = options.out_base;
  }
  ~SynthRun() { fs::remove_all(dir_); }
  synth::SynthResult files;
  fs::path base;

 private:
  fs::path dir_;
};

enum class Command { kSummarize, kSummarizeDetails, kSteps, kStepMedianDetails };

const char* NameOf(Command command) {
  switch (command) {
    case Command::kSummarize: return "summarize";
    case Command::kSummarizeDetails: return "summarize --details";
    case Command::kSteps: return "steps";
    case Command::kStepMedianDetails: return "summarize --step median --details";
  }
  return "";
}

uint64_t last_plan = 0;  // CountReads' meter's plan
uint64_t last_read = 0;  // and the bytes it counted

// Bytes of the reads that reached their files' ends, by the counts and the files' sizes.
uint64_t WholeReadBytes(const std::map<std::string, FileReads>& reads, const fs::path& dir) {
  uint64_t bytes = 0;
  for (const auto& [file, count] : reads) {
    bytes += fs::file_size(dir / file) * static_cast<uint64_t>(count.to_end);
  }
  return bytes;
}

// Runs `command` on `inputs` through the engine; the reads of each file, by file name. Sets
// last_plan to what the progress meter's plan said (engine_progress.h): the tests hold it to
// the bytes of the whole reads, so that the total shown neither stops short nor is reached
// before the last pass ends.
std::map<std::string, FileReads> CountReads(Command command, const std::vector<fs::path>& inputs,
                                            const std::string& format,
                                            const std::string& policy = "") {
  RunOptions options;
  options.inputs = inputs;
  options.policy = policy;
  ProgressMeter meter;
  options.progress = &meter;
  options.details = command == Command::kSummarizeDetails || command == Command::kStepMedianDetails;
  if (command == Command::kStepMedianDetails) options.step = "median";
  StartCountingReads();
  Status status =
      command == Command::kSteps ? RunSteps(options).status() : RunSummary(options).status();
  std::map<std::string, FileReads> reads = StopCountingReads();
  EXPECT_TRUE(status.ok()) << NameOf(command) << ": " << status.message();
  const ProgressSnapshot end = meter.Snapshot();
  // Every byte counted was read: what an open left unread (a sniff, a prefix check, an
  // SQLite open that reads only its tables' pages) was given back when it closed.
  EXPECT_EQ(end.bytes_total, end.bytes_read) << NameOf(command) << " on " << format;
  last_read = end.bytes_read;
  last_plan = end.bytes_planned;
  for (const auto& [file, count] : reads) {
    std::printf("| %s | %s | %s | %lld | %lld |\n", NameOf(command), format.c_str(), file.c_str(),
                static_cast<long long>(count.opens), static_cast<long long>(count.to_end));
  }
  return reads;
}

constexpr Command kCommands[] = {Command::kSummarize, Command::kSummarizeDetails, Command::kSteps,
                                 Command::kStepMedianDetails};

// Every command reads each CSV of a pair to the end only as often as its passes need:
// summarize once; steps by the kernel period three times on the GPU side (detection,
// accumulation, residue: each needs what the one before found), the launch side once
// (read with the accumulation, on its own thread); one step's summary once more each, to
// replay that step. Besides, one format sniff and one bounded prefix check per file.
TEST(ReadCounts, CsvPair) {
  SynthRun run("csv", synth::SynthFormat::kCsv, /*nvtx=*/false);
  const std::string gpu = run.files.gpu_trace.filename().string();
  const std::string exec = run.files.kern_exec_trace.filename().string();
  const std::map<Command, std::pair<int64_t, int64_t>> expected = {
      {Command::kSummarize, {1, 1}},
      {Command::kSummarizeDetails, {1, 1}},
      {Command::kSteps, {3, 1}},
      {Command::kStepMedianDetails, {4, 2}}};
  for (Command command : kCommands) {
    std::map<std::string, FileReads> reads = CountReads(command, {run.base}, "CSV pair");
    EXPECT_EQ(reads[gpu].to_end, expected.at(command).first) << NameOf(command);
    EXPECT_EQ(reads[exec].to_end, expected.at(command).second) << NameOf(command);
    EXPECT_EQ(reads[gpu].opens, reads[gpu].to_end + 2) << NameOf(command);
    EXPECT_EQ(last_plan, WholeReadBytes(reads, run.base.parent_path())) << NameOf(command);
  }
}

// With NVTX ranges, steps read the ranges once; the launch side once, beside the GPU side,
// which builds the key → step runs as it goes (streamed_key_runs.h; before, a pass over every
// launch first); the GPU side for the accumulation and the residue. The GPU span the
// annotations are measured against costs no read of its own: the accumulation measures it
// and confirms the choice made against the ranges' extent (steps.cc, StepsOfGuessedSpan;
// before, one more GPU read).
TEST(ReadCounts, CsvPairWithNvtx) {
  SynthRun run("nvtx", synth::SynthFormat::kCsv, /*nvtx=*/true);
  const std::string gpu = run.files.gpu_trace.filename().string();
  const std::string exec = run.files.kern_exec_trace.filename().string();
  const std::string nvtx = run.files.nvtx_trace.filename().string();
  std::map<std::string, FileReads> reads =
      CountReads(Command::kSteps, {run.base, run.files.nvtx_trace}, "CSV pair + NVTX");
  EXPECT_EQ(reads[gpu].to_end, 2);
  EXPECT_EQ(reads[exec].to_end, 1);
  EXPECT_LE(reads[nvtx].opens, 3);  // a small file: every open reaches its end
  // The plan: the GPU and launch passes, and the ranges read once (the sniff and the check
  // of so small a file reach its end too, but they are not passes).
  const fs::path dir = run.base.parent_path();
  EXPECT_EQ(last_plan,
            fs::file_size(dir / gpu) * 2 + fs::file_size(dir / exec) + fs::file_size(dir / nvtx));
}

// A policy that leaves most kernel time in `other` (only norms are a component), so that
// the policy hint speaks; written into `folder`.
fs::path WriteNormsOnlyPolicy(const fs::path& folder) {
  const fs::path policy = folder / "norms-only.toml";
  std::ofstream(policy) << "[policy]\nname = \"norms-only\"\ndescription = \"n\"\n"
                           "[[component]]\nname = \"norms\"\ndescription = \"n\"\n"
                           "patterns = ['norm']\n";
  return policy;
}

// A policy that leaves most kernel time in `other`: the policy hint's coverage comes from the
// summary's own pass, not from a second read of the GPU trace (only one step's summary
// reads the kernel names again: its pass saw one step).
TEST(ReadCounts, CsvPairPolicyHintReadsNothingMore) {
  SynthRun run("hint", synth::SynthFormat::kCsv, /*nvtx=*/false);
  const fs::path policy = WriteNormsOnlyPolicy(run.base.parent_path());
  const std::string gpu = run.files.gpu_trace.filename().string();
  const std::string exec = run.files.kern_exec_trace.filename().string();
  for (Command command : {Command::kSummarize, Command::kSummarizeDetails}) {
    std::map<std::string, FileReads> reads =
        CountReads(command, {run.base}, "CSV pair, hint", policy.string());
    EXPECT_EQ(reads[gpu].to_end, 1) << NameOf(command);
    EXPECT_EQ(reads[exec].to_end, 1) << NameOf(command);
  }
}

// `stepstat report` on a pair with NVTX ranges reads the files only as often as the steps
// with their timelines do: the summary with details rides on the steps' two-sided pass and
// the kernels' spreads on their residue pass (summary_alongside.h); the timelines' replay
// reads the launch side once more. (Before: two more GPU reads, two more launch reads.)
TEST(ReadCounts, ReportReadsOnlyWhatTheStepsRead) {
  SynthRun run("report", synth::SynthFormat::kCsv, /*nvtx=*/true);
  const std::string gpu = run.files.gpu_trace.filename().string();
  const std::string exec = run.files.kern_exec_trace.filename().string();
  const std::string nvtx = run.files.nvtx_trace.filename().string();
  ReportRunOptions options;
  options.run.inputs = {run.base, run.files.nvtx_trace};
  StartCountingReads();
  Result<ReportResult> report = RunReport(options);
  std::map<std::string, FileReads> reads = StopCountingReads();
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_TRUE(report->steps.has_value()) << report->steps_note;
  for (const auto& [file, count] : reads) {
    std::printf("| report | CSV pair + NVTX | %s | %lld | %lld |\n", file.c_str(),
                static_cast<long long>(count.opens), static_cast<long long>(count.to_end));
  }
  // As `steps` (CsvPairWithNvtx): the accumulation, the residue.
  EXPECT_EQ(reads[gpu].to_end, 2);
  // As `steps`, and the replay of the two drawn steps' launch calls.
  EXPECT_EQ(reads[exec].to_end, 2);
  // A small file read whole, and sniffed once more to keep it from the summary's inputs.
  EXPECT_LE(reads[nvtx].opens, 4);

  // A policy that leaves most kernel time in `other`: the page says the policy hint, whose
  // coverage comes from the same pass (no read of the kernel names of its own).
  const fs::path policy = WriteNormsOnlyPolicy(run.base.parent_path());
  options.run.policy = policy.string();
  StartCountingReads();
  Result<ReportResult> hinted = RunReport(options);
  reads = StopCountingReads();
  ASSERT_TRUE(hinted.ok()) << hinted.status().message();
  EXPECT_TRUE(hinted->summary.context.policy_hint.has_value());
  EXPECT_EQ(reads[gpu].to_end, 2);
  EXPECT_EQ(reads[exec].to_end, 2);
}

// Two adjacent GPU rows swapped near the top of `path`'s data: out of start order there.
void SwapTwoRows(const fs::path& path) {
  std::vector<std::string> lines;
  {
    std::ifstream in(path, std::ios::binary);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  for (size_t i = 100; i + 1 < lines.size(); ++i) {
    if (std::stoll(lines[i]) < std::stoll(lines[i + 1])) {
      std::swap(lines[i], lines[i + 1]);
      break;
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (const std::string& line : lines) out << line << "\n";
}

// GPU rows out of start order: the first pass learns where order broke (the period
// detector's, whose stage only watches: the detector copes with any order itself) and every
// later pass holds at once (start_order.h) instead of streaming into the same wall: no
// read of the GPU trace stops short besides the sniff and the prefix check, and the launch
// side is read whole once.
TEST(ReadCounts, CsvPairOutOfOrderHoldsFromTheFirstBreakOn) {
  SynthRun run("unsorted", synth::SynthFormat::kCsv, /*nvtx=*/false);
  SwapTwoRows(run.files.gpu_trace);
  const std::string gpu = run.files.gpu_trace.filename().string();
  const std::string exec = run.files.kern_exec_trace.filename().string();
  std::map<std::string, FileReads> reads =
      CountReads(Command::kSteps, {run.base}, "CSV pair, 2 rows swapped");
  // Read whole: the period detector's streaming pass and its sorted pass (it keeps its own
  // (start, end) order check), the accumulation holding, the residue holding.
  EXPECT_EQ(reads[gpu].to_end, 4);
  EXPECT_EQ(reads[gpu].opens, reads[gpu].to_end + 2);
  EXPECT_EQ(reads[exec].to_end, 1);
  EXPECT_EQ(reads[exec].opens, reads[exec].to_end + 2);
  // The pass the plan did not foresee: the total grows when it begins (and ends read).
  EXPECT_EQ(last_plan,
            WholeReadBytes(reads, run.base.parent_path()) - fs::file_size(run.files.gpu_trace));
}

// A Kineto trace is parsed whole by its reader: each command parses it once, however many
// passes it makes (the steps pipeline replays the records of the one parse).
TEST(ReadCounts, KinetoParsedOncePerCommand) {
  SynthRun run("kineto", synth::SynthFormat::kKineto, /*nvtx=*/true);
  const std::string trace = run.files.gpu_trace.filename().string();
  for (Command command : kCommands) {
    std::map<std::string, FileReads> reads = CountReads(command, {run.files.gpu_trace}, "Kineto");
    EXPECT_EQ(reads[trace].to_end, 1) << NameOf(command);
    EXPECT_EQ(last_plan, fs::file_size(run.files.gpu_trace)) << NameOf(command);
  }
}

// SQLite files are opened, not streamed through src/io: the opens are counted.
TEST(ReadCounts, SqliteOpens) {
  SynthRun run("sqlite", synth::SynthFormat::kSqlite, /*nvtx=*/true);
  const std::string trace = run.files.gpu_trace.filename().string();
  for (Command command : kCommands) {
    std::map<std::string, FileReads> reads = CountReads(command, {run.files.gpu_trace}, "SQLite");
    EXPECT_GE(reads[trace].opens, 2) << NameOf(command);  // the sniff and at least one read
    // SQLite reads pages as it needs them, so nothing is planned; they are counted (the
    // progress VFS), well beyond the sniff's first 256 KiB.
    EXPECT_EQ(last_plan, 0u) << NameOf(command);
    std::printf("SQLite %s: %llu bytes counted of a %llu-byte export\n", NameOf(command),
                static_cast<unsigned long long>(last_read),
                static_cast<unsigned long long>(fs::file_size(run.files.gpu_trace)));
    EXPECT_GT(last_read, fs::file_size(run.files.gpu_trace) / 2) << NameOf(command);
  }
}

// The faces beyond summarize and steps (issue 31, item 4): diff, record, report, ranks and
// summarize --step, per format, read each file to its end (to_end) and open it (opens) as
// often as below. Today's counts, pinned so that a new face or pass cannot add a read
// unnoticed; the run plan is to bring them down (then lower these).
struct FaceReads {
  const char* face;
  int64_t to_end, opens;  // of the run's GPU file
};

std::map<std::string, FileReads> CountFace(const std::string& face,
                                           const std::vector<fs::path>& inputs,
                                           const fs::path& ledger) {
  std::vector<std::string> args;
  for (const fs::path& input : inputs) args.push_back(input.string());
  StartCountingReads();
  Status status = Status::Ok();
  if (face == "diff") {
    DiffRunOptions options;
    options.base = args;
    options.cand = args;
    status = RunDiff(options).status();
  } else if (face == "record") {
    RecordOptions options;
    options.inputs = args;
    options.ledger = ledger;
    status = RunRecord(options).status();
  } else if (face == "report") {
    ReportRunOptions options;
    options.run.inputs = inputs;
    status = RunReport(options).status();
  } else if (face == "ranks") {
    RanksOptions options;
    options.inputs = {inputs.front()};
    options.jobs = 1;
    status = RunRanks(options).status();
  } else if (face == "summarize --step median") {
    RunOptions options;
    options.inputs = inputs;
    options.step = "median";
    status = RunSummary(options).status();
  }
  std::map<std::string, FileReads> reads = StopCountingReads();
  EXPECT_TRUE(status.ok()) << face << ": " << status.message();
  return reads;
}

void ExpectFaceReads(const std::string& format, const SynthRun& run,
                     const std::vector<fs::path>& inputs, const std::vector<FaceReads>& expected) {
  const fs::path ledger = run.base.parent_path() / "ledger.sqlite";
  const std::string gpu = run.files.gpu_trace.filename().string();
  for (const FaceReads& face : expected) {
    fs::remove(ledger);
    std::map<std::string, FileReads> reads = CountFace(face.face, inputs, ledger);
    for (const auto& [file, count] : reads) {
      std::printf("| %s | %s | %s | %lld | %lld |\n", face.face, format.c_str(), file.c_str(),
                  static_cast<long long>(count.opens), static_cast<long long>(count.to_end));
    }
    EXPECT_EQ(reads[gpu].to_end, face.to_end) << face.face << " on " << format;
    EXPECT_EQ(reads[gpu].opens, face.opens) << face.face << " on " << format;
  }
}

// record keeps the whole run's summary exactly as `summarize` prints it, whether it rode on
// the steps' pass (sorted rows: no read of its own) or, the ride stopped by rows out of
// order, read the trace itself.
TEST(ReadCounts, RecordKeepsTheSummaryOfSummarizeWithOrWithoutTheRide) {
  for (bool swapped : {false, true}) {
    SCOPED_TRACE(swapped ? "rows out of order" : "rows in order");
    SynthRun run(swapped ? "record_unsorted" : "record_sorted", synth::SynthFormat::kCsv,
                 /*nvtx=*/true);
    if (swapped) SwapTwoRows(run.files.gpu_trace);
    const fs::path ledger = run.base.parent_path() / "ledger.sqlite";
    std::map<std::string, FileReads> reads = CountFace("record", {run.base}, ledger);
    RunOptions summarize;
    summarize.inputs = {run.files.gpu_trace, run.files.kern_exec_trace};
    Result<SummaryResult> summary = RunSummary(summarize);
    ASSERT_TRUE(summary.ok()) << summary.status().message();
    EXPECT_EQ(QueryText(ledger, "SELECT summary_json FROM runs"), StepStatsToJson(summary->stats));
    if (!swapped) {
      // The whole-run summary adds no read to the steps' (before it rode: one more).
      std::map<std::string, FileReads> steps = CountReads(Command::kSteps, {run.base}, "steps");
      const std::string gpu = run.files.gpu_trace.filename().string();
      EXPECT_EQ(reads[gpu].to_end, steps[gpu].to_end);
    }
  }
}

TEST(ReadCounts, EveryFaceOnACsvPairWithNvtx) {
  SynthRun run("faces_csv", synth::SynthFormat::kCsv, /*nvtx=*/true);
  ExpectFaceReads("CSV pair + NVTX", run, {run.base},
                  // diff: each side's steps (2; the kernel table rides on their residue
                  // pass); record: one side (the whole-run summary rides on its steps' pass)
                  // and the ledger's hash; report: as steps
                  // (ReportReadsOnlyWhatTheStepsRead); ranks: one summary; one step: the
                  // steps and its replay (2 sniffs and checks each besides).
                  {{"diff", 4, 8},
                   {"record", 2, 7},
                   {"report", 2, 7},
                   {"ranks", 1, 3},
                   {"summarize --step median", 2, 4}});
}

TEST(ReadCounts, EveryFaceOnAnSqliteExport) {
  SynthRun run("faces_sqlite", synth::SynthFormat::kSqlite, /*nvtx=*/true);
  ExpectFaceReads("SQLite", run, {run.files.gpu_trace},
                  // Opens only: SQLite reads the pages its queries need (SqliteOpens). Each
                  // connection counts one open, and one more for its tables' pages once a
                  // scan reads them (since checked scans read pages too: fewer bytes, more
                  // opens than the SQL path's 24, 21, 17, 9, 9). record: 2 sniffs more than
                  // its side and summary, that find the summary cannot ride on the steps.
                  // The steps' ranges are read without the GPU tables (the accumulation
                  // measures the span they are chosen by): one open fewer a side.
                  {{"diff", 0, 26},
                   {"record", 0, 21},
                   {"report", 0, 24},
                   {"ranks", 0, 6},
                   {"summarize --step median", 0, 13}});
}

TEST(ReadCounts, EveryFaceOnAKinetoTrace) {
  SynthRun run("faces_kineto", synth::SynthFormat::kKineto, /*nvtx=*/true);
  ExpectFaceReads("Kineto", run, {run.files.gpu_trace},
                  // Parses: each TraceReads parses once (the steps, whose replays give a
                  // diff side its kernel table too); record's whole-run summary and
                  // report's summary and spreads ride on the steps' replays of that parse
                  // (summary_alongside.h), report's timelines replay it (before, 2 parses
                  // more; an open less since the summary rides); the ledger's hash and the
                  // sniffs that decide the ride add opens.
                  {{"diff", 2, 8},
                   {"record", 1, 8},
                   {"report", 1, 8},
                   {"ranks", 1, 4},
                   {"summarize --step median", 1, 4}});
}

}  // namespace
}  // namespace stepstat
