#include "io/windows_text.h"

#include <algorithm>

#if defined(_WIN32)
#include <windows.h>
#endif

namespace stepstat {

size_t CompleteUtf8Prefix(std::string_view utf8) {
  // Walk back over at most three continuation bytes to the lead byte of the last sequence.
  for (size_t back = 1; back <= 4 && back <= utf8.size(); ++back) {
    const auto c = static_cast<unsigned char>(utf8[utf8.size() - back]);
    if ((c & 0xC0) == 0x80) continue;
    const size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return length > back ? utf8.size() - back : utf8.size();
  }
  return utf8.size();
}

}  // namespace stepstat

#if defined(_WIN32)
namespace stepstat {

std::string Utf8FromWide(std::wstring_view wide) {
  if (wide.empty()) return {};
  const int size = static_cast<int>(wide.size());
  int bytes = WideCharToMultiByte(CP_UTF8, 0, wide.data(), size, nullptr, 0, nullptr, nullptr);
  std::string text(static_cast<size_t>(bytes), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide.data(), size, text.data(), bytes, nullptr, nullptr);
  return text;
}

std::wstring WideFromUtf8(std::string_view utf8) {
  if (utf8.empty()) return {};
  const int size = static_cast<int>(utf8.size());
  int units = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), size, nullptr, 0);
  std::wstring wide(static_cast<size_t>(units), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), size, wide.data(), units);
  return wide;
}

bool StdoutIsConsoleHandle() {
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  return out != INVALID_HANDLE_VALUE && out != nullptr && GetConsoleMode(out, &mode);
}

bool WriteConsoleUtf8(std::string_view bytes) {
  static std::string pending;  // the start of a sequence that the previous piece cut
  std::string text = pending;
  text.append(bytes);
  const size_t complete = CompleteUtf8Prefix(text);
  pending = text.substr(complete);
  const std::wstring wide = WideFromUtf8(std::string_view(text).substr(0, complete));
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  for (size_t at = 0; at < wide.size();) {
    DWORD written = 0;
    const auto chunk = static_cast<DWORD>(std::min<size_t>(wide.size() - at, 8192));
    if (!WriteConsoleW(out, wide.data() + at, chunk, &written, nullptr) || written == 0) {
      return false;
    }
    at += written;
  }
  return true;
}

std::wstring WideEnv(const wchar_t* name) {
  DWORD units = GetEnvironmentVariableW(name, nullptr, 0);
  if (units == 0) return {};
  std::wstring value(units, L'\0');
  units = GetEnvironmentVariableW(name, value.data(), units);
  value.resize(units);
  return value;
}

}  // namespace stepstat
#endif
