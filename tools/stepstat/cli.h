#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stepstat::cli {

/// For an unknown command `word`: "; did you mean 'x'? (commands: ...)" when one of `names`
/// is close, else " (commands: ...)".
std::string UnknownCommandHint(std::string_view word, const std::vector<std::string>& names);

/// Parses flags, runs one subcommand, returns the process exit code (0 ok, 2 error).
int Run(int argc, char** argv);

}  // namespace stepstat::cli
