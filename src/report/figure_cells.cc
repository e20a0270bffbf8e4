#include "report/figure_cells.h"

#include <fmt/format.h>

namespace stepstat {

std::string FigureCell(std::string_view unit, int decimals, const MetricValue& value) {
  if (!value.present()) return "-";
  if (unit == "ns") return fmt::format("{:.{}f}", value.AsDouble() / 1e6, decimals);
  if (value.integer) return std::to_string(*value.integer);
  return fmt::format("{:.{}f}", *value.real, decimals);
}

std::string StepFigureCell(std::string_view key, const StepRecord& step, const StepStats& stats) {
  if (const StepMetric* metric = FindStepMetric(key)) {
    return FigureCell(metric->unit, metric->decimals, metric->value(step, stats));
  }
  if (const SummaryMetric* metric = FindSummaryMetric(key)) {
    return FigureCell(metric->unit, metric->decimals, metric->value(stats));
  }
  return "";
}

}  // namespace stepstat
