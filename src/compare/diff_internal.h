// The pieces of Diff(), each in its own file.
#pragma once

#include <optional>
#include <vector>

#include "stepstat/compare.h"

namespace stepstat {

/// One metric's row; nullopt when the two sides hold it in different forms (steps on one,
/// only a whole-run value on the other).
std::optional<DiffRow> CompareMetric(const MetricValues& base, const MetricValues& cand,
                                     const DiffOptions& options);

/// Refusals and warnings (compare.h, Comparability).
Comparability AssessComparability(const Side& base, const Side& cand);

/// The top `limit` kernels by |Δ total|, unchanged names left out.
std::vector<KernelDiff> DiffKernels(const SideMetadata& base, const SideMetadata& cand,
                                    size_t limit);

/// `row` is null when the metric was not compared; `refused` then says why.
GateResult EvaluateGate(const GateSpec& gate, const DiffRow* row, const std::string& refused);

}  // namespace stepstat
