// StepsToTable and StepsToMarkdown: the same cells, aligned text or Markdown tables.
#include <fmt/format.h>

#include <algorithm>

#include "stepstat/steps.h"

namespace stepstat {

namespace {

using Row = std::vector<std::string>;

std::string Ms(int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }

std::string FlagsOf(const StepRecord& step) {
  std::string text = step.warmup ? "warmup" : "";
  for (std::string_view flag : StepFlagNames(step.flags)) {
    if (!text.empty()) text += ' ';
    text += flag;
  }
  return text;
}

std::vector<Row> StepRows(const StepsReport& report, const Policy& policy) {
  std::vector<Row> rows;
  rows.push_back({"step", "name", "span ms", "period ms", "kernels", "kernel ms", "busy %", "gaps",
                  "idle ms", "max gap ms", "launch overlap %", "top component", "flags"});
  for (const StepRecord& step : report.steps) {
    StepStats s = StepStatsOf(report, step, policy);
    const ComponentStats* top = nullptr;
    for (const ComponentStats& c : s.components) {
      if (!top || c.time_ns > top->time_ns) top = &c;
    }
    std::string name = step.name.size() > 40 ? step.name.substr(0, 39) + "~" : step.name;
    rows.push_back({
        std::to_string(step.index),
        name,
        Ms(s.gpu_span_ns),
        step.period_ns < 0 ? "-" : Ms(step.period_ns),
        std::to_string(s.kernel_count),
        Ms(s.kernel_time_ns),
        fmt::format("{:.1f}", s.kernel_busy_percent_of_span),
        std::to_string(s.launch_gaps.positive_gap_count),
        Ms(s.launch_gaps.total_ns),
        Ms(s.launch_gaps.maximum_ns),
        s.cpu_gpu_overlap ? fmt::format("{:.1f}", s.cpu_gpu_overlap->launch_api_overlap_percent)
                          : "-",
        top && top->time_ns > 0 ? fmt::format("{} {:.1f}%", top->name, top->percent_of_kernel_time)
                                : "-",
        FlagsOf(step),
    });
  }
  return rows;
}

std::vector<Row> DistributionRows(const StepsReport& report) {
  std::vector<Row> rows;
  rows.push_back({"metric", "median", "p10", "p90", "min", "max", "cv"});
  for (const Distribution& d : report.steady_state) {
    auto cell = [](double v) { return fmt::format("{:.6g}", v); };
    rows.push_back({d.metric, cell(d.median), cell(d.p10), cell(d.p90), cell(d.min), cell(d.max),
                    fmt::format("{:.3f}", d.cv)});
  }
  return rows;
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

// Columns: left-aligned for words, right-aligned for numbers. The first `word_columns` are
// words, and the last one too when `words_last` (the step table's flags).
std::string Aligned(const std::vector<Row>& rows, size_t word_columns, bool words_last) {
  std::vector<size_t> width(rows.front().size(), 0);
  for (const Row& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const Row& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "  ";
      bool left = i < word_columns || (words_last && i + 1 == row.size());
      line +=
          left ? fmt::format("{:<{}}", row[i], width[i]) : fmt::format("{:>{}}", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  return out;
}

std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '\\' || c == '`' || c == '*' || c == '_') out += '\\';
    out += c;
  }
  return out;
}

std::string Markdown(const std::vector<Row>& rows, size_t word_columns, bool words_last) {
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    out += '|';
    for (const std::string& cell : rows[r]) out += ' ' + MarkdownCell(cell) + " |";
    out += '\n';
    if (r == 0) {
      out += '|';
      for (size_t i = 0; i < rows[r].size(); ++i) {
        bool left = i < word_columns || (words_last && i + 1 == rows[r].size());
        out += left ? " --- |" : " ---: |";
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace

std::string StepsToTable(const StepsReport& report, const Policy& policy) {
  return Preamble(report) + "\n" + ResidueLine(report) + "\n\n" +
         Aligned(StepRows(report, policy), 2, true) + "\nsteady state (" +
         std::to_string(report.steady_count) + " steps)\n" +
         Aligned(DistributionRows(report), 1, false);
}

std::string StepsToMarkdown(const StepsReport& report, const Policy& policy) {
  return "### Steps\n\n" + MarkdownCell(Preamble(report)) + "\n\n" +
         MarkdownCell(ResidueLine(report)) + "\n\n" + Markdown(StepRows(report, policy), 2, true) +
         "\n### Steady state (" + std::to_string(report.steady_count) + " steps)\n\n" +
         Markdown(DistributionRows(report), 1, false);
}

}  // namespace stepstat
