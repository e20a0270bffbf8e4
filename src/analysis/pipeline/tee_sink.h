// TeeSink: hands every batch to several sinks in turn, stopping at the first error (the
// sinks after it do not see that batch; the pass is over anyway).
#pragma once

#include <initializer_list>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

class TeeSink : public TraceSink {
 public:
  /// The sinks must outlive the tee; null entries are skipped.
  TeeSink(std::initializer_list<TraceSink*> sinks) {
    for (TraceSink* sink : sinks) {
      if (sink != nullptr) sinks_.push_back(sink);
    }
  }

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    for (TraceSink* sink : sinks_) RETURN_IF_ERROR(sink->OnGpuOps(ops, names));
    return Status::Ok();
  }
  /// Copy calls go only to the sinks that asked for them (TraceFields::kCopyCalls).
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    std::span<const LaunchCall> launches_only;
    bool filtered = false;
    for (TraceSink* sink : sinks_) {
      if (sink->reads().has(TraceFields::kCopyCalls)) {
        RETURN_IF_ERROR(sink->OnLaunchCalls(calls, names));
        continue;
      }
      if (!filtered) {
        launches_only = WithoutCopyCalls(calls, scratch_);
        filtered = true;
      }
      if (!launches_only.empty()) RETURN_IF_ERROR(sink->OnLaunchCalls(launches_only, names));
    }
    return Status::Ok();
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    for (TraceSink* sink : sinks_) RETURN_IF_ERROR(sink->OnRanges(ranges, names));
    return Status::Ok();
  }
  Status OnFinish() override {
    for (TraceSink* sink : sinks_) RETURN_IF_ERROR(sink->OnFinish());
    return Status::Ok();
  }
  TraceFields reads() const override {
    TraceFields fields = TraceFields::None();
    for (const TraceSink* sink : sinks_) fields = fields | sink->reads();
    return fields;
  }

 private:
  std::vector<TraceSink*> sinks_;
  std::vector<LaunchCall> scratch_;
};

}  // namespace stepstat
