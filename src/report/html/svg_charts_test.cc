#include "report/html/svg_charts.h"

#include <gtest/gtest.h>

#include <string>

namespace stepstat::html {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The x coordinate of the `n`-th rect (from 0) in `svg`.
double RectX(const std::string& svg, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i <= n; ++i) at = svg.find("<rect", at + 1);
  at = svg.find(" x=\"", at) + 4;
  return std::stod(svg.substr(at));
}

TEST(StackedBarSvg, SegmentsAreAsWideAsTheirShare) {
  const std::string svg = StackedBarSvg({"t", "title", "desc"}, {{1, "c0", "a"}, {3, "idle", "b"}});
  EXPECT_EQ(Count(svg, "<rect"), 2u);
  EXPECT_NE(svg.find("width=\"240.0\""), std::string::npos);  // 1/4 of 960
  EXPECT_NE(svg.find("x=\"240.0\" y=\"6.0\" width=\"720.0\""), std::string::npos);
  EXPECT_NE(svg.find("<title id=\"t-title\">title</title>"), std::string::npos);
}

TEST(StackedBarSvg, HoverAndTitleTextIsEscaped) {
  const std::string svg =
      StackedBarSvg({"t", "<b>", "k<float, 2>"}, {{1, "c0", "</title><script>x</script>"}});
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find("k&lt;float, 2&gt;"), std::string::npos);
}

TEST(StackedColumnsSvg, TallestColumnFillsThePlotAndMutedColumnsAreGrouped) {
  const std::string svg = StackedColumnsSvg(
      {"c", "t", "d"}, {{{{2, "c0", ""}, {2, "c1", ""}}, true}, {{{1, "c0", ""}}, false}}, "ms");
  EXPECT_EQ(Count(svg, "<g class=\"muted\">"), 1u);
  // The plot runs from y 24 to 224: the first column's two halves are 100 each.
  EXPECT_NE(svg.find("y=\"124.0\" width=\"443.0\" height=\"100.0\""), std::string::npos);
  EXPECT_NE(svg.find("y=\"24.0\" width=\"443.0\" height=\"100.0\""), std::string::npos);
  EXPECT_NE(svg.find(">4</text>"), std::string::npos);  // the axis top
}

TEST(HistogramSvg, CountsEveryValueOnceWithTheMaximumInTheLastBin) {
  const std::string svg = HistogramSvg({"h", "t", "d"}, {0, 0, 5e6, 10e6}, {{5e6, "median"}},
                                       HistogramScale{2, 1e6, "ms", {}, {}});
  EXPECT_NE(svg.find("<title>2 steps from 0 to 5 ms</title>"), std::string::npos);
  EXPECT_NE(svg.find("<title>2 steps from 5 to 10 ms</title>"), std::string::npos);
  EXPECT_NE(svg.find(">median</text>"), std::string::npos);
  EXPECT_DOUBLE_EQ(RectX(svg, 0), 64.0);
}

TEST(HistogramSvg, ACountAxisHasNoHalfSteps) {
  const std::string one =
      HistogramSvg({"h", "t", "d"}, {1, 2, 3}, {}, HistogramScale{3, 1, "ns", {}, {}});
  EXPECT_EQ(one.find(">0.5</text>"), std::string::npos);
  EXPECT_NE(one.find(">1</text>"), std::string::npos);
  const std::string two =
      HistogramSvg({"h", "t", "d"}, {1, 1, 3}, {}, HistogramScale{3, 1, "ns", {}, {}});
  EXPECT_NE(two.find(">1</text>"), std::string::npos);  // the middle of 0..2
}

// The second marker's label goes right of its line, unless that would leave the drawing.
TEST(HistogramSvg, AMarkerLabelAtAnEdgeStaysInside) {
  const HistogramScale scale{4, 1, "ns", 0.0, 100.0};
  const std::string middle =
      HistogramSvg({"h", "t", "d"}, {1, 99}, {{10, "median"}, {50, "p90 50 ns"}}, scale);
  EXPECT_NE(middle.find("text-anchor=\"start\">p90 50 ns</text>"), std::string::npos);
  const std::string edges =
      HistogramSvg({"h", "t", "d"}, {1, 99}, {{0, "median 0 ns"}, {100, "p90 100 ns"}}, scale);
  EXPECT_NE(edges.find("text-anchor=\"start\">median 0 ns</text>"), std::string::npos);
  EXPECT_NE(edges.find("text-anchor=\"end\">p90 100 ns</text>"), std::string::npos);
}

TEST(HistogramSvg, AGivenRangePutsTwoSamplesOnOneScale) {
  HistogramScale scale{2, 1, "ns", 0.0, 10.0};
  // 5..6 alone would fill both bins; on 0..10 both values fall in the upper bin.
  const std::string svg = HistogramSvg({"h", "t", "d"}, {5, 6}, {}, scale);
  EXPECT_NE(svg.find("<title>2 steps from 5 to 10 ns</title>"), std::string::npos);
  EXPECT_NE(svg.find(">0 ns</text>"), std::string::npos);
}

TEST(DivergingBarsSvg, NegativeBarsGrowLeftOfTheCentre) {
  const std::string svg =
      DivergingBarsSvg({"d", "t", "d"}, {{"a", "-10 %", -10, "better"}, {"b", "+5 %", 5, "worse"}});
  // Centre 540, half-width 210: -10 (the largest) spans 330..540, +5 spans 540..645.
  EXPECT_NE(svg.find("class=\"better\" x=\"330.0\" y=\"8.0\" width=\"210.0\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"worse\" x=\"540.0\" y=\"32.0\" width=\"105.0\""), std::string::npos);
}

TEST(ComponentClass, OtherIsLastAndThePaletteCycles) {
  EXPECT_EQ(ComponentClass(0, 3), "c0");
  EXPECT_EQ(ComponentClass(2, 3), "other");
  EXPECT_EQ(ComponentClass(8, 10), "c1");
}

TEST(Coordinate, OneDecimalAndNoNegativeZero) {
  EXPECT_EQ(Coordinate(1.25), "1.2");  // round half to even, as printf does
  EXPECT_EQ(Coordinate(-0.01), "0.0");
}

}  // namespace
}  // namespace stepstat::html
