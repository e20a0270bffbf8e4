// A run's kernel table in the ledger: every call's duration as "ns:calls" pairs, what a run
// recorded from one capture needs to be compared per call (docs/diff.md). The text is read
// back as untrusted: a damaged ledger is an error, never a wrong test.
#include <fmt/format.h>

#include <charconv>

#include "ledger/ledger_internal.h"

namespace stepstat {
namespace {

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string EncodeDurations(const std::vector<ValueCount>& calls) {
  std::string text;
  for (const ValueCount& run : calls) {
    if (!text.empty()) text += ',';
    text += fmt::format("{}:{}", int64_t(run.value), run.count);
  }
  return text;
}

Result<std::vector<ValueCount>> DecodeDurations(std::string_view text, int64_t calls,
                                                const std::string& path) {
  std::vector<ValueCount> runs;
  auto damaged = [&](std::string_view what) {
    return Status::Error(fmt::format("{}: damaged kernel durations ({})", path, what));
  };
  int64_t total = 0;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view pair = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    size_t colon = pair.find(':');
    if (colon == std::string_view::npos) return damaged("a pair without ':'");
    std::optional<int64_t> ns = ParseInt(pair.substr(0, colon));
    std::optional<int64_t> count = ParseInt(pair.substr(colon + 1));
    if (!ns || !count || *ns < 0 || *count <= 0) return damaged("not ns:calls");
    if (!runs.empty() && double(*ns) <= runs.back().value) return damaged("out of order");
    if (*count > INT64_MAX - total) return damaged("too many calls");
    total += *count;
    runs.push_back({double(*ns), *count});
  }
  if (!runs.empty() && total != calls) return damaged("calls do not add up");
  return runs;
}

}  // namespace stepstat
