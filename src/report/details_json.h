// The `details` object of `summarize --details --format json`, after the reference keys.
#pragma once

#include <string>

#include "stepstat/details.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// StepStatsToJson(stats) byte for byte, with `"details": {...}` added as the last key.
std::string StepStatsWithDetailsToJson(const StepStats& stats, const Details& details);

}  // namespace stepstat
