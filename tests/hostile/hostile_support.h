// Running stepstat on hostile input and checking the one rule every case shares: exit 0 with
// clean JSON, or exit 2 with exactly one line `stepstat: ...` on stderr and no output file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/policy.h"
#include "stepstat/status.h"

namespace stepstat::hostile {

struct RunResult {
  int exit_code = -1;  ///< 124: killed by the timeout
  std::string out;     ///< the JSON written with -o (empty when no file was written)
  bool wrote_output = false;
  std::string err;
};

/// A fresh directory under the temp dir for one test, removed by the destructor.
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view name);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Writes `bytes` to <dir>/<name> and returns that path.
  std::filesystem::path Write(std::string_view name, std::string_view bytes) const;

 private:
  std::filesystem::path path_;
};

/// Runs `stepstat summarize <args...> -o out.json` in `dir` (args are single-quoted for the
/// shell, so any bytes but NUL pass through). Gives up after a generous timeout.
RunResult Summarize(const ScratchDir& dir, const std::vector<std::string>& args);

/// Empty when `run` keeps the rule above; else what is wrong. `what` names the case.
std::string CheckOutcome(const RunResult& run);

/// The library path of the CLI (ResolveInputs + Summarize with the default policy) on
/// `path`: empty when ok, else the error message, which must already be one clean line
/// starting with the path (checked; a violation is returned prefixed with "BAD: ").
std::string SummarizeInProcess(const std::filesystem::path& path, const Policy& policy);

/// The bytes of a file of the source tree (tests/golden/...).
std::string ReadSourceFile(std::string_view relative_path);

}  // namespace stepstat::hostile
