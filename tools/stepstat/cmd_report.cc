// `stepstat report`: one self-contained HTML page of a run (stepstat/html_report.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/engine.h"
#include "stepstat/engine_report.h"
#include "stepstat/html_report.h"
#include "stepstat/ledger.h"

namespace stepstat::cli {

namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string steps_regex;
  std::string policy;
  std::string output;
  std::vector<std::string> vs;  // --vs BASE...: a diff side
};

// The command as the page shows it: rebuilt from the options (not argv), so the same
// request prints the same bytes however its flags were spelled.
std::string CommandLine(const ReportOptions& options) {
  auto quoted = [](const std::string& word) {
    if (!word.empty() && word.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;#~") == std::string::npos) {
      return word;
    }
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  };
  std::string line = "stepstat report";
  for (const std::string& input : options.inputs) line += " " + quoted(input);
  if (!options.steps_regex.empty()) line += " --steps " + quoted(options.steps_regex);
  if (!options.policy.empty()) line += " --policy " + quoted(options.policy);
  if (!options.vs.empty()) {
    line += " --vs";
    for (const std::string& side : options.vs) line += " " + quoted(side);
  }
  return line + " -o " + quoted(options.output);
}

int RunReport(const ReportOptions& options) {
  ReportRunOptions report;
  RunOptions& run = report.run;
  run.inputs.assign(options.inputs.begin(), options.inputs.end());
  run.policy = options.policy;
  run.output = OutputToRefuse(options.output);
  run.steps.range_regex = options.steps_regex;
  run.progress = CommandProgress();  // shared by the two threads and the diff's reads
  report.vs = options.vs;
  if (!options.vs.empty()) {
    report.ledger = ResolveLedgerPath(std::nullopt, std::getenv("STEPSTAT_LEDGER"),
                                      std::filesystem::current_path());
  }
  Result<ReportResult> result = stepstat::RunReport(report);
  StopProgress();
  if (!result.ok()) return Fail(result.status());
  if (result->steps) {
    std::fprintf(stderr, "stepstat: note: %s\n",
                 OneLineMessage(result->steps->report.source_reason).c_str());
  }
  PrintWarnings(result->summary.context.warnings);
  PrintPolicyHint(result->summary.context.policy_hint);
  if (result->vs) PrintWarnings(result->vs->warnings);
  return Emit(ReportToHtml(*result, CommandLine(options)), options.output);
}

}  // namespace

void AddReportCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "One self-contained HTML page of a run: where the time goes, steps, streams");
  cmd->add_option("INPUT", options->inputs,
                  "Trace files or an nsys output base, as 'stepstat steps' takes them (an "
                  "nvtx_pushpop_trace CSV cuts steps at NVTX ranges)")
      ->required();
  cmd->add_option("-o,--output", options->output, "The HTML file to write ('-' for stdout)")
      ->required();
  cmd->add_option("--steps", options->steps_regex,
                  "RE2 pattern over range names; default: PyTorch ProfilerStep#N if present, "
                  "else the kernel sequence's period");
  cmd->add_option("--policy", options->policy,
                  "Classification policy: a TOML file, or a built-in name (default dit-nvfp4)");
  cmd->add_option("--vs", options->vs,
                  "Add before/after against this base, as 'stepstat diff BASE INPUT...' would "
                  "compare them: trace files, a stepstat JSON or a ledger reference");
  cmd->footer(
      "The page holds inline SVG and CSS, no script and no external URL; it opens anywhere.\n"
      "Examples:\n"
      "  stepstat report run -o run.html\n"
      "  stepstat report run.sqlite --steps denoise -o run.html\n"
      "  stepstat report after after_nvtx_pushpop_trace.csv --steps denoise --vs before -o "
      "after.html");
  cmd->callback([options, &action] { action = [options] { return RunReport(*options); }; });
}

}  // namespace stepstat::cli
