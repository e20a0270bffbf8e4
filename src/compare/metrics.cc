// What each metric is and which way is worse, as the registry (stepstat/metrics.h) declares
// it. A perf engineer reads a diff by the step span first; the rest explains it.
#include "stepstat/metrics.h"

#include <string>

#include "stepstat/compare.h"

namespace stepstat {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

MetricInfo DescribeMetric(std::string_view key) {
  if (const SummaryMetric* metric = FindSummaryMetric(key)) {
    return {std::string(metric->unit), metric->kind, metric->worse};
  }
  if (const StepMetric* metric = FindStepMetric(key)) {
    return {std::string(metric->unit), metric->kind, metric->worse};
  }
  if (key.starts_with("components.")) {
    for (const ComponentMetric& metric : kComponentMetrics) {
      if (EndsWith(key, metric.leaf) && key[key.size() - metric.leaf.size() - 1] == '.') {
        return {std::string(metric.unit), metric.kind, metric.worse};
      }
    }
  }
  // A key the registry does not know (a newer stepstat's JSON): by its suffix, as the
  // registry names its figures.
  if (EndsWith(key, "_percent") || key.find("percent_of") != std::string_view::npos) {
    return {"%", MetricKind::kShare, Worse::kNeither};
  }
  if (EndsWith(key, "_ns")) return {"ns", MetricKind::kTime, Worse::kUp};
  return {"count", MetricKind::kCount, Worse::kNeither};
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
