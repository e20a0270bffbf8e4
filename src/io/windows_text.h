// UTF-8 ↔ UTF-16 for the Windows API calls of src/io, and UTF-8 text onto a Windows console.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stepstat {

/// The length of the longest prefix of `utf8` that does not end inside a multi-byte
/// sequence: what can be converted now when text arrives in pieces (the rest waits for the
/// next piece). Bytes that are not UTF-8 count as whole.
size_t CompleteUtf8Prefix(std::string_view utf8);

}  // namespace stepstat

#if defined(_WIN32)
namespace stepstat {

/// UTF-16 (what the W functions take and return) as UTF-8; unpaired surrogates become U+FFFD.
std::string Utf8FromWide(std::wstring_view wide);
/// UTF-8 as UTF-16; invalid bytes become U+FFFD.
std::wstring WideFromUtf8(std::string_view utf8);
/// The environment variable `name` as UTF-8 (getenv gives it in the ANSI code page); empty
/// when unset.
std::wstring WideEnv(const wchar_t* name);

/// Whether standard output is a console: not a file, a pipe or NUL (for which _isatty() is
/// true as well).
bool StdoutIsConsoleHandle();

/// Writes UTF-8 text to the console on standard output as UTF-16 (WriteConsoleW), so that it
/// shows right whatever the console's code page; a sequence cut at the end of `bytes` waits
/// for the next call. One thread writes standard output. False if the write failed.
bool WriteConsoleUtf8(std::string_view bytes);

}  // namespace stepstat
#endif
