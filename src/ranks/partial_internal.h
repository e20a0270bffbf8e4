// What the partial's files share beyond the public API.
#pragma once

#include <string>

#include "stepstat/partial.h"

namespace stepstat {

/// The partial of one rank: its totals are its own figures. `r`'s component vectors must be
/// as long as `policy.components`.
Partial PartialOfRank(PartialPolicy policy, RankPartial r, std::string origin);

}  // namespace stepstat
