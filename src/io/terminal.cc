#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "stepstat/output.h"

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

}  // namespace

bool StdoutIsTerminal() { return isatty(STDOUT_FILENO) == 1; }

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

bool StdoutAllowsColor() {
  if (Env("NO_COLOR") != nullptr || !StdoutIsTerminal()) return false;
  const char* term = Env("TERM");
  return term == nullptr || std::string(term) != "dumb";
}

bool TerminalAllowsUnicode() {
  if (Env("NO_COLOR") != nullptr) return false;
  if (const char* term = Env("TERM"); term != nullptr && std::string(term) == "dumb") return false;
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    if (const char* value = Env(name)) return NamesUtf8(value);
  }
  return false;
}

}  // namespace stepstat
