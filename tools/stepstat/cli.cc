#include "cli.h"

#include <CLI/CLI.hpp>

namespace stepstat::cli {

int Run(int argc, char** argv) {
  CLI::App app{"stepstat: step statistics from NVIDIA Nsight Systems traces"};
  app.set_version_flag("--version", STEPSTAT_VERSION);
  CLI11_PARSE(app, argc, argv);
  return 0;
}

}  // namespace stepstat::cli
