#include "analysis/steps/period/period_detector.h"

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/steps/period/period_cutter.h"

namespace stepstat {

namespace {

// The most frequent value of `values` (sorted in place) and the fraction of values within
// +-2 of it: a kernel missing or added in one step moves a distance by one or two.
std::pair<size_t, double> Mode(std::vector<size_t>& values) {
  std::sort(values.begin(), values.end());
  size_t best = 0, best_count = 0;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j] == values[i]) ++j;
    if (j - i > best_count) best = values[i], best_count = j - i;
    i = j;
  }
  if (values.empty()) return {0, 0.0};
  auto near_begin = std::lower_bound(values.begin(), values.end(), best >= 2 ? best - 2 : 0);
  auto near_end = std::upper_bound(values.begin(), values.end(), best + 2);
  return {best, static_cast<double>(near_end - near_begin) / static_cast<double>(values.size())};
}

// How often seq[i] recurs one period later, give or take one kernel (so that one missing
// or extra kernel does not make the rest of a step look different).
double MatchRate(std::span<const NameId> names, size_t period, size_t begin, size_t end) {
  end = std::min(end, names.size() - period);
  if (begin >= end) return 0.0;
  size_t matches = 0;
  for (size_t i = begin; i < end; ++i) {
    size_t j = i + period;
    bool near = period > 2 &&
                (names[i] == names[j - 1] || (j + 1 < names.size() && names[i] == names[j + 1]));
    matches += names[i] == names[j] || near;
  }
  return static_cast<double>(matches) / static_cast<double>(end - begin);
}

// Positions of each name within [begin, n), grouped by name (counting sort).
struct Occurrences {
  std::vector<size_t> offsets;  // name id -> first index into positions; size ids + 1
  std::vector<size_t> positions;
  std::span<const size_t> Of(NameId id) const {
    return {positions.data() + offsets[id], offsets[id + 1] - offsets[id]};
  }
};

Occurrences CollectOccurrences(std::span<const NameId> names, size_t begin) {
  NameId max_id = 0;
  for (size_t i = begin; i < names.size(); ++i) max_id = std::max(max_id, names[i]);
  Occurrences occ;
  occ.offsets.assign(static_cast<size_t>(max_id) + 2, 0);
  for (size_t i = begin; i < names.size(); ++i) ++occ.offsets[names[i] + 1];
  for (size_t id = 1; id < occ.offsets.size(); ++id) occ.offsets[id] += occ.offsets[id - 1];
  occ.positions.resize(names.size() - begin);
  std::vector<size_t> cursor(occ.offsets.begin(), occ.offsets.end() - 1);
  for (size_t i = begin; i < names.size(); ++i) occ.positions[cursor[names[i]]++] = i;
  return occ;
}

struct Candidates {
  std::map<size_t, int> support;        // period -> number of (name, k) that propose it
  std::vector<size_t> regular_spacing;  // mode distance of each name recurring regularly
};

// A name recurring at a regular distance proposes that distance (and the distance to its
// 2nd and 3rd next occurrence, for names that occur a few times per step) as a period.
Candidates ProposePeriods(const Occurrences& occ, size_t max_period) {
  constexpr double kRegular = 0.6;
  Candidates c;
  std::vector<size_t> distances;
  for (size_t id = 0; id + 1 < occ.offsets.size(); ++id) {
    std::span<const size_t> pos = occ.Of(static_cast<NameId>(id));
    for (size_t k = 1; k <= 3 && k < pos.size(); ++k) {
      distances.clear();
      for (size_t j = 0; j + k < pos.size(); ++j) distances.push_back(pos[j + k] - pos[j]);
      auto [distance, fraction] = Mode(distances);
      if (fraction < kRegular) continue;
      if (distance <= max_period) ++c.support[distance];
      if (k == 1 && pos.size() >= 3) c.regular_spacing.push_back(distance);
    }
  }
  return c;
}

