// Step ranges from CPU ranges: the ones whose text matches a pattern, outermost per thread
// (a matching range nested in another matching range of its thread is part of that step).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace re2 {
class RE2;
}

namespace stepstat {

struct StepRange {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = -1;
  int64_t tid = -1;
  std::string name;
};

/// The pattern that marks PyTorch profiler steps.
inline constexpr const char* kProfilerStepPattern = R"(^ProfilerStep#\d+$)";

/// Keeps the ranges whose text matches `pattern` (an RE2 search); ignores everything else.
class RangeCollector : public TraceSink {
 public:
  /// An invalid pattern is an error naming it.
  static Result<std::unique_ptr<RangeCollector>> Create(const std::string& pattern);
  ~RangeCollector() override;

  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override;
  /// Ranges alone: a reader may skip the GPU operations and launch calls (TraceFields).
  TraceFields reads() const override { return TraceFields::None(); }

  int64_t ranges_seen() const { return ranges_seen_; }
  /// A few distinct range names, for the message when nothing matched.
  const std::vector<std::string>& sample_names() const { return sample_names_; }
  /// The matched ranges, outermost per thread, sorted by (start, end); empties the collector.
  std::vector<StepRange> TakeSteps();

 private:
  explicit RangeCollector(std::unique_ptr<re2::RE2> pattern);

  std::unique_ptr<re2::RE2> pattern_;
  const StringPool* pool_ = nullptr;  // the pool whose ids `matches_` caches
  std::vector<int8_t> matches_;       // by name id: -1 unknown, 0 no, 1 yes
  std::vector<StepRange> matched_;
  std::vector<std::string> sample_names_;
  int64_t ranges_seen_ = 0;
};

}  // namespace stepstat
