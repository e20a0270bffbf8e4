// What the process's standard output is: a terminal or not, and what it can display.
// The only place that asks the OS (isatty, the environment) about it.
#pragma once

#include <cstddef>

namespace stepstat {

/// Whether standard output is a terminal (isatty).
bool StdoutIsTerminal();

/// How many columns text tables on standard output must fit: COLUMNS when it is a positive
/// number (so a pipe or a test can ask for a width), else the terminal's width when standard
/// output is one, else 0: no limit (a table written to a file keeps every column).
size_t StdoutColumns();

/// Whether text output may use Unicode block characters: the locale (LC_ALL, LC_CTYPE,
/// LANG, first one set) names UTF-8, NO_COLOR is unset and TERM is not "dumb".
bool TerminalAllowsUnicode();

}  // namespace stepstat
