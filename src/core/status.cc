#include "stepstat/status.h"

#include <algorithm>
#include <string>

namespace stepstat {

std::string OneLineMessage(std::string message) {
  auto is_control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == '\x7f'; };
  if (std::none_of(message.begin(), message.end(), is_control)) return message;
  std::string out;
  out.reserve(message.size() + 16);
  for (char c : message) {
    if (!is_control(c)) {
      out += c;
      continue;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\x";
        out += kHex[static_cast<unsigned char>(c) >> 4];
        out += kHex[static_cast<unsigned char>(c) & 15];
    }
  }
  return out;
}

std::string PlaceMessage(std::string_view file, long long line, std::string_view what) {
  std::string out(file);
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  out += ": ";
  out += what;
  return out;
}

}  // namespace stepstat
