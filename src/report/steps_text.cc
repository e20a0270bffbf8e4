// StepsToTable and StepsToMarkdown: the same cells, aligned text or Markdown tables.
// Every column holds one quantity at one precision: times in ms with 3 decimals, percentages
// with 1, counts as integers. The steady-state table has one metric per row, so there the
// unit and precision are the row's, and the metric's label names the unit.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/figure_cells.h"
#include "report/table.h"
#include "report/text_escape.h"
#include "stepstat/steps.h"

namespace stepstat {

namespace {

using Row = std::vector<std::string>;

struct Column {
  std::string header;
  bool words = false;  ///< left-aligned
  ColumnFit fit;
};

struct Table {
  std::vector<Column> columns;
  std::vector<Row> rows;
};

std::string Ms(int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }

std::string FlagsOf(const StepRecord& step) {
  std::string text = step.warmup ? "warmup" : "";
  for (std::string_view flag : StepFlagNames(step.flags)) {
    if (!text.empty()) text += ' ';
    text += flag;
  }
  return text;
}

// The step's identity, its figures as the registry's column list declares them
// (kStepsTableColumns: which, in what order, which give way first on a narrow terminal),
// its top component and flags.
Table StepTable(const StepsReport& report, const Policy& policy) {
  Table t;
  t.columns = {{"step", false, {}}, {"name", true, {0, 16}}};
  for (const StepsTableColumn& column : kStepsTableColumns) {
    t.columns.push_back({std::string(column.header), false, {column.drop, 0}});
  }
  t.columns.push_back({"top component", true, {2, 0}});
  t.columns.push_back({"flags", true, {}});
  for (const StepRecord& step : report.steps) {
    StepStats s = StepStatsOf(report, step, policy);
    const ComponentStats* top = nullptr;
    for (const ComponentStats& c : s.components) {
      if (!top || c.time_ns > top->time_ns) top = &c;
    }
    Row row = {std::to_string(step.index), step.name};
    for (const StepsTableColumn& column : kStepsTableColumns) {
      row.push_back(StepFigureCell(column.key, step, s));
    }
    row.push_back(top && top->time_ns > 0
                      ? fmt::format("{} {:.1f}%", top->name, top->percent_of_kernel_time)
                      : "-");
    row.push_back(FlagsOf(step));
    t.rows.push_back(std::move(row));
  }
  return t;
}

// A distribution key → its label and how its values print.
struct MetricFormat {
  std::string label;
  double scale = 1.0;  ///< value × scale is printed
  int decimals = 0;
};

MetricFormat FormatOf(const std::string& metric, const Distribution& d) {
  auto strip = [&metric](std::string_view suffix) {
    return metric.substr(0, metric.size() - suffix.size());
  };
  if (metric.ends_with("_ns")) return {strip("_ns") + " ms", 1e-6, 3};
  if (metric.ends_with(".milliseconds")) return {strip(".milliseconds") + " ms", 1.0, 3};
  if (metric.find("percent") != std::string::npos) return {metric, 1.0, 1};
  // A count: an integer, unless interpolation between steps made a fraction.
  bool whole = true;
  for (double v : {d.median, d.p10, d.p90, d.min, d.max}) whole = whole && v == std::floor(v);
  return {metric, 1.0, whole ? 0 : 1};
}

Table DistributionTable(const StepsReport& report) {
  Table t;
  // The metric's name is what ties a row to its JSON key: min and max give way before it.
  t.columns = {
      {"metric", true, {0, 40}}, {"median", false, {}},  {"p10", false, {1, 0}},
      {"p90", false, {1, 0}},    {"min", false, {3, 0}}, {"max", false, {3, 0}},
      {"cv", false, {2, 0}},
  };
  for (const Distribution& d : report.steady_state) {
    MetricFormat f = FormatOf(d.metric, d);
    auto cell = [&f](double v) { return fmt::format("{:.{}f}", v * f.scale, f.decimals); };
    t.rows.push_back({f.label, cell(d.median), cell(d.p10), cell(d.p90), cell(d.min), cell(d.max),
                      fmt::format("{:.3f}", d.cv)});
  }
  return t;
}

std::string Preamble(const StepsReport& report) {
  std::string text = fmt::format("{} steps from {} ({}), attributed by {}; {} warm-up, {} steady",
                                 report.steps.size(), StepSourceKindName(report.source),
                                 report.source_detail, StepAttributionName(report.attribution),
                                 report.warmup_count, report.steady_count);
  if (report.median_step >= 0) text += fmt::format("; median step {}", report.median_step);
  if (report.outside.operation_count > 0) {
    text += fmt::format("; {} GPU operations ({} ms of kernels) outside every step",
                        report.outside.operation_count, Ms(report.outside.kernel_time_ns));
  }
  const UnlaunchedOps& unlaunched = report.residue.unlaunched;
  if (unlaunched.operation_count > 0) {
    text += fmt::format("; {} GPU operations ({} ms of kernels) unlaunched, in no step",
                        unlaunched.operation_count, Ms(unlaunched.kernel_time_ns));
  }
  return text;
}

// Where the GPU time that no step's span holds lies (the residue that makes the steps tile
// the run; the JSON has its idle, gaps and corrections).
std::string ResidueLine(const StepsReport& report) {
  const StepsResidue& r = report.residue;
  return fmt::format(
             "GPU time in no step: {} ms before the first, {} ms between steps, {} ms after the "
             "last "
             "(no kernel running: {} / {} / {} ms) of a {} ms span",
             Ms(r.before_first.span_ns), Ms(r.between_steps.span_ns), Ms(r.after_last.span_ns),
             Ms(r.before_first.idle_ns), Ms(r.between_steps.idle_ns), Ms(r.after_last.idle_ns),
             Ms(r.gpu_span_ns)) +
         (r.steps_overlap_ns > 0
              ? fmt::format("; steps' spans overlap by {} ms", Ms(r.steps_overlap_ns))
              : "");
}

std::string Text(const Table& table, const TextStyle& style) {
  TextTable text;
  for (const Column& c : table.columns) {
    text.Column(c.header, c.words ? TextTable::kLeft : TextTable::kRight, c.fit);
  }
  for (const Row& row : table.rows) {
    Row escaped;
    for (const std::string& cell : row) escaped.push_back(EscapeForTerminal(cell));
    text.Row(std::move(escaped));
  }
  return text.Render(0, style);
}

std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '\\' || c == '`' || c == '*' || c == '_') out += '\\';
    out += c;
  }
  return out;
}