// Real steps usually start after the GPU went idle (data loading, a sync, the optimizer's
// host work), so the distances between the largest idle gaps propose a period too: the only
// witness of a step made of identical layers.
void ProposeFromGaps(std::span<const int64_t> idle, size_t begin, size_t max_period,
                     Candidates& c) {
  std::vector<int64_t> sorted(idle.begin() + static_cast<std::ptrdiff_t>(begin), idle.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<size_t> distances;
  for (double quantile : {0.999, 0.99, 0.95, 0.9}) {
    int64_t threshold = sorted[static_cast<size_t>(quantile * (sorted.size() - 1))];
    if (threshold <= 0) continue;
    distances.clear();
    size_t previous = 0;
    bool seen = false;
    for (size_t i = begin; i < idle.size(); ++i) {
      if (idle[i] < threshold) continue;
      if (seen) distances.push_back(i - previous);
      previous = i, seen = true;
    }
    if (distances.size() < 2) continue;
    auto [distance, fraction] = Mode(distances);
    if (fraction >= 0.6 && distance <= max_period) ++c.support[distance];
  }
}

// Whether `q` kernels are a whole number (two or more) of `p`-kernel units, give or take a
// kernel per unit (a kernel missing or added in some steps).
bool Repeats(size_t q, size_t p) {
  size_t k = (q + p / 2) / p;
  if (k < 2) return false;
  size_t whole = k * p;
  size_t off = q > whole ? q - whole : whole - q;
  return off <= std::max<size_t>(2, k);
}

// A period is consistent when every regular name recurs within one period or every few
// whole periods; a layer's period fails on the names that occur once per step.
bool Consistent(size_t period, const std::vector<size_t>& regular_spacing) {
  return std::all_of(regular_spacing.begin(), regular_spacing.end(),
                     [&](size_t d) { return d < period || d % period == 0; });
}

// The largest idle time within +-kDrift kernels of i: over a few periods, noise moves the
// true cut by a kernel or two away from a fixed phase.
constexpr size_t kDrift = 2;
int64_t IdleNear(std::span<const int64_t> idle, size_t i, size_t begin, size_t end) {
  int64_t best = 0;
  for (size_t j = std::max(begin, i >= kDrift ? i - kDrift : 0); j < end && j <= i + kDrift; ++j) {
    best = std::max(best, idle[j]);
  }
  return best;
}

// Kernel i follows the largest gap within the drift, and that gap is at least `level` > 0.
bool GapHere(std::span<const int64_t> idle, size_t i, int64_t level, size_t begin, size_t end) {
  return idle[i] > 0 && idle[i] >= level && idle[i] == IdleNear(idle, i, begin, end);
}

size_t CountOf(const Occurrences& occ, NameId id) {
  return id + 1 < occ.offsets.size() ? occ.Of(id).size() : 0;
}

// Whether any of `flags` is set within +-kDrift kernels of i.
bool FlagNear(std::span<const uint8_t> flags, size_t i, size_t begin, size_t end) {
  for (size_t j = std::max(begin, i >= kDrift ? i - kDrift : 0); j < end && j <= i + kDrift; ++j) {
    if (flags[j]) return true;
  }
  return false;
}

// The phase whose kernels follow the largest median idle gap (give or take the drift);
// ties go to the rarest name, then to the earliest phase. When host transfers are known, a
// phase whose gap is comparable to the largest (at least half of it) and that follows a
// host transfer in most periods wins over the larger gaps without one. Returns the
// position of the first cut.
size_t BestCut(std::span<const NameId> names, std::span<const int64_t> idle,
               std::span<const uint8_t> host_transfer, size_t period, size_t begin, size_t end,
               const Occurrences& occ) {
  struct Scored {
    int64_t median_gap;  // of the largest gap within the drift
    bool at_transfers;
  };
  std::vector<Scored> scores;
  std::vector<int64_t> gaps;
  for (size_t phase = 0; phase < period && begin + phase < end; ++phase) {
    gaps.clear();
    size_t transfers = 0;
    for (size_t i = begin + phase; i < end; i += period) {
      gaps.push_back(IdleNear(idle, i, begin, end));
      if (!host_transfer.empty()) transfers += FlagNear(host_transfer, i, begin, end);
    }
    auto middle = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
    std::nth_element(gaps.begin(), middle, gaps.end());
    scores.push_back({*middle, transfers > 0 && 2 * transfers >= gaps.size()});
  }
  int64_t largest = 0;
  for (const Scored& s : scores) largest = std::max(largest, s.median_gap);
  bool prefer_transfers = std::any_of(scores.begin(), scores.end(), [&](const Scored& s) {
    return s.at_transfers && s.median_gap > 0 && 2 * s.median_gap >= largest;
  });
  size_t best = 0;
  bool have_best = false;
  size_t best_count = 0;
  for (size_t phase = 0; phase < scores.size(); ++phase) {
    if (prefer_transfers && !scores[phase].at_transfers) continue;
    const Scored& s = scores[phase];
    size_t count = CountOf(occ, names[begin + phase]);
    bool better = !have_best || s.median_gap > scores[best].median_gap ||
                  (s.median_gap == scores[best].median_gap && count < best_count);
    if (better) best = phase, best_count = count, have_best = true;
  }
  // The kernel right after the largest gap near that phase, looked for in the second period
  // when there is one: the first kernel of a trace has no gap before it. The caller walks
  // back from this cut to the earlier ones.
  const int64_t level = scores[best].median_gap;
  size_t center = begin + best + (begin + best + period < end ? period : 0);
  size_t cut = center;
  for (size_t j = center - std::min(kDrift, center - begin); j < end && j <= center + kDrift; ++j) {
    bool larger = idle[j] > idle[cut];
    bool rarer = idle[j] == idle[cut] && CountOf(occ, names[j]) < CountOf(occ, names[cut]);
    if (larger || rarer) cut = j;
  }
  if (idle[cut] >= level) return cut;
  // Noise drifted the gap out of reach there (a phase is fixed, the true cuts move a kernel
  // or two per step): the first kernel of that phase right after a gap as large as usual.
  for (size_t i = begin + best; i < end; i += period) {
    if (GapHere(idle, i, level, begin, end)) return i;
  }
  return cut;
}

// Steps cut at one phase of the period, walking forward from `begin`. The phase is chosen
// over the first few periods only: noise makes the true cuts drift from a fixed phase.
struct Cuts {
  size_t first = 0;
  std::vector<size_t> forward;  // first, then each following cut
  int64_t median_gap = 0;       // idle time before the cuts
};

Cuts CutForward(std::span<const NameId> names, std::span<const int64_t> idle,
                std::span<const uint8_t> host_transfer, size_t period, size_t begin,
                const Occurrences& occ) {
  constexpr size_t kPhasePeriods = 8;
  const size_t n = names.size();
  size_t phase_end = std::min(n, begin + kPhasePeriods * period);
  Cuts cuts;
  cuts.first = BestCut(names, idle, host_transfer, period, begin, phase_end, occ);
  NameId anchor = names[cuts.first];
  cuts.forward.push_back(cuts.first);
  std::vector<size_t> after = WalkForward(names, period, anchor, cuts.first);
  cuts.forward.insert(cuts.forward.end(), after.begin(), after.end());
  std::vector<int64_t> gaps;
  for (size_t cut : cuts.forward) gaps.push_back(idle[cut]);
  auto middle = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), middle, gaps.end());
  cuts.median_gap = *middle;
  return cuts;
}

}  // namespace

