#include "analysis/steps/period/period_cutter.h"

#include <algorithm>

namespace stepstat {

size_t CutSlack(size_t period) { return std::max<size_t>(2, period / 20); }

size_t ResyncOnAnchor(std::span<const NameId> names, NameId anchor, size_t expected, size_t slack,
                      size_t low, size_t high) {
  for (size_t d = 0; d <= slack; ++d) {
    if (expected + d < high && names[expected + d] == anchor) return expected + d;
    if (d > 0 && expected >= low + d && names[expected - d] == anchor) return expected - d;
  }
  return expected;
}

bool IsTailNoise(size_t remaining, size_t period) {
  return remaining < std::max<size_t>(1, period / 20);
}

std::vector<size_t> WalkForward(std::span<const NameId> names, size_t period, NameId anchor,
                                size_t first) {
  std::vector<size_t> cuts;
  const size_t n = names.size();
  const size_t slack = CutSlack(period);
  for (size_t b = first; b + period < n;) {
    size_t cut = ResyncOnAnchor(names, anchor, b + period, slack, b + 1, n);
    if (cut <= b || IsTailNoise(n - cut, period)) break;
    cuts.push_back(cut);
    b = cut;
  }
  return cuts;
}

StreamingCutter::StreamingCutter(size_t period, NameId anchor, size_t last_cut)
    : period_(std::max<size_t>(1, period)),
      slack_(CutSlack(period_)),
      anchor_(anchor),
      last_cut_(last_cut),
      next_index_(last_cut + 1),
      window_begin_(std::max(last_cut + 1, last_cut + period_ - std::min(slack_, period_))) {}

void StreamingCutter::Add(NameId name, int64_t start_ns) {
  size_t index = next_index_++;
  if (index < window_begin_) return;
  window_names_.push_back(name);
  window_starts_.push_back(start_ns);
  // The cut is settled once the whole look-ahead has been seen; the next window ends at
  // least one period later, so one kernel settles at most one cut.
  if (index == last_cut_ + period_ + slack_) Accept(NextCut(next_index_));
}

size_t StreamingCutter::NextCut(size_t high) const {
  // The window starts at max(last_cut + 1, expected - slack): every index ResyncOnAnchor
  // may look at, given low = last_cut + 1.
  size_t expected = last_cut_ + period_;
  size_t low = last_cut_ + 1;
  std::span<const NameId> window(window_names_);
  return window_begin_ + ResyncOnAnchor(window, anchor_, expected - window_begin_, slack_,
                                        std::max(low, window_begin_) - window_begin_,
                                        high - window_begin_);
}

void StreamingCutter::Accept(size_t cut) {
  cuts_.push_back({cut, window_starts_[cut - window_begin_]});
  last_cut_ = cut;
  size_t next_begin = std::max(cut + 1, cut + period_ - std::min(slack_, period_));
  size_t drop = std::min(next_begin - window_begin_, window_names_.size());
  window_names_.erase(window_names_.begin(),
                      window_names_.begin() + static_cast<std::ptrdiff_t>(drop));
  window_starts_.erase(window_starts_.begin(),
                       window_starts_.begin() + static_cast<std::ptrdiff_t>(drop));
  window_begin_ = next_begin;
}

void StreamingCutter::Finish() {
  const size_t n = next_index_;
  // The whole-sequence walk stops at the first cut too close to the end; cuts only get
  // closer to it, so the ones settled early that fail are a suffix.
  auto noise = std::find_if(cuts_.begin(), cuts_.end(),
                            [&](const Cut& c) { return IsTailNoise(n - c.index, period_); });
  if (noise != cuts_.end()) {
    cuts_.erase(noise, cuts_.end());
    return;
  }
  while (last_cut_ + period_ < n) {
    size_t cut = NextCut(n);
    if (cut <= last_cut_ || IsTailNoise(n - cut, period_)) break;
    Accept(cut);
  }
  window_names_ = {};
  window_starts_ = {};
}

}  // namespace stepstat
