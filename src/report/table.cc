#include "report/table.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "report/overview_cells.h"
#include "report/text_escape.h"

namespace stepstat {

namespace {

std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace

TextTable& TextTable::Column(std::string header, Align align, ColumnFit fit) {
  headers_.push_back(std::move(header));
  aligns_.push_back(align);
  fits_.push_back(fit);
  return *this;
}

TextTable& TextTable::Row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

std::string TextTable::Render(size_t indent, const TextStyle& style) const {
  std::vector<size_t> widths(headers_.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i)
      widths[i] = std::max(widths[i], DisplayWidth(cells[i]));
  };
  measure(headers_);
  for (const auto& row : rows_) measure(row);

  std::vector<bool> shown(headers_.size(), true);
  auto total = [&] {
    size_t sum = indent, columns = 0;
    for (size_t i = 0; i < widths.size(); ++i) {
      if (shown[i]) sum += widths[i] + (columns++ > 0 ? 2 : 0);
    }
    return sum;
  };
  if (style.width > 0) {
    // A long column (a kernel name) is elided down to its minimum first, then the least
    // important columns go, then the long column takes back whatever room that freed.
    const std::vector<size_t> natural = widths;
    for (size_t i = 0; i < widths.size() && total() > style.width; ++i) {
      if (fits_[i].shrink == 0 || widths[i] <= fits_[i].shrink) continue;
      const size_t excess = total() - style.width;
      widths[i] = widths[i] > fits_[i].shrink + excess ? widths[i] - excess : fits_[i].shrink;
    }
    while (total() > style.width) {
      size_t victim = widths.size();
      for (size_t i = 0; i < widths.size(); ++i) {
        if (shown[i] && fits_[i].drop > 0 &&
            (victim == widths.size() || fits_[i].drop > fits_[victim].drop)) {
          victim = i;
        }
      }
      if (victim == widths.size()) break;
      shown[victim] = false;
    }
    for (size_t i = 0; i < widths.size() && total() < style.width; ++i) {
      if (shown[i] && widths[i] < natural[i]) {
        widths[i] = std::min(natural[i], widths[i] + (style.width - total()));
      }
    }
  }

  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text(indent, ' ');
    size_t columns = 0;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (!shown[i]) continue;
      std::string cell = DisplayWidth(cells[i]) > widths[i]
                             ? ElideMiddle(cells[i], widths[i], style.ellipsis())
                             : cells[i];
      std::string pad(widths[i] - DisplayWidth(cell), ' ');
      if (columns++ > 0) text += "  ";
      text += aligns_[i] == kRight ? pad + cell : cell + pad;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text;
    out += '\n';
  };
  bool any_header = std::any_of(headers_.begin(), headers_.end(),
                                [](const std::string& h) { return !h.empty(); });
  if (any_header) line(headers_);
  for (const auto& row : rows_) line(row);
  return out;
}

std::string FormatMs(int64_t ns) {
  double ms = static_cast<double>(ns) / 1e6;
  if (ns == 0) return "0";
  if (std::abs(ms) < 1.0) return Printf("%.6f", ms);
  if (std::abs(ms) < 100.0) return Printf("%.3f", ms);
  return Printf("%.1f", ms);
}

std::vector<std::string> FormatMsColumn(const std::vector<int64_t>& ns) {
  int64_t largest = 0;
  for (int64_t v : ns) largest = std::max(largest, v < 0 ? -v : v);
  const char* format = largest < 1'000'000 ? "%.6f" : largest < 100'000'000 ? "%.3f" : "%.1f";
  std::vector<std::string> out;
  out.reserve(ns.size());
  for (int64_t v : ns) out.push_back(Printf(format, static_cast<double>(v) / 1e6));
  return out;
}

std::string WrapText(std::string_view text, size_t width, size_t indent) {
  if (width == 0) return std::string(text);
  std::string out, line;
  bool has_word = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = std::min(text.find(' ', start), text.size());
    std::string_view word = text.substr(start, end - start);
    if (has_word && DisplayWidth(line) + 1 + DisplayWidth(word) > width) {
      out += line + '\n';
      line = std::string(indent, ' ');
      has_word = false;
    }
    if (has_word) line += ' ';
    line += word;
    has_word = true;
    start = end + 1;
  }
  return out + line;
}

std::string FormatPercent(double percent) { return Printf("%.1f", percent); }

std::string FormatCount(int64_t n) {
  uint64_t magnitude = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  std::string digits = std::to_string(magnitude);
  std::string out;
  if (n < 0) out.push_back('-');
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FormatBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1000.0 && unit + 1 < std::size(kUnits)) {
    value /= 1000.0;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " B";
  return Printf("%.2f", value) + " " + kUnits[unit];
}

std::string Bar(double fraction, size_t width, const TextStyle& style) {
  if (!(fraction > 0.0)) return "";
  fraction = std::min(fraction, 1.0);
  if (!style.unicode) {
    auto n = static_cast<size_t>(std::lround(fraction * static_cast<double>(width)));
    return std::string(std::max<size_t>(n, 1), '#');
  }
  static constexpr const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  auto eighths = static_cast<size_t>(std::lround(fraction * static_cast<double>(width) * 8));
  eighths = std::max<size_t>(eighths, 1);  // a non-zero share stays visible
  std::string out;
  for (size_t i = 0; i < eighths / 8; ++i) out += "█";
  out += kEighths[eighths % 8];
  return out;
}

std::string DisplayName(std::string_view name, size_t width, const TextStyle& style) {
  return TruncateToWidth(EscapeForTerminal(name), width, style.unicode ? "…" : "...");
}

std::string StepStatsToTable(const StepStats& s, const Details* details, const TextStyle& style,
                             std::optional<double> union_busy_percent) {
  std::string out;
  out += "GPU trace:    " + EscapeForTerminal(s.source_gpu_trace) + "\n";
  out += "launch trace: " +
         (s.source_kernel_exec_trace ? EscapeForTerminal(*s.source_kernel_exec_trace)
                                     : std::string("(none)")) +
         "\n\n";

  TextTable overview;
  overview.Column("", TextTable::kLeft).Column("", TextTable::kRight).Column("", TextTable::kLeft);
  // Its lines and their figures: the registry's (stepstat/metrics.h).
  for (std::array<std::string, 3>& row :
       OverviewRows(kSummaryTableOverview, s, union_busy_percent)) {
    overview.Row({std::move(row[0]), std::move(row[1]), std::move(row[2])});
  }
  out += "Summary\n" + overview.Render() + "\n";

  TextTable components;
  components.Column("component", TextTable::kLeft)
      .Column("ms", TextTable::kRight)
      .Column("% of summed kernel time", TextTable::kRight)
      .Column("", TextTable::kLeft, ColumnFit{1, 0})  // the bar repeats the percentage
      .Column("launches", TextTable::kRight);
  std::vector<int64_t> times;
  for (const ComponentStats& c : s.components) times.push_back(c.time_ns);
  std::vector<std::string> component_ms = FormatMsColumn(times);
  for (size_t i = 0; i < s.components.size(); ++i) {
    const ComponentStats& c = s.components[i];
    components.Row({DisplayName(c.name, 40, style), component_ms[i],
                    FormatPercent(c.percent_of_kernel_time),
                    Bar(c.percent_of_kernel_time / 100.0, 24, style), FormatCount(c.launches)});
  }
  out += "Components\n" + components.Render(2, style);
  if (details != nullptr) out += "\n" + DetailsToTable(*details, style);
  return out;
}

}  // namespace stepstat
