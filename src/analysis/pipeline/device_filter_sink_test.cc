#include "analysis/pipeline/device_filter_sink.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/pipeline/test_starts_sink.h"

namespace stepstat {
namespace {

GpuOp Op(int64_t start, NameId device) {
  GpuOp op;
  op.start_ns = start;
  op.device = device;
  return op;
}

LaunchCall Call(int64_t start, NameId device, int64_t kernel_start, int64_t line = 0) {
  LaunchCall call;
  call.api_start_ns = start;
  call.device = device;
  call.kernel_start_ns = kernel_start;
  call.line = line;
  return call;
}

TEST(DeviceFilterSink, KeepsOneDevicesOperationsAndTheLaunchesOfItsKernels) {
  StringPool names;
  const NameId gpu0 = names.Intern("NVIDIA GB10 (0)");
  const NameId gpu1 = names.Intern("NVIDIA GB10 (1)");
  StartsSink next;
  DeviceFilterSink filter(next, "NVIDIA GB10 (1)", "trace.csv");
  std::vector<GpuOp> ops = {Op(1, gpu0), Op(2, gpu1), Op(3, gpu0), Op(4, gpu1)};
  ASSERT_TRUE(filter.OnGpuOps(ops, names).ok());
  std::vector<LaunchCall> calls = {Call(10, gpu0, 12), Call(11, gpu1, 13)};
  ASSERT_TRUE(filter.OnLaunchCalls(calls, names).ok());
  EXPECT_EQ(next.op_starts, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(next.call_starts, (std::vector<int64_t>{11}));
}

TEST(DeviceFilterSink, AKernExecDevIdNamesTheDeviceWhoseNameEndsInIt) {
  StringPool names;  // the launch side's own pool: its ids mean other names
  const NameId dev1 = names.Intern("GPU 1");
  const NameId dev11 = names.Intern("GPU 11");
  StartsSink next;
  DeviceFilterSink filter(next, "NVIDIA GB10 (1)", "kexec.csv");
  std::vector<LaunchCall> calls = {Call(1, dev11, 5), Call(2, dev1, 6)};
  ASSERT_TRUE(filter.OnLaunchCalls(calls, names).ok());
  EXPECT_EQ(next.call_starts, (std::vector<int64_t>{2}));
}

TEST(DeviceFilterSink, ALaunchWhoseKernelIsKnownButNotItsDeviceIsAnError) {
  StringPool names;
  StartsSink next;
  DeviceFilterSink filter(next, "NVIDIA GB10 (1)", "kexec.csv");
  std::vector<LaunchCall> without_kernel = {Call(1, /*device=*/0, /*kernel_start=*/-1)};
  EXPECT_TRUE(filter.OnLaunchCalls(without_kernel, names).ok());  // belongs to no device
  EXPECT_TRUE(next.call_starts.empty());
  std::vector<LaunchCall> unplaced = {Call(2, /*device=*/0, /*kernel_start=*/7, /*line=*/42)};
  Status status = filter.OnLaunchCalls(unplaced, names);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message().rfind("kexec.csv:42: ", 0), 0u) << status.message();
}

TEST(DeviceNamesSink, ListsEachDeviceOnceInOrderOfAppearance) {
  StringPool names;
  const NameId a = names.Intern("GPU (10)");
  const NameId b = names.Intern("GPU (2)");
  DeviceNamesSink sink;
  std::vector<GpuOp> ops = {Op(1, a), Op(2, b), Op(3, a)};
  ASSERT_TRUE(sink.OnGpuOps(ops, names).ok());
  EXPECT_EQ(sink.devices(), (std::vector<std::string>{"GPU (10)", "GPU (2)"}));
}

}  // namespace
}  // namespace stepstat
