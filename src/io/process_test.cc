#include "io/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

#endif

}  // namespace
}  // namespace stepstat
