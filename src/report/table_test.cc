#include "report/table.h"

#include <gtest/gtest.h>

namespace stepstat {
namespace {

TEST(Format, Milliseconds) {
  EXPECT_EQ(FormatMs(0), "0");
  EXPECT_EQ(FormatMs(50), "0.000050");
  EXPECT_EQ(FormatMs(999'999), "0.999999");
  EXPECT_EQ(FormatMs(1'234'567), "1.235");
  EXPECT_EQ(FormatMs(20'912'345'678), "20912.3");
}

TEST(Format, CountsAndBytes) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(27005), "27,005");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(4'194'304), "4.19 MB");
}

TEST(Bar, UnicodeEighthsAndAscii) {
  TextStyle unicode{true};
  TextStyle ascii{false};
  EXPECT_EQ(Bar(0.0, 8, unicode), "");
  EXPECT_EQ(Bar(1.0, 2, unicode), "██");
  EXPECT_EQ(Bar(0.5, 3, unicode), "█▌");  // 12 eighths
  EXPECT_EQ(Bar(0.001, 8, unicode), "▏");  // visible when not zero
  EXPECT_EQ(Bar(0.5, 8, ascii), "####");
  EXPECT_EQ(Bar(2.0, 4, ascii), "####");  // clamped
}

TEST(TextTable, AlignsByDisplayWidth) {
  TextTable t;
  t.Column("name", TextTable::kLeft).Column("ms", TextTable::kRight);
  t.Row({"é", "1.5"}).Row({"long name", "10"});
  EXPECT_EQ(t.Render(1),
            " name        ms\n"
            " é          1.5\n"
            " long name   10\n");
}

TEST(DisplayName, EscapesThenTruncates) {
  EXPECT_EQ(DisplayName("k\x1b[2J", 40, TextStyle{true}), "k\\x1b[2J");
  EXPECT_EQ(DisplayName("abcdefghij", 6, TextStyle{false}), "abc...");
}

}  // namespace
}  // namespace stepstat
