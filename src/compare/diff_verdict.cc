// The verdict: what a perf engineer would say after reading every time row. A row decides
// when it changed significantly, beyond the noise floor, by at least a sliver of the step
// (DiffOptions::decide_percent_of_span): the step span, each component's time, and with one
// capture a side each kernel's per-call change. The rows that decide are named in the
// reason, so "regression" always comes with what moved. docs/diff.md, Verdict.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare/diff_internal.h"

namespace stepstat {
namespace {

/// A row the verdict read: its change in ns (+ slower) and how the reason words it.
struct Deciding {
  double delta_ns = 0;
  std::string text;
};

std::string PValue(double p) {
  return p > 0 ? fmt::format("p {:.2g}", p) : "p < 1e-300";  // below the smallest double
}

std::string Percent(const DiffRow& row) {
  return row.delta_pct ? fmt::format("{:+.1f} %", *row.delta_pct)
                       : fmt::format("{:+g} {}", row.delta, row.unit);
}

/// "void cutlass::device_kernel<cutlass3x_sm120_...>(T1::Params)" → its first 40 characters
/// before the argument list (unless that leaves too little to recognise, as for
/// "at::native::(anonymous namespace)::..."), enough to find it in the kernel table.
std::string ShortKernelName(std::string name) {
  if (name.starts_with("void ")) name.erase(0, 5);
  constexpr size_t kRecognisable = 16, kShown = 40;
  if (size_t open = name.find('('); open != std::string::npos && open >= kRecognisable) {
    name.resize(open);
  }
  if (name.size() > kShown) name = name.substr(0, kShown - 1) + "…";
  return name;
}

double RowNs(const DiffRow& row, double value) { return row.unit == "ms" ? value * 1e6 : value; }

struct Reading {
  std::vector<Deciding> slower, faster;
  std::vector<std::string> untold;  // beyond the floor and large, but not shown significant
};

void ReadRow(DiffRow& row, std::string_view shown, double min_ns, Reading* reading) {
  const double delta_ns = row.rolled_up_ns ? *row.rolled_up_ns : RowNs(row, row.delta);
  if (std::abs(delta_ns) < min_ns || !row.beyond_floor) return;
  if (!row.significant) {
    reading->untold.push_back(
        row.p ? fmt::format("{} {} ({}, not significant)", shown, Percent(row), PValue(*row.p))
              : fmt::format("{} {} (no significance test)", shown, Percent(row)));
    return;
  }
  row.decides = true;
  std::string text = row.rolled_up_ns
                         ? fmt::format("{} {:+.1f} % from its kernels' per-call changes", shown,
                                       *row.rolled_up_ns / (row.base * 1e6) * 100)
                         : fmt::format("{} {} ({})", shown, Percent(row), PValue(*row.p));
  (delta_ns > 0 ? reading->slower : reading->faster).push_back({delta_ns, std::move(text)});
}

void ReadKernel(KernelDiff& k, double min_ns, double scale, Reading* reading) {
  const double delta_ns = double(k.per_call_part_ns) * scale;
  if (!k.significant || std::abs(delta_ns) < min_ns) return;
  k.decides = true;
  std::string text = fmt::format("kernel {} {:+.1f} % per call ({})", ShortKernelName(k.name),
                                 *k.per_call_pct, PValue(*k.p));
  (delta_ns > 0 ? reading->slower : reading->faster).push_back({delta_ns, std::move(text)});
}

double Largest(const std::vector<Deciding>& rows) {
  double largest = 0;
  for (const Deciding& row : rows) largest = std::max(largest, std::abs(row.delta_ns));
  return largest;
}

/// "a; b; c and 2 more", largest first.
std::string Named(std::vector<Deciding> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Deciding& x, const Deciding& y) {
    return std::abs(x.delta_ns) > std::abs(y.delta_ns);
  });
  constexpr size_t kShown = 3;
  std::string out;
  for (size_t i = 0; i < rows.size() && i < kShown; ++i) {
    out += (i ? "; " : "") + rows[i].text;
  }
  if (rows.size() > kShown) out += fmt::format(" and {} more", rows.size() - kShown);
  return out;
}

}  // namespace

