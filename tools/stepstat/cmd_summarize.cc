#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "io/atomic_file.h"
#include "stepstat/policy.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"

namespace stepstat::cli {

namespace {

struct SummarizeOptions {
  std::vector<std::string> inputs;
  std::string policy;
  std::string output = "-";
  std::string step;         // --step N|median: one step of a whole run (cmd_steps.cc)
  std::string steps_regex;  // --steps REGEX, with --step
};

int Fail(const Status& status) {
  std::fprintf(stderr, "stepstat: %s\n", status.message().c_str());
  return 2;
}

// --policy takes a file, or the name of a built-in policy when no such file exists.
Result<Policy> ChoosePolicy(const std::string& choice) {
  if (choice.empty()) return BuiltinPolicy(kDefaultPolicyName);
  std::error_code ec;
  if (!std::filesystem::exists(choice, ec)) {
    for (std::string_view name : BuiltinPolicyNames()) {
      if (name == choice) return BuiltinPolicy(name);
    }
  }
  return LoadPolicyFile(choice);
}

int RunSummarize(const SummarizeOptions& options) {
  Result<Policy> policy = ChoosePolicy(options.policy);
  if (!policy.ok()) return Fail(policy.status());
  std::string json;
  if (!options.step.empty()) {
    Result<std::string> one =
        SummarizeOneStep(options.inputs, policy.value(), options.steps_regex, options.step);
    if (!one.ok()) return Fail(one.status());
    json = std::move(one.value());
  } else {
    Result<SummaryInputs> inputs = ResolveInputs(options.inputs);
    if (!inputs.ok()) return Fail(inputs.status());
    Result<StepStats> stats = Summarize(inputs.value(), policy.value());
    if (!stats.ok()) return Fail(stats.status());
    json = StepStatsToJson(stats.value());
  }
  if (options.output == "-") return WriteStdout(json) ? 0 : 2;
  Status written = WriteFileAtomically(options.output, json);
  return written.ok() ? 0 : Fail(written);
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
                  "Write the JSON here ('-' for stdout, the default)");
  cmd->add_option("--step", options->step,
                  "Summarize one step of a whole run: its index, or 'median' (the steady-state "
                  "step closest to the median span); steps as in 'stepstat steps'");
  cmd->add_option("--steps", options->steps_regex,
                  "With --step: RE2 pattern over NVTX range names that marks the steps");
  cmd->footer(
      "Examples:\n"
      "  stepstat summarize examples/gb10-dit-step/gb10-dit-step\n"
      "  stepstat summarize run_cuda_gpu_trace.csv run_cuda_kern_exec_trace.csv -o stats.json\n"
      "  stepstat summarize run_cuda_gpu_trace.csv --policy my-policy.toml\n"
      "  stepstat summarize run.sqlite --steps denoise --step median");
  cmd->callback([options, &action] { action = [options] { return RunSummarize(*options); }; });
}

}  // namespace stepstat::cli
