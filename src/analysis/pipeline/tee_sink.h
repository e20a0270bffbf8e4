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
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    for (TraceSink* sink : sinks_) RETURN_IF_ERROR(sink->OnLaunchCalls(calls, names));
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
};

}  // namespace stepstat
