// `stepstat report`: one self-contained HTML page of a run (stepstat/html_report.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/engine.h"
#include "stepstat/engine_compare.h"
#include "stepstat/html_report.h"
#include "stepstat/read.h"

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

// The summary reads the trace without its step ranges: an NVTX CSV is no GPU trace. A name
// that is no file (an nsys base) is kept; the engine resolves it.
std::vector<std::filesystem::path> SummaryInputs(const std::vector<std::string>& inputs) {
  std::vector<std::filesystem::path> kept;
  for (const std::string& input : inputs) {
    Result<InputKind> kind = DetectInputKind(input, input);
    if (kind.ok() && *kind == InputKind::kNsysNvtxTraceCsv) continue;
    kept.emplace_back(input);
  }
  return kept;
}

int RunReport(const ReportOptions& options) {
  RunOptions run;
  run.inputs.assign(options.inputs.begin(), options.inputs.end());
  run.policy = options.policy;
  run.output = OutputToRefuse(options.output);
  run.steps.range_regex = options.steps_regex;
  run.progress = CommandProgress();  // shared by the two calls below and the diff's
  RunOptions summary_run = run;
  summary_run.inputs = SummaryInputs(options.inputs);
  summary_run.details = true;

  // The steps and the summary read the trace in two independent passes, at once: the page
  // costs about one pass more than `steps` in time only where a core is free.
  // Threads: this one runs RunSteps and owns `steps`; `summary_thread` runs RunSummary on
  // its own copy of the options and writes only `summary`, read here after join(). Each
  // engine call builds and owns everything it touches (the inputs are only read), so
  // neither waits on the other; the one wait is join(), after RunSteps has returned.
  std::optional<Result<SummaryResult>> summary;
  std::thread summary_thread([&summary, &summary_run] { summary = RunSummary(summary_run); });
  Result<StepsResult> steps = RunSteps(run);
  summary_thread.join();

  HtmlReportInput page;
  page.command_line = CommandLine(options);
  if (!steps.ok() && !options.steps_regex.empty()) return Fail(steps.status());
  if (!summary->ok()) return Fail(summary->status());

  // Before and after: this run is the candidate; its trace is read once more, as `diff`
  // reads a side (steps when it has enough, else whole). Read before the notes below are
  // printed, so the progress line covers it too; its error is told after them, as always.
  std::optional<Result<DiffRun>> run_diff;
  if (!options.vs.empty()) {
    DiffRunOptions diff;
    diff.base = options.vs;
    diff.cand = options.inputs;
    diff.run.policy = options.policy;
    diff.run.steps.range_regex = options.steps_regex;
    diff.run.output = OutputToRefuse(options.output);
    diff.run.progress = run.progress;
    diff.ledger = ResolveLedgerPath(std::nullopt, std::getenv("STEPSTAT_LEDGER"),
                                    std::filesystem::current_path());
    run_diff = RunDiff(diff);
  }
  StopProgress();

  if (steps.ok()) {
    page.steps = &*steps;
    std::fprintf(stderr, "stepstat: note: %s\n",
                 OneLineMessage(steps->report.source_reason).c_str());
  } else {
    page.steps_note = "not cut into steps: " + steps.status().message();
  }
  PrintWarnings((*summary)->context.warnings);
  PrintPolicyHint((*summary)->context.policy_hint);
  page.summary = &**summary;

  std::optional<DiffRun> vs;
  if (run_diff) {
    if (!run_diff->ok()) return Fail(run_diff->status());
    PrintWarnings((*run_diff)->warnings);
    vs = std::move(*run_diff).value();
    page.vs = &*vs;
  }
  return Emit(ReportToHtml(page), options.output);
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
