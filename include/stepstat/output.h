// Where results go: files that appear whole or not at all, standard output, and what that
// output is (a terminal, how wide, whether it shows Unicode). The only part of the public API
// that talks to the OS; its implementation lives in src/io/.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

// Output files: written to a temporary file beside the target, then renamed over it. A
// failed run leaves no partial output behind.
/// Writes `bytes` to `path` atomically (same-directory temp file + rename); a device or pipe
/// is written in place.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes);

/// The same for output written piece by piece: the file appears at Commit(), whole; a
/// writer destroyed before that removes its temporary file. A device or pipe is written in
/// place.
class AtomicFileWriter {
 public:
  static Result<std::unique_ptr<AtomicFileWriter>> Open(const std::filesystem::path& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// False once a write failed (Commit then reports it).
  bool Append(std::string_view bytes);
  Status Commit();

 private:
  AtomicFileWriter(std::filesystem::path path, std::filesystem::path temp, std::FILE* file,
                   bool in_place)
      : path_(std::move(path)), temp_(std::move(temp)), file_(file), in_place_(in_place) {}
  std::filesystem::path path_;
  std::filesystem::path temp_;  ///< the path itself when written in place
  std::FILE* file_;
  bool in_place_;
  bool ok_ = true;
};

/// Writes `bytes` to standard output; false if the write failed (e.g. a closed pipe). On a
/// Windows console the UTF-8 text is written as UTF-16, so it shows right whatever the
/// console's code page.
bool WriteStdout(std::string_view bytes);

// Standard output: a terminal or not, and what it can display.
/// Whether standard output is a terminal (isatty).
bool StdoutIsTerminal();

/// How many columns text tables on standard output must fit: COLUMNS when it is a positive
/// number (so a pipe or a test can ask for a width), else the terminal's width when standard
/// output is one, else 0: no limit (a table written to a file keeps every column).
size_t StdoutColumns();

/// Whether text output may use ANSI colors: standard output is a terminal, NO_COLOR
/// (no-color.org) is unset or empty, and TERM is not "dumb".
bool StdoutAllowsColor();

/// True when standard error is a terminal that can show a progress line redrawn in place
/// ("\r" and erase-to-end-of-line): a tty on POSIX; on Windows a console whose virtual
/// terminal processing is on or could be turned on.
bool StderrIsTerminal();

/// The width of the terminal on standard error, or 0 when not known.
size_t StderrColumns();

/// Whether text output may use Unicode block characters: the locale (LC_ALL, LC_CTYPE,
/// LANG, first one set) names UTF-8, NO_COLOR is unset and TERM is not "dumb". On Windows a
/// console always may (unless NO_COLOR or TERM=dumb): it is written in UTF-16.
bool TerminalAllowsUnicode();

}  // namespace stepstat
