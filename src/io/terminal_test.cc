#include <gtest/gtest.h>

#include <cstdlib>

#include "io/windows_text.h"
#include "stepstat/output.h"
#include "test_platform.h"

namespace stepstat {
namespace {

// Sets the variables that decide Unicode output; unset when null.
void Environment(const char* lc_all, const char* lang, const char* no_color, const char* term) {
  auto set = [](const char* name, const char* value) {
    if (value == nullptr) {
      testing_support::UnsetEnv(name);
    } else {
      testing_support::SetEnv(name, value);
    }
  };
  set("LC_ALL", lc_all);
  set("LC_CTYPE", nullptr);
  set("LANG", lang);
  set("NO_COLOR", no_color);
  set("TERM", term);
}

TEST(TerminalAllowsUnicode, FollowsLocaleNoColorAndDumbTerminals) {
  Environment("C.UTF-8", nullptr, nullptr, "xterm");
  EXPECT_TRUE(TerminalAllowsUnicode());
  Environment(nullptr, "en_US.utf8", nullptr, "xterm");
  EXPECT_TRUE(TerminalAllowsUnicode());
  Environment("C", "en_US.UTF-8", nullptr, "xterm");  // LC_ALL wins
  EXPECT_FALSE(TerminalAllowsUnicode());
  Environment(nullptr, nullptr, nullptr, "xterm");
  EXPECT_FALSE(TerminalAllowsUnicode());
  Environment("C.UTF-8", nullptr, "1", "xterm");
  EXPECT_FALSE(TerminalAllowsUnicode());
  Environment("C.UTF-8", nullptr, nullptr, "dumb");
  EXPECT_FALSE(TerminalAllowsUnicode());
}

TEST(StdoutAllowsColor, NoColorAndDumbTerminalsAndPipesTurnItOff) {
  Environment("C.UTF-8", nullptr, "1", "xterm");
  EXPECT_FALSE(StdoutAllowsColor());
  Environment("C.UTF-8", nullptr, nullptr, "dumb");
  EXPECT_FALSE(StdoutAllowsColor());
  Environment("C.UTF-8", nullptr, nullptr, "xterm");
  EXPECT_EQ(StdoutAllowsColor(), StdoutIsTerminal());  // under ctest a pipe: no color
}

TEST(StdoutColumns, ColumnsWinsAndNonsenseIsIgnored) {
  testing_support::SetEnv("COLUMNS", "80");
  EXPECT_EQ(StdoutColumns(), 80u);
  // Without a usable COLUMNS a terminal gives its own width: only a pipe (ctest) gives 0.
  if (StdoutIsTerminal()) GTEST_SKIP() << "stdout is a terminal";
  testing_support::SetEnv("COLUMNS", "wide");
  EXPECT_EQ(StdoutColumns(), 0u);
  testing_support::SetEnv("COLUMNS", "-5");
  EXPECT_EQ(StdoutColumns(), 0u);
  testing_support::UnsetEnv("COLUMNS");
  EXPECT_EQ(StdoutColumns(), 0u);
}

// Table text reaches a Windows console in pieces, converted to UTF-16 piece by piece: a
// piece must not end inside a character (a block bar is 3 bytes, some names 4).
TEST(CompleteUtf8Prefix, HoldsBackOnlyACutSequence) {
  EXPECT_EQ(CompleteUtf8Prefix(""), 0u);
  EXPECT_EQ(CompleteUtf8Prefix("abc"), 3u);
  const std::string bar = "\xE2\x96\x88";  // U+2588 FULL BLOCK
  EXPECT_EQ(CompleteUtf8Prefix("ab" + bar), 5u);
  EXPECT_EQ(CompleteUtf8Prefix("ab" + bar.substr(0, 1)), 2u);
  EXPECT_EQ(CompleteUtf8Prefix("ab" + bar.substr(0, 2)), 2u);
  const std::string four = "\xF0\x9F\x98\x80";  // U+1F600
  EXPECT_EQ(CompleteUtf8Prefix(four.substr(0, 3)), 0u);
  EXPECT_EQ(CompleteUtf8Prefix("x" + four), 5u);
  EXPECT_EQ(CompleteUtf8Prefix("x\xC3"), 1u);              // the start of \xC3\xA9
  EXPECT_EQ(CompleteUtf8Prefix("x\x80\x80\x80\x80"), 5u);  // stray continuations: whole
}

}  // namespace
}  // namespace stepstat
