// `stepstat steps`: per-step statistics across a whole run.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "stepstat/policy.h"
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

int RunSteps(const StepsCommandOptions& options) {
  Result<Policy> policy = ChoosePolicy(options.policy);
  if (!policy.ok()) return Fail(policy.status());
  Result<StepsInputs> inputs = ResolveStepsInputs(options.inputs);
  if (!inputs.ok()) return Fail(inputs.status());
  std::vector<std::filesystem::path> files = InputFiles(inputs->trace);
  if (inputs->ranges) files.push_back(inputs->ranges->path);
  if (Status refused = RefuseOutputOverInput(options.output, files); !refused.ok()) {
    return Fail(refused);
  }
  Result<std::vector<std::string>> warnings = CheckInputWarnings(inputs->trace);
  if (!warnings.ok()) return Fail(warnings.status());
  StepsOptions steps_options;
  steps_options.range_regex = options.steps_regex;
  steps_options.warmup_tolerance = options.warmup_tolerance;
  steps_options.by_period = options.by_period;
  Result<StepsReport> report = AnalyzeSteps(inputs.value(), policy.value(), steps_options);
  if (!report.ok()) return Fail(report.status());
  PrintWarnings(warnings.value());
  std::fprintf(stderr, "stepstat: note: %s\n", OneLineMessage(report->source_reason).c_str());
  switch (ChooseFormat(options.format, options.output)) {
    case OutputFormat::kCsv:  // not offered by --format
    case OutputFormat::kJson:
      return EmitStreamed(
          [&](const std::function<void(std::string_view)>& write) {
            WriteStepsJson(report.value(), policy.value(), write);
          },
          options.output);
    case OutputFormat::kMarkdown:
      return Emit(StepsToMarkdown(report.value(), policy.value()), options.output);
    case OutputFormat::kTable: break;
  }
  TextStyle style = StdoutTextStyle(options.output);
  return Emit(StepsToTable(report.value(), policy.value(), style.width, style.unicode),
              options.output);
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
  cmd->callback([options, &action] { action = [options] { return RunSteps(*options); }; });
}

}  // namespace stepstat::cli
