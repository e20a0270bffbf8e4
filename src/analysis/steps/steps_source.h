// Which annotations of a trace mark its steps when the user names none: ranges that repeat
// and cover most of the GPU span. Range texts are grouped with their digit runs blanked
// ("Step 190 to 200" and "Step 200 to 210" are one annotation, as ProfilerStep#N is), so the
// step counter a loop writes into its annotation does not hide that it repeats.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "stepstat/trace.h"

namespace stepstat {

/// Annotations must repeat this often to be steps, as detected periods must (steps_period.h).
inline constexpr int64_t kMinAnnotatedSteps = 3;
/// ... and cover at least this share of the GPU span: "most of the GPU time".
inline constexpr double kMinAnnotationCoverage = 0.5;

struct AnnotationChoice {
  std::string pattern;  ///< an RE2 pattern matching exactly the group's texts
  std::string example;  ///< one text of the group, as written
  int64_t count = 0;    ///< ranges of the group
  double coverage = 0;  ///< the union of its ranges over the GPU span (may pass 1: CPU leads)
};

/// What BlankDigits puts for a digit run: a byte range texts do not hold ('#' do).
inline constexpr char kDigitRun = '\x01';

/// "Step 190 to 200" → "Step \x01 to \x01".
std::string BlankDigits(std::string_view text);

/// Statistics per annotation group, and the GPU span when GPU operations pass by too. Memory
/// grows with distinct range texts, not ranges. Ranges are assumed to arrive in start order
/// (nsys and Kineto write them so); otherwise coverage is over-counted, never the count.
class AnnotationStats : public TraceSink {
 public:
  /// `gpu_span`: measure the GPU span from the operations that pass by (and read their
  /// start and duration); false: read ranges alone, the span measured elsewhere (steps.cc).
  explicit AnnotationStats(bool gpu_span = true) : measures_gpu_span_(gpu_span) {}
  /// From the next read on, measure the GPU span (a pass over the GPU side for it alone).
  void MeasureGpuSpan() { measures_gpu_span_ = true; }
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override;
  /// The GPU span (when it measures it) and the ranges: no launch call.
  TraceFields reads() const override {
    return measures_gpu_span_ ? TraceFields{TraceFields::kOpStart | TraceFields::kOpDuration, 0}
                              : TraceFields::None();
  }

  bool has_gpu_span() const { return gpu_ops_ > 0; }
  int64_t gpu_span_ns() const { return gpu_last_end_ - gpu_first_start_; }
  /// The GPU span measured by another pass (`ops` operations from `first_start` to
  /// `last_end`), as if they had passed by here.
  void SetGpuSpan(int64_t first_start, int64_t last_end, int64_t ops);
  /// First range start to last range end (0 without ranges): where the CPU marked its work,
  /// a guess of the GPU span that a pass over the GPU side then confirms (steps.cc).
  int64_t range_extent_ns() const {
    return ranges_ == 0 ? 0 : range_last_end_ - range_first_start_;
  }

  /// The group covering the most of `gpu_span_ns` (within 5 points: the one with fewer
  /// ranges, the longer unit) among those that repeat and cover enough; nullopt when none does.
  std::optional<AnnotationChoice> Best(int64_t gpu_span_ns) const;
  /// The most covering repeating group whatever its coverage, for saying why none was taken.
  std::optional<AnnotationChoice> Closest(int64_t gpu_span_ns) const;
  /// Whether any group repeats often enough to be steps: without one, Best and Closest find
  /// nothing whatever the span (no pass need measure it).
  bool AnyRepeats() const;

 private:
  struct Group {
    std::string example;
    int64_t count = 0;
    int64_t covered_ns = 0;
    int64_t frontier_ns = 0;
  };
  std::optional<AnnotationChoice> Pick(int64_t gpu_span_ns, double min_coverage) const;

  bool measures_gpu_span_ = true;
  const StringPool* pool_ = nullptr;
  std::unordered_map<NameId, Group*> by_name_;  ///< this pool's ids → their group
  std::map<std::string, Group> groups_;         ///< ordered: ties resolve the same every run
  int64_t gpu_ops_ = 0;
  int64_t gpu_first_start_ = 0;
  int64_t gpu_last_end_ = 0;
  int64_t ranges_ = 0;
  int64_t range_first_start_ = 0;
  int64_t range_last_end_ = 0;
};

}  // namespace stepstat