void Judge(DiffResult* diff, bool whole_runs, double kernel_scale) {
  const Comparability& comparability = diff->comparability;
  if (comparability.refuse_all) {
    diff->verdict = Verdict::kInconclusive;
    diff->verdict_reason = comparability.refusals.front();
    return;
  }
  if (comparability.not_comparable) {
    std::string why;
    for (const std::string& refusal : comparability.refusals)
      why += (why.empty() ? "" : "; ") + refusal;
    diff->verdict = Verdict::kNotComparable;
    diff->verdict_reason =
        fmt::format("{}: different programs? (--allow-different judges them anyway)", why);
    return;
  }
  DiffRow* span = nullptr;
  for (DiffRow& row : diff->rows) {
    if (row.name == diff->headline) span = &row;
  }
  if (!span) {
    diff->verdict = Verdict::kInconclusive;
    diff->verdict_reason = "the step span was not compared";
    return;
  }
  const double min_ns = std::abs(span->base) * diff->options.decide_percent_of_span / 100;
  Reading reading;
  ReadRow(*span, "step span", 0, &reading);
  for (DiffRow& row : diff->components) {
    if (!row.name.ends_with(".milliseconds")) continue;
    std::string name = row.name.substr(11, row.name.size() - 11 - 13);  // components.X.milliseconds
    ReadRow(row, name, min_ns, &reading);
  }
  if (whole_runs) {
    for (KernelDiff& k : diff->kernels) ReadKernel(k, min_ns, kernel_scale, &reading);
  }

  const std::string span_text =
      span->p ? fmt::format("step span {} ({})", Percent(*span), PValue(*span->p))
              : fmt::format("step span {} ({})", Percent(*span), span->note);
  auto with_span = [&](const std::string& named) {
    return span->decides ? named : named + "; " + span_text;
  };
  const double slower = Largest(reading.slower), faster = Largest(reading.faster);
  if (slower > 0 && faster > 0 && std::min(slower, faster) >= std::max(slower, faster) / 2) {
    diff->verdict = Verdict::kMixed;
    diff->verdict_reason = with_span(
        fmt::format("slower: {}; faster: {}", Named(reading.slower), Named(reading.faster)));
  } else if (slower > faster) {
    diff->verdict = Verdict::kRegression;
    diff->verdict_reason = with_span(Named(reading.slower));
    if (!reading.faster.empty())
      diff->verdict_reason += "; smaller gains: " + Named(reading.faster);
  } else if (faster > slower) {
    diff->verdict = Verdict::kImprovement;
    diff->verdict_reason = with_span(Named(reading.faster));
    if (!reading.slower.empty())
      diff->verdict_reason += "; smaller losses: " + Named(reading.slower);
  } else if (!reading.untold.empty()) {
    diff->verdict = Verdict::kInconclusive;
    std::string untold;
    for (const std::string& text : reading.untold) untold += (untold.empty() ? "" : "; ") + text;
    diff->verdict_reason =
        fmt::format("{}: too noisy to tell{}", untold,
                    whole_runs ? ", and no kernel's calls changed significantly beyond the floor"
                               : "; more steps?");
  } else {
    diff->verdict = Verdict::kNeutral;
    diff->verdict_reason =
        fmt::format("no time changed significantly beyond the {:g} % noise floor; {}",
                    diff->options.noise_floor_pct, span_text);
  }
  if (!diff->base.gpu.empty() && !diff->cand.gpu.empty() && diff->base.gpu != diff->cand.gpu) {
    diff->verdict_reason +=
        fmt::format("; on different GPUs (base {}, cand {})", diff->base.gpu, diff->cand.gpu);
  }
}

}  // namespace stepstat
