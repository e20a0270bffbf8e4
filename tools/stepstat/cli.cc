#include "cli.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.h"

namespace stepstat::cli {

int Run(int argc, char** argv) {
  CLI::App app{
      "stepstat: step statistics from NVIDIA Nsight Systems traces.\n"
      "Where does a step's GPU time go, by component? How idle is the GPU between kernels?\n"
      "Does the CPU launch path keep up?",
      "stepstat"};
  app.set_version_flag("--version", "stepstat " STEPSTAT_VERSION);
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
  AddSynthCommand(app, action);
  AddClassifyCommand(app, action);
  AddPoliciesCommand(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::fprintf(stderr, "stepstat: %s\nRun 'stepstat --help' for usage.\n", e.what());
    return 2;
  }
  return action ? action() : 2;
}

}  // namespace stepstat::cli
