// `stepstat ranks` (a job of many ranks, one trace each) and `stepstat merge` (partials from
// anywhere into the same output), plus what `summarize --partial-out` writes.
#include "cmd_ranks.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/engine_ranks.h"
#include "stepstat/output.h"
#include "stepstat/ranks.h"

namespace stepstat::cli {

namespace {

struct JobOutput {
  std::string output = "-";
  std::string format;  ///< empty: table on a terminal, JSON otherwise
};

void AddJobOutputFlags(CLI::App* cmd, JobOutput& options) {
  cmd->add_option("-o,--output", options.output,
                  "Write the result here ('-' for stdout, the default)");
  cmd->add_option("--format", options.format,
                  "table, json or csv (default: table on a terminal, json otherwise)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
}

/// Writes the job; then each failed trace is one stderr line and the exit code is 2 (the
/// output, with its errors[], is written first so the other ranks are not lost).
int EmitJob(const RanksReport& report, const JobOutput& options) {
  std::string text;
  switch (ChooseFormat(options.format, options.output)) {
    case OutputFormat::kTable: text = RanksToTable(report, StdoutTextStyle(options.output)); break;
    case OutputFormat::kCsv: text = RanksToCsv(report); break;
    case OutputFormat::kMarkdown:  // not offered by --format
    case OutputFormat::kJson: text = RanksToJson(report); break;
  }
  if (int code = Emit(text, options.output); code != 0) return code;
  for (const RankError& error : report.errors) Fail(Status::Error(error.message));
  return report.errors.empty() ? 0 : 2;
}

struct RanksFlags {
  std::vector<std::string> inputs;
  std::string policy;
  std::string rank_regex;
  size_t jobs = 0;
  std::string partials_dir;
  bool per_device = false;
  JobOutput out;
};

int RunRanksCommand(const RanksFlags& flags) {
  RanksOptions options;
  options.inputs.assign(flags.inputs.begin(), flags.inputs.end());
  options.policy = flags.policy;
  options.rank_regex = flags.rank_regex;
  options.jobs = flags.jobs;
  options.partials_dir = flags.partials_dir;
  options.per_device = flags.per_device;
  options.output = OutputToRefuse(flags.out.output);
  options.progress = CommandProgress();
  Result<RanksRun> run = RunRanks(options);
  if (!run.ok()) return Fail(run.status());
  PrintWarnings(run->warnings);
  PrintJobPolicyHint(run->policy_hint, run->policy_hint_trace, run->hinted_traces);
  return EmitJob(run->report, flags.out);
}

struct MergeFlags {
  std::vector<std::string> partials;
  JobOutput out;
};

int RunMergeCommand(const MergeFlags& flags) {
  std::vector<std::filesystem::path> files(flags.partials.begin(), flags.partials.end());
  Result<RanksReport> report = MergePartialFiles(files);
  if (!report.ok()) return Fail(report.status());
  return EmitJob(*report, flags.out);
}

}  // namespace

int WritePartialOf(const SummaryResult& summary, const std::string& path,
                   const std::string& device) {
  Result<Partial> partial = PartialOfSummary(summary);
  if (!partial.ok()) return Fail(partial.status());
  if (!device.empty()) partial->ranks.front().device = device;
  Status written = WriteFileAtomically(path, PartialToJson(*partial));
  return written.ok() ? 0 : Fail(written);
}

void AddRanksCommands(CLI::App& app, Action& action) {
  auto ranks = std::make_shared<RanksFlags>();
  CLI::App* cmd = app.add_subcommand(
      "ranks",
      "A job of many ranks, one trace each: every rank's summary, the job's totals, "
      "the spread across ranks and the stragglers");
  cmd->add_option("PATH", ranks->inputs,
                  "Traces, nsys bases, or directories (their nsys bases, .sqlite and "
                  ".pt.trace.json files)")
      ->required();
  cmd->add_option("-j,--jobs", ranks->jobs,
                  "Traces summarized at once (default: the machine's threads); any value prints "
                  "the same bytes");
  cmd->add_option("--rank-regex", ranks->rank_regex,
                  "RE2 with one capture group for the rank's digits, searched in each file name "
                  "(default matches rank0, rank_3, rank-12); else a PyTorch trace's "
                  "distributedInfo.rank; else the natural order of the paths");
  cmd->add_option("--partials-dir", ranks->partials_dir,
                  "Also write each rank's partial there (FILE.partial.json), for 'stepstat merge'");
  cmd->add_flag("--per-device", ranks->per_device,
                "Split a trace that holds several GPUs: one row per device (rank and device), "
                "each what 'summarize --device' reports for it; the totals sum the devices");
  cmd->add_option("--policy", ranks->policy,
                  "Classification policy: a TOML file, or a built-in name (default dit-nvfp4)");
  AddJobOutputFlags(cmd, ranks->out);
  cmd->footer(
      "Examples:\n"
      "  stepstat ranks traces/ -j 8                  # every rank in traces/, a table\n"
      "  stepstat ranks traces/ --format json -o job.json\n"
      "  stepstat ranks node*/ --partials-dir partials/ --rank-regex 'gpu(\\d+)'\n"
      "  stepstat ranks node0.sqlite node1.sqlite --per-device   # 8 GPUs a node: 16 rows\n"
      "Exit codes: 0 ok; 2 bad usage, or a trace failed (the others are still written, the "
      "failures in errors[]).");
  cmd->callback([ranks, &action] { action = [ranks] { return RunRanksCommand(*ranks); }; });

  auto merge = std::make_shared<MergeFlags>();
  CLI::App* merge_cmd =
      app.add_subcommand("merge",
                         "Merge partials (ranks --partials-dir, summarize --partial-out) from any "
                         "machines: the bytes 'stepstat ranks' prints over all their traces");
  merge_cmd->add_option("PARTIAL", merge->partials, "stepstat.partial/1 JSON files")->required();
  AddJobOutputFlags(merge_cmd, merge->out);
  merge_cmd->footer(
      "Examples:\n"
      "  stepstat merge partials/*.partial.json --format json -o job.json");
  merge_cmd->callback([merge, &action] { action = [merge] { return RunMergeCommand(*merge); }; });
}

}  // namespace stepstat::cli
