// The header variants and console output, from small hand-written files in
// tests/fixtures/csv/, read through DetectInputKind and ReadInput like the CLI does.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "readers/test_sink.h"
#include "stepstat/read.h"

namespace stepstat {
namespace {

const std::filesystem::path kFixtures =
    std::filesystem::path(STEPSTAT_SOURCE_DIR) / "tests/fixtures/csv";

struct FixtureRead {
  InputKind kind{};
  ReadReport report;
  CollectingSink sink;
};

void Read(const std::string& name, FixtureRead& out) {
  auto kind = DetectInputKind(kFixtures / name, name);
  ASSERT_TRUE(kind.ok()) << kind.status().message();
  out.kind = *kind;
  auto report = ReadInput(kFixtures / name, name, *kind, out.sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  out.report = *report;
}

TEST(NsysCsvFixturesTest, Layout2021) {
  FixtureRead read;
  Read("gpu_trace_2021.csv", read);
  EXPECT_EQ(read.kind, InputKind::kNsysGpuTraceCsv);
  EXPECT_EQ(read.report.layout, "2021.2-2023");
  EXPECT_EQ(read.report.time_unit, "ns");
  ASSERT_EQ(read.sink.ops.size(), 3u);
  EXPECT_EQ(read.sink.ops[0].op.kind, OpKind::kMemcpy);
  EXPECT_EQ(read.sink.ops[0].op.bytes, 8389000);
  EXPECT_EQ(read.sink.ops[1].name, "void add<float>(int, float const*, float*)");
  EXPECT_EQ(read.sink.ops[1].op.start_ns, 500200000);
  EXPECT_EQ(read.sink.ops[1].op.duration_ns, 35000);
  EXPECT_EQ(read.sink.ops[2].op.kind, OpKind::kMemset);
  EXPECT_EQ(read.sink.ops[2].device, "Tesla V100-SXM2-16GB (0)");
}

TEST(NsysCsvFixturesTest, Layout2020) {
  FixtureRead read;
  Read("gpu_trace_2020.csv", read);
  EXPECT_EQ(read.report.layout, "2020-2021.1");
  EXPECT_EQ(read.report.time_unit, "s");
  ASSERT_EQ(read.sink.ops.size(), 2u);
  EXPECT_EQ(read.sink.ops[0].op.start_ns, 512345678);
  EXPECT_EQ(read.sink.ops[0].op.duration_ns, 2464);
  EXPECT_EQ(read.sink.ops[0].op.bytes, 4194304);
  EXPECT_EQ(read.sink.ops[1].op.start_ns, 512400001);
  EXPECT_EQ(read.sink.ops[1].op.duration_ns, 51232);
  EXPECT_EQ(read.sink.ops[1].op.stream, 7);
}

TEST(NsysCsvFixturesTest, ConsoleOutputWithBomAndCrlf) {
  FixtureRead read;
  Read("gpu_trace_console_bom_crlf.txt", read);
  EXPECT_EQ(read.kind, InputKind::kNsysGpuTraceCsv);
  EXPECT_EQ(read.report.layout, "2024+");
  ASSERT_EQ(read.sink.ops.size(), 2u);
  EXPECT_EQ(read.sink.ops[0].op.line, 10);
  EXPECT_EQ(read.sink.ops[0].name, "gemm_kernel<128, 64>(Params)");
  EXPECT_EQ(read.sink.ops[1].name, "say \"hi\" kernel");
  EXPECT_EQ(read.sink.ops[1].op.end_ns(), 1050);
}

TEST(NsysCsvFixturesTest, KernExec) {
  FixtureRead read;
  Read("kern_exec_trace.csv", read);
  EXPECT_EQ(read.kind, InputKind::kNsysKernExecTraceCsv);
  EXPECT_EQ(read.report.layout, "kern-exec");
  ASSERT_EQ(read.sink.calls.size(), 2u);
  EXPECT_EQ(read.sink.calls[1].call.api_start_ns, 1060);
  EXPECT_EQ(read.sink.calls[1].call.api_end_ns(), 1100);
  EXPECT_EQ(read.sink.calls[1].api_name, "cuLaunchKernel");
  EXPECT_EQ(read.sink.calls[1].kernel_name, "say \"hi\" kernel");
}

}  // namespace
}  // namespace stepstat
