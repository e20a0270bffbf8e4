#include "report/text_escape.h"

#include <gtest/gtest.h>

namespace stepstat {
namespace {

TEST(EscapeForTerminal, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(EscapeForTerminal("k\x1b[31mred\x1b[0m"), "k\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(EscapeForTerminal("a\tb\nc\r\x7f"), "a\\x09b\\x0ac\\x0d\\x7f");
  EXPECT_EQ(EscapeForTerminal(std::string_view("a\0b", 3)), "a\\x00b");
}

TEST(EscapeForTerminal, KeepsValidUtf8AndEscapesC1AndInvalidBytes) {
  EXPECT_EQ(EscapeForTerminal("µs → ok"), "µs → ok");
  EXPECT_EQ(EscapeForTerminal("\xc2\x9b"
                              "2J"),
            "\\u009b2J");  // U+009B: CSI on some terminals
  EXPECT_EQ(EscapeForTerminal("\x9b"
                              "2J"),
            "\\x9b2J");                                             // raw 8-bit CSI byte
  EXPECT_EQ(EscapeForTerminal("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(EscapeForTerminal("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(EscapeForTerminal("\xe2\x82"), "\\xe2\\x82");           // truncated sequence
}

TEST(EscapeForMarkdown, NamesRenderAsText) {
  EXPECT_EQ(EscapeForMarkdown("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(EscapeForMarkdown("a|b`c`"), "a\\|b\\`c\\`");
  EXPECT_EQ(EscapeForMarkdown("float*, my_kernel[2]"), "float\\*, my\\_kernel\\[2\\]");
  EXPECT_EQ(EscapeForMarkdown("x\x1b"
                              "y&z"),
            "x\\\\x1by&amp;z");
}

TEST(TruncateToWidth, CutsOnCodePoints) {
  EXPECT_EQ(TruncateToWidth("abcdef", 6, "…"), "abcdef");
  EXPECT_EQ(TruncateToWidth("abcdefg", 6, "…"), "abcde…");
  EXPECT_EQ(TruncateToWidth("ééééééé", 4, "..."), "é...");
  EXPECT_EQ(DisplayWidth("é…a"), 3u);
}

}  // namespace
}  // namespace stepstat
