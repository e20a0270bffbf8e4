#include <gtest/gtest.h>

#include <cstdlib>

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

}  // namespace
}  // namespace stepstat
