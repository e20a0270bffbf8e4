// Which rank a trace is: a number in its path, else the order of the paths.
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

#include "stepstat/ranks.h"

namespace stepstat {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// The digit run at `i`, leading zeros skipped: compared by length, then bytewise.
std::string_view DigitRun(std::string_view s, size_t& i) {
  size_t start = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  std::string_view run = s.substr(start, i - start);
  while (run.size() > 1 && run.front() == '0') run.remove_prefix(1);
  return run;
}

}  // namespace

bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      std::string_view x = DigitRun(a, i);
      std::string_view y = DigitRun(b, j);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  // What is left decides; "rank01" and "rank1" tie on their numbers: bytewise then.
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

Result<std::optional<int64_t>> RankFromPath(std::string_view path, std::string_view regex) {
  RE2 re(regex.empty() ? kDefaultRankRegex : regex, RE2::Quiet);
  if (!re.ok()) {
    return Status::Error("--rank-regex '" + std::string(regex) + "': " + re.error());
  }
  if (re.NumberOfCapturingGroups() < 1) {
    return Status::Error("--rank-regex '" + std::string(regex) +
                         "' has no capture group: put the rank's digits in one, as rank(\\d+)");
  }
  const std::string file_name = std::filesystem::path(std::string(path)).filename().string();
  for (std::string_view where : {std::string_view(file_name), path}) {
    std::string digits;
    if (!RE2::PartialMatch(where, re, &digits)) continue;
    if (digits.empty() || digits.size() > 15 ||
        !std::all_of(digits.begin(), digits.end(), IsDigit)) {
      continue;  // the group matched something that is not a rank number
    }
    return std::optional<int64_t>(std::stoll(digits));
  }
  return std::optional<int64_t>();
}

}  // namespace stepstat
