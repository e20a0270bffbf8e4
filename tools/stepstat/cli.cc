#include "cli.h"

#include <CLI/CLI.hpp>

#include "commands.h"

namespace stepstat::cli {

int Run(int argc, char** argv) {
  CLI::App app{"stepstat: step statistics from NVIDIA Nsight Systems traces"};
  app.set_version_flag("--version", STEPSTAT_VERSION);
  Action action;
  AddSynthCommand(app, action);
  CLI11_PARSE(app, argc, argv);
  return action ? action() : 0;
}

}  // namespace stepstat::cli
