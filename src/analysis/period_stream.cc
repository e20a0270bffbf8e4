#include "analysis/period_stream.h"

#include <algorithm>

namespace stepstat {

StreamingPeriodDetector::StreamingPeriodDetector(size_t prefix_kernels)
    : prefix_cap_(std::max<size_t>(1, prefix_kernels)) {}

void StreamingPeriodDetector::Add(NameId name, int64_t start_ns, int64_t idle_before,
                                  bool host_transfer_before) {
  ++count_;
  if (cutter_) {
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
  cutter_.emplace(d.period, d.anchor, last);
  for (size_t i = last + 1; i < n; ++i) cutter_->Add(names_[i], starts_[i]);
  names_ = {};
  starts_ = {};
  idle_ = {};
  host_transfer_ = {};
  return true;
}

DetectedSteps StreamingPeriodDetector::Finish() {
  result_.kernel_count = count_;
  if (cutter_) {
    cutter_->Finish();
    for (const StreamingCutter::Cut& cut : cutter_->cuts()) Emit(cut.index, cut.start_ns);
    cutter_.reset();
    return std::move(result_);
  }
  PeriodDetection d = DetectPeriod(names_, idle_, host_transfer_);
  if (d.found) {
    result_.found = true;
    result_.period = d.period;
    for (size_t b : d.boundaries) Emit(b, starts_[b]);
  }
  return std::move(result_);
}

}  // namespace stepstat
