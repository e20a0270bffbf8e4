#pragma once

namespace stepstat::cli {

/// Parses flags, runs one subcommand, returns the process exit code (0 ok, 2 error).
int Run(int argc, char** argv);

}  // namespace stepstat::cli
