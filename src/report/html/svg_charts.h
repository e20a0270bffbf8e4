// The page's charts as inline SVG. Each chart carries a <title> and <desc> (its key numbers,
// for screen readers and hover) and draws only shapes whose classes this file and the page's
// style sheet choose: text from a trace appears only as escaped element text, never in an
// attribute that styles or links.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stepstat::html {

/// What every chart says about itself. `id` is a fixed ASCII word chosen by the page (the
/// <title>/<desc> ids derive from it); `title` and `desc` are plain text, escaped here.
struct ChartText {
  std::string_view id;
  std::string title;
  std::string desc;
};

/// A part of a bar or column. `css_class` is one of the page's fill classes (FillClass);
/// `hover` is plain text shown on hover (escaped here).
struct Segment {
  double value = 0;
  std::string css_class;
  std::string hover;
};

/// The fill class of component `index` of `count` (policy order, `other` last), of idle time,
/// and of a muted (warm-up) shape. Components cycle through the Okabe-Ito palette.
std::string ComponentClass(size_t index, size_t count);
inline constexpr std::string_view kIdleClass = "idle";

/// One horizontal bar, its segments in order, each as wide as its share of their sum.
std::string StackedBarSvg(const ChartText& text, const std::vector<Segment>& segments);

/// One stacked column per entry, on a common scale whose top is the tallest column; `muted`
/// columns are drawn greyed. `axis_label` names the unit of the y axis ("ms").
struct Column {
  std::vector<Segment> segments;
  bool muted = false;
};
std::string StackedColumnsSvg(const ChartText& text, const std::vector<Column>& columns,
                              std::string_view axis_label);

/// A histogram of `values` in `bins` equal bins from their minimum to their maximum, with
/// vertical markers (a label each, e.g. "median 12.3 ms") at the given values.
struct Marker {
  double value = 0;
  std::string label;
};
struct HistogramScale {
  size_t bins = 20;
  double unit = 1e6;  ///< values are divided by this for the axis (ns → ms)
  std::string_view unit_name = "ms";
  /// The bins' range; unset: the values' minimum and maximum (set both to draw two
  /// histograms on one scale).
  std::optional<double> low, high;
};
std::string HistogramSvg(const ChartText& text, const std::vector<double>& values,
                         const std::vector<Marker>& markers, const HistogramScale& scale);

/// Horizontal bars, one per row, each `value` of `full` wide (a share; clamped to 1), with
/// the row's label and value text beside it.
struct BarRow {
  std::string label;
  std::string value_text;
  double fraction = 0;
  std::string css_class;
};
std::string BarRowsSvg(const ChartText& text, const std::vector<BarRow>& rows);

/// Horizontal bars growing left (negative) or right (positive) from a centre line, scaled to
/// the largest magnitude, each with its label and value text.
struct DivergingRow {
  std::string label;
  std::string value_text;
  double value = 0;
  std::string css_class;
};
std::string DivergingBarsSvg(const ChartText& text, const std::vector<DivergingRow>& rows);

/// Lanes of shapes over one time window (a step's span), as fractions of it from 0 to 1, each
/// lane with its label on the left; numbered marks (gaps) as dashed boxes across every lane,
/// at least `kMinMarkWidth` wide so a short one stays visible; ticks at quarters labelled in ms
/// from the window's start (`span_ns` long).
struct TimelineShape {
  double from = 0;
  double to = 0;
  std::string_view css_class;
};
struct TimelineLaneRow {
  std::string label;
  std::vector<TimelineShape> shapes;
};
struct TimelineMark {
  double from = 0;
  double to = 0;
  std::string label;  ///< drawn above the box ("1")
  std::string hover;  ///< plain text shown on hover
};
std::string TimelineSvg(const ChartText& text, const std::vector<TimelineLaneRow>& lanes,
                        const std::vector<TimelineMark>& marks, int64_t span_ns);

/// "12.5" with one decimal, for coordinates (the C locale's point, deterministic).
std::string Coordinate(double value);

}  // namespace stepstat::html
