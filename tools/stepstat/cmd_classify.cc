// `stepstat classify`: every distinct kernel name with its component, for writing and
// checking policies.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "stepstat/details.h"
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

// A cuda_gpu_kern_sum report, given on its own, holds all that classify needs; anything
// else resolves as for summarize (which refuses a kern_sum, saying why).
Result<SummaryInputs> ResolveClassifyInputs(const std::vector<std::string>& args) {
  std::error_code ec;
  if (args.size() == 1 && std::filesystem::is_regular_file(args.front(), ec)) {
    ASSIGN_OR_RETURN(InputKind kind, DetectInputKind(args.front(), args.front()));
    if (kind == InputKind::kNsysGpuKernSumCsv) {
      SummaryInputs inputs;
      inputs.gpu = TraceInput{args.front(), args.front(), kind};
      return inputs;
    }
  }
  return ResolveInputs(args);
}

int RunClassify(const ClassifyOptions& options) {
  Result<Policy> policy = ChoosePolicy(options.policy);
  if (!policy.ok()) return Fail(policy.status());
  Result<SummaryInputs> inputs = ResolveClassifyInputs(options.inputs);
  if (!inputs.ok()) return Fail(inputs.status());
  Status refused = RefuseOutputOverInput(options.output, InputFiles(inputs.value()));
  if (!refused.ok()) return Fail(refused);
  Result<std::vector<KernelDetails>> kernels =
      inputs->gpu.kind == InputKind::kNsysGpuKernSumCsv
          ? ListKernelsOfSummary(inputs->gpu, policy.value())
          : ListKernels(inputs.value(), policy.value());
  if (!kernels.ok()) return Fail(kernels.status());
  PrintPolicyHint(SuggestBuiltinPolicy(policy.value(), kernels.value()));

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
