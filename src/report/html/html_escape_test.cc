#include "report/html/html_escape.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace stepstat::html {
namespace {

TEST(EscapeHtml, ScriptTagInAKernelNameBecomesText) {
  EXPECT_EQ(EscapeHtml("</script><script>alert(1)</script>"),
            "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
}

TEST(EscapeHtml, TemplateArgumentsAndQuotesAreSafeInAttributes) {
  EXPECT_EQ(EscapeHtml("k<float, 2>"), "k&lt;float, 2&gt;");
  EXPECT_EQ(EscapeHtml("a\"b' onmouseover=x&y"), "a&quot;b&#39; onmouseover=x&amp;y");
}

TEST(SanitizeUtf8, ValidTextPassesThrough) {
  EXPECT_EQ(SanitizeUtf8("gemm_µ kernel\tΔ 🚀\n"), "gemm_µ kernel\tΔ 🚀\n");
}

TEST(SanitizeUtf8, InvalidBytesAndControlsBecomeReplacementCharacters) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(SanitizeUtf8("a\xFF"
                         "b"),
            "a" + fffd + "b");
  EXPECT_EQ(SanitizeUtf8("\x1B[31mred"), fffd + "[31mred");  // a terminal escape
  EXPECT_EQ(SanitizeUtf8(std::string("x\0y", 3)), "x" + fffd + "y");
  EXPECT_EQ(SanitizeUtf8("\x7F"), fffd);                        // DEL
  EXPECT_EQ(SanitizeUtf8("\xC2\x85"), fffd);                    // C1 NEL
  EXPECT_EQ(SanitizeUtf8("\xC0\xAF"), fffd + fffd);             // overlong '/'
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), fffd + fffd + fffd);  // a UTF-16 surrogate
  EXPECT_EQ(SanitizeUtf8("\xE2\x82"), fffd);                    // cut short: one maximal subpart
  EXPECT_EQ(SanitizeUtf8("\xE2\x82x"), fffd + "x");
}

TEST(JsonForScriptElement, NoSequenceCanEndTheElement) {
  const std::string json = R"({"name": "</script><!--&"})";
  const std::string safe = JsonForScriptElement(json);
  EXPECT_EQ(safe, R"({"name": "\u003c/script\u003e\u003c!--\u0026"})");
  EXPECT_EQ(safe.find('<'), std::string::npos);
}

// Whether `text` is valid UTF-8 without controls (but tab and newline), DEL or C1 controls.
bool IsCleanUtf8(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    const auto lead = static_cast<uint8_t>(text[at]);
    size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
    if (length == 0 || at + length > text.size()) return false;
    uint32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (size_t i = 1; i < length; ++i) {
      const auto next = static_cast<uint8_t>(text[at + i]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    if ((code < 0x20 && code != '\t' && code != '\n') || (code >= 0x7F && code <= 0x9F)) {
      return false;
    }
    at += length;
  }
  return true;
}

// Random bytes (biased towards the ones that matter) never get past the escapes.
TEST(EscapeHtml, RandomBytesComeOutCleanAndInert) {
  std::mt19937 random(17);
  static constexpr char kInteresting[] =
      "<>&\"'\x00\x1B\x7F\x80\xC2\x85\xE2\x82\xAC\xED\xA0\xF0\x9F\xF4\x90\xFF";
  const std::string interesting(kInteresting, sizeof kInteresting - 1);  // the NUL included
  for (int round = 0; round < 2000; ++round) {
    std::string bytes;
    const size_t length = random() % 40;
    for (size_t i = 0; i < length; ++i) {
      bytes += random() % 2 == 0 ? interesting[random() % interesting.size()]
                                 : static_cast<char>(random() % 256);
    }
    const std::string clean = SanitizeUtf8(bytes);
    EXPECT_TRUE(IsCleanUtf8(clean)) << testing::PrintToString(bytes);
    const std::string escaped = EscapeHtml(bytes);
    EXPECT_TRUE(IsCleanUtf8(escaped));
    EXPECT_EQ(escaped.find_first_of("<>\"'"), std::string::npos);
    for (size_t at = escaped.find('&'); at != std::string::npos; at = escaped.find('&', at + 1)) {
      const std::string_view rest = std::string_view(escaped).substr(at);
      EXPECT_TRUE(rest.starts_with("&amp;") || rest.starts_with("&lt;") ||
                  rest.starts_with("&gt;") || rest.starts_with("&quot;") ||
                  rest.starts_with("&#39;"));
    }
    EXPECT_EQ(SanitizeUtf8(clean), clean);  // clean text stays as it is
  }
}

}  // namespace
}  // namespace stepstat::html
