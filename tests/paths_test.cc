// Paths as users type them, through the real binary and the platform's shell: names outside
// ASCII (UTF-8 arguments; on Windows the wide command line), and on Windows backslashes and
// drive letters, each echoed in source_* exactly as given (issue 19).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "stepstat/platform.h"
#include "test_platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A scratch folder holding the bundled example as `<folder>/<run>_*.csv`.
fs::path ExampleCopy(const std::string& tag, const std::string& folder_utf8) {
  fs::path root = fs::temp_directory_path() /
                  ("stepstat_paths_" + tag + "_" + std::to_string(testing_support::ProcessId()));
  fs::remove_all(root);
  fs::path folder = root / PathFromUtf8(folder_utf8);
  fs::create_directories(folder);
  fs::path example = fs::path(STEPSTAT_SOURCE_DIR) / "examples" / "gb10-dit-step";
  for (const char* side : {"_cuda_gpu_trace.csv", "_cuda_kern_exec_trace.csv"}) {
    fs::copy_file(example / ("gb10-dit-step" + std::string(side)),
                  folder / ("run" + std::string(side)));
  }
  return root;
}

TEST(Paths, NamesOutsideAsciiInArgumentsAndOutput) {
  const std::string folder =
      "tr\xC3\xA2"
      "ces-\xE2\x88\x91";  // trâces-∑: ∑ is in no code page
  fs::path root = ExampleCopy("utf8", folder);
  const std::string output = folder + "/r\xC3\xA9sum\xC3\xA9.json";
  testing_support::ShellCommand command;
  command.dir = root.string();
  command.argv = {STEPSTAT_BINARY, "summarize", folder + "/run", "-o", output};
  ASSERT_EQ(testing_support::RunShell(command), 0) << testing_support::ShellLine(command);
  std::string json = ReadAll(root / PathFromUtf8(output));
  // As Python's json.dumps writes them: a \u escape for each character outside ASCII.
  const std::string escaped = "tr\\u00e2ces-\\u2211";
  EXPECT_NE(json.find("\"source_gpu_trace\": \"" + escaped + "/run_cuda_gpu_trace.csv\""),
            std::string::npos)
      << json.substr(0, 300);
  EXPECT_NE(
      json.find("\"source_kernel_exec_trace\": \"" + escaped + "/run_cuda_kern_exec_trace.csv\""),
      std::string::npos);
  fs::remove_all(root);
}

// Issue 19: CLI11 on Windows read an argument starting with '/' as a Windows-style option, so
// "summarize /traces/run" said "INPUT is required". It is an INPUT on every platform: here a
// missing one, so that the message names it (where "/x" leads differs: wine reads it as a
// host path, Windows from the root of the current drive).
TEST(Paths, AnArgumentStartingWithASlashIsAPath) {
  fs::path root = ExampleCopy("slash", "traces");
  testing_support::ShellCommand command;
  command.dir = root.string();
  command.argv = {STEPSTAT_BINARY, "summarize", "/stepstat-no-such-folder/run"};
  command.discard_stdout = true;
  command.stderr_file = (root / "err.txt").string();
  EXPECT_EQ(testing_support::RunShell(command), 2);
  EXPECT_EQ(
      ReadAll(root / "err.txt").rfind("stepstat: /stepstat-no-such-folder/run: no such file", 0),
      0u)
      << ReadAll(root / "err.txt");
  fs::remove_all(root);
}

#if defined(_WIN32)
// `"key": "value"` as the JSON writer prints an ASCII value (backslashes escaped).
std::string JsonLine(const std::string& key, const std::string& value) {
  std::string escaped;
  for (char c : value) escaped += c == '\\' ? std::string("\\\\") : std::string(1, c);
  return "\"" + key + "\": \"" + escaped + "\"";
}

// C:\...\run: an absolute path with a drive letter and backslashes, echoed as typed.
TEST(Paths, DriveLetterAndBackslashesEchoedAsGiven) {
  fs::path root = ExampleCopy("drive", "traces");
  std::string base = (fs::absolute(root) / "traces" / "run").string();
  for (char& c : base) c = c == '/' ? '\\' : c;
  ASSERT_EQ(base[1], ':') << base;
  testing_support::ShellCommand command;
  command.argv = {STEPSTAT_BINARY, "summarize", base};
  command.stdout_file = (root / "out.json").string();
  ASSERT_EQ(testing_support::RunShell(command), 0) << testing_support::ShellLine(command);
  std::string json = ReadAll(root / "out.json");
  EXPECT_NE(json.find(JsonLine("source_gpu_trace", base + "_cuda_gpu_trace.csv")),
            std::string::npos)
      << json.substr(0, 300);
  // Binary stdout: LF line ends only, as on every platform.
  EXPECT_EQ(json.find('\r'), std::string::npos);
  fs::remove_all(root);
}
#endif

}  // namespace
}  // namespace stepstat
