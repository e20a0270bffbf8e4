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
Comparability AssessComparability(const Side& base, const Side& cand, bool allow_different);

/// Every kernel name that changed, by |Δ total| (largest first), with its per-call test
/// when both sides kept the calls.
std::vector<KernelDiff> DiffKernels(const SideMetadata& base, const SideMetadata& cand,
                                    const DiffOptions& options);

/// The verdict and its reason from the rows (docs/diff.md, Verdict); marks the rows that
/// decide it. `kernel_scale` turns the kernel table's ns (the whole capture) into the rows'.
void Judge(DiffResult* diff, bool whole_runs, double kernel_scale);

/// The gate of `gate` on its row, when the diff compared it (else `refused` says why).
GateResult EvaluateGate(const GateSpec& gate, const DiffRow* row, const std::string& refused,
                        double alpha);

}  // namespace stepstat
