// Measures the resolution of a file's timestamps on their way to a sink: the largest step
// every start time is a multiple of, measured from the first start (so that an arbitrary
// epoch does not hide it). Formats that write microseconds (the 2021-2023 CSV layout, the
// 2020 layout's Start(sec) with six decimals, a Kineto trace without fractional µs) come out
// at 1000 ns; their gaps and same-stream overlaps are then only known to the microsecond.
#pragma once

#include <cstdint>
#include <numeric>

#include "stepstat/trace.h"

namespace stepstat {

class ResolutionSink : public TraceSink {
 public:
  explicit ResolutionSink(TraceSink& inner) : inner_(inner) {}

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    for (const GpuOp& op : ops) {
      if (resolution_ == 1) break;  // as fine as it gets: stop measuring
      Add(op.start_ns);
    }
    return inner_.OnGpuOps(ops, names);
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    for (const LaunchCall& call : calls) {
      if (resolution_ == 1) break;
      Add(call.api_start_ns);
    }
    return inner_.OnLaunchCalls(calls, names);
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    return inner_.OnRanges(ranges, names);
  }
  Status OnFinish() override { return inner_.OnFinish(); }
  TraceFields reads() const override {
    return TraceFields::Wrapping(inner_.reads(), {TraceFields::kOpStart, TraceFields::kApiStart});
  }

  /// In ns; 0 while fewer than two distinct start times were seen.
  int64_t resolution_ns() const { return resolution_; }

 private:
  void Add(int64_t start_ns) {
    if (!have_origin_) {
      origin_ = start_ns;
      have_origin_ = true;
      return;
    }
    // |a - b| of two non-negative int64 fits; gcd of non-negatives.
    int64_t delta = start_ns >= origin_ ? start_ns - origin_ : origin_ - start_ns;
    // Most rows of a coarse file are multiples already: one division, not a gcd, per row;
    // a mask when the resolution is a power of two (32 ns on a GB10), as a 64-bit division
    // per row was 2.5 % of a GPU-trace read.
    if (resolution_ != 0) {
      // (Not std::has_single_bit: a library call on the baseline x86-64 target.)
      const bool multiple = (resolution_ & (resolution_ - 1)) == 0
                                ? (delta & (resolution_ - 1)) == 0
                                : delta % resolution_ == 0;
      if (multiple) return;
    }
    resolution_ = std::gcd(resolution_, delta);
  }

  TraceSink& inner_;
  bool have_origin_ = false;
  int64_t origin_ = 0;
  int64_t resolution_ = 0;
};

}  // namespace stepstat
