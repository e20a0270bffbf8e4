// `stepstat classify`: every distinct kernel name with its component, for writing and
// checking policies.
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

struct ClassifyOptions {
  std::vector<std::string> inputs;
  std::string policy;
  std::string output = "-";
  std::string format;
  bool unmatched = false;
};

int RunClassify(const ClassifyOptions& options) {
  RunOptions run;
  run.inputs = PathsFromUtf8(options.inputs);  // UTF-8 arguments: exact on Windows too
  run.policy = options.policy;
  run.output = OutputToRefuse(options.output);
  run.progress = CommandProgress();
  run.unmatched_only = options.unmatched;
  Result<KernelsResult> result = RunKernels(run);
  if (!result.ok()) return Fail(result.status());
  PrintPolicyHint(result->context.policy_hint);
  const KernelListing& listing = result->listing;
  std::string text;
  switch (ChooseFormat(options.format, options.output)) {
    case OutputFormat::kTable:
      text = KernelListingToTable(listing, StdoutTextStyle(options.output));
      break;
    case OutputFormat::kMarkdown: text = KernelListingToMarkdown(listing); break;
    case OutputFormat::kJson: text = KernelListingToJson(listing); break;
    case OutputFormat::kCsv: text = KernelListingToCsv(listing); break;
  }
  return Emit(text, options.output);
}

}  // namespace

void AddClassifyCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<ClassifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "classify", "List each distinct kernel name with its component, launches and time");
  cmd->add_option("INPUT", options->inputs,
                  "Trace files or an nsys output base, as for summarize (the GPU side is read), "
                  "or an nsys cuda_gpu_kern_sum report")
      ->required();
  cmd->add_option("--policy", options->policy,
                  "Classification policy: a TOML file, or a built-in name (default dit-nvfp4)");
  cmd->add_flag("--unmatched", options->unmatched, "Only the names that fall into `other`");
  cmd->add_option("-o,--output", options->output, "Write the result here ('-' for stdout)");
  cmd->add_option("--format", options->format,
                  "table, json, markdown or csv (default: table on a terminal, json otherwise); "
                  "csv and json give launches and total/avg/median/min/max ns per name")
      ->check(CLI::IsMember({"table", "json", "markdown", "csv"}));
  cmd->footer(
      "Examples:\n"
      "  stepstat classify run --unmatched                 # what the policy misses, by time\n"
      "  stepstat classify run_cuda_gpu_trace.csv --policy my-policy.toml --format table\n"
      "  stepstat classify run_cuda_gpu_kern_sum.csv --format csv -o kernels.csv");
  cmd->callback([options, &action] { action = [options] { return RunClassify(*options); }; });
}

}  // namespace stepstat::cli
