#include "report/html/svg_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/html/html_escape.h"

namespace stepstat::html {

namespace {

constexpr double kWidth = 960;
// The plot area of the charts with axes: room on the left for the y labels.
constexpr double kPlotLeft = 64;
constexpr double kPlotRight = 952;
constexpr double kPlotTop = 24;
constexpr double kPlotBottom = 224;
constexpr double kAxesHeight = 252;

std::string Open(const ChartText& text, double height) {
  const std::string id(text.id);
  return "<svg class=\"chart\" viewBox=\"0 0 " + Coordinate(kWidth) + " " + Coordinate(height) +
         "\" role=\"img\" aria-labelledby=\"" + id + "-title " + id + "-desc\">\n<title id=\"" +
         id + "-title\">" + EscapeHtml(text.title) + "</title>\n<desc id=\"" + id + "-desc\">" +
         EscapeHtml(text.desc) + "</desc>\n";
}

std::string Rect(double x, double y, double width, double height, const std::string& css_class,
                 const std::string& hover) {
  std::string out = "<rect class=\"" + css_class + "\" x=\"" + Coordinate(x) + "\" y=\"" +
                    Coordinate(y) + "\" width=\"" + Coordinate(width) + "\" height=\"" +
                    Coordinate(height) + "\"";
  if (hover.empty()) return out + "/>";
  return out + "><title>" + EscapeHtml(hover) + "</title></rect>";
}

std::string Text(double x, double y, std::string_view anchor, const std::string& text) {
  return "<text x=\"" + Coordinate(x) + "\" y=\"" + Coordinate(y) + "\" text-anchor=\"" +
         std::string(anchor) + "\">" + EscapeHtml(text) + "</text>";
}

std::string Line(double x1, double y1, double x2, double y2, std::string_view css_class) {
  return "<line class=\"" + std::string(css_class) + "\" x1=\"" + Coordinate(x1) + "\" y1=\"" +
         Coordinate(y1) + "\" x2=\"" + Coordinate(x2) + "\" y2=\"" + Coordinate(y2) + "\"/>";
}

// Short axis numbers: up to 3 significant decimals, no trailing zeros.
std::string AxisNumber(double value) {
  char buffer[32];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string out = buffer;
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

// The y axis of a plot from 0 to `top` (in axis units): labelled grid lines at 0, the middle
// and the top; a count axis (`whole`) leaves out a middle that is no whole number.
std::string YAxis(double top, std::string_view axis_label, bool whole = false) {
  std::string out;
  for (int tick = 0; tick <= 2; ++tick) {
    if (whole && tick == 1 && std::fmod(top, 2.0) != 0) continue;
    const double y = kPlotBottom - (kPlotBottom - kPlotTop) * tick / 2.0;
    out += Line(kPlotLeft, y, kPlotRight, y, "grid") + "\n";
    out += Text(kPlotLeft - 6, y + 4, "end", AxisNumber(top * tick / 2.0)) + "\n";
  }
  out += Text(kPlotLeft - 6, kPlotTop - 10, "end", std::string(axis_label)) + "\n";
  return out;
}

}  // namespace

std::string Coordinate(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  // "-0.0" and "0.0" draw alike; keep one spelling so output stays byte-identical.
  if (std::string_view(buffer) == "-0.0") return "0.0";
  return buffer;
}

std::string ComponentClass(size_t index, size_t count) {
  if (count > 0 && index + 1 == count) return "other";
  return "c" + std::to_string(index % 7);
}

std::string StackedBarSvg(const ChartText& text, const std::vector<Segment>& segments) {
  constexpr double kHeight = 44;
  std::string out = Open(text, kHeight);
  double total = 0;
  for (const Segment& segment : segments) total += std::max(0.0, segment.value);
  double x = 0;
  for (const Segment& segment : segments) {
    if (total <= 0 || segment.value <= 0) continue;
    const double width = kWidth * segment.value / total;
    out += Rect(x, 6, width, kHeight - 12, segment.css_class, segment.hover) + "\n";
    x += width;
  }
  return out + "</svg>\n";
}

std::string StackedColumnsSvg(const ChartText& text, const std::vector<Column>& columns,
                              std::string_view axis_label) {
  std::string out = Open(text, kAxesHeight);
  double top = 0;
  for (const Column& column : columns) {
    double height = 0;
    for (const Segment& segment : column.segments) height += std::max(0.0, segment.value);
    top = std::max(top, height);
  }
  out += YAxis(top, axis_label);
  const double slot = columns.empty() ? 0 : (kPlotRight - kPlotLeft) / columns.size();
  // A gap between columns only while they are wide enough to keep one.
  const double gap = slot >= 4 ? 1 : 0;
  for (size_t i = 0; i < columns.size(); ++i) {
    const Column& column = columns[i];
    out += column.muted ? "<g class=\"muted\">" : "<g>";
    double y = kPlotBottom;
    for (const Segment& segment : column.segments) {
      if (top <= 0 || segment.value <= 0) continue;
      const double height = (kPlotBottom - kPlotTop) * segment.value / top;
      y -= height;
      out += Rect(kPlotLeft + slot * i, y, slot - gap, height, segment.css_class, segment.hover);
    }
    out += "</g>\n";
  }
  out += Text(kPlotLeft, kAxesHeight - 8, "start", "first step") + "\n";
  out += Text(kPlotRight, kAxesHeight - 8, "end", "last step") + "\n";
  return out + "</svg>\n";
}

std::string HistogramSvg(const ChartText& text, const std::vector<double>& values,
                         const std::vector<Marker>& markers, const HistogramScale& scale) {
  std::string out = Open(text, kAxesHeight);
  if (values.empty() || scale.bins == 0) return out + "</svg>\n";
  const auto [low_it, high_it] = std::minmax_element(values.begin(), values.end());
  const double low = scale.low.value_or(*low_it);
  const double top = scale.high.value_or(*high_it);
  // Equal values still get one bin's width, so the one bar and its markers can be drawn.
  const double high = top > low ? top : low + 1;
  std::vector<int64_t> counts(scale.bins, 0);
  for (double value : values) {
    auto bin = static_cast<size_t>(std::max(0.0, (value - low) / (high - low) * scale.bins));
    ++counts[std::min(bin, scale.bins - 1)];
  }
  const int64_t tallest = *std::max_element(counts.begin(), counts.end());
  out += YAxis(static_cast<double>(tallest), "steps", /*whole=*/true);
  const double plot_width = kPlotRight - kPlotLeft;
  const double bin_width = plot_width / scale.bins;
  for (size_t i = 0; i < scale.bins; ++i) {
    if (counts[i] == 0) continue;
    const double height = (kPlotBottom - kPlotTop) * counts[i] / tallest;
    const double from = (low + (high - low) * i / scale.bins) / scale.unit;
    const double to = (low + (high - low) * (i + 1) / scale.bins) / scale.unit;
    const std::string hover = std::to_string(counts[i]) + (counts[i] == 1 ? " step" : " steps") +
                              " from " + AxisNumber(from) + " to " + AxisNumber(to) + " " +
                              std::string(scale.unit_name);
    out +=
        Rect(kPlotLeft + bin_width * i, kPlotBottom - height, bin_width - 1, height, "bin", hover) +
        "\n";
  }
  for (size_t i = 0; i < markers.size(); ++i) {
    const double x =
        kPlotLeft + plot_width * std::clamp((markers[i].value - low) / (high - low), 0.0, 1.0);
    out += Line(x, kPlotTop - 4, x, kPlotBottom, "marker") + "\n";
    // Labels alternate sides so that two close markers stay readable, except that a label
    // never leaves the drawing: near an edge it goes to the inner side (a p90 at the last
    // bin was cut to "p9").
    const double label_width = 7.5 * static_cast<double>(markers[i].label.size()) + 4;
    bool left_of_line = i % 2 == 0;
    if (!left_of_line && x + label_width > kWidth) left_of_line = true;
    if (left_of_line && x - label_width < 0) left_of_line = false;
    out += Text(left_of_line ? x - 4 : x + 4, kPlotTop - 8, left_of_line ? "end" : "start",
                markers[i].label) +
           "\n";
  }
  out += Text(kPlotLeft, kAxesHeight - 8, "start",
              AxisNumber(low / scale.unit) + " " + std::string(scale.unit_name)) +
         "\n";
  out += Text(kPlotRight, kAxesHeight - 8, "end",
              AxisNumber(high / scale.unit) + " " + std::string(scale.unit_name)) +
         "\n";
  return out + "</svg>\n";
}

std::string BarRowsSvg(const ChartText& text, const std::vector<BarRow>& rows) {
  constexpr double kRow = 24;
  constexpr double kLabelRight = 300;
  constexpr double kBarLeft = 310;
  constexpr double kBarRight = 820;
  std::string out = Open(text, kRow * rows.size() + 8);
  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = 4 + kRow * i;
    const double fraction = std::clamp(rows[i].fraction, 0.0, 1.0);
    out += Text(kLabelRight, y + 16, "end", rows[i].label);
    out += Rect(kBarLeft, y + 4, kBarRight - kBarLeft, kRow - 8, "track", "");
    out += Rect(kBarLeft, y + 4, (kBarRight - kBarLeft) * fraction, kRow - 8, rows[i].css_class,
                rows[i].label + ": " + rows[i].value_text);
    out += Text(kBarRight + 8, y + 16, "start", rows[i].value_text) + "\n";
  }
  return out + "</svg>\n";
}

std::string DivergingBarsSvg(const ChartText& text, const std::vector<DivergingRow>& rows) {
  constexpr double kRow = 24;
  constexpr double kLabelRight = 300;
  constexpr double kCentre = 540;
  constexpr double kHalf = 210;
  std::string out = Open(text, kRow * rows.size() + 8);
  double largest = 0;
  for (const DivergingRow& row : rows) largest = std::max(largest, std::fabs(row.value));
  out += Line(kCentre, 0, kCentre, kRow * rows.size() + 8, "grid") + "\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = 4 + kRow * i;
    const double width = largest > 0 ? kHalf * std::fabs(rows[i].value) / largest : 0;
    const double x = rows[i].value < 0 ? kCentre - width : kCentre;
    out += Text(kLabelRight, y + 16, "end", rows[i].label);
    out += Rect(x, y + 4, width, kRow - 8, rows[i].css_class,
                rows[i].label + ": " + rows[i].value_text);
    // Values in one column right of the bars, clear of the labels on the left.
    out += Text(kCentre + kHalf + 20, y + 16, "start", rows[i].value_text) + "\n";
  }
  return out + "</svg>\n";
}

