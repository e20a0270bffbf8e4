// What each metric is and which way is worse. A perf engineer reads a diff by the step span
// first; the rest explains it. Times (span, kernel time, gaps, idle, a component's time) up
// are worse. The share of the span the GPU was busy up is better: the same work in less idle.
// Counts and shares of kernel time have no better direction: more launches can be a fused
// kernel split or a new feature, so they are only "changed".
#include <string>

#include "stepstat/compare.h"

namespace stepstat {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

MetricInfo DescribeMetric(std::string_view key) {
  if (EndsWith(key, "_percent") || EndsWith(key, "percent_of_span") ||
      EndsWith(key, "percent_of_kernel_time")) {
    Worse worse = key == "kernel_busy_percent_of_span" ? Worse::kDown : Worse::kNeither;
    return {"%", MetricKind::kShare, worse};
  }
  if (EndsWith(key, ".milliseconds")) return {"ms", MetricKind::kTime, Worse::kUp};
  if (EndsWith(key, "_ns")) {
    // The launch API's union is CPU time spent launching; its overlap with GPU work is
    // neither good nor bad on its own.
    bool neither = key == "cpu_gpu_overlap.launch_api_gpu_overlap_ns";
    return {"ns", MetricKind::kTime, neither ? Worse::kNeither : Worse::kUp};
  }
  // gpu_operation_count, kernel_count, launch_gaps.positive_gap_count, components.X.launches
  Worse worse = key == "launch_gaps.positive_gap_count" ? Worse::kUp : Worse::kNeither;
  return {"count", MetricKind::kCount, worse};
}

const MetricValues* Side::Find(std::string_view key) const {
  for (const MetricValues& metric : metrics) {
    if (metric.key == key) return &metric;
  }
  return nullptr;
}

std::string_view KernelChangeName(KernelChange change) {
  switch (change) {
    case KernelChange::kNew: return "new";
    case KernelChange::kRemoved: return "removed";
    case KernelChange::kMore: return "more";
    case KernelChange::kFewer: return "fewer";
    case KernelChange::kSlower: return "slower";
    case KernelChange::kFaster: return "faster";
    case KernelChange::kSame: return "same";
  }
  return "same";
}

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kRegression: return "regression";
    case Verdict::kImprovement: return "improvement";
    case Verdict::kMixed: return "mixed";
    case Verdict::kNeutral: return "neutral";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kNotComparable: return "not_comparable";
  }
  return "inconclusive";
}

bool DiffResult::gates_failed() const {
  for (const GateResult& gate : gates) {
    if (!gate.passed) return true;
  }
  return false;
}

}  // namespace stepstat
