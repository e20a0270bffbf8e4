// The run history: `stepstat record` (a run into the ledger, with one line against the
// previous run of its label), `stepstat history` and `stepstat baseline set|list`.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/engine_compare.h"

namespace stepstat::cli {

namespace {

std::filesystem::path LedgerPath(const std::optional<std::string>& flag) {
  std::error_code ec;
  return ResolveLedgerPath(flag, std::getenv("STEPSTAT_LEDGER"), std::filesystem::current_path(ec));
}

struct RecordFlags {
  std::vector<std::string> inputs;
  std::string label, note, policy, steps_regex;
  std::vector<std::string> tags;
  std::optional<std::string> ledger;
};

// "vs run 3: regression — nvfp4_gemms +5.0 % (p 4e-21); step span +1.0 % (p 2e-08)": the
// verdict `stepstat diff @3 @4` gives, word for word, and the floor when it was measured.
std::string VerdictLine(const RecordRun& run) {
  const DiffResult& diff = *run.vs_previous;
  std::string line = "vs run " + std::to_string(run.previous->id) + ": " +
                     std::string(VerdictName(diff.verdict)) + " — " + diff.verdict_reason;
  if (diff.options.noise_floor_source == "measured") {
    line += " (noise floor " + diff.options.noise_floor_how + ")";
  }
  return line;
}

int RunRecordCommand(const RecordFlags& flags) {
  RecordOptions options;
  options.inputs = flags.inputs;
  options.run.policy = flags.policy;
  options.run.steps.range_regex = flags.steps_regex;
  options.run.progress = CommandProgress();
  options.label = flags.label;
  options.note = flags.note;
  options.tool_version = STEPSTAT_VERSION;
  options.ledger = LedgerPath(flags.ledger);
  for (const std::string& tag : flags.tags) {
    size_t equals = tag.find('=');
    if (equals == std::string::npos || equals == 0) {
      return Fail(Status::Error("--tag: expected KEY=VALUE, got '" + tag + "'"));
    }
    options.tags.emplace_back(tag.substr(0, equals), tag.substr(equals + 1));
  }
  Result<RecordRun> run = RunRecord(options);
  if (!run.ok()) return Fail(run.status());
  PrintWarnings(run->warnings);
  std::string line = run->recorded.message() + " (label " + run->label + ")";
  if (run->vs_previous) line += "; " + VerdictLine(run.value());
  std::printf("%s\n", line.c_str());
  return 0;
}

struct HistoryFlags {
  std::string label_glob = "*";
  std::vector<std::string> metrics;
  bool regressions = false;
  std::string format;
  std::string output = "-";
  std::optional<std::string> ledger;
};

int RunHistoryCommand(const HistoryFlags& flags) {
  HistoryOptions options;
  options.ledger = LedgerPath(flags.ledger);
  options.label_glob = flags.label_glob;
  options.metrics = flags.metrics;
  options.judge = true;
  options.regressions_only = flags.regressions;
  Result<History> history = RunHistory(options);
  if (!history.ok()) return Fail(history.status());
  std::string text;
  switch (ChooseFormat(flags.format, flags.output)) {
    case OutputFormat::kJson: text = HistoryToJson(history.value()); break;
    case OutputFormat::kCsv: text = HistoryToCsv(history.value()); break;
    case OutputFormat::kMarkdown:  // not offered by --format
    case OutputFormat::kTable:
      text = HistoryToTable(history.value(), StdoutTextStyle(flags.output).unicode);
      break;
  }
  return Emit(text, flags.output);
}

struct BaselineFlags {
  std::string name, reference;
  std::optional<std::string> ledger;
};

int RunBaselineSet(const BaselineFlags& flags) {
  Result<Ledger> ledger = Ledger::Open(LedgerPath(flags.ledger));
  if (!ledger.ok()) return Fail(ledger.status());
  Result<int64_t> id = ledger->ResolveReference(flags.reference);
  if (!id.ok()) return Fail(id.status());
  if (Status set = ledger->SetBaseline(flags.name, id.value()); !set.ok()) return Fail(set);
  std::printf("baseline %s = run %lld\n", flags.name.c_str(), static_cast<long long>(*id));
  return 0;
}

int RunBaselineList(const BaselineFlags& flags) {
  Result<Ledger> ledger = Ledger::Open(LedgerPath(flags.ledger));
  if (!ledger.ok()) return Fail(ledger.status());
  Result<std::vector<Baseline>> baselines = ledger->ListBaselines();
  if (!baselines.ok()) return Fail(baselines.status());
  for (const Baseline& b : baselines.value()) {
    std::printf("%s\t@%lld\t%s\n", b.name.c_str(), static_cast<long long>(b.run_id),
                b.set_at.c_str());
  }
  return 0;
}

const char* kLedgerHelp =
    "The ledger file (default $STEPSTAT_LEDGER, else .stepstat/ledger.sqlite)";

}  // namespace

void AddHistoryCommands(CLI::App& app, Action& action) {
  auto record = std::make_shared<RecordFlags>();
  CLI::App* cmd = app.add_subcommand(
      "record", "Record a run in the ledger and print its change against the previous one");
  cmd->footer(
      "Keeps the summary and every step's values; prints the run id and one line against the\n"
      "previous run of the label. The same inputs, policy and version recorded again answer\n"
      "\"already recorded as run N\". Carry the ledger file between CI jobs to keep a history.");
  cmd->add_option("INPUT", record->inputs, "Trace files or an nsys base, as for `steps`")
      ->required();
  cmd->add_option("--label", record->label, "Group runs by it (default: the capture's base name)");
  cmd->add_option("--tag", record->tags, "KEY=VALUE, repeatable");
  cmd->add_option("--note", record->note, "Free text kept with the run");
  cmd->add_option("--policy", record->policy, "Classification policy (file or built-in name)");
  cmd->add_option("--steps", record->steps_regex, "Cut steps at NVTX ranges matching this regex");
  cmd->add_option("--ledger", record->ledger, kLedgerHelp);
  cmd->callback([record, &action] { action = [record] { return RunRecordCommand(*record); }; });

  auto history = std::make_shared<HistoryFlags>();
  cmd = app.add_subcommand("history", "The recorded runs, with their changes and sparklines");
  cmd->footer(
      "One row a run: each metric's value (the median step, else the whole run), its change\n"
      "against the previous run of the label and against the label's best, and the verdict\n"
      "against the previous run; then a sparkline per label and metric.");
  cmd->add_option("--label", history->label_glob, "Labels to show (a glob)")->capture_default_str();
  cmd->add_option(
      "--metric", history->metrics,
      "A summary key path, repeatable (default gpu_span_ns; median step, else the run)");
  cmd->add_flag("--regressions", history->regressions,
                "Only the runs significantly worse than the previous run of their label");
  cmd->add_option("--format", history->format, "table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("-o,--output", history->output, "Write the result here ('-' for stdout)");
  cmd->add_option("--ledger", history->ledger, kLedgerHelp);
  cmd->callback([history, &action] { action = [history] { return RunHistoryCommand(*history); }; });

  auto baseline = std::make_shared<BaselineFlags>();
  cmd = app.add_subcommand("baseline", "Name a recorded run (then `diff baseline:NAME ...`)");
  cmd->require_subcommand(1);
  CLI::App* set = cmd->add_subcommand("set", "baseline set NAME @ID: name a run");
  set->add_option("NAME", baseline->name, "The baseline's name")->required();
  set->add_option("RUN", baseline->reference, "@ID, @latest, @prev or label:L")->required();
  set->add_option("--ledger", baseline->ledger, kLedgerHelp);
  set->callback([baseline, &action] { action = [baseline] { return RunBaselineSet(*baseline); }; });
  CLI::App* list = cmd->add_subcommand("list", "The baselines: name, run, when set");
  list->add_option("--ledger", baseline->ledger, kLedgerHelp);
  list->callback(
      [baseline, &action] { action = [baseline] { return RunBaselineList(*baseline); }; });
}

}  // namespace stepstat::cli
