// `stepstat policies`: the built-in policies, their descriptions and components.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/engine.h"
#include "stepstat/platform.h"
#include "stepstat/report.h"

namespace stepstat::cli {

namespace {

struct PoliciesOptions {
  std::string output = "-";
  std::string format;
  std::vector<std::string> check;  // --check INPUT...: each built-in policy's coverage of it
};

int RunCheck(const PoliciesOptions& options) {
  RunOptions run;  // the default policy: the names' times are all the coverage needs
  run.inputs = PathsFromUtf8(options.check);  // UTF-8 arguments: exact on Windows too
  run.output = OutputToRefuse(options.output);
  run.progress = CommandProgress();
  Result<KernelsResult> kernels = RunKernels(run);
  if (!kernels.ok()) return Fail(kernels.status());
  PolicyCoverageReport report;
  report.source = kernels->listing.source;
  report.distinct_names = kernels->listing.distinct_names;
  Result<std::vector<PolicyCoverage>> coverage =
      CoverageOfBuiltinPolicies(kernels->listing.kernels);
  if (!coverage.ok()) return Fail(coverage.status());
  report.policies = std::move(coverage).value();
  std::string text;
  switch (ChooseFormat(options.format, options.output)) {
    case OutputFormat::kTable:
      text = PolicyCoverageToTable(report, StdoutTextStyle(options.output));
      break;
    case OutputFormat::kMarkdown: text = PolicyCoverageToMarkdown(report); break;
    case OutputFormat::kCsv:  // not offered by --format
    case OutputFormat::kJson: text = PolicyCoverageToJson(report); break;
  }
  return Emit(text, options.output);
}

int RunPolicies(const PoliciesOptions& options) {
  if (!options.check.empty()) return RunCheck(options);
  std::vector<Policy> policies;
  for (std::string_view name : BuiltinPolicyNames()) {
    Result<Policy> policy = BuiltinPolicy(name);
    if (!policy.ok()) return Fail(policy.status());
    policies.push_back(std::move(policy).value());
  }
  std::string text;
  switch (ChooseFormat(options.format, options.output)) {
    case OutputFormat::kTable:
      text = PoliciesToTable(policies, StdoutTextStyle(options.output));
      break;
    case OutputFormat::kMarkdown: text = PoliciesToMarkdown(policies); break;
    case OutputFormat::kCsv:  // not offered by --format
    case OutputFormat::kJson: text = PoliciesToJson(policies); break;
  }
  return Emit(text, options.output);
}

}  // namespace

void AddPoliciesCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<PoliciesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "policies", "List the built-in classification policies and their components");
  cmd->add_option("--check", options->check,
                  "Trace files, an nsys output base or a cuda_gpu_kern_sum report (as for "
                  "classify): the share of its kernel time each built-in policy classifies");
  cmd->add_option("-o,--output", options->output, "Write the result here ('-' for stdout)");
  cmd->add_option("--format", options->format,
                  "table, json or markdown (default: table on a terminal, json otherwise)")
      ->check(CLI::IsMember({"table", "json", "markdown"}));
  cmd->footer(
      "Examples:\n"
      "  stepstat policies --format table\n"
      "  stepstat policies --check run_cuda_gpu_kern_sum.csv   # which policy fits this trace");
  cmd->callback([options, &action] { action = [options] { return RunPolicies(*options); }; });
}

}  // namespace stepstat::cli
