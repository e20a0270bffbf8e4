// The summary's overview as its lines declare it (stepstat/metrics.h): every figure a line
// names exists, a line whose figure is absent is left out (or shown for the absence), and
// the cells print by unit, the expected text written here from the rules (thousands
// separators, 1-decimal shares, one precision for the lone times of the value column).
#include "report/overview_cells.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace stepstat {
namespace {

using Rows = std::vector<std::array<std::string, 3>>;

TEST(OverviewCells, EveryKeyALineNamesIsAFigure) {
  const StepStats stats;
  for (std::span<const OverviewLine> lines :
       {std::span<const OverviewLine>(kSummaryTableOverview),
        std::span<const OverviewLine>(kSummaryMarkdownOverview)}) {
    for (const OverviewLine& line : lines) {
      SCOPED_TRACE(std::string(line.label));
      std::vector<std::string_view> keys = TemplateKeys(line.value);
      for (std::string_view key : TemplateKeys(line.note)) keys.push_back(key);
      if (!line.if_absent.empty()) keys.push_back(line.if_absent);
      for (std::string_view key : keys) {
        EXPECT_TRUE(FindOverviewFigure(key, stats, 1.0).has_value()) << key;
      }
    }
  }
}

StepStats Figures() {
  StepStats s;
  s.gpu_span_ns = 250'000'000;
  s.gpu_operation_count = 1'234'567;
  s.kernel_count = 1'234'000;
  s.kernel_time_ns = 240'000'000;
  s.kernel_busy_percent_of_span = 96.04;
  s.launch_gaps = {12'345, 10'000'000, 810.0, 2'500'000};
  return s;
}

TEST(OverviewCells, TheTextTableWithoutALaunchTraceSaysSo) {
  const Rows rows = OverviewRows(kSummaryTableOverview, Figures(), std::nullopt);
  const Rows expected = {
      {"GPU span", "250.0 ms", "first op start to last op end"},
      {"GPU operations", "1,234,567", "1,234,000 kernels, 567 memory operations"},
      {"kernel time (sum)", "240.0 ms", "96.0 % of span (a sum: can pass 100)"},
      // The largest lone time (250 ms) sets the column's one decimal; inside text, 2.5 ms
      // prints by its own size.
      {"idle gaps between kernels", "10.0 ms", "12,345 gaps, longest 2.500 ms"},
      {"launch API time", "-", "no launch trace given"},
  };
  EXPECT_EQ(rows, expected);
}

TEST(OverviewCells, TheTextTableWithALaunchTraceAndTheUnionBusyShare) {
  StepStats s = Figures();
  s.cpu_gpu_overlap = CpuGpuOverlap{20'000'000, 15'000'000, 75.0};
  const Rows rows = OverviewRows(kSummaryTableOverview, s, 99.54);
  const Rows expected = {
      {"GPU span", "250.0 ms", "first op start to last op end"},
      {"GPU operations", "1,234,567", "1,234,000 kernels, 567 memory operations"},
      {"kernel time (sum)", "240.0 ms", "96.0 % of span (a sum: can pass 100)"},
      {"GPU busy (union)", "99.5 %", "of span with any kernel running"},
      {"idle gaps between kernels", "10.0 ms", "12,345 gaps, longest 2.500 ms"},
      {"launch API time (union)", "20.0 ms", "CPU time inside kernel-launch calls"},
      {"  of it during GPU kernels", "15.0 ms", "75.0 % of launch API time"},
  };
  EXPECT_EQ(rows, expected);
}

TEST(OverviewCells, TheMarkdownsLoneTimesShareTheirPrecision) {
  StepStats s = Figures();
  s.gpu_span_ns = 25'000'000;  // every lone time under 100 ms: 3 decimals
  s.kernel_time_ns = 24'000'000;
  const Rows rows = OverviewRows(kSummaryMarkdownOverview, s, std::nullopt);
  const Rows expected = {
      {"GPU span", "25.000 ms", ""},
      {"GPU operations", "1,234,567", ""},
      {"kernels", "1,234,000", ""},
      {"kernel time (sum)", "24.000 ms", ""},
      {"kernel time (sum), % of span", "96.0", ""},
      {"idle gaps between kernels", "12,345 gaps, 10.000 ms, longest 2.500 ms", ""},
  };
  EXPECT_EQ(rows, expected);
}

}  // namespace
}  // namespace stepstat
