// Golden tests of the real binary, in the manner of Perfetto's diff tests: each folder under
// tests/golden/ holds the inputs, `cmd` (the arguments, one line, run from that folder) and
// the expected `stdout`, `stderr` and `exit` (absent files mean empty output and exit 0), and
// optionally `absent`: files that must not exist after the run, and `env`: VAR=value lines
// set for the run.
// STEPSTAT_UPDATE_GOLDEN=1 rewrites the expectations from the current binary; review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_platform.h"

namespace {

using stepstat::testing_support::ShellCommand;

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteAll(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::vector<std::string> Cases() {
  std::vector<std::string> names;
  fs::path root = fs::path(STEPSTAT_SOURCE_DIR) / "tests" / "golden";
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory() && fs::exists(entry.path() / "cmd")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

class Golden : public testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesExpectedOutput) {
  fs::path dir = fs::path(STEPSTAT_SOURCE_DIR) / "tests" / "golden" / GetParam();
  std::string args = Trimmed(ReadAll(dir / "cmd"));
  std::string shared = STEPSTAT_SHARED_DIR;
  if (auto at = args.find("@SHARED@"); at != std::string::npos) {
    if (!fs::exists(shared)) GTEST_SKIP() << "needs " << shared;
    while ((at = args.find("@SHARED@")) != std::string::npos) args.replace(at, 8, shared);
  }
  // The process id too: other worktrees on this machine run the same cases in the same /tmp
  // (two runs sharing a file once made a case's expected output empty).
  const std::string scratch = "stepstat-golden-" + GetParam() + "-" +
                              std::to_string(stepstat::testing_support::ProcessId());
  fs::path out = fs::temp_directory_path() / (scratch + ".out");
  fs::path err = fs::temp_directory_path() / (scratch + ".err");
  // Output that depends on the terminal's abilities (Unicode bars) must not depend on the
  // developer's locale: every case runs in one fixed environment, plus its optional `env`
  // file (VAR=value lines, e.g. NO_COLOR=1).
  ShellCommand command;
  command.dir = dir.string();
  command.unset = {"NO_COLOR", "COLUMNS"};
  command.env = {{"LC_ALL", "C.UTF-8"}, {"TERM", "xterm"}};
  if (fs::exists(dir / "env")) {
    std::istringstream lines(ReadAll(dir / "env"));
    for (std::string line; std::getline(lines, line);) {
      line = Trimmed(line);
      if (size_t equals = line.find('='); equals != std::string::npos) {
        command.env.emplace_back(line.substr(0, equals), line.substr(equals + 1));
      }
    }
  }
  command.argv = {STEPSTAT_BINARY};
  for (std::string& word : stepstat::testing_support::SplitShellWords(args)) {
    command.argv.push_back(std::move(word));
  }
  command.stdout_file = out.string();
  command.stderr_file = err.string();
  int exit_code = stepstat::testing_support::RunShell(command);
  std::string got_out = ReadAll(out);
  std::string got_err = ReadAll(err);
  fs::remove(out);
  fs::remove(err);

  if (std::getenv("STEPSTAT_UPDATE_GOLDEN") != nullptr) {
    WriteAll(dir / "stdout", got_out);
    WriteAll(dir / "stderr", got_err);
    WriteAll(dir / "exit", std::to_string(exit_code) + "\n");
    GTEST_SKIP() << "rewrote the expectations of " << GetParam();
  }
  // Files the run must not leave behind (an error writes no partial output).
  if (fs::exists(dir / "absent")) {
    std::istringstream names(ReadAll(dir / "absent"));
    for (std::string name; std::getline(names, name);) {
      if (!name.empty()) {
        EXPECT_FALSE(fs::exists(dir / name)) << name << " was written";
      }
    }
  }
  std::string want_exit = fs::exists(dir / "exit") ? Trimmed(ReadAll(dir / "exit")) : "0";
  EXPECT_EQ(std::to_string(exit_code), want_exit);
  EXPECT_EQ(got_out, fs::exists(dir / "stdout") ? ReadAll(dir / "stdout") : "");
  EXPECT_EQ(got_err, fs::exists(dir / "stderr") ? ReadAll(dir / "stderr") : "");
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, testing::ValuesIn(Cases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
