// Markdown for pasting into a pull request or issue: a summary table, a components table
// and, with details, one table per details section. Names are escaped (text_escape.h).
#pragma once

#include <optional>
#include <string>

#include "stepstat/details.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// `details` may be null.
/// `union_busy_percent` as for StepStatsToTable.
std::string StepStatsToMarkdown(const StepStats& stats, const Details* details,
                                std::optional<double> union_busy_percent = std::nullopt);

}  // namespace stepstat
