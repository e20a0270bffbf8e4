#include "analysis/steps/steps_ranges.h"

#include <re2/re2.h>

#include <algorithm>
#include <tuple>

namespace stepstat {

namespace {
constexpr size_t kSampleNames = 5;
}

RangeCollector::RangeCollector(std::unique_ptr<re2::RE2> pattern) : pattern_(std::move(pattern)) {}
RangeCollector::~RangeCollector() = default;

Result<std::unique_ptr<RangeCollector>> RangeCollector::Create(const std::string& pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(pattern, options);
  if (!re->ok()) {
    return Status::Error("--steps: bad pattern '" + pattern + "': " + re->error());
  }
  return std::unique_ptr<RangeCollector>(new RangeCollector(std::move(re)));
}

Status RangeCollector::OnRanges(std::span<const CpuRange> ranges, const StringPool& names) {
  if (pool_ != &names) {  // a new reader: its ids mean other names
    pool_ = &names;
    matches_.clear();
  }
  for (const CpuRange& range : ranges) {
    ++ranges_seen_;
    if (range.name >= matches_.size()) matches_.resize(names.size(), -1);
    int8_t& match = matches_[range.name];
    if (match < 0) {
      std::string_view text = names.Get(range.name);
      match = re2::RE2::PartialMatch(text, *pattern_) ? 1 : 0;
      if (!match && sample_names_.size() < kSampleNames) sample_names_.emplace_back(text);
    }
    if (match) {
      matched_.push_back(
          {range.start_ns, range.end_ns, range.pid, range.tid, std::string(names.Get(range.name))});
    }
  }
  return Status::Ok();
}

std::vector<StepRange> RangeCollector::TakeSteps() {
  std::vector<StepRange> ranges = std::move(matched_);
  matched_.clear();
  std::sort(ranges.begin(), ranges.end(), [](const StepRange& a, const StepRange& b) {
    return std::tie(a.pid, a.tid, a.start_ns, b.end_ns) <
           std::tie(b.pid, b.tid, b.start_ns, a.end_ns);
  });
  std::vector<StepRange> outermost;
  for (StepRange& range : ranges) {
    if (!outermost.empty()) {
      const StepRange& last = outermost.back();
      bool same_thread = last.pid == range.pid && last.tid == range.tid;
      if (same_thread && range.start_ns < last.end_ns) continue;  // nested in (or overlapping) it
    }
    outermost.push_back(std::move(range));
  }
  std::sort(outermost.begin(), outermost.end(), [](const StepRange& a, const StepRange& b) {
    return std::tie(a.start_ns, a.end_ns, a.pid, a.tid) <
           std::tie(b.start_ns, b.end_ns, b.pid, b.tid);
  });
  return outermost;
}

}  // namespace stepstat
