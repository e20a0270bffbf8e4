// The engine's calls for a job of many ranks: one trace per rank summarized on a pool of
// threads into exact partials (partial.h), merged and finished (ranks.h). Like engine.h,
// each takes options and returns plain structs; a face chooses flags and writers.
//
//   RanksOptions options;
//   options.inputs = {"traces/"};  // a directory: its nsys bases, .sqlite and Kineto files
//   options.jobs = 8;
//   Result<RanksRun> run = RunRanks(options);
//   if (run.ok()) std::fputs(RanksToJson(run->report).c_str(), stdout);
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "stepstat/engine.h"
#include "stepstat/partial.h"
#include "stepstat/progress.h"
#include "stepstat/ranks.h"
#include "stepstat/status.h"

namespace stepstat {

struct RanksOptions {
  /// Trace files, nsys bases (as RunSummary takes them, one rank each) or directories. A
  /// directory stands for each nsys base in it (X for X_cuda_gpu_trace.csv, .gz, .zst, or
  /// the older X_gputrace.csv), each .sqlite and each .pt.trace.json (.gz, .zst); not its
  /// subdirectories.
  std::vector<std::filesystem::path> inputs;
  /// As RunOptions::policy; every rank under the same one.
  std::string policy;
  /// RE2 with a capture group for the rank's digits, searched in each trace's file name and
  /// then its whole path (empty: kDefaultRankRegex). A trace it does not number is numbered
  /// by FinishRanks (natural order of the paths).
  std::string rank_regex;
  /// Traces summarized at once (0: the machine's hardware threads). Any value gives the same
  /// result: only the time changes.
  size_t jobs = 0;
  /// When not empty: each rank's partial is written there too, as <file name>.partial.json,
  /// for `stepstat merge` to combine with partials from other machines (the folder is
  /// created; a partial that cannot be written is that trace's error).
  std::filesystem::path partials_dir;
  /// Refused when it is one of the inputs (RunOptions::output).
  std::filesystem::path output;
  /// As RunOptions::progress; also counts the traces done (ProgressSnapshot::files_*).
  ProgressMeter* progress = nullptr;
  /// Split each trace by device (ListTraceDevices): one row per device, each exactly
  /// `summarize --device` of that device, all with the trace's rank. A trace of one device
  /// is one row, summarized whole. Partials (partials_dir) hold the trace's rows together.
  bool per_device = false;
};

struct RanksRun {
  RanksReport report;  ///< the traces that failed are in report.errors
  /// The policy hint of the trace with the most kernel time in `other`, when any trace had
  /// one (RunSummary's; traces split by device give none), the trace it is of, and how many
  /// traces had one: a face prints one line for the job.
  std::optional<PolicyHint> policy_hint;
  std::string policy_hint_trace;
  size_t hinted_traces = 0;
  /// The input checks' warnings, each trace's in rank order (printed by the face).
  std::vector<std::string> warnings;
};

/// The traces RanksOptions::inputs stands for, each once, in the order RunRanks reports
/// errors by: a face that spreads the work itself (stepstat.dask) starts from this list.
Result<std::vector<std::filesystem::path>> ListRankTraces(
    const std::vector<std::filesystem::path>& inputs);

/// Summarizes every trace, largest first, `jobs` at a time; merges and finishes. A trace
/// that fails is an entry of report.errors and the others are still reported. Errors that
/// stop the run: no trace found, a bad policy or rank regex, two traces with one rank (both
/// named), a partials folder that cannot be created.
Result<RanksRun> RunRanks(const RanksOptions& options);

/// The partial of one trace (RunSummary's inputs and policy), numbered as RunRanks numbers
/// it: from its path by `rank_regex`, else from a Kineto trace's distributedInfo.rank, else
/// left to FinishRanks. Also fills `warnings` when not null. `per_device`: as
/// RanksOptions::per_device, one rank row per device of the trace. `hint` (when not null):
/// the trace's policy hint, if it has one (none for a trace split by device).
Result<Partial> RunPartial(const RunOptions& options, const std::string& rank_regex = {},
                           std::vector<std::string>* warnings = nullptr, bool per_device = false,
                           std::optional<PolicyHint>* hint = nullptr);

/// The devices of a trace's GPU operations (RunOptions::inputs as RunSummary takes them), as
/// the trace names them, in natural order ("GPU (2)" before "GPU (10)"). One read of the
/// GPU side. A trace that names no device has one, "".
Result<std::vector<std::string>> ListTraceDevices(const RunOptions& options);

/// The partial of a summary RunSummary made (of a whole trace), numbered as RunPartial does.
Result<Partial> PartialOfSummary(const SummaryResult& summary, const std::string& rank_regex = {});

/// `stepstat merge`: partial files (PartialToJson) read, merged and finished. Same bytes as
/// RunRanks over the traces they came from, whatever machines wrote them.
Result<RanksReport> MergePartialFiles(const std::vector<std::filesystem::path>& files);

}  // namespace stepstat
