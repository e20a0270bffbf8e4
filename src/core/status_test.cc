#include "stepstat/status.h"

#include <gtest/gtest.h>

namespace stepstat {
namespace {

// Messages carry bytes from files (names, header cells); a newline split the CLI's one-line
// error and an escape sequence reached the terminal as is (found by the hostile-input suite).
TEST(StatusTest, ErrorMessagesStayOnOneLineWithoutControlBytes) {
  EXPECT_EQ(ErrorAt("a\nb.csv", 3, "bad \x1b[31mred\r\t\x7f").message(),
            "a\\nb.csv:3: bad \\x1b[31mred\\r\\t\\x7f");
  EXPECT_EQ(Status::Error(std::string("nul \0 byte", 10)).message(), "nul \\x00 byte");
  EXPECT_EQ(ErrorAt("t.csv", 0, "plain, \"quoted\" and \xc3\xa9").message(),
            "t.csv: plain, \"quoted\" and \xc3\xa9");
}

}  // namespace
}  // namespace stepstat
