#include "io/windows_text.h"

#if defined(_WIN32)
#include <windows.h>

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
