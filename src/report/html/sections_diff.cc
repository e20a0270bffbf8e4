// Before and after (`report --vs`, `diff --format html`): the verdict, the components side by
// side, the changes as diverging bars (blue better, orange worse, the sign printed), both
// step-time distributions on one scale, and the kernels that moved.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "report/html/html_escape.h"
#include "report/html/page_parts.h"
#include "report/html/svg_charts.h"
#include "report/table.h"

namespace stepstat::html {

namespace {

constexpr std::string_view kComponentPrefix = "components.";
constexpr std::string_view kMsSuffix = ".milliseconds";

std::string Printf(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string Value(double value, const std::string& unit) {
  if (unit == "ns") return Ms(value);
  if (unit == "ms") return Printf("%.3f", value) + " ms";
  if (unit == "%") return Printf("%.1f", value) + " %";
  if (value == std::floor(value) && std::fabs(value) < 9e15) {
    return FormatCount(static_cast<int64_t>(value));
  }
  return Printf("%.1f", value);
}

// The sign always printed: "+1.2 ms", "-0.5 %", "+0".
std::string Signed(const std::string& text, double value) {
  return value >= 0 && text.front() != '-' ? "+" + text : text;
}

std::string Delta(const DiffRow& row) {
  std::string out = Signed(Value(row.delta, row.unit), row.delta);
  if (row.delta_pct) out += " (" + Signed(Printf("%.1f", *row.delta_pct), *row.delta_pct) + " %)";
  if (row.delta_pp) out += " (" + Signed(Printf("%.1f", *row.delta_pp), *row.delta_pp) + " pp)";
  return out;
}

std::string EffectWord(const DiffRow& row) {
  const bool time = row.kind == MetricKind::kTime;
  switch (row.effect) {
    case Effect::kWorse: return time ? "slower" : "worse";
    case Effect::kBetter: return time ? "faster" : "better";
    case Effect::kChanged: return "changed";
    case Effect::kNone: break;
  }
  return "~";
}

std::string EffectClass(const DiffRow& row) {
  switch (row.effect) {
    case Effect::kWorse: return "worse";
    case Effect::kBetter: return "better";
    case Effect::kChanged:
    case Effect::kNone: break;
  }
  return "neutral";
}

std::string PValue(const DiffRow& row) { return row.p ? Printf("%.2g", *row.p) : "n/a"; }

bool IsComponentMs(const DiffRow& row) {
  return row.name.rfind(kComponentPrefix, 0) == 0 && row.name.size() > kMsSuffix.size() &&
         row.name.compare(row.name.size() - kMsSuffix.size(), kMsSuffix.size(), kMsSuffix) == 0;
}

std::string ComponentOf(const DiffRow& row) {
  return row.name.substr(kComponentPrefix.size(),
                         row.name.size() - kComponentPrefix.size() - kMsSuffix.size());
}

std::string VerdictBox(const DiffResult& diff) {
  std::string out =
      "<div class=\"verdict\"><strong>verdict: " + EscapeHtml(VerdictName(diff.verdict)) +
      "</strong> — " + EscapeHtml(diff.verdict_reason) + "</div>\n<p class=\"note\">base " +
      EscapeHtml(diff.base.label) + ", cand " + EscapeHtml(diff.cand.label) +
      "; Δ = cand − base everywhere.</p>\n";
  std::vector<std::string> notes = diff.comparability.refusals;
  notes.insert(notes.end(), diff.comparability.warnings.begin(), diff.comparability.warnings.end());
  for (const GateResult& gate : diff.gates) {
    notes.push_back("gate " + gate.spec + ": " + (gate.passed ? "passed" : "FAILED") +
                    (gate.why.empty() ? "" : " (" + gate.why + ")"));
  }
  if (!notes.empty()) {
    out += "<ul>\n";
    for (const std::string& note : notes) out += "<li>" + EscapeHtml(note) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

std::string ComponentsFigure(const DiffResult& diff) {
  std::vector<const DiffRow*> components;
  for (const DiffRow& row : diff.components) {
    if (IsComponentMs(row)) components.push_back(&row);
  }
  if (components.empty()) return "";
  double largest = 0;
  for (const DiffRow* row : components) largest = std::max({largest, row->base, row->cand});
  std::vector<BarRow> bars;
  HtmlTable table;
  table.Column("component", HtmlTable::kText).Column("base").Column("cand").Column("Δ");
  table.Column("p").Column("change", HtmlTable::kText);
  std::string desc;
  for (size_t i = 0; i < components.size(); ++i) {
    const DiffRow& row = *components[i];
    const std::string css = ComponentClass(i, components.size());
    const std::string name = ComponentOf(row);
    bars.push_back(
        {name + " base", Value(row.base, row.unit), largest > 0 ? row.base / largest : 0, css});
    bars.push_back(
        {name + " cand", Value(row.cand, row.unit), largest > 0 ? row.cand / largest : 0, css});
    desc += name + " " + Delta(row) + " " + EffectWord(row) + "; ";
    table.Row({EscapeHtml(name), Value(row.base, row.unit), Value(row.cand, row.unit),
               EscapeHtml(Delta(row)), PValue(row), EscapeHtml(EffectWord(row))});
  }
  const std::string svg =
      BarRowsSvg({"diff-components", "Component time, base beside cand", desc}, bars);
  const std::string caption =
      "Each component's kernel time (the median step's when both sides have steps, else the "
      "whole run's), base above cand, as a share of the largest of them (" +
      Value(largest, components.front()->unit) + ").";
  return "<h3>Components</h3>\n" + Figure(svg, EscapeHtml(caption), table.Render());
}

std::string ChangesFigure(const DiffResult& diff) {
  std::vector<const DiffRow*> shown;
  for (const DiffRow& row : diff.rows) {
    if (row.delta_pct && row.kind == MetricKind::kTime) shown.push_back(&row);
  }
  for (const DiffRow& row : diff.components) {
    if (row.delta_pct && IsComponentMs(row)) shown.push_back(&row);
  }
  if (shown.empty()) return "";
  std::vector<DivergingRow> bars;
  HtmlTable table;
  table.Column("metric", HtmlTable::kText).Column("base").Column("cand").Column("Δ");
  table.Column("n base").Column("n cand").Column("p").Column("change", HtmlTable::kText);
  std::string desc;
  for (const DiffRow* row : shown) {
    const std::string percent = Signed(Printf("%.1f", *row->delta_pct), *row->delta_pct) + " %";
    bars.push_back(
        {row->name, percent + " " + EffectWord(*row), *row->delta_pct, EffectClass(*row)});
    desc += row->name + " " + percent + " " + EffectWord(*row) + "; ";
  }
  for (const std::vector<DiffRow>* rows : {&diff.rows, &diff.components}) {
    for (const DiffRow& row : *rows) {
      table.Row({EscapeHtml(row.name), Value(row.base, row.unit), Value(row.cand, row.unit),
                 EscapeHtml(Delta(row)), std::to_string(row.n_base), std::to_string(row.n_cand),
                 PValue(row),
                 EscapeHtml(EffectWord(row) + (row.note.empty() ? "" : "; ") + row.note)});
    }
  }
  const std::string svg =
      DivergingBarsSvg({"diff-changes", "What changed, in % of base", desc}, bars);
  const std::string caption =
      "Δ % = (cand − base) / base for each time metric and component. Blue: better, orange: "
      "worse, grey and ~: not significant (Mann-Whitney p ≥ " +
      Printf("%.2g", diff.options.alpha) + " or within the " +
      Printf("%.1f", diff.options.noise_floor_pct) +
      " % noise floor; a whole run, n = 1, is judged by the noise floor alone). The table "
      "holds every metric.";
  return "<h3>What changed</h3>\n" + Figure(svg, EscapeHtml(caption), table.Render());
}

std::vector<double> Sorted(const MetricValues* values) {
  std::vector<double> out = values != nullptr ? values->steps : std::vector<double>{};
  std::sort(out.begin(), out.end());
  return out;
}

double MedianOfSorted(const std::vector<double>& sorted) {
  const size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

std::string DistributionsFigure(const DiffResult& diff, const Side& base, const Side& cand) {
  const std::vector<double> base_spans = Sorted(base.Find("gpu_span_ns"));
  const std::vector<double> cand_spans = Sorted(cand.Find("gpu_span_ns"));
  if (base_spans.empty() || cand_spans.empty()) return "";
  HistogramScale scale;
  scale.low = std::min(base_spans.front(), cand_spans.front());
  scale.high = std::max(base_spans.back(), cand_spans.back());
  std::string figures;
  HtmlTable table;
  table.Column("side", HtmlTable::kText).Column("steady steps").Column("min").Column("median");
  table.Column("max");
  for (const auto& [side, label, spans] :
       {std::tuple{"base", diff.base.label, &base_spans}, {"cand", diff.cand.label, &cand_spans}}) {
    const double median = MedianOfSorted(*spans);
    const std::string desc = std::string(side) + " (" + label +
                             "): " + std::to_string(spans->size()) + " steps, median " + Ms(median);
    const std::string id = std::string("diff-steps-") + side;
    figures += HistogramSvg({id, std::string("Step time, ") + side, desc}, *spans,
                            {{median, std::string(side) + " median " + Ms(median)}}, scale);
    table.Row({EscapeHtml(std::string(side) + ": " + label), std::to_string(spans->size()),
               Ms(spans->front()), Ms(median), Ms(spans->back())});
  }
  const std::string caption =
      "The steady steps' GPU spans of each side, base above cand, in 20 equal bins over one "
      "common range (" +
      Ms(*scale.low) + " to " + Ms(*scale.high) + "); dashed lines at each side's median.";
  return "<h3>Step time, both sides</h3>\n" + Figure(figures, EscapeHtml(caption), table.Render());
}

std::string KernelsTable(const DiffResult& diff) {
  if (diff.kernels.empty()) return "";
  HtmlTable table;
  table.Column("Δ total").Column("from count").Column("from per-call time");
  table.Column("change", HtmlTable::kText).Column("launches base").Column("launches cand");
  table.Column("total base").Column("total cand").Column("Name", HtmlTable::kText);
  for (const KernelDiff& kernel : diff.kernels) {
    table.Row({Signed(Ms(kernel.delta_ns), static_cast<double>(kernel.delta_ns)),
               Signed(Ms(kernel.count_part_ns), static_cast<double>(kernel.count_part_ns)),
               Signed(Ms(kernel.per_call_part_ns), static_cast<double>(kernel.per_call_part_ns)),
               EscapeHtml(KernelChangeName(kernel.change)), FormatCount(kernel.base.count),
               FormatCount(kernel.cand.count), Ms(kernel.base.total_ns), Ms(kernel.cand.total_ns),
               NameCell(kernel.name)});
  }
  return "<h3>Kernels that moved</h3>\n<p class=\"note\">The " +
         std::to_string(diff.kernels.size()) +
         " kernel names whose summed time changed most; Δ total = the part from the launch "
         "count plus the part from the time per call.</p>\n" +
         table.Render();
}

}  // namespace

std::string DiffSection(const DiffRun& run) {
  const DiffResult& diff = run.diff;
  std::string body = VerdictBox(diff);
  if (!diff.comparability.refuse_all) {
    body += ComponentsFigure(diff) + ChangesFigure(diff) +
            DistributionsFigure(diff, run.base_side, run.cand_side) + KernelsTable(diff);
  }
  return Section("before-after", "Before and after", body);
}

}  // namespace stepstat::html
