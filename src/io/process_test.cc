#include "io/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "stepstat/platform.h"

#if defined(_WIN32)
#include <windows.h>
// shellapi.h needs windows.h first.
#include <shellapi.h>
#endif

namespace stepstat {
namespace {

#if !defined(_WIN32)

TEST(RunProcess, CollectsOutputAndExitCode) {
  Result<ProcessResult> run = RunProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->exit_code, 3);
  EXPECT_THAT(run->output, ::testing::HasSubstr("out\n"));
  EXPECT_THAT(run->output, ::testing::HasSubstr("err\n"));
}

TEST(RunProcess, ArgumentsAreNotSplitOrInterpreted) {
  Result<ProcessResult> run = RunProcess({"printf", "%s|", "a b", "$HOME", "'q'"});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_EQ(run->output, "a b|$HOME|'q'|");
}

TEST(RunProcess, KeepsTheTailOfLongOutput) {
  Result<ProcessResult> run =
      RunProcess({"sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo line$i; i=$((i+1)); done"});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_LE(run->output.size(), 64u * 1024);
  EXPECT_THAT(run->output, ::testing::EndsWith("line19999\n"));
}

TEST(RunProcess, MissingProgramIsAnError) {
  Result<ProcessResult> run = RunProcess({"stepstat-no-such-program-xyz"});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(),
              ::testing::StartsWith("cannot run stepstat-no-such-program-xyz"));
}

TEST(FindOnPath, FindsShellNotNonsense) {
  EXPECT_TRUE(FindOnPath("sh").has_value());
  EXPECT_FALSE(FindOnPath("stepstat-no-such-program-xyz").has_value());
}

#else

// cmd.exe stands in for sh: every Windows (and wine) has it.
TEST(RunProcess, CollectsOutputAndExitCode) {
  Result<ProcessResult> run = RunProcess({"cmd.exe", "/c", "echo out& echo err 1>&2& exit 3"});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->exit_code, 3);
  EXPECT_THAT(run->output, ::testing::HasSubstr("out"));
  EXPECT_THAT(run->output, ::testing::HasSubstr("err"));
}

TEST(RunProcess, MissingProgramIsAnError) {
  Result<ProcessResult> run = RunProcess({"stepstat-no-such-program-xyz"});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(),
              ::testing::StartsWith("cannot run stepstat-no-such-program-xyz"));
}

// What nsys receives must be exactly our argv, however it is spaced, quoted or backslashed
// (a path like C:\traces\run 1\ ends in a backslash before the closing quote).
TEST(WindowsCommandLine, SplitsBackIntoTheSameArguments) {
  const std::vector<std::string> argv = {"C:\\Program Files\\NVIDIA\\nsys.exe",
                                         "export",
                                         "a b",
                                         "",
                                         "say \"hi\"",
                                         "C:\\traces\\run 1\\",
                                         "back\\\\\"slash",
                                         "tab\there",
                                         "r\xC3\xA9sum\xC3\xA9"};
  std::wstring line = WindowsCommandLine(argv);
  int count = 0;
  wchar_t** parsed = CommandLineToArgvW(line.c_str(), &count);
  ASSERT_NE(parsed, nullptr);
  ASSERT_EQ(static_cast<size_t>(count), argv.size());
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(PathToUtf8(std::filesystem::path(parsed[i])), argv[static_cast<size_t>(i)]);
  }
  LocalFree(parsed);
}

TEST(FindOnPath, FindsCmdNotNonsense) {
  EXPECT_TRUE(FindOnPath("cmd").has_value());
  EXPECT_FALSE(FindOnPath("stepstat-no-such-program-xyz").has_value());
}

#endif

}  // namespace
}  // namespace stepstat
