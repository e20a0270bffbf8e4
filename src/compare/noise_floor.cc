// MeasureNoiseFloor: the floor from repeated runs of one code. Steps of one capture share
// its clocks, thermals and placement, so their spread is within-run noise; the floor stands
// for the noise between runs, which only runs of the same code can measure.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "stepstat/compare.h"

namespace stepstat {
namespace {

constexpr size_t kGroupRuns = 3;

/// Runs grouped by one key of each run (runs without the key left out).
using Grouping = std::map<std::string, std::vector<double>>;

/// How many runs sit in groups of kGroupRuns or more.
size_t RunsInGroups(const Grouping& grouping) {
  size_t n = 0;
  for (const auto& [key, spans] : grouping) n += spans.size() >= kGroupRuns ? spans.size() : 0;
  return n;
}

}  // namespace

std::optional<MeasuredFloor> MeasureNoiseFloor(const std::vector<RunOfCode>& runs,
                                               double minimum_percent) {
  // The candidate groupings: by commit, and by each tag key's value.
  std::map<std::string, Grouping> groupings;  // "" → by commit; else the tag key
  for (const RunOfCode& run : runs) {
    if (!(run.span_ns > 0) || !std::isfinite(run.span_ns)) continue;
    if (run.git_commit) groupings[""][*run.git_commit].push_back(run.span_ns);
    for (const auto& [key, value] : run.tags) groupings[key][value].push_back(run.span_ns);
  }
  const std::string* chosen = nullptr;
  size_t most = 0;
  for (const auto& [key, grouping] : groupings) {  // "" (the commit) first: it wins ties
    if (size_t n = RunsInGroups(grouping); n > most) most = n, chosen = &key;
  }
  if (!chosen) return std::nullopt;
  double squares = 0;
  size_t degrees = 0, groups = 0;
  for (const auto& [code, spans] : groupings[*chosen]) {
    if (spans.size() < kGroupRuns) continue;
    double mean = 0;
    for (double x : spans) mean += x / double(spans.size());
    for (double x : spans) squares += (x / mean - 1) * (x / mean - 1);
    degrees += spans.size() - 1;
    ++groups;
  }
  const double spread = std::sqrt(squares / double(degrees));
  const double floor = 1.96 * std::sqrt(2.0) * spread * 100;
  MeasuredFloor measured;
  measured.percent = std::max(floor, minimum_percent);
  const std::string of =
      chosen->empty() ? (groups == 1 ? "commit" : "commits")
                      : fmt::format("{} of tag {}", groups == 1 ? "value" : "values", *chosen);
  measured.how = fmt::format(
      "1.96·√2 × run-to-run spread {:.3g} % of {} runs ({} {}){}", spread * 100, most, groups, of,
      floor < minimum_percent ? fmt::format(", raised to the {:g} % minimum", minimum_percent)
                              : "");
  return measured;
}

}  // namespace stepstat
