#include "analysis/steps/period/period_stream.h"

#include <algorithm>

namespace stepstat {

LongerStructureWatch::LongerStructureWatch(std::span<const NameId> prefix, size_t period)
    : period_(std::max<size_t>(1, period)) {
  for (NameId id : prefix) {
    if (id >= prefix_count_.size()) prefix_count_.resize(static_cast<size_t>(id) + 1, 0);
    prefix_count_[id] = static_cast<uint8_t>(std::min(3, prefix_count_[id] + 1));
  }
}

bool LongerStructureWatch::Add(NameId name, size_t index) {
  if (name < prefix_count_.size() && prefix_count_[name] > 2) return false;
  auto [it, inserted] = rare_.try_emplace(name);
  Recurrence& r = it->second;
  if (!inserted) {
    size_t distance = index - r.last;
    // Steady: the same distance as last time, give or take a missing or extra kernel.
    bool steady = r.recurrences > 0 && distance + 2 >= r.distance && distance <= r.distance + 2;
    r.steady += steady;
    ++r.recurrences;
    r.distance = distance;
    size_t off = distance % period_;
    bool whole_periods = distance >= period_ && std::min(off, period_ - off) <= period_ / 20;
    if (r.steady >= 2 && 2 * r.steady >= r.recurrences && !whole_periods) return true;
  }
  r.last = index;
  return false;
}

StreamingPeriodDetector::StreamingPeriodDetector(size_t prefix_kernels)
    : prefix_cap_(std::max<size_t>(1, prefix_kernels)) {}

void StreamingPeriodDetector::Add(NameId name, int64_t start_ns, int64_t idle_before,
                                  bool host_transfer_before) {
  ++count_;
  if (contradicted_) return;
  if (cutter_) {
    if (watch_->Add(name, count_ - 1)) {
      contradicted_ = true;
      cutter_.reset();
      watch_.reset();
      return;
    }
    cutter_->Add(name, start_ns);
    return;
  }
  names_.push_back(name);
  starts_.push_back(start_ns);
  idle_.push_back(idle_before);
  host_transfer_.push_back(host_transfer_before ? 1 : 0);
  if (names_.size() == prefix_cap_ && !TryPrefix()) prefix_cap_ *= 4;
}

void StreamingPeriodDetector::Emit(size_t first_kernel, int64_t start_ns) {
  result_.first_kernels.push_back(first_kernel);
  result_.starts_ns.push_back(start_ns);
}

bool StreamingPeriodDetector::TryPrefix() {
  const size_t n = names_.size();
  PeriodDetection d = DetectPeriod(names_, idle_, host_transfer_);
  if (!d.found || d.period * kMinPrefixPeriods > n) return false;
  // A cut is final when the look-ahead that placed it lay inside the prefix; the cutter
  // redoes the walk from the last final one. A warm-up that fills half the prefix is not
  // enough steady state to trust: grow the prefix.
  size_t final_cuts = 1;
  while (final_cuts < d.boundaries.size() &&
         d.boundaries[final_cuts - 1] + d.period + d.slack < n) {
    ++final_cuts;
  }
  const size_t last = d.boundaries[final_cuts - 1];
  if (last < n / 2) return false;
  for (size_t k = 0; k < final_cuts; ++k) Emit(d.boundaries[k], starts_[d.boundaries[k]]);
  result_.found = true;
  result_.period = d.period;
  result_.detected_on = n;
  cutter_.emplace(d.period, d.anchor, last);
  watch_.emplace(names_, d.period);
  for (size_t i = last + 1; i < n; ++i) cutter_->Add(names_[i], starts_[i]);
  names_ = {};
  starts_ = {};
  idle_ = {};
  host_transfer_ = {};
  return true;
}

DetectedSteps StreamingPeriodDetector::Finish() {
  result_.kernel_count = count_;
  if (contradicted_) {
    DetectedSteps retry;
    retry.kernel_count = count_;
    retry.needs_whole_sequence = true;
    return retry;
  }
  if (cutter_) {
    cutter_->Finish();
    for (const StreamingCutter::Cut& cut : cutter_->cuts()) Emit(cut.index, cut.start_ns);
    cutter_.reset();
    return std::move(result_);
  }
  result_.detected_on = names_.size();
  PeriodDetection d = DetectPeriod(names_, idle_, host_transfer_);
  if (d.found) {
    result_.found = true;
    result_.period = d.period;
    for (size_t b : d.boundaries) Emit(b, starts_[b]);
  } else {
    result_.refused = std::move(d.refused);
  }
  return std::move(result_);
}

}  // namespace stepstat
