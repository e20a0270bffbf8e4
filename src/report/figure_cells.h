// How a registry figure prints in a table cell: the one place that turns a MetricValue into
// text by its unit and precision (stepstat/metrics.h), so that every column of one figure
// reads the same in every table that walks the registry.
#pragma once

#include <string>
#include <string_view>

#include "stepstat/metrics.h"

namespace stepstat {

/// "ns": in ms with `decimals` (the unit a table header names); "%", "ms" and other reals:
/// with `decimals`; "count": the integer; an absent value: "-".
std::string FigureCell(std::string_view unit, int decimals, const MetricValue& value);

/// The figure of `key` (a step figure, else a summary figure) of one step, in its cell; ""
/// when no figure has that key.
std::string StepFigureCell(std::string_view key, const StepRecord& step, const StepStats& stats);

}  // namespace stepstat
