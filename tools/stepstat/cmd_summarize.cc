#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"
#include "stepstat/steps.h"

namespace stepstat::cli {

namespace {

struct SummarizeOptions {
  std::vector<std::string> inputs;
  std::string policy;
  std::string output = "-";
  std::string format;  ///< empty: table on a terminal, JSON otherwise
  bool details = false;
  std::string step;         // --step N|median: one step of a whole run (cmd_steps.cc)
  std::string steps_regex;  // --steps REGEX, with --step
};

int RunSummarize(const SummarizeOptions& options) {
  Result<Policy> policy = ChoosePolicy(options.policy);
  if (!policy.ok()) return Fail(policy.status());
  Details details;
  // Tables for people show the union busy % beside the summed one; the union comes from
  // the details pass, which is then run for them even without --details (JSON is the
  // reference summary alone, byte for byte, so it does not pay for it).
  const OutputFormat format = ChooseFormat(options.format, options.output);
  const bool want_details = options.details || format != OutputFormat::kJson;
  Result<StepStats> stats = Status::Error("not run");
  std::vector<std::string> warnings;
  SummaryInputs hint_inputs;  // the whole trace, for PrintPolicyHint
  if (!options.step.empty()) {
    Result<StepsInputs> inputs = ResolveStepsInputs(options.inputs);
    if (!inputs.ok()) return Fail(inputs.status());
    std::vector<std::filesystem::path> files = InputFiles(inputs->trace);
    if (inputs->ranges) files.push_back(inputs->ranges->path);
    if (Status refused = RefuseOutputOverInput(options.output, files); !refused.ok()) {
      return Fail(refused);
    }
    Result<std::vector<std::string>> checked = CheckInputWarnings(inputs->trace);
    if (!checked.ok()) return Fail(checked.status());
    warnings = std::move(checked.value());
    hint_inputs = inputs->trace;
    StepsOptions steps_options;
    steps_options.range_regex = options.steps_regex;
    stats = SummarizeStep(inputs.value(), policy.value(), steps_options, options.step,
                          want_details ? &details : nullptr);
  } else {
    Result<SummaryInputs> inputs = ResolveInputs(options.inputs);
    if (!inputs.ok()) return Fail(inputs.status());
    Status refused = RefuseOutputOverInput(options.output, InputFiles(inputs.value()));
    if (!refused.ok()) return Fail(refused);
    Result<std::vector<std::string>> checked = CheckInputWarnings(inputs.value());
    if (!checked.ok()) return Fail(checked.status());
    warnings = std::move(checked.value());
    hint_inputs = inputs.value();
    stats = want_details ? SummarizeWithDetails(inputs.value(), policy.value(), details)
                         : Summarize(inputs.value(), policy.value());
  }
  if (!stats.ok()) return Fail(stats.status());
  PrintWarnings(warnings);
  PrintPolicyHint(SuggestBuiltinPolicy(policy.value(), stats.value(), hint_inputs));

  const Details* shown = options.details ? &details : nullptr;
  const std::optional<double> union_busy =
      want_details ? std::optional<double>(details.kernel_union_percent_of_span) : std::nullopt;
  std::string text;
  switch (format) {
    case OutputFormat::kTable:
      text = StepStatsToTable(stats.value(), shown, StdoutTextStyle(options.output), union_busy);
      break;
    case OutputFormat::kMarkdown:
      text = StepStatsToMarkdown(stats.value(), shown, union_busy);
      break;
    case OutputFormat::kCsv:  // not offered by --format
    case OutputFormat::kJson:
      text = shown ? StepStatsWithDetailsToJson(stats.value(), details)
                   : StepStatsToJson(stats.value());
      break;
  }
  return Emit(text, options.output);
}

}  // namespace

void AddSummarizeCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<SummarizeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "summarize", "Summarize one step: span, kernel time, idle gaps, launch overlap, components");
  cmd->add_option("INPUT", options->inputs,
                  "Trace files (kind detected from content) or an nsys output base BASE standing "
                  "for BASE_cuda_gpu_trace.csv and, if present, BASE_cuda_kern_exec_trace.csv")
      ->required();
  cmd->add_option("--policy", options->policy,
                  "Classification policy: a TOML file, or a built-in name (default dit-nvfp4)");
  cmd->add_option("-o,--output", options->output,
                  "Write the result here ('-' for stdout, the default)");
  cmd->add_option("--format", options->format,
                  "table, json or markdown (default: table on a terminal, json otherwise)")
      ->check(CLI::IsMember({"table", "json", "markdown"}));
  cmd->add_flag("--details", options->details,
                "Add per-device/stream unions and gaps, memory operations, top kernels, "
                "classification coverage, launch-path percentiles and data-quality counts");
  CLI::Option* step =
      cmd->add_option("--step", options->step,
                      "Summarize one step of a whole run: its index, or 'median' (the steady-state "
                      "step closest to the median span); steps as in 'stepstat steps'");
  // --steps alone would be silently ignored: the plain summary does not cut steps.
  cmd->add_option("--steps", options->steps_regex,
                  "With --step: RE2 pattern over NVTX range names that marks the steps")
      ->needs(step);
  cmd->footer(
      "Examples:\n"
      "  stepstat summarize examples/gb10-dit-step/gb10-dit-step\n"
      "  stepstat summarize run_cuda_gpu_trace.csv run_cuda_kern_exec_trace.csv -o stats.json\n"
      "  stepstat summarize run_cuda_gpu_trace.csv --policy my-policy.toml\n"
      "  stepstat summarize run --details --format markdown   # for a pull request\n"
      "  stepstat summarize run.sqlite --steps denoise --step median");
  cmd->callback([options, &action] { action = [options] { return RunSummarize(*options); }; });
}

}  // namespace stepstat::cli
