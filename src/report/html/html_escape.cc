#include "report/html/html_escape.h"

#include <cstdint>

namespace stepstat::html {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The UTF-8 sequence at `text[at]` (RFC 3629: no overlongs, no surrogates, nothing past
// U+10FFFF): its length when valid; else, in `*invalid`, the maximal subpart to replace with
// one U+FFFD (Unicode's best practice, as Python's decode("utf-8", "replace") and
// json_writer.h do, so the page and its embedded JSON show a name alike).
size_t SequenceLength(std::string_view text, size_t at, bool* invalid) {
  auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(at);
  *invalid = false;
  if (lead < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80;
  uint8_t high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    *invalid = true;
    return 1;
  }
  for (size_t i = 1; i < length; ++i) {
    const bool ok = at + i < text.size() && (i == 1 ? byte(at + 1) >= low && byte(at + 1) <= high
                                                    : (byte(at + i) & 0xC0) == 0x80);
    if (!ok) {
      *invalid = true;
      return i;
    }
  }
  return length;
}

bool IsControl(std::string_view text, size_t at, size_t length) {
  const auto lead = static_cast<uint8_t>(text[at]);
  if (length == 1) return (lead < 0x20 && lead != '\t' && lead != '\n') || lead == 0x7F;
  // U+0080..U+009F are C2 80..C2 9F.
  return length == 2 && lead == 0xC2 && static_cast<uint8_t>(text[at + 1]) < 0xA0;
}

}  // namespace

std::string SanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    bool invalid = false;
    const size_t length = SequenceLength(text, at, &invalid);
    if (invalid || IsControl(text, at, length)) {
      out += kReplacement;
    } else {
      out.append(text, at, length);
    }
    at += length;
  }
  return out;
}

std::string EscapeHtml(std::string_view text) {
  const std::string clean = SanitizeUtf8(text);
  std::string out;
  out.reserve(clean.size());
  for (const char c : clean) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string JsonForScriptElement(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (const char c : json) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace stepstat::html
