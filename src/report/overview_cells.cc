#include "report/overview_cells.h"

#include <cmath>

#include "report/table.h"

namespace stepstat {

std::optional<OverviewFigure> FindOverviewFigure(std::string_view key, const StepStats& stats,
                                                 const std::optional<double>& union_busy_percent) {
  if (const SummaryMetric* metric = FindSummaryMetric(key)) {
    return OverviewFigure{metric->unit, metric->value(stats)};
  }
  for (const SummaryTableFigure& figure : kSummaryTableFigures) {
    if (figure.key == key)
      return OverviewFigure{figure.unit, figure.value(stats, union_busy_percent)};
  }
  return std::nullopt;
}

std::vector<std::string_view> TemplateKeys(std::string_view text) {
  std::vector<std::string_view> keys;
  for (size_t open = text.find('{'); open != std::string_view::npos;
       open = text.find('{', open + 1)) {
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) break;
    keys.push_back(text.substr(open + 1, close - open - 1));
  }
  return keys;
}

namespace {

// A time, count or share as the overview prints it; a time by its own size.
std::string FigureText(const OverviewFigure& figure) {
  if (figure.unit == "ns") return FormatMs(std::llround(figure.value.AsDouble()));
  if (figure.unit == "count") return FormatCount(figure.value.integer.value_or(0));
  return FormatPercent(figure.value.AsDouble());
}

// `text` with each `{key}` replaced by `fill(key)`.
template <typename Fill>
std::string Filled(std::string_view text, const Fill& fill) {
  std::string out;
  size_t at = 0;
  for (size_t open = text.find('{'); open != std::string_view::npos; open = text.find('{', at)) {
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) break;
    out += text.substr(at, open - at);
    out += fill(text.substr(open + 1, close - open - 1));
    at = close + 1;
  }
  return out + std::string(text.substr(at));
}

// The one time figure a value is made of (its only key, a time), or nullptr.
const OverviewFigure* LoneTime(std::string_view value, const std::vector<OverviewFigure>& figures) {
  return TemplateKeys(value).size() == 1 && figures.size() == 1 && figures[0].unit == "ns"
             ? &figures[0]
             : nullptr;
}

}  // namespace

std::vector<std::array<std::string, 3>> OverviewRows(std::span<const OverviewLine> lines,
                                                     const StepStats& stats,
                                                     std::optional<double> union_busy_percent) {
  auto figure_of = [&](std::string_view key) {
    return FindOverviewFigure(key, stats, union_busy_percent);
  };
  // The lines shown, with their value's figures.
  std::vector<const OverviewLine*> shown;
  std::vector<std::vector<OverviewFigure>> value_figures;
  for (const OverviewLine& line : lines) {
    if (!line.if_absent.empty()) {
      std::optional<OverviewFigure> figure = figure_of(line.if_absent);
      if (figure && figure->value.present()) continue;
    }
    bool present = true;
    std::vector<OverviewFigure> figures;
    for (std::string_view text : {line.value, line.note}) {
      for (std::string_view key : TemplateKeys(text)) {
        std::optional<OverviewFigure> figure = figure_of(key);
        present = present && figure && figure->value.present();
        if (figure && text == line.value) figures.push_back(*figure);
      }
    }
    if (!present) continue;
    shown.push_back(&line);
    value_figures.push_back(std::move(figures));
  }
  // The values that are one time alone, at one precision.
  std::vector<int64_t> lone_times;
  for (size_t i = 0; i < shown.size(); ++i) {
    if (const OverviewFigure* time = LoneTime(shown[i]->value, value_figures[i])) {
      lone_times.push_back(time->value.integer.value_or(0));
    }
  }
  const std::vector<std::string> column = FormatMsColumn(lone_times);
  size_t next_time = 0;
  auto text_of = [&](std::string_view key) {
    std::optional<OverviewFigure> figure = figure_of(key);
    return figure ? FigureText(*figure) : std::string("?");
  };
  std::vector<std::array<std::string, 3>> rows;
  rows.reserve(shown.size());
  for (size_t i = 0; i < shown.size(); ++i) {
    const OverviewLine& line = *shown[i];
    const bool lone = LoneTime(line.value, value_figures[i]) != nullptr;
    std::string value = Filled(line.value, [&](std::string_view key) {
      return lone ? column[next_time++] : text_of(key);
    });
    std::string note = Filled(line.note, text_of);
    rows.push_back({std::string(line.label), std::move(value), std::move(note)});
  }
  return rows;
}

}  // namespace stepstat
