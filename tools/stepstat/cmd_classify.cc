// `stepstat classify`: every distinct kernel name with its component, for writing and
// checking policies.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "report/policy_tools_report.h"
#include "stepstat/details.h"

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
  Result<Policy> policy = ChoosePolicy(options.policy);
  if (!policy.ok()) return Fail(policy.status());
  Result<SummaryInputs> inputs = ResolveInputs(options.inputs);
  if (!inputs.ok()) return Fail(inputs.status());
  Result<std::vector<KernelDetails>> kernels = ListKernels(inputs.value(), policy.value());
  if (!kernels.ok()) return Fail(kernels.status());

  KernelListing listing;
  listing.source = inputs->gpu.display_name;
  listing.policy = policy->name;
  listing.unmatched_only = options.unmatched;
  listing.distinct_names = static_cast<int64_t>(kernels->size());
  for (KernelDetails& k : kernels.value()) {
    listing.kernel_time_ns += k.total_ns;
    if (!options.unmatched || k.component == "other") listing.kernels.push_back(std::move(k));
  }

  std::string text;
  switch (ChooseFormat(options.format, options.output)) {
    case OutputFormat::kTable: text = KernelListingToTable(listing, StdoutTextStyle()); break;
    case OutputFormat::kMarkdown: text = KernelListingToMarkdown(listing); break;
    case OutputFormat::kJson: text = KernelListingToJson(listing); break;
  }
  return Emit(text, options.output);
}

}  // namespace

void AddClassifyCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<ClassifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "classify", "List each distinct kernel name with its component, launches and time");
  cmd->add_option("INPUT", options->inputs,
                  "Trace files or an nsys output base, as for summarize (the GPU side is read)")
      ->required();
  cmd->add_option("--policy", options->policy,
                  "Classification policy: a TOML file, or a built-in name (default dit-nvfp4)");
  cmd->add_flag("--unmatched", options->unmatched, "Only the names that fall into `other`");
  cmd->add_option("-o,--output", options->output, "Write the result here ('-' for stdout)");
  cmd->add_option("--format", options->format,
                  "table, json or markdown (default: table on a terminal, json otherwise)")
      ->check(CLI::IsMember({"table", "json", "markdown"}));
  cmd->footer(
      "Examples:\n"
      "  stepstat classify run --unmatched                 # what the policy misses, by time\n"
      "  stepstat classify run_cuda_gpu_trace.csv --policy my-policy.toml --format table");
  cmd->callback([options, &action] { action = [options] { return RunClassify(*options); }; });
}

}  // namespace stepstat::cli