std::string Markdown(const Table& table) {
  std::string out = "|";
  for (const Column& c : table.columns) out += ' ' + MarkdownCell(c.header) + " |";
  out += "\n|";
  for (const Column& c : table.columns) out += c.words ? " --- |" : " ---: |";
  out += '\n';
  for (const Row& row : table.rows) {
    out += '|';
    for (const std::string& cell : row) out += ' ' + MarkdownCell(cell) + " |";
    out += '\n';
  }
  return out;
}

}  // namespace

std::string StepsToTable(const StepsReport& report, const Policy& policy, size_t width,
                         bool unicode) {
  TextStyle style{unicode, width};
  std::string preamble = WrapText(EscapeForTerminal(Preamble(report)), width);
  return preamble + "\n" + WrapText(ResidueLine(report), width) + "\n\n" +
         Text(StepTable(report, policy), style) + "\nsteady state (" +
         std::to_string(report.steady_count) + " steps; times in ms)\n" +
         Text(DistributionTable(report), style);
}

std::string StepsToMarkdown(const StepsReport& report, const Policy& policy) {
  return "### Steps\n\n" + MarkdownCell(Preamble(report)) + "\n\n" +
         MarkdownCell(ResidueLine(report)) + "\n\n" + Markdown(StepTable(report, policy)) +
         "\n### Steady state (" + std::to_string(report.steady_count) + " steps; times in ms)\n\n" +
         Markdown(DistributionTable(report));
}

}  // namespace stepstat
