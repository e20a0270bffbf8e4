// Markdown for pasting into a pull request or issue: a summary table, a components table
// and, with details, one table per details section. Names are escaped (text_escape.h).
#pragma once

#include <string>

#include "stepstat/details.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// `details` may be null.
std::string StepStatsToMarkdown(const StepStats& stats, const Details* details);

}  // namespace stepstat
