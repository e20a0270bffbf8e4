// The summary's overview lines (stepstat/metrics.h: kSummaryTableOverview,
// kSummaryMarkdownOverview) filled with one summary's figures, for the text table and the
// markdown alike: neither names a figure itself.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/metrics.h"

namespace stepstat {

/// The figure of `key` for the overview: a summary figure (kSummaryMetrics) or one of
/// kSummaryTableFigures; nullopt for a key neither holds.
struct OverviewFigure {
  std::string_view unit;
  MetricValue value;
};
std::optional<OverviewFigure> FindOverviewFigure(std::string_view key, const StepStats& stats,
                                                 const std::optional<double>& union_busy_percent);

/// The keys `text` names as `{key}`, in order.
std::vector<std::string_view> TemplateKeys(std::string_view text);

/// One row (label, value, note) per line shown. Counts print with thousands separators,
/// shares with 1 decimal, times in ms: a value that is one time figure alone at the
/// precision of every such value of the overview (FormatMsColumn: one column reads at one
/// precision), a time inside text by its own size (FormatMs).
std::vector<std::array<std::string, 3>> OverviewRows(std::span<const OverviewLine> lines,
                                                     const StepStats& stats,
                                                     std::optional<double> union_busy_percent);

}  // namespace stepstat
