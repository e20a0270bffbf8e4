// Passes on the GPU operations of one device and the launch calls of kernels on it, and drops
// the rest: a trace of several GPUs read through it looks like that device's trace alone, so
// its span, gaps and unions are the device's own, never bridged to another device's.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/trace.h"

namespace stepstat {

class DeviceFilterSink : public TraceSink {
 public:
  /// `device` as the trace names it ("NVIDIA GB10 (0)"). `source` names the file in messages.
  DeviceFilterSink(TraceSink& inner, std::string device, std::string source)
      : inner_(inner), device_(std::move(device)), source_(std::move(source)) {}

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  /// A launch belongs to the device of its kernel. A call whose kernel is known but whose
  /// device is not cannot be placed: an error rather than a silent drop. A call without a
  /// kernel (Kineto keeps those) belongs to no device; a copy call (CallKind::kCopy) is passed
  /// on whatever its device. A kern-exec CSV knows only DevId
  /// ("GPU 1"): it names the device whose Device column ends in " (1)", nsys's
  /// `printf('%s (%d)', name, deviceId)`.
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    return inner_.OnRanges(ranges, names);
  }
  Status OnFinish() override { return inner_.OnFinish(); }
  /// The devices, and whether a call's kernel is known.
  TraceFields reads() const override {
    return TraceFields::Wrapping(
        inner_.reads(),
        {TraceFields::kOpDevice, TraceFields::kCallDevice | TraceFields::kKernelStart});
  }

 private:
  /// Whether pool id `id` names the device; the answer is cached per pool (ids are per
  /// pool, and each side's reader has its own).
  bool Matches(NameId id, const StringPool& names);
  /// The same for a launch call's device, which may be a bare "GPU <id>".
  bool LaunchMatches(NameId id, const StringPool& names);

  TraceSink& inner_;
  std::string device_;
  std::string source_;
  const StringPool* pool_ = nullptr;
  std::vector<signed char> match_;  // by NameId: -1 unknown, 0 no, 1 yes
  std::vector<signed char> launch_match_;
  std::vector<GpuOp> ops_;  // reused batches
  std::vector<LaunchCall> calls_;
};

/// Collects the devices a GPU side names, each once.
class DeviceNamesSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall> /*calls*/,
                       const StringPool& /*names*/) override {
    return Status::Ok();
  }
  /// In order of first appearance.
  const std::vector<std::string>& devices() const { return devices_; }

 private:
  const StringPool* pool_ = nullptr;
  std::vector<bool> seen_;  // by NameId
  std::vector<std::string> devices_;
};

}  // namespace stepstat
