// `stepstat steps`: per-step statistics across a whole run.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/engine.h"
#include "stepstat/platform.h"
#include "stepstat/report.h"
#include "stepstat/steps.h"

namespace stepstat::cli {

namespace {

struct StepsCommandOptions {
  std::vector<std::string> inputs;
  std::string steps_regex;
  std::string policy;
  std::string format;  // empty: table on a terminal, JSON otherwise
  std::string output = "-";
  double warmup_tolerance = 0.2;
  bool by_period = false;
};

int RunStepsCommand(const StepsCommandOptions& options) {
  RunOptions run;
  run.inputs = PathsFromUtf8(options.inputs);  // UTF-8 arguments: exact on Windows too
  run.policy = options.policy;
  run.output = OutputToRefuse(options.output);
  run.progress = CommandProgress();
  run.steps.range_regex = options.steps_regex;
  run.steps.warmup_tolerance = options.warmup_tolerance;
  run.steps.by_period = options.by_period;
  Result<StepsResult> result = RunSteps(run);
  if (!result.ok()) return Fail(result.status());
  PrintWarnings(result->context.warnings);
  const StepsReport& report = result->report;
  const Policy& policy = result->context.policy;
  std::fprintf(stderr, "stepstat: note: %s\n", OneLineMessage(report.source_reason).c_str());
  switch (ChooseFormat(options.format, options.output)) {
    case OutputFormat::kCsv:  // not offered by --format
    case OutputFormat::kJson:
      // Streamed: a long run's JSON (1.6 KB a step) need not sit in memory beside the steps.
      return EmitStreamed(
          [&](const std::function<void(std::string_view)>& write) {
            WriteStepsJson(report, policy, write);
          },
          options.output);
    case OutputFormat::kMarkdown: return Emit(StepsToMarkdown(report, policy), options.output);
    case OutputFormat::kTable: break;
  }
  TextStyle style = StdoutTextStyle(options.output);
  return Emit(StepsToTable(report, policy, style.width, style.unicode), options.output);
}

}  // namespace

void AddStepsCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<StepsCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "steps", "Per-step statistics across a whole run: one summary per step, warm-up, outliers");
  cmd->add_option("INPUT", options->inputs,
                  "Trace files (kind detected from content) or an nsys output base; add an "
                  "nvtx_pushpop_trace or nvtx_gpu_proj_trace CSV to cut steps at NVTX ranges")
      ->required();
  cmd->add_option("--steps", options->steps_regex,
                  "RE2 pattern over range names (NVTX text as nsys prints it, with 'domain:'); "
                  "default: PyTorch ProfilerStep#N if present, else the kernel sequence's period");
  cmd->add_flag("--by-period", options->by_period,
                "Cut at the kernel sequence's period even when the trace carries step "
                "annotations (to compare the two cuts of one run)");
  cmd->add_option("--policy", options->policy,
                  "Classification policy: a TOML file, or a built-in name (default dit-nvfp4)");
  cmd->add_option("--format", options->format,
                  "table, json or markdown (default: table on a terminal, json otherwise)")
      ->check(CLI::IsMember({"table", "json", "markdown"}));
  cmd->add_option("--warmup-tolerance", options->warmup_tolerance,
                  "Leading steps whose GPU span differs from the median by more than this "
                  "fraction of it are warm-up: 0.2 (the default) means 20 %; 0 to 1")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("-o,--output", options->output, "Write here ('-' for stdout, the default)");
  cmd->footer(
      "Examples:\n"
      "  stepstat steps run.sqlite --steps 'denoise|step'\n"
      "  stepstat steps run run_nvtx_pushpop_trace.csv --steps '^train_step$' --format json\n"
      "  stepstat steps rank0.json.gz                 # PyTorch ProfilerStep#N annotations\n"
      "  stepstat steps run                           # no annotations: the kernel period");
  cmd->callback([options, &action] { action = [options] { return RunStepsCommand(*options); }; });
}

}  // namespace stepstat::cli
