// `stepstat summarize`: the reference summary of a trace (or of one step of a run).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cmd_ranks.h"
#include "command_support.h"
#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/engine.h"
#include "stepstat/platform.h"
#include "stepstat/report.h"
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
  std::string partial_out;  // --partial-out FILE: also the partial, for `stepstat merge`
  std::string device;       // --device NAME: that device alone
};

int RunSummarize(const SummarizeOptions& options) {
  const OutputFormat format = ChooseFormat(options.format, options.output);
  RunOptions run;
  run.inputs = PathsFromUtf8(options.inputs);  // UTF-8 arguments: exact on Windows too
  run.policy = options.policy;
  run.output = OutputToRefuse(options.output);
  run.progress = CommandProgress();
  run.details = options.details;
  // Tables for people show the union busy % beside the summed one (JSON is the reference
  // summary alone, byte for byte, so it does not pay for the pass that measures it).
  run.union_busy = format != OutputFormat::kJson;
  run.step = options.step;
  run.device = options.device;
  run.steps.range_regex = options.steps_regex;
  Result<SummaryResult> result = RunSummary(run);
  if (!result.ok()) return Fail(result.status());
  // `--step median` names no step itself: say which one the summary is of.
  if (result->step) {
    std::fprintf(stderr, "stepstat: summarize --step %s: %s\n", options.step.c_str(),
                 OneLineMessage(DescribeChosenStep(*result->step)).c_str());
  }
  PrintWarnings(result->context.warnings);
  PrintPolicyHint(result->context.policy_hint);
  if (!options.partial_out.empty()) {
    if (int code = WritePartialOf(*result, options.partial_out, options.device); code != 0)
      return code;
  }

  const StepStats& stats = result->stats;
  const Details* shown = result->details ? &*result->details : nullptr;
  std::string text;
  switch (format) {
    case OutputFormat::kTable:
      text = StepStatsToTable(stats, shown, StdoutTextStyle(options.output),
                              result->union_busy_percent);
      break;
    case OutputFormat::kMarkdown:
      text = StepStatsToMarkdown(stats, shown, result->union_busy_percent);
      break;
    case OutputFormat::kCsv:  // not offered by --format
    case OutputFormat::kJson:
      text = shown ? StepStatsWithDetailsToJson(stats, *shown) : StepStatsToJson(stats);
      if (result->step) text = WithChosenStep(std::move(text), *result->step);
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
  cmd->add_option("--device", options->device,
                  "Summarize one GPU of a trace that holds several, named as the trace names it "
                  "('NVIDIA GB10 (1)'; --details lists them): its operations and the launches "
                  "of its kernels, with its own span, gaps and unions")
      ->excludes(step);
  cmd->add_option("--partial-out", options->partial_out,
                  "Also write the exact partial of this trace (stepstat.partial/1) for "
                  "'stepstat merge'")
      ->excludes(step);
  cmd->footer(
      "Examples:\n"
      "  stepstat summarize examples/gb10-dit-step/gb10-dit-step\n"
      "  stepstat summarize run_cuda_gpu_trace.csv run_cuda_kern_exec_trace.csv -o stats.json\n"
      "  stepstat summarize run_cuda_gpu_trace.csv --policy my-policy.toml\n"
      "  stepstat summarize run --details --format markdown   # for a pull request\n"
      "  stepstat summarize node0.sqlite --device 'NVIDIA H100 80GB HBM3 (3)'\n"
      "  stepstat summarize run.sqlite --steps denoise --step median");
  cmd->callback([options, &action] { action = [options] { return RunSummarize(*options); }; });
}

}  // namespace stepstat::cli
