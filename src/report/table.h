// Human-readable text output: aligned tables, bars and the numbers in them. Every name from
// a trace goes through EscapeForTerminal; every percentage's header names its denominator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// How a table column gives way when the table is wider than its limit.
struct ColumnFit {
  int drop = 0;       ///< 0: always shown; otherwise dropped, highest first
  size_t shrink = 0;  ///< 0: keeps its width; else cells may be elided in the middle down to
                      ///< this many columns
};

/// Columns of text, padded to the widest cell. Cells must already be escaped.
class TextTable {
 public:
  enum Align { kLeft, kRight };
  TextTable& Column(std::string header, Align align, ColumnFit fit = ColumnFit());
  TextTable& Row(std::vector<std::string> cells);
  /// Each line starts with `indent` spaces; trailing spaces are trimmed. With `style.width`
  /// set, columns are dropped (highest `drop` first) and then the shrinkable one elided
  /// until the lines fit, or nothing more can give way.
  std::string Render(size_t indent = 2, const TextStyle& style = {}) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> headers_;
  std::vector<Align> aligns_;
  std::vector<ColumnFit> fits_;
  std::vector<std::vector<std::string>> rows_;
};

/// "12.345" style milliseconds: 6 decimals below 1 ms (exact ns), 3 below 100 ms, else 1.
std::string FormatMs(int64_t ns);
/// A column of milliseconds at one precision, chosen by its largest value as FormatMs
/// chooses for one value (zero included: "0.000000" beside "0.001000", never "0").
std::vector<std::string> FormatMsColumn(const std::vector<int64_t>& ns);
/// Prose wrapped at spaces to `width` columns (0: unwrapped), continuation lines indented by
/// `indent` spaces; a word longer than a line stays whole. No final newline is added.
std::string WrapText(std::string_view text, size_t width, size_t indent = 0);
/// One decimal: "42.1".
std::string FormatPercent(double percent);
/// Thousands grouped: "27,005".
std::string FormatCount(int64_t n);
/// Bytes in the largest unit that keeps the number >= 1: "4.19 MB" (decimal units, as nsys).
std::string FormatBytes(int64_t bytes);
/// A bar `fraction` (0..1) of `width` columns: eighth blocks, or '#' in ASCII.
std::string Bar(double fraction, size_t width, const TextStyle& style);
/// A trace name made printable and cut to `width` columns.
std::string DisplayName(std::string_view name, size_t width, const TextStyle& style);

}  // namespace stepstat
