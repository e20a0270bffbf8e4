// UTF-8 ↔ UTF-16 for the Windows API calls of src/io. Windows only.
#pragma once

#if defined(_WIN32)
#include <string>
#include <string_view>

namespace stepstat {

/// UTF-16 (what the W functions take and return) as UTF-8; unpaired surrogates become U+FFFD.
std::string Utf8FromWide(std::wstring_view wide);
/// UTF-8 as UTF-16; invalid bytes become U+FFFD.
std::wstring WideFromUtf8(std::string_view utf8);
/// The environment variable `name` as UTF-8 (getenv gives it in the ANSI code page); empty
/// when unset.
std::wstring WideEnv(const wchar_t* name);

}  // namespace stepstat
#endif
