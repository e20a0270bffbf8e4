// The page's frame: head, style sheet, the sections in the issue's order, the embedded JSON.
#include <cmath>
#include <string>

#include "report/html/html_escape.h"
#include "report/html/page_parts.h"
#include "report/html/svg_charts.h"
#include "report/table.h"
#include "stepstat/compare.h"
#include "stepstat/html_report.h"
#include "stepstat/report.h"

namespace stepstat {

namespace html {

namespace {

// Nothing may load: no script (the JSON block is data, never run), no image, font, frame or
// connection; the inline style sheet is the only style. A page mailed around or opened from
// a CI artifact cannot phone home, and a hostile kernel name cannot become code.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'; "
    "base-uri 'none'; form-action 'none'";

// Okabe-Ito (color-blind safe) for components in policy order; `other` grey, idle hatched.
// Text stays near-black on white (contrast well above 4.5:1); colors carry no text.
constexpr std::string_view kStyle = R"(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
  background: #fff; margin: 0 auto; max-width: 1040px; padding: 16px 24px 48px; }
h1 { font-size: 24px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; vertical-align: top; }
th { text-align: left; background: #f3f3f3; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.n { white-space: normal; }
td.name { overflow-wrap: anywhere; min-width: 220px; max-width: 560px; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
div.clamp { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 3; overflow: hidden; }
figure { margin: 12px 0; }
figcaption { color: #444; font-size: 13px; margin-top: 4px; }
svg.chart { width: 100%; height: auto; display: block; }
svg.chart text { font-size: 12px; fill: #1b1b1b; }
.grid { stroke: #ddd; stroke-width: 1; }
.marker { stroke: #1b1b1b; stroke-width: 2; stroke-dasharray: 4 3; }
.c0 { fill: #0072B2; } .c1 { fill: #E69F00; } .c2 { fill: #009E73; } .c3 { fill: #CC79A7; }
.c4 { fill: #56B4E9; } .c5 { fill: #D55E00; } .c6 { fill: #F0E442; }
.other { fill: #8c8c8c; } .bin { fill: #0072B2; } .track { fill: #eee; } .bar { fill: #0072B2; }
.idle { fill: url(#idle-hatch); }
.muted { opacity: 0.35; filter: grayscale(1); }
.mark-bin { fill: #1b1b1b; } .mem { fill: #000000; } .launch { fill: #5a5a5a; }
.gapmark { fill: none; stroke: #1b1b1b; stroke-width: 1.5; stroke-dasharray: 3 2; }
.better { fill: #0072B2; } .worse { fill: #E69F00; } .neutral { fill: #8c8c8c; }
.verdict { font-size: 16px; border-left: 6px solid #0072B2; padding: 6px 12px; background: #f3f8fc; }
span.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px; vertical-align: -1px; border: 1px solid #666; }
span.swatch.c0 { background: #0072B2; } span.swatch.c1 { background: #E69F00; }
span.swatch.c2 { background: #009E73; } span.swatch.c3 { background: #CC79A7; }
span.swatch.c4 { background: #56B4E9; } span.swatch.c5 { background: #D55E00; }
span.swatch.c6 { background: #F0E442; } span.swatch.other { background: #8c8c8c; }
span.swatch.mem { background: #000000; } span.swatch.launch { background: #5a5a5a; }
span.swatch.gap { background: #fff; border: 1.5px dashed #1b1b1b; }
span.swatch.idle { background: repeating-linear-gradient(45deg, #fff 0 3px, #9a9a9a 3px 5px); }
ul.legend { list-style: none; padding: 0; margin: 4px 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
.banner { border: 2px solid #D55E00; background: #fff4ec; padding: 8px 16px; margin: 16px 0; }
.banner h2 { border: 0; margin: 0 0 4px; font-size: 16px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.card { border: 1px solid #ccc; border-radius: 6px; padding: 8px 14px; min-width: 150px; }
.card .label { color: #444; font-size: 12px; }
.card .value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .extra { color: #444; font-size: 12px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.facts dt { color: #444; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
details summary { cursor: pointer; color: #1b1b1b; }
.note { color: #444; }
)";

// The idle pattern, defined once for every chart of the page.
constexpr std::string_view kSharedDefs =
    "<svg width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\"><defs>"
    "<pattern id=\"idle-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#ffffff\"/>"
    "<rect width=\"2\" height=\"6\" fill=\"#9a9a9a\"/></pattern></defs></svg>\n";

std::string PageStart(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"" +
         std::string(kContentSecurityPolicy) +
         "\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"stepstat\">\n<title>" +
         EscapeHtml(title) + "</title>\n<style>" + std::string(kStyle) +
         "</style>\n</head>\n<body>\n" + std::string(kSharedDefs);
}

// Data for scripts that read the page; never run (the CSP forbids scripts anyway).
std::string JsonBlock(std::string_view id, std::string_view json) {
  return "<script type=\"application/json\" id=\"" + std::string(id) + "\">" +
         JsonForScriptElement(json) + "</script>\n";
}

std::string CommandSection(std::string_view command_line) {
  return Section("definitions", "How this page was made",
                 "<pre><code>" + EscapeHtml(command_line) + "</code></pre>\n");
}

}  // namespace

HtmlTable& HtmlTable::Column(std::string_view header, Align align) {
  headers_.emplace_back(header);
  aligns_.push_back(align);
  return *this;
}

HtmlTable& HtmlTable::Row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
  return *this;
}

std::string HtmlTable::Render() const {
  std::string out = "<table>\n<thead><tr>";
  for (size_t i = 0; i < headers_.size(); ++i) {
    out += aligns_[i] == kNumber ? "<th class=\"n\">" : "<th>";
    out += EscapeHtml(headers_[i]) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows_) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      // A cell that NameCell made carries its own class.
      if (row[i].rfind("<td", 0) == 0) {
        out += row[i];
        continue;
      }
      out += aligns_[i] == kNumber ? "<td class=\"n\">" : "<td>";
      out += row[i] + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string Figure(const std::string& svg, const std::string& caption, const std::string& table) {
  return "<figure>\n" + svg + "<figcaption>" + caption + "</figcaption>\n</figure>\n" + table;
}

std::string Section(std::string_view id, std::string_view heading, const std::string& body) {
  return "<section id=\"" + std::string(id) + "\">\n<h2>" + EscapeHtml(heading) + "</h2>\n" + body +
         "</section>\n";
}

std::string Ms(int64_t ns) { return FormatMs(ns) + " ms"; }
std::string Ms(double ns) { return Ms(static_cast<int64_t>(std::llround(ns))); }
std::string Percent(double percent) { return FormatPercent(percent) + " %"; }
double PercentOf(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

std::string NameCell(std::string_view name) {
  const std::string escaped = EscapeHtml(name);
  return "<td class=\"name\" title=\"" + escaped + "\"><div class=\"clamp\">" + escaped +
         "</div></td>";
}

std::string Legend(const StepStats& stats, bool with_idle) {
  std::string out = "<ul class=\"legend\">";
  for (size_t i = 0; i < stats.components.size(); ++i) {
    out += "<li><span class=\"swatch " + ComponentClass(i, stats.components.size()) + "\"></span>" +
           EscapeHtml(stats.components[i].name) + "</li>";
  }
  if (with_idle) out += "<li><span class=\"swatch idle\"></span>idle (no kernel running)</li>";
  return out + "</ul>\n";
}

}  // namespace html

std::string ReportToHtml(const HtmlReportInput& input) {
  const SummaryResult& summary = *input.summary;
  const html::PageData data{
      summary,         *summary.details,    input.steps, input.steps_note, input.command_line,
      input.timelines, input.kernel_spreads};
  std::string page = html::PageStart("stepstat report: " + summary.stats.source_gpu_trace);
  page += html::HeaderSection(data);
  page += html::QualityBanner(data);
  page += html::CardsSection(data);
  page += html::TimeSection(data);
  page += html::TimelineSection(data);
  page += html::StepsSection(data);
  page += html::StreamsSection(data);
  page += html::LaunchSection(data);
  page += html::KernelsSection(data);
  if (input.vs != nullptr) page += html::DiffSection(*input.vs);
  page += html::DefinitionsSection(data);
  page +=
      html::JsonBlock("stepstat-summary", StepStatsWithDetailsToJson(summary.stats, data.details));
  if (input.vs != nullptr) page += html::JsonBlock("stepstat-diff", DiffToJson(input.vs->diff));
  return page + "</body>\n</html>\n";
}

std::string ReportToHtml(const ReportResult& report, const std::string& command_line) {
  HtmlReportInput input;
  input.summary = &report.summary;
  input.steps = report.steps ? &*report.steps : nullptr;
  input.steps_note = report.steps_note;
  input.command_line = command_line;
  input.vs = report.vs ? &*report.vs : nullptr;
  input.timelines = &report.timelines;
  input.kernel_spreads = &report.kernel_spreads;
  return ReportToHtml(input);
}

std::string DiffToHtml(const DiffRun& run, const std::string& command_line) {
  std::string page =
      html::PageStart("stepstat diff: " + run.diff.base.label + " vs " + run.diff.cand.label);
  page += "<header id=\"header\">\n<h1>stepstat diff</h1>\n</header>\n";
  page += html::DiffSection(run);
  page += html::CommandSection(command_line);
  page += html::JsonBlock("stepstat-diff", DiffToJson(run.diff));
  return page + "</body>\n</html>\n";
}

}  // namespace stepstat
