#include <cstdlib>
#include <string>

#include "stepstat/output.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

namespace stepstat {

namespace {

const char* Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

bool NamesUtf8(std::string locale) {
  for (char& c : locale) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return locale.find("utf-8") != std::string::npos || locale.find("utf8") != std::string::npos;
}

#if defined(_WIN32)
// A console, not merely a character device: _isatty() is also true for NUL.
bool StdoutIsConsole(CONSOLE_SCREEN_BUFFER_INFO* info) {
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  if (out == INVALID_HANDLE_VALUE || out == nullptr || !GetConsoleMode(out, &mode)) return false;
  return info == nullptr || GetConsoleScreenBufferInfo(out, info);
}
#endif

}  // namespace

#if defined(_WIN32)

bool StdoutIsTerminal() { return StdoutIsConsole(nullptr); }

bool StderrIsTerminal() {
  HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
  DWORD mode = 0;
  if (err == INVALID_HANDLE_VALUE || err == nullptr || !GetConsoleMode(err, &mode)) return false;
  // The line is redrawn with escape sequences: a console shows them only with virtual
  // terminal processing (Windows 10 and later); without it, no line rather than garbage.
  return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0 ||
         SetConsoleMode(err, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
}

size_t StderrColumns() {
  CONSOLE_SCREEN_BUFFER_INFO info{};
  HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
  if (err != INVALID_HANDLE_VALUE && err != nullptr && GetConsoleScreenBufferInfo(err, &info)) {
    const long width = static_cast<long>(info.srWindow.Right) - info.srWindow.Left + 1;
    if (width > 0) return static_cast<size_t>(width);
  }
  return 0;
}

size_t StdoutColumns() {
  if (const char* columns = Env("COLUMNS")) {
    char* end = nullptr;
    long value = std::strtol(columns, &end, 10);
    if (*end == '\0' && value > 0) return static_cast<size_t>(value);
  }
  CONSOLE_SCREEN_BUFFER_INFO info{};
  if (StdoutIsConsole(&info)) {
    const long width = static_cast<long>(info.srWindow.Right) - info.srWindow.Left + 1;
    if (width > 0) return static_cast<size_t>(width);
  }
  return 0;
}

#else

bool StdoutIsTerminal() { return isatty(STDOUT_FILENO) == 1; }

bool StderrIsTerminal() {
  const char* term = Env("TERM");
  // A dumb terminal does not know erase-to-end-of-line.
  return isatty(STDERR_FILENO) == 1 && (term == nullptr || std::string(term) != "dumb");
}

size_t StderrColumns() {
  struct winsize size {};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 0;
}

size_t StdoutColumns() {
  if (const char* columns = Env("COLUMNS")) {
    char* end = nullptr;
    long value = std::strtol(columns, &end, 10);
    if (*end == '\0' && value > 0) return static_cast<size_t>(value);
  }
  struct winsize size {};
  if (StdoutIsTerminal() && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return 0;
}

#endif

bool StdoutAllowsColor() {
  if (Env("NO_COLOR") != nullptr || !StdoutIsTerminal()) return false;
  const char* term = Env("TERM");
  if (term != nullptr && std::string(term) == "dumb") return false;
#if defined(_WIN32)
  // A Windows console shows ANSI colour codes only with virtual terminal processing on
  // (Windows 10 and later; Windows Terminal has it on): turn it on, else no colour.
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  DWORD mode = 0;
  return GetConsoleMode(out, &mode) &&
         ((mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0 ||
          SetConsoleMode(out, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING));
#else
  return true;
#endif
}

bool TerminalAllowsUnicode() {
  if (Env("NO_COLOR") != nullptr) return false;
  if (const char* term = Env("TERM"); term != nullptr && std::string(term) == "dumb") return false;
#if defined(_WIN32)
  // A console is written in UTF-16 (WriteStdout), so it shows Unicode whatever its code page
  // or the locale variables (which the environment may carry from elsewhere).
  if (StdoutIsConsole(nullptr)) return true;
#endif
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    if (const char* value = Env(name)) return NamesUtf8(value);
  }
  return false;
}

}  // namespace stepstat
