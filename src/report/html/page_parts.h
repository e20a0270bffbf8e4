// What the page's sections share: the data they draw from, tables, figures and number
// spellings. Every section function returns finished HTML; every trace text it writes has
// passed through EscapeHtml (html_escape.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/engine_compare.h"
#include "stepstat/html_report.h"

namespace stepstat::html {

struct PageData {
  const SummaryResult& summary;
  const Details& details;
  const StepsResult* steps;  ///< null when the run was not cut into steps
  std::string_view steps_note;
  std::string_view command_line;
  const std::vector<StepTimeline>* timelines = nullptr;  ///< null or empty: none drawn
  /// Min, Med, StdDev of the listed kernels; null (diff pages, callers without them): the
  /// kernel tables leave those columns empty.
  const std::vector<KernelSpread>* kernel_spreads = nullptr;
};

/// A table of already-escaped cells; numeric columns align right.
class HtmlTable {
 public:
  enum Align { kText, kNumber };
  HtmlTable& Column(std::string_view header, Align align = kNumber);
  /// Cells are HTML (escape trace text first); missing cells are left empty.
  HtmlTable& Row(std::vector<std::string> cells);
  std::string Render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> aligns_;
  std::vector<std::vector<std::string>> rows_;
};

/// A chart with its caption (HTML) and the table of its numbers under it.
std::string Figure(const std::string& svg, const std::string& caption, const std::string& table);

/// A section with a fixed id (never derived from trace text) and a heading.
std::string Section(std::string_view id, std::string_view heading, const std::string& body);

/// "12.345 ms" (table.h's FormatMs precision).
std::string Ms(int64_t ns);
std::string Ms(double ns);
/// "42.1 %".
std::string Percent(double percent);
/// part / whole as a percentage, 0 when whole is not positive.
double PercentOf(double part, double whole);
/// A kernel name for a table cell: escaped, wrapping anywhere, the full name on hover.
std::string NameCell(std::string_view name);

// The sections, in page order.
std::string HeaderSection(const PageData& data);
std::string QualityBanner(const PageData& data);  ///< empty when nothing was dropped or guessed
std::string CardsSection(const PageData& data);
std::string TimeSection(const PageData& data);
std::string TimelineSection(const PageData& data);  ///< a note alone without timelines
std::string StepsSection(const PageData& data);     ///< a note alone without steps
std::string StreamsSection(const PageData& data);
std::string LaunchSection(const PageData& data);
std::string KernelsSection(const PageData& data);
std::string DefinitionsSection(const PageData& data);
/// Before and after: the diff of `run` (report --vs, diff --format html).
std::string DiffSection(const DiffRun& run);

/// The component legend: a swatch and the escaped name per component, idle last.
std::string Legend(const StepStats& stats, bool with_idle);

}  // namespace stepstat::html
