// The progress line's words. Floating point only shapes what a person reads for a moment;
// no output a script reads comes from here.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "stepstat/progress.h"

namespace stepstat {

std::string ProgressBytes(uint64_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " B";
  static constexpr const char* kUnits[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(bytes) / 1000.0;
  size_t unit = 0;
  // 999.96 kB would print as "1000.0 kB": move up once the rounded value reaches 1000.
  while (value >= 999.95 && unit + 1 < std::size(kUnits)) {
    value /= 1000.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

std::string ProgressDuration(double seconds) {
  if (!(seconds > 0)) return "0 s";
  // Capped at 100 days: a rate near zero would otherwise overflow the conversion.
  const double capped = std::min(std::ceil(seconds), 100.0 * 86400.0);
  const auto whole = static_cast<int64_t>(capped);
  // Appended piece by piece: `"literal" + std::string&&` trips GCC 12's false -Wrestrict.
  std::string text;
  if (whole < 60) {
    text += std::to_string(whole);
    text += " s";
  } else if (whole < 3600) {
    text += std::to_string(whole / 60);
    text += " min";
    if (whole % 60 != 0) {
      text += ' ';
      text += std::to_string(whole % 60);
      text += " s";
    }
  } else {
    text += std::to_string(whole / 3600);
    text += " h";
    if (whole / 60 % 60 != 0) {
      text += ' ';
      text += std::to_string(whole / 60 % 60);
      text += " min";
    }
  }
  return text;
}

std::string ProgressLine(const ProgressSnapshot& now, double seconds_elapsed) {
  std::string line = "reading " + ProgressBytes(now.bytes_read);
  const bool total_ahead = now.bytes_total > now.bytes_read;
  if (total_ahead) line += " of " + ProgressBytes(now.bytes_total);
  const double rate =
      seconds_elapsed > 0 ? static_cast<double>(now.bytes_read) / seconds_elapsed : 0.0;
  if (rate >= 1.0) {
    line += ", " + ProgressBytes(static_cast<uint64_t>(rate)) + "/s";
    if (total_ahead) {
      const double left = static_cast<double>(now.bytes_total - now.bytes_read) / rate;
      line += ", " + ProgressDuration(left) + " left";
    }
  }
  if (now.files_total > 0) {
    line += ", " + std::to_string(now.files_done) + " of " + std::to_string(now.files_total) +
            (now.files_total == 1 ? " trace" : " traces");
  }
  return line;
}

}  // namespace stepstat
