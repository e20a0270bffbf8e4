// Turns DetailsSink totals into the `details` structs; the classification-dependent parts
// (component of each name, coverage) are computed here, once per distinct name.
#pragma once

#include <vector>

#include "analysis/details/details_sink.h"
#include "analysis/details/launch_key_matcher.h"
#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// `gpu` holds the GPU side (and the launch side when one file holds both); `launches` is
/// the separate launch file's totals, or null.
/// What one input file held, for the data-quality section.
InputDetails InputDetailsOf(const TraceInput& input, const ReadReport& report);

/// `matcher`: what the pass's sinks matched (null: launch rows were not matched); once every
/// sink that fed it is done.
Details MakeDetails(const DetailsTotals& gpu, const DetailsTotals* launches,
                    const LaunchKeyMatcher* matcher, const Policy& policy,
                    const Classifier& classifier, std::vector<InputDetails> inputs);

/// Every distinct kernel name with its component, by total time (most first, then by name).
std::vector<KernelDetails> KernelsByTime(const std::vector<NameTotals>& names, const Policy& policy,
                                         const Classifier& classifier);

/// Launch keys that find no GPU kernel with the same (start, duration), each GPU kernel
/// matching at most one launch row.
int64_t CountUnmatchedLaunches(std::vector<KernelKey> kernels, std::vector<KernelKey> launches);

}  // namespace stepstat
