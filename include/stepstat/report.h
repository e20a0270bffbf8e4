// Writers: summary structs in, text out. They read nothing but the structs.
#pragma once

#include <string>

#include "stepstat/step_stats.h"

namespace stepstat {

/// Byte-for-byte what Python's json.dumps(summary, indent=2) prints, plus a final newline.
/// Strings (paths, names) are read as UTF-8; each invalid byte sequence is written as U+FFFD.
std::string StepStatsToJson(const StepStats& stats);

}  // namespace stepstat