std::string TimelineSvg(const ChartText& text, const std::vector<TimelineLaneRow>& lanes,
                        const std::vector<TimelineMark>& marks, int64_t span_ns) {
  constexpr double kLabelLeft = 4;
  constexpr double kLaneLeft = 176;
  constexpr double kLaneRight = 952;
  constexpr double kTop = 22;
  constexpr double kLane = 20;
  constexpr double kMinMarkWidth = 3;
  constexpr size_t kLabelChars = 26;
  const double width = kLaneRight - kLaneLeft;
  const double bottom = kTop + kLane * static_cast<double>(lanes.size());
  std::string out = Open(text, bottom + 24);
  // Ticks in µs below a millisecond: three decimals of a ms would print one tick twice.
  const bool micro = span_ns < 1'000'000;
  for (int quarter = 0; quarter <= 4; ++quarter) {
    const double x = kLaneLeft + width * quarter / 4.0;
    out += Line(x, kTop - 2, x, bottom + 2, "grid");
    const std::string_view anchor = quarter == 0 ? "start" : quarter == 4 ? "end" : "middle";
    const double at = static_cast<double>(span_ns) * quarter / 4.0 / (micro ? 1e3 : 1e6);
    out += Text(x, bottom + 18, anchor, AxisNumber(at) + (micro ? " µs" : " ms")) + "\n";
  }
  for (size_t i = 0; i < lanes.size(); ++i) {
    const double y = kTop + kLane * static_cast<double>(i);
    // Long device names are cut here; the table under the chart gives them whole.
    std::string label = lanes[i].label;
    if (label.size() > kLabelChars) label = label.substr(0, kLabelChars - 3) + "...";
    out += Text(kLabelLeft, y + 14, "start", label);
    out += Rect(kLaneLeft, y + 3, width, kLane - 6, "track", "");
    for (const TimelineShape& shape : lanes[i].shapes) {
      const double from = std::clamp(shape.from, 0.0, 1.0);
      const double to = std::clamp(shape.to, from, 1.0);
      out += Rect(kLaneLeft + width * from, y + 3, std::max(0.1, width * (to - from)), kLane - 6,
                  std::string(shape.css_class), "");
    }
    out += "\n";
  }
  for (const TimelineMark& mark : marks) {
    const double from = std::clamp(mark.from, 0.0, 1.0);
    const double to = std::clamp(mark.to, from, 1.0);
    const double mark_width = std::max(kMinMarkWidth, width * (to - from));
    const double x = std::min(kLaneLeft + width * from, kLaneRight - mark_width);
    out += Rect(x, kTop - 2, mark_width, bottom - kTop + 4, "gapmark", mark.hover);
    out += Text(x + mark_width / 2, kTop - 6, "middle", mark.label) + "\n";
  }
  return out + "</svg>\n";
}

}  // namespace stepstat::html
