#include "report/text_escape.h"

#include <cstdint>
#include <cstdio>

namespace stepstat {

namespace {

void AppendHex(std::string& out, const char* prefix, unsigned value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%s%02x", prefix, value);
  out += buffer;
}

// Length of the valid UTF-8 sequence at text[i] (RFC 3629: no overlongs, no surrogates,
// nothing above U+10FFFF), or 0 if the bytes there are not one.
size_t Utf8SequenceLength(std::string_view text, size_t i, uint32_t& code_point) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || i + length > text.size()) return 0;
  code_point = lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3F);
  }
  bool overlong = (length == 3 && code_point < 0x800) || (length == 4 && code_point < 0x10000);
  bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
  if (overlong || surrogate || code_point > 0x10FFFF) return 0;
  return length;
}

}  // namespace

std::string EscapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    uint32_t cp = c;
    // Printable ASCII is its own sequence; controls and invalid UTF-8 have none (0).
    size_t length = c >= 0x80 ? Utf8SequenceLength(text, i, cp) : (c < 0x20 || c == 0x7F ? 0 : 1);
    if (length == 0) {
      AppendHex(out, "\\x", c);
      ++i;
      continue;
    }
    if (cp >= 0x80 && cp <= 0x9F) {
      AppendHex(out, "\\u00", cp);
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::string EscapeForMarkdown(std::string_view text) {
  std::string out;
  for (char c : EscapeForTerminal(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\\':
      case '`':
      case '|':
      case '*':
      case '_':
      case '[':
      case ']':
      case '~':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

namespace {

// Byte offset just past the first `columns` code points of `text`.
size_t PrefixBytes(std::string_view text, size_t columns) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (seen == columns) return i;
      ++seen;
    }
  }
  return text.size();
}

}  // namespace

std::string ElideMiddle(std::string_view text, size_t width, std::string_view ellipsis) {
  const size_t total = DisplayWidth(text);
  if (total <= width) return std::string(text);
  const size_t mark = DisplayWidth(ellipsis);
  if (width <= mark) return TruncateToWidth(text, width, ellipsis);
  const size_t keep = width - mark;
  const size_t head = (keep + 1) / 2, tail = keep - head;
  return std::string(text.substr(0, PrefixBytes(text, head))) + std::string(ellipsis) +
         std::string(text.substr(PrefixBytes(text, total - tail)));
}

std::string TruncateToWidth(std::string_view text, size_t width, std::string_view ellipsis) {
  if (DisplayWidth(text) <= width) return std::string(text);
  size_t keep = width > DisplayWidth(ellipsis) ? width - DisplayWidth(ellipsis) : 0;
  size_t columns = 0;
  size_t end = 0;
  for (; end < text.size(); ++end) {
    if ((static_cast<unsigned char>(text[end]) & 0xC0) != 0x80) {
      if (columns == keep) break;
      ++columns;
    }
  }
  return std::string(text.substr(0, end)) + std::string(ellipsis);
}

}  // namespace stepstat
