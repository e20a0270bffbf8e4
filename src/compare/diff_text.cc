// DiffToTable and DiffToMarkdown. Every colored number has its word beside it (slower,
// faster, worse, better, changed), so the table reads the same without color, in a log, or
// for a reader who does not see red and green apart.
#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "report/table.h"
#include "report/text_escape.h"
#include "stepstat/compare.h"

namespace stepstat {
namespace {

std::string Value(double value, std::string_view unit) {
  if (unit == "ns") return fmt::format("{:.3f} ms", value / 1e6);
  if (unit == "ms") return fmt::format("{:.3f} ms", value);
  if (unit == "%") return fmt::format("{:.1f} %", value);
  return value == std::floor(value) ? FormatCount(int64_t(value)) : fmt::format("{:.1f}", value);
}

std::string Delta(const DiffRow& row) {
  if (row.unit == "ns") return fmt::format("{:+.3f} ms", row.delta / 1e6);
  if (row.unit == "ms") return fmt::format("{:+.3f} ms", row.delta);
  if (row.unit == "%") return fmt::format("{:+.1f} pp", row.delta);
  return fmt::format("{:+g}", row.delta);
}

std::string Word(const DiffRow& row) {
  bool time = row.kind == MetricKind::kTime;
  switch (row.effect) {
    case Effect::kNone: return "~";
    case Effect::kWorse: return time ? "slower" : "worse";
    case Effect::kBetter: return time ? "faster" : "better";
    case Effect::kChanged: return "changed";
  }
  return "~";
}

/// "+5.2 % slower", colored when asked; "~" alone when not significant.
std::string Change(const DiffRow& row, bool color) {
  std::string amount = row.delta_pp    ? fmt::format("{:+.1f} pp", *row.delta_pp)
                       : row.delta_pct ? fmt::format("{:+.1f} %", *row.delta_pct)
                                       : Delta(row);
  std::string text = fmt::format("{} {}", amount, Word(row));
  if (row.effect == Effect::kNone) text = fmt::format("{} ~", amount);
  if (row.decides) text += " *";  // a row the verdict read
  if (!color || row.effect == Effect::kNone) return text;
  std::string_view code = row.effect == Effect::kWorse    ? "\x1b[31m"
                          : row.effect == Effect::kBetter ? "\x1b[32m"
                                                          : "\x1b[33m";
  return fmt::format("{}{}\x1b[0m", code, text);
}

std::string P(const DiffRow& row) {
  if (row.p) return fmt::format("{:.3g}", *row.p);
  return row.n_base == 1 && row.n_cand == 1 ? "n=1" : "untested";
}

std::string Kms(int64_t ns) { return fmt::format("{:+.3f}", double(ns) / 1e6); }

std::string Header(const DiffResult& diff, bool markdown) {
  auto escape = [&](std::string_view text) {
    return markdown ? EscapeForMarkdown(text) : EscapeForTerminal(text);
  };
  auto name = [&](const SideMetadata& side) { return escape(side.label); };
  std::string bold = markdown ? "**" : "";
  std::string out = fmt::format("{}stepstat diff{}: base {} vs cand {}   (Δ = cand − base)\n\n",
                                bold, bold, name(diff.base), name(diff.cand));
  out += fmt::format("{}verdict: {}{} — {}\n", bold, VerdictName(diff.verdict), bold,
                     escape(diff.verdict_reason));
  out += fmt::format("{}noise floor: {:g} % ({}{}{})\n", markdown ? "- " : "",
                     diff.options.noise_floor_pct, diff.options.noise_floor_source,
                     diff.options.noise_floor_how.empty() ? "" : ": ",
                     escape(diff.options.noise_floor_how));
  // The verdict of a pair not comparable already says why.
  for (size_t i = 0; i < diff.comparability.refusals.size() && !diff.comparability.not_comparable;
       ++i) {
    out += fmt::format("{}refused: {}\n", markdown ? "- " : "",
                       escape(diff.comparability.refusals[i]));
  }
  for (const std::string& text : diff.comparability.warnings) {
    out += fmt::format("{}warning: {}\n", markdown ? "- " : "", escape(text));
  }
  return out;
}

std::vector<std::vector<std::string>> RowCells(const std::vector<DiffRow>& rows, bool color,
                                               bool markdown) {
  std::vector<std::vector<std::string>> cells;
  for (const DiffRow& row : rows) {
    std::string name = markdown ? EscapeForMarkdown(row.name) : EscapeForTerminal(row.name);
    cells.push_back({name, Value(row.base, row.unit), Value(row.cand, row.unit), Delta(row),
                     fmt::format("{}/{}", row.n_base, row.n_cand), P(row), Change(row, color)});
  }
  return cells;
}

std::vector<std::vector<std::string>> KernelCells(const DiffResult& diff, bool markdown,
                                                  const TextStyle& style) {
  std::vector<std::vector<std::string>> cells;
  for (const KernelDiff& k : diff.kernels) {
    std::string name = markdown ? EscapeForMarkdown(k.name) : DisplayName(k.name, 60, style);
    std::string per_call = k.per_call_pct ? fmt::format("{:+.1f} %", *k.per_call_pct) : "";
    if (k.significant) per_call += k.decides ? " *" : " !";
    cells.push_back({name, std::string(KernelChangeName(k.change)),
                     fmt::format("{} → {}", k.base.count, k.cand.count), Kms(k.delta_ns),
                     Kms(k.count_part_ns), Kms(k.per_call_part_ns), per_call,
                     k.p ? fmt::format("{:.2g}", *k.p) : ""});
  }
  return cells;
}

const char* kRowHeaders[] = {"metric", "base", "cand", "Δ", "n base/cand", "p", "change"};
const char* kKernelHeaders[] = {"kernel",   "status",        "calls",
                                "Δ ms",     "from calls ms", "from time per call ms",
                                "per call", "p (calls)"};
constexpr size_t kKernelColumns = std::size(kKernelHeaders);
constexpr std::string_view kLegend =
    "* read by the verdict; ! significant, but too small a share of the step to decide\n";

std::string MarkdownTable(const char* const* headers, size_t columns,
                          const std::vector<std::vector<std::string>>& rows) {
  std::string out = "|";
  for (size_t i = 0; i < columns; ++i) out += fmt::format(" {} |", headers[i]);
  out += "\n|";
  for (size_t i = 0; i < columns; ++i) out += i == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& row : rows) {
    out += "|";
    for (const std::string& cell : row) out += fmt::format(" {} |", cell);
    out += "\n";
  }
  return out;
}

}  // namespace

