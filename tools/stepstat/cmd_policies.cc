// `stepstat policies`: the built-in policies, their descriptions and components.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "stepstat/report.h"

namespace stepstat::cli {

namespace {

struct PoliciesOptions {
  std::string output = "-";
  std::string format;
};

int RunPolicies(const PoliciesOptions& options) {
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
  cmd->add_option("-o,--output", options->output, "Write the result here ('-' for stdout)");
  cmd->add_option("--format", options->format,
                  "table, json or markdown (default: table on a terminal, json otherwise)")
      ->check(CLI::IsMember({"table", "json", "markdown"}));
  cmd->footer("Example:\n  stepstat policies --format table");
  cmd->callback([options, &action] { action = [options] { return RunPolicies(*options); }; });
}

}  // namespace stepstat::cli
