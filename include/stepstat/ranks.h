// A job of many ranks: the merged partial (partial.h) finished into the figures `stepstat
// ranks` and `stepstat merge` print, and their writers. Every float here is computed from
// the merged integers, once, so any order of files or partials prints the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/partial.h"
#include "stepstat/report.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// Bumped whenever a field is renamed, removed or changes meaning.
inline constexpr std::string_view kRanksSchema = "stepstat.ranks/1";

/// A rank is a straggler when its GPU span is longer than the median rank's by more than
/// this many percent.
inline constexpr int64_t kStragglerPercentOverMedian = 5;

struct RankRow {
  int64_t rank = 0;
  std::string rank_source;
  std::optional<std::string> device;  ///< split by device (RankPartial::device)
  StepStats stats;                    ///< exactly what `summarize` computes for that trace
  bool straggler = false;
};

/// One measure across the ranks (the rows: rank-devices when split by device): nearest-rank
/// percentiles (values some row has), and the first row in order (lowest rank, then device)
/// at the minimum and at the maximum.
struct AcrossRanks {
  std::string name;     ///< e.g. "gpu_span_ns", "components.attention.milliseconds"
  bool integer = true;  ///< the values are the int64 fields below, else the doubles
  int64_t min_int = 0, p50_int = 0, p90_int = 0, max_int = 0;
  double min = 0, p50 = 0, p90 = 0, max = 0;
  int64_t min_rank = 0, max_rank = 0;
  std::optional<std::string> min_device, max_device;  ///< when split by device
};

/// A file that could not be summarized; the others are still reported.
struct RankError {
  std::string input;
  std::string message;  ///< the engine's message, with its place
};

struct RanksReport {
  PartialPolicy policy;
  /// Σ over ranks, as a summary: busy % is Σ kernel time / Σ span, the gap average Σ total /
  /// Σ count, the launch overlap over the ranks with a launch source (null when none has).
  /// Its source fields are unused.
  StepStats totals;
  std::vector<AcrossRanks> across_ranks;  ///< span, busy %, gaps, kernel time, components
  std::vector<RankRow> ranks;             ///< by rank, then device
  /// The rows are devices of ranks (`ranks --per-device`): some row has a device.
  bool per_device = false;
  std::vector<RankError> errors;  ///< by input
};

/// Numbers the unnumbered ranks and computes every float. Cannot fail: MergePartials has
/// already refused two traces with one rank.
RanksReport FinishRanks(const Partial& partial, std::vector<RankError> errors = {});

/// "schema": kRanksSchema; ranks[] each holds rank (and device, when split by device),
/// rank_source and straggler, then exactly the keys and values of `summarize`'s JSON of that
/// trace (of that device: `summarize --device`).
std::string RanksToJson(const RanksReport& report);
/// One row per rank (stragglers marked), the job's totals, the across-ranks spread.
std::string RanksToTable(const RanksReport& report, const TextStyle& style);
/// One row per rank, integers as integers (ns), for spreadsheets.
std::string RanksToCsv(const RanksReport& report);

/// Natural order: runs of digits compare as numbers ("rank2" < "rank10"), then bytewise.
bool NaturalLess(std::string_view a, std::string_view b);

/// The rank a path names through `regex` (RE2, searched in the path's file name, then in
/// the whole path): its first capture group that holds digits. Empty regex: the default,
/// which matches "rank0", "rank_3", "rank-12" (any case). nullopt when nothing matches.
Result<std::optional<int64_t>> RankFromPath(std::string_view path, std::string_view regex);

inline constexpr std::string_view kDefaultRankRegex = R"((?i)rank[_-]?(\d+))";

}  // namespace stepstat
