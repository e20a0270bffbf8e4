#include "report/table.h"

#include <gtest/gtest.h>

#include "stepstat/report.h"

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
  EXPECT_EQ(Bar(0.5, 3, unicode), "█▌");   // 12 eighths
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

// Issue 13: one column held "13029.2", "37.433" and "0.435104"; zero printed as "0".
TEST(Format, MillisecondColumnsHaveOnePrecision) {
  EXPECT_EQ(FormatMsColumn({0, 435'104, 37'433'000, 13'029'200'000}),
            (std::vector<std::string>{"0.0", "0.4", "37.4", "13029.2"}));
  EXPECT_EQ(FormatMsColumn({0, 1'234'567}), (std::vector<std::string>{"0.000", "1.235"}));
  EXPECT_EQ(FormatMsColumn({0, 50}), (std::vector<std::string>{"0.000000", "0.000050"}));
}

// Issue 13: tables were 133-170 columns on an 80-column terminal.
TEST(TextTable, FitsAWidthByElidingThenDropping) {
  TextTable t;
  t.Column("n", TextTable::kRight)
      .Column("extra", TextTable::kRight, ColumnFit{1, 0})
      .Column("name", TextTable::kLeft, ColumnFit{0, 8});
  t.Row({"1", "12345", "namespace::kernel<float>(int)"});
  // Unlimited: everything, whole.
  EXPECT_EQ(t.Render(0), "n  extra  name\n1  12345  namespace::kernel<float>(int)\n");
  // 30 columns: eliding the name in the middle is enough.
  EXPECT_EQ(t.Render(0, TextStyle{true, 30}), "n  extra  name\n1  12345  namespace:…oat>(int)\n");
  // 16: the name down to its minimum is not enough, so `extra` goes and the name takes the
  // room back.
  EXPECT_EQ(t.Render(0, TextStyle{false, 16}), "n  name\n1  names...(int)\n");
}

TEST(WrapText, WrapsAtSpacesAndIndentsContinuations) {
  EXPECT_EQ(WrapText("aa bb cc dd", 0), "aa bb cc dd");
  EXPECT_EQ(WrapText("aa bb cc dd", 5, 2), "aa bb\n  cc\n  dd");
  EXPECT_EQ(WrapText("averylongword x", 4), "averylongword\nx");
}

TEST(DisplayName, EscapesThenTruncates) {
  EXPECT_EQ(DisplayName("k\x1b[2J", 40, TextStyle{true}), "k\\x1b[2J");
  EXPECT_EQ(DisplayName("abcdefghij", 6, TextStyle{false}), "abc...");
}

}  // namespace
}  // namespace stepstat

namespace stepstat {
namespace {

// Whatever a trace calls its kernels, no writer may send a terminal a control character.
TEST(Writers, NoRawControlCharactersFromHostileNames) {
  std::string hostile =
      "k\x1b]0;title\x07\x1b[2J\r\xc2\x9b"
      "31m<b>|`";
  StepStats stats;
  stats.source_gpu_trace = hostile;
  stats.components.push_back({hostile, hostile, 10, 1e-5, 100.0, 1});
  Details details;
  details.devices.push_back({hostile, 1, 10, 10, 1.0, {}, 0, 0, {}});
  details.memory_operations.push_back({hostile, 1, 1, 1, 0});
  details.top_kernels.push_back({hostile, hostile, 1, 10, 10.0, 10});
  details.coverage.top_other = details.top_kernels;
  details.data_quality.inputs.push_back({hostile, hostile, hostile, hostile, 1});
  LaunchPathDetails launch;
  launch.by_api.push_back({hostile, 1});
  details.launch_path = launch;
  for (bool unicode : {true, false}) {
    std::string text = StepStatsToTable(stats, &details, TextStyle{unicode});
    for (char c : text) {
      auto byte = static_cast<unsigned char>(c);
      EXPECT_TRUE(byte >= 0x20 || c == '\n') << "raw byte " << int{byte};
      EXPECT_NE(byte, 0x7F);
    }
    EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos);
    EXPECT_NE(text.find("k\\x1b]0;title\\x07"), std::string::npos);
  }
  std::string markdown = StepStatsToMarkdown(stats, &details);
  for (char c : markdown) EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n');
  EXPECT_EQ(markdown.find("<b>"), std::string::npos);
  EXPECT_NE(markdown.find("&lt;b&gt;\\|\\`"), std::string::npos);
}

}  // namespace
}  // namespace stepstat
