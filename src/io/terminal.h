// What the process's standard output is: a terminal or not, and what it can display.
// The only place that asks the OS (isatty, the environment) about it.
#pragma once

namespace stepstat {

/// Whether standard output is a terminal (isatty).
bool StdoutIsTerminal();

/// Whether text output may use Unicode block characters: the locale (LC_ALL, LC_CTYPE,
/// LANG, first one set) names UTF-8, NO_COLOR is unset and TERM is not "dumb".
bool TerminalAllowsUnicode();

}  // namespace stepstat