std::string DiffToTable(const DiffResult& diff, const DiffTextStyle& style) {
  TextStyle text_style{style.unicode, style.width};
  std::string out = Header(diff, false);
  auto table = [&](const std::vector<DiffRow>& rows) {
    TextTable t;
    t.Column(kRowHeaders[0], TextTable::kLeft, {0, 24});
    for (int i = 1; i < 6; ++i)
      t.Column(kRowHeaders[i], TextTable::kRight, {i == 4 ? 2 : i == 5 ? 1 : 0, 0});
    t.Column(kRowHeaders[6], TextTable::kLeft);  // last: its color codes pad nothing
    for (auto& cells : RowCells(rows, style.color, false)) t.Row(std::move(cells));
    return t.Render(2, text_style);
  };
  if (!diff.rows.empty()) out += "\n" + table(diff.rows);
  if (!diff.components.empty()) out += "\nComponents\n" + table(diff.components);
  if (!diff.kernels.empty()) {
    TextTable t;
    t.Column(kKernelHeaders[0], TextTable::kLeft, {0, 24});
    t.Column(kKernelHeaders[1], TextTable::kLeft);
    for (size_t i = 2; i < kKernelColumns; ++i)
      t.Column(kKernelHeaders[i], TextTable::kRight, {i == 2 ? 1 : 0, 0});
    for (auto& cells : KernelCells(diff, false, text_style)) t.Row(std::move(cells));
    out += "\nKernels by |Δ total time| (Δ = from calls + from time per call)\n" +
           t.Render(2, text_style);
  }
  if (!diff.rows.empty()) out += "\n" + std::string(kLegend);
  if (!diff.gates.empty()) out += "\nGates\n";
  for (const GateResult& gate : diff.gates) {
    out += fmt::format("  {} {}: {}\n", gate.passed ? "pass" : "FAIL", EscapeForTerminal(gate.spec),
                       EscapeForTerminal(gate.why));
  }
  return out;
}

std::string DiffToMarkdown(const DiffResult& diff) {
  std::string out = Header(diff, true);
  if (!diff.rows.empty())
    out += "\n" + MarkdownTable(kRowHeaders, 7, RowCells(diff.rows, false, true));
  if (!diff.components.empty()) {
    out += "\n**Components**\n\n" +
           MarkdownTable(kRowHeaders, 7, RowCells(diff.components, false, true));
  }
  if (!diff.kernels.empty()) {
    out += "\n**Kernels by |Δ total time|** (Δ = from calls + from time per call)\n\n" +
           MarkdownTable(kKernelHeaders, kKernelColumns, KernelCells(diff, true, TextStyle{}));
  }
  if (!diff.rows.empty()) out += "\n" + std::string(kLegend);
  if (!diff.gates.empty()) out += "\n**Gates**\n\n";
  for (const GateResult& gate : diff.gates) {
    out += fmt::format("- {} `{}`: {}\n", gate.passed ? "pass" : "**FAIL**", gate.spec,
                       EscapeForMarkdown(gate.why));
  }
  return out;
}

}  // namespace stepstat