PeriodDetection DetectPeriod(std::span<const NameId> names, std::span<const int64_t> idle_before,
                             std::span<const uint8_t> host_transfer_before,
                             const PeriodDetectorOptions& options) {
  PeriodDetection result;
  const size_t n = names.size();
  const size_t repeats = std::max<size_t>(options.min_repeats, 2);
  if (n < 2 * repeats || idle_before.size() != n) return result;
  if (!host_transfer_before.empty() && host_transfer_before.size() != n) return result;

  // Statistics come from the last two thirds, past most warm-ups.
  const size_t tail_begin = n / 3;
  const size_t max_period = std::min(n / repeats, (n - tail_begin) / 2);
  Occurrences occ = CollectOccurrences(names, tail_begin);
  Candidates candidates = ProposePeriods(occ, max_period);
  ProposeFromGaps(idle_before, tail_begin, max_period, candidates);

  std::vector<std::pair<int, size_t>> ranked;  // (support, period)
  for (auto [period, support] : candidates.support) {
    if (period > 0) ranked.push_back({support, period});
  }
  std::sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (ranked.size() > options.max_candidates) ranked.resize(options.max_candidates);

  struct Verified {
    size_t period;
    double rate;
    int64_t gap;
  };
  std::vector<Verified> verified;
  for (auto [support, period] : ranked) {
    if (!Consistent(period, candidates.regular_spacing)) continue;
    double rate = MatchRate(names, period, tail_begin, n);
    if (rate < options.min_match_rate) continue;
    int64_t gap =
        CutForward(names, idle_before, host_transfer_before, period, tail_begin, occ).median_gap;
    verified.push_back({period, rate, gap});
  }
  if (verified.empty()) return result;
  int64_t best_gap = 0;
  for (const Verified& v : verified) best_gap = std::max(best_gap, v.gap);
  auto comparable = [&](const Verified& v) { return 2 * v.gap >= best_gap; };
  const Verified* chosen = nullptr;
  const Verified* shortest = nullptr;
  for (const Verified& v : verified) {
    if (!comparable(v)) continue;
    bool repeated = std::any_of(verified.begin(), verified.end(), [&](const Verified& w) {
      return comparable(w) && w.period < v.period && Repeats(v.period, w.period);
    });
    if (repeated) continue;
    if (!shortest || v.period < shortest->period) shortest = &v;
    if (v.period >= options.min_period && (!chosen || v.period > chosen->period)) chosen = &v;
  }
  if (chosen == nullptr) {
    result.refused = "the kernel sequence repeats every " + std::to_string(shortest->period) +
                     (shortest->period == 1 ? " kernel" : " kernels") +
                     ", too short for a step (fewer than " + std::to_string(options.min_period) +
                     " kernels: one operation in a loop)";
    return result;
  }
  const size_t p = chosen->period;
  result.found = true;
  result.period = p;
  result.match_rate = chosen->rate;

  // The steady part extends back, a period at a time, while it keeps repeating.
  size_t steady = tail_begin;
  while (steady >= p && MatchRate(names, p, steady - p, steady) >= options.min_match_rate) {
    steady -= p;
  }
  while (steady > 0 && names[steady - 1] == names[steady - 1 + p]) --steady;
  result.steady_start = steady;

  size_t slack = CutSlack(p);
  result.slack = slack;
  Cuts cuts = CutForward(names, idle_before, host_transfer_before, p, steady, occ);
  NameId anchor = names[cuts.first];
  result.anchor = anchor;

  std::vector<size_t> before;  // cuts before the first, walking back through the warm-up
  for (size_t b = cuts.first; b >= p;) {
    size_t cut = ResyncOnAnchor(names, anchor, b - p, slack, 0, b);
    if (cut == 0 || cut >= b) break;
    before.push_back(cut);
    b = cut;
  }
  result.boundaries.push_back(0);
  for (auto it = before.rbegin(); it != before.rend(); ++it) result.boundaries.push_back(*it);
  for (size_t cut : cuts.forward) {
    if (cut > 0) result.boundaries.push_back(cut);
  }
  return result;
}

}  // namespace stepstat
