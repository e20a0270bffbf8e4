// FinishRanks: the merged integers become the job's figures, floats computed here only,
// with the summary's own arithmetic (MakeStepStats), so a rank's row is its summary.
#include <algorithm>
#include <set>

#include "analysis/summary/summary_values.h"
#include "stepstat/ranks.h"

namespace stepstat {

namespace {

/// The policy as MakeStepStats reads it: names and descriptions (patterns are not needed
/// to print a summary).
Policy PrintedPolicy(const PartialPolicy& partial) {
  Policy policy;
  policy.name = partial.name;
  for (size_t i = 0; i + 1 < partial.components.size(); ++i) {
    ComponentRule rule;
    rule.name = partial.components[i].first;
    rule.description = partial.components[i].second;
    policy.components.push_back(std::move(rule));
  }
  if (!partial.components.empty()) policy.other_description = partial.components.back().second;
  return policy;
}

struct Integers {
  int64_t span_ns, operations, kernels, kernel_ns, gaps, gap_ns, gap_max_ns;
  bool has_launches;
  int64_t launch_union_ns, launch_overlap_ns;
  const std::vector<int64_t>& component_ns;
  const std::vector<int64_t>& component_launches;
};

StepStats Stats(const Policy& policy, const Integers& n, const StepStatsSources& sources) {
  GpuTotals gpu;
  gpu.operation_count = n.operations;
  gpu.kernel_count = n.kernels;
  gpu.kernel_time_ns = n.kernel_ns;
  gpu.first_start_ns = 0;
  gpu.last_end_ns = n.span_ns;
  gpu.gap_count = n.gaps;
  gpu.gap_total_ns = n.gap_ns;
  gpu.gap_max_ns = n.gap_max_ns;
  gpu.component_time_ns = n.component_ns;
  gpu.component_launches = n.component_launches;
  std::optional<LaunchOverlapTotals> overlap;
  if (n.has_launches) overlap = LaunchOverlapTotals{n.launch_union_ns, n.launch_overlap_ns};
  StepStats stats = MakeStepStats(policy, gpu, overlap, sources);
  // A rank with no operation has span 0 whatever was stored; keep what was measured.
  stats.gpu_span_ns = n.span_ns;
  return stats;
}

/// Nearest-rank percentile of values sorted ascending: a value some rank has.
template <typename T>
T Percentile(const std::vector<std::pair<T, int64_t>>& sorted, int64_t p) {
  size_t n = sorted.size();
  size_t index = (static_cast<size_t>(p) * n + 99) / 100;
  return sorted[index == 0 ? 0 : index - 1].first;
}

/// (value, row index) of every row, sorted: ties go to the first row (rows are in order of
/// rank, then device).
template <typename T, typename Value>
std::vector<std::pair<T, int64_t>> SortedValues(const std::vector<RankRow>& rows, Value value) {
  std::vector<std::pair<T, int64_t>> sorted;
  sorted.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    sorted.emplace_back(value(rows[i].stats), static_cast<int64_t>(i));
  }
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

/// The first row among those at the maximum, as at the minimum.
template <typename T>
int64_t RowAtMax(const std::vector<std::pair<T, int64_t>>& sorted) {
  return std::lower_bound(sorted.begin(), sorted.end(), sorted.back().first,
                          [](const auto& item, T v) { return item.first < v; })
      ->second;
}

/// The rank (and device) of the rows at the minimum and the maximum.
void NameRows(AcrossRanks& across, const std::vector<RankRow>& rows, int64_t min_row,
              int64_t max_row) {
  const RankRow& min = rows[static_cast<size_t>(min_row)];
  const RankRow& max = rows[static_cast<size_t>(max_row)];
  across.min_rank = min.rank;
  across.max_rank = max.rank;
  across.min_device = min.device;
  across.max_device = max.device;
}

template <typename Value>
AcrossRanks AcrossInt(std::string name, const std::vector<RankRow>& rows, Value value) {
  AcrossRanks across;
  across.name = std::move(name);
  auto sorted = SortedValues<int64_t>(rows, value);
  if (sorted.empty()) return across;
  across.min_int = sorted.front().first;
  across.p50_int = Percentile(sorted, 50);
  across.p90_int = Percentile(sorted, 90);
  across.max_int = sorted.back().first;
  NameRows(across, rows, sorted.front().second, RowAtMax(sorted));
  return across;
}

/// `to_double` is monotonic: the order of the exact values decides, and each printed value
/// is the one its rank's own row prints.
template <typename T, typename Value, typename ToDouble>
AcrossRanks AcrossDouble(std::string name, const std::vector<RankRow>& rows, Value value,
                         ToDouble to_double) {
  AcrossRanks across;
  across.name = std::move(name);
  across.integer = false;
  auto sorted = SortedValues<T>(rows, value);
  if (sorted.empty()) return across;
  across.min = to_double(sorted.front().first);
  across.p50 = to_double(Percentile(sorted, 50));
  across.p90 = to_double(Percentile(sorted, 90));
  across.max = to_double(sorted.back().first);
  NameRows(across, rows, sorted.front().second, RowAtMax(sorted));
  return across;
}

}  // namespace

RanksReport FinishRanks(const Partial& partial, std::vector<RankError> errors) {
  RanksReport report;
  report.policy = partial.policy;
  const Policy policy = PrintedPolicy(partial.policy);

  std::set<int64_t> taken;
  for (const RankPartial& r : partial.ranks) {
    if (r.rank) taken.insert(*r.rank);
  }
  int64_t next_free = 0;
  const std::string* last_unnumbered = nullptr;  // its devices follow it: they share its number
  for (const RankPartial& r : partial.ranks) {
    RankRow row;
    if (r.rank) {
      row.rank = *r.rank;
      row.rank_source = r.rank_source;
    } else {
      if (last_unnumbered == nullptr || *last_unnumbered != r.source_gpu_trace) {
        while (taken.count(next_free)) ++next_free;
        ++next_free;
      }
      last_unnumbered = &r.source_gpu_trace;
      row.rank = next_free - 1;
      row.rank_source = std::string(kRankFromOrder);
    }
    row.device = r.device;
    if (r.device) report.per_device = true;
    row.stats = Stats(policy,
                      {r.gpu_span_ns, r.gpu_operation_count, r.kernel_count, r.kernel_time_ns,
                       r.gap_count, r.gap_total_ns, r.gap_max_ns, r.has_launches, r.launch_union_ns,
                       r.launch_overlap_ns, r.component_ns, r.component_launches},
                      {r.source_gpu_trace, r.source_kernel_exec_trace});
    report.ranks.push_back(std::move(row));
  }
  // Stable: a rank's devices stay in the partial's (natural) order.
  std::stable_sort(report.ranks.begin(), report.ranks.end(),
                   [](const RankRow& a, const RankRow& b) { return a.rank < b.rank; });

  const PartialTotals& t = partial.totals;
  report.totals =
      Stats(policy,
            {t.gpu_span_ns, t.gpu_operation_count, t.kernel_count, t.kernel_time_ns, t.gap_count,
             t.gap_total_ns, t.gap_max_ns, t.launch_ranks > 0, t.launch_union_ns,
             t.launch_overlap_ns, t.component_ns, t.component_launches},
            {});

  const std::vector<RankRow>& rows = report.ranks;
  std::vector<AcrossRanks>& across = report.across_ranks;
  across.push_back(
      AcrossInt("gpu_span_ns", rows, [](const StepStats& s) { return s.gpu_span_ns; }));
  across.push_back(AcrossDouble<double>(
      "kernel_busy_percent_of_span", rows,
      [](const StepStats& s) { return s.kernel_busy_percent_of_span; },
      [](double v) { return v; }));
  across.push_back(AcrossInt("launch_gaps.total_ns", rows,
                             [](const StepStats& s) { return s.launch_gaps.total_ns; }));
  across.push_back(
      AcrossInt("kernel_time_ns", rows, [](const StepStats& s) { return s.kernel_time_ns; }));
  for (size_t c = 0; c < partial.policy.components.size(); ++c) {
    // Python's ns / 1e6, as each row prints it.
    across.push_back(AcrossDouble<int64_t>(
        "components." + partial.policy.components[c].first + ".milliseconds", rows,
        [c](const StepStats& s) { return s.components[c].time_ns; },
        [](int64_t ns) { return static_cast<double>(ns) / 1e6; }));
  }

  // Stragglers: span over the median rank's by more than kStragglerPercentOverMedian %,
  // compared in integers (span * 100 > median * (100 + k)) so no rounding decides.
  const auto median = static_cast<__int128>(across.front().p50_int);
  for (RankRow& row : report.ranks) {
    row.straggler = !rows.empty() && static_cast<__int128>(row.stats.gpu_span_ns) * 100 >
                                         median * (100 + kStragglerPercentOverMedian);
  }
  std::sort(errors.begin(), errors.end(), [](const RankError& a, const RankError& b) {
    return NaturalLess(a.input, b.input) || (!NaturalLess(b.input, a.input) && a.input < b.input);
  });
  report.errors = std::move(errors);
  return report;
}

}  // namespace stepstat
