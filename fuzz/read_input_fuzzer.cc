// The file-level entry points, DetectInputKind then ReadInput, as the CLI calls them, on a
// temporary file holding the input (there is no in-memory entry point; small inputs keep this
// fast). Gzip and zstd magic bytes take the decompressing path. Checks: detection and reading
// end ok or in an error that follows the message rules; ops and calls keep trace.h's promises.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "stepstat/read.h"

namespace {

constexpr std::string_view kName = "fuzz-input";

std::filesystem::path TempPath() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("stepstat-read-input-fuzz-" + std::to_string(getpid()));
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path path = TempPath();
  {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    FUZZ_CHECK(file != nullptr);
    FUZZ_CHECK(size == 0 || std::fwrite(data, 1, size, file) == size);
    std::fclose(file);
  }
  stepstat::Result<stepstat::InputKind> kind = stepstat::DetectInputKind(path, kName);
  if (!kind.ok()) {
    stepstat::fuzz::CheckErrorMessage(kind.status(), kName);
    return 0;
  }
  stepstat::fuzz::CheckingSink sink;
  stepstat::Result<stepstat::ReadReport> report =
      stepstat::ReadInput(path, kName, kind.value(), sink);
  if (!report.ok()) {
    stepstat::fuzz::CheckErrorMessage(report.status(), kName);
    return 0;
  }
  FUZZ_CHECK(report->kind == kind.value());
  FUZZ_CHECK(report->rows >= 0);
  return 0;
}
