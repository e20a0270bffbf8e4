#include "report/html/html_escape.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace stepstat::html
