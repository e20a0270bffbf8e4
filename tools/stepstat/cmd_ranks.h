// What `summarize --partial-out` borrows from the ranks commands (cmd_ranks.cc).
#pragma once

#include <string>

#include "stepstat/engine.h"

namespace stepstat::cli {

/// Writes the partial of `summary` (numbered as `ranks` numbers it) to `path`
/// atomically; returns the exit code. `device`: the summary is of that device alone (a row
/// of `ranks --per-device`).
int WritePartialOf(const SummaryResult& summary, const std::string& path,
                   const std::string& device = {});

}  // namespace stepstat::cli
