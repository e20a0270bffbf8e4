#include "cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/output.h"

namespace stepstat::cli {

namespace {

// Levenshtein distance: small enough inputs (command names) for the plain table.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// --quiet on `command`'s subcommands and theirs (baseline set, baseline list).
void AddQuietFlag(CLI::App& command, bool& quiet) {
  for (CLI::App* sub : command.get_subcommands({})) {
    if (sub->get_subcommands({}).empty()) {
      sub->add_flag("--quiet", quiet,
                    "No progress line on stderr (on a terminal, a command that reads for more "
                    "than a second shows one, erased before any output)");
    }
    AddQuietFlag(*sub, quiet);
  }
}

}  // namespace

std::string UnknownCommandHint(std::string_view word, const std::vector<std::string>& names) {
  std::string nearest;
  size_t best = SIZE_MAX;
  for (const std::string& name : names) {
    size_t distance = EditDistance(word, name);
    if (distance < best) {
      best = distance;
      nearest = name;
    }
  }
  std::string all;
  for (const std::string& name : names) all += (all.empty() ? "" : ", ") + name;
  // Beyond a third of the word's letters wrong, the nearest name is no longer a likely typo.
  if (!nearest.empty() && best <= std::max<size_t>(2, word.size() / 3)) {
    return "; did you mean '" + nearest + "'? (commands: " + all + ")";
  }
  return " (commands: " + all + ")";
}

int Run(int argc, char** argv) {
  CLI::App app{
      "stepstat: step statistics from NVIDIA Nsight Systems traces.\n"
      "Where does a step's GPU time go, by component? How idle is the GPU between kernels?\n"
      "Does the CPU launch path keep up?",
      "stepstat"};
  app.set_version_flag("--version", "stepstat " STEPSTAT_VERSION);
  // CLI11 reads "/x" as an option on Windows, which took "/traces/run" for one: the flags are
  // "--x" everywhere. Set before the commands are added, which copy it.
  app.allow_windows_style_options(false);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  nsys stats --report cuda_gpu_trace,cuda_kern_exec_trace --format csv --output step "
      "report.nsys-rep\n"
      "  stepstat summarize step                 # reads step_cuda_gpu_trace.csv (+ kern exec)\n"
      "  stepstat summarize step -o stats.json --policy my-policy.toml\n"
      "Run 'stepstat <command> --help' for a command's options. Exit codes: 0 ok, 2 bad usage or "
      "input.");

  Action action;
  AddSummarizeCommand(app, action);
  AddStepsCommand(app, action);
  AddSynthCommand(app, action);
  AddClassifyCommand(app, action);
  AddPoliciesCommand(app, action);
  AddDiffCommand(app, action);
  AddHistoryCommands(app, action);
  AddReportCommand(app, action);
  AddRanksCommands(app, action);
  // Every command takes --quiet, so scripts can pass it whatever they run.
  bool quiet = false;
  AddQuietFlag(app, quiet);

  // CLI11 takes an unknown first word for a stray positional and says only "A subcommand is
  // required"; name the word and the nearest command instead.
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::fprintf(stderr, "stepstat: unknown command '%s'%s\nRun 'stepstat --help' for usage.\n",
                   argv[1], UnknownCommandHint(argv[1], names).c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "stepstat: %s\nRun 'stepstat --help' for usage.\n", e.what());
    return 2;
  }
  if (!action) return 2;
  StartProgress(!quiet && StderrIsTerminal());
  const int code = action();
  StopProgress();  // a command stops it before its output; this covers the paths that did not
  return code;
}

}  // namespace stepstat::cli
