// One metric, two sides: the row. Per-step samples get the statistics when both sides have
// min_steps of them; otherwise the row compares values and says no test was made.
#include <fmt/format.h>

#include <cmath>

#include "compare/diff_internal.h"

namespace stepstat {

std::optional<DiffRow> CompareMetric(const MetricValues& base, const MetricValues& cand,
                                     const DiffOptions& options) {
  const MetricInfo info = DescribeMetric(base.key);
  DiffRow row;
  row.name = base.key;
  row.unit = info.unit;
  row.kind = info.kind;
  bool tested = false;
  if (!base.steps.empty() && !cand.steps.empty()) {
    row.n_base = int64_t(base.steps.size());
    row.n_cand = int64_t(cand.steps.size());
    if (row.n_base >= options.min_steps && row.n_cand >= options.min_steps) {
      row.stats = CompareSamples(base.steps, cand.steps, options.confidence);
      row.base = row.stats->base_median;
      row.cand = row.stats->cand_median;
      row.p = row.stats->test.p;
      tested = true;
    } else {
      row.base = Median(base.steps);
      row.cand = Median(cand.steps);
      row.note = fmt::format("fewer than {} steps, no significance test", options.min_steps);
    }
  } else if (base.run && cand.run) {
    row.base = *base.run;
    row.cand = *cand.run;
    row.note = "n=1, no significance test";
  } else {
    return std::nullopt;
  }
  row.delta = row.cand - row.base;
  bool beyond_floor;
  if (info.kind == MetricKind::kShare) {
    row.delta_pp = row.delta;
    beyond_floor = std::abs(row.delta) >= options.noise_floor_pp;
  } else {
    if (row.base != 0) row.delta_pct = row.delta / std::abs(row.base) * 100;
    beyond_floor =
        row.delta_pct ? std::abs(*row.delta_pct) >= options.noise_floor_pct : row.delta != 0;
  }
  row.beyond_floor = beyond_floor;
  if (info.kind == MetricKind::kCount) {
    row.significant = row.delta != 0;  // counts are exact: any change is a change
  } else if (tested) {
    row.significant = *row.p < options.alpha && beyond_floor;
  }
  // An untested row beyond the floor shows which way it moved, but is not significant: the
  // verdict reads it as "cannot tell".
  if (row.significant || (!tested && beyond_floor)) {
    bool up = row.delta > 0;
    switch (info.worse) {
      case Worse::kUp: row.effect = up ? Effect::kWorse : Effect::kBetter; break;
      case Worse::kDown: row.effect = up ? Effect::kBetter : Effect::kWorse; break;
      case Worse::kNeither: row.effect = Effect::kChanged; break;
    }
  }
  return row;
}

}  // namespace stepstat
