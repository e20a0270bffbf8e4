// The scaffolding of a test suite that runs the real binary as a user would: a scratch folder
// of its own, inputs written once for the suite, one run's stdout and stderr kept for the
// test to read. A suite derives from CliSuite<itself> (each suite its own static state), calls
// MakeScratch in its SetUpTestSuite, writes its inputs with Run, then sets ready_.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "test_platform.h"

namespace stepstat::testing_support {

/// A file's bytes, or nothing when it cannot be read.
inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// ../shared/data/real: the real traces of MANIFEST.md (tests skip when it is absent).
inline std::filesystem::path RealDir() {
  return std::filesystem::path(STEPSTAT_SHARED_DIR) / "data" / "real";
}

/// The real traces whose names end in `suffix`, sorted; none when the folder is absent.
inline std::vector<std::filesystem::path> RealFiles(std::string_view suffix) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(RealDir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > suffix.size() && name.ends_with(suffix)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

template <typename Suite>
class CliSuite : public testing::Test {
 protected:
  /// The scratch folder `<temp>/<prefix><pid>`, emptied: ctest runs each test in a process of
  /// its own, two at a time, so each process needs a folder of its own.
  static void MakeScratch(std::string_view prefix,
                          std::vector<std::pair<std::string, std::string>> env = {}) {
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     (std::string(prefix) + std::to_string(ProcessId())));
    std::filesystem::remove_all(*dir_);
    std::filesystem::create_directories(*dir_);
    env_ = std::move(env);
  }
  static void TearDownTestSuite() {
    if (dir_ == nullptr) return;
    std::filesystem::remove_all(*dir_);
    delete dir_;
    dir_ = nullptr;
  }
  // gtest skips, rather than fails, the tests of a suite whose setup failed: fail them.
  void SetUp() override { ASSERT_TRUE(ready_) << "the suite's inputs were not written: " << err_; }

  /// Runs stepstat ARGS (written as for sh) in the scratch folder with the suite's
  /// environment; stdout in out_, stderr in err_; the exit code.
  static int Run(std::string_view args) {
    CapturedRun run = RunCapturing(STEPSTAT_BINARY, *dir_, args, env_);
    out_ = std::move(run.out);
    err_ = std::move(run.err);
    return run.exit_code;
  }

  static inline std::filesystem::path* dir_ = nullptr;
  static inline bool ready_ = false;
  static inline std::string out_, err_;
  static inline std::vector<std::pair<std::string, std::string>> env_;
};

}  // namespace stepstat::testing_support
