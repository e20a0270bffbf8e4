// Running another program (nsys, to export a .nsys-rep) and finding it on PATH. The only
// place stepstat starts processes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/status.h"

namespace stepstat {

struct ProcessResult {
  int exit_code = 0;   ///< the program's exit status; 128 + n when killed by signal n
  std::string output;  ///< its stdout and stderr interleaved, the last 64 KiB at most
};

/// Runs argv[0] (searched on PATH when it has no '/'; on Windows as CreateProcessW searches,
/// .exe appended) with `argv`, waits for it and collects its output. An error only when it
/// cannot be started.
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv);

#if defined(_WIN32)
/// `argv` as one Windows command line that the C runtime and CommandLineToArgvW split back
/// into exactly `argv` (quotes and backslashes escaped as they expect).
std::wstring WindowsCommandLine(const std::vector<std::string>& argv);
#endif

/// The first executable file named `program` in the PATH directories, if any.
std::optional<std::filesystem::path> FindOnPath(std::string_view program);

}  // namespace stepstat
