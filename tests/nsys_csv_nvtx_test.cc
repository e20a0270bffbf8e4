#include "readers/csv/nsys_csv_nvtx.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "analysis/steps/steps_ranges.h"
#include "io/byte_source.h"
#include "stepstat/read.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
const fs::path kRealDir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";

struct CollectedRange {
  CpuRange range;
  std::string name;
};

class RangeSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp>, const StringPool&) override { return Status::Ok(); }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    for (const CpuRange& r : ranges) collected.push_back({r, std::string(names.Get(r.name))});
    return Status::Ok();
  }
  std::vector<CollectedRange> collected;
};

Result<ReadReport> ReadText(std::string_view text, RangeSink& sink) {
  auto source = MemoryByteSource(text);
  return ReadNsysNvtxTrace(*source, "nvtx.csv", sink);
}

constexpr std::string_view kPushPopHeader =
    "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
    "NumChild,RangeId,ParentId,RangeStack,NameTree\n";

TEST(NsysNvtxCsv, PushPopRowsWithQuotedNamesAndOpenRanges) {
  std::string text(kPushPopHeader);
  text += "100,300,200,50,150,\"TSL:step:#a=1,b=2#\",7,8,0,1,1,,:1,\"TSL:step:#a=1,b=2#\"\n";
  text += "120,170,50,0,50,inner,7,8,1,0,2,1,:1:2,--inner\n";
  text += "400,,,,,still_open,7,9,0,0,3,,:3,still_open\n";
  RangeSink sink;
  Result<ReadReport> report = ReadText(text, sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->rows, 3);
  EXPECT_EQ(report->layout, "nvtx_pushpop_trace");
  ASSERT_EQ(sink.collected.size(), 3u);
  EXPECT_EQ(sink.collected[0].name, "TSL:step:#a=1,b=2#");
  EXPECT_EQ(sink.collected[0].range.start_ns, 100);
  EXPECT_EQ(sink.collected[0].range.end_ns, 300);
  EXPECT_EQ(sink.collected[0].range.pid, 7);
  EXPECT_EQ(sink.collected[0].range.tid, 8);
  EXPECT_EQ(sink.collected[0].range.line, 2);
  EXPECT_EQ(sink.collected[1].range.depth, 1);
  EXPECT_EQ(sink.collected[2].range.end_ns, INT64_MAX);  // open to the end of the capture
}

TEST(NsysNvtxCsv, GpuProjectionUsesTheOriginalCpuTimes) {
  std::string text =
      "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),"
      "Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack\n"
      "denoise,5000,900,1000,700,PushPop,3,4,12,0,0,1,,:1\n";
  RangeSink sink;
  Result<ReadReport> report = ReadText(text, sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->layout, "nvtx_gpu_proj_trace");
  ASSERT_EQ(sink.collected.size(), 1u);
  EXPECT_EQ(sink.collected[0].range.start_ns, 1000);
  EXPECT_EQ(sink.collected[0].range.end_ns, 1700);
}

// The rows nsys 2023.2.3 printed for `nsys stats --report nvtx_gpu_proj_trace` on a small
// CUDA program (a public tutorial's console output, here in the CSV layout nsys 2026.1
// writes: the same columns, no thousands separators, blank where the console says None).
// Its first row is the projection's "no range" row: the GPU work outside every range.
TEST(NsysNvtxCsv, RealGpuProjectionLayoutSkipsTheNoRangeRow) {
  std::string text =
      "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),"
      "Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack\n"
      ",282493820,1373678,,,,101690,101690,27,,0,,,\n"
      "Forward Sine Kernel Launch,282734719,4416,282516397,224515,PushPop,101690,101690,1,0,0,"
      "1,,:1\n"
      "Forward Exponential Kernel Launch,282911297,4128,282892087,24547,PushPop,101690,101690,1,"
      "0,0,2,,:2\n"
      "None,283047074,1792,None,None,None,101690,101690,1,None,0,None,None,None\n"
      "Central Polynomial Kernel Launch,283852554,1888,283839959,15479,PushPop,101690,101690,1,"
      "0,0,9,,:9\n";
  RangeSink sink;
  Result<ReadReport> report = ReadText(text, sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->layout, "nvtx_gpu_proj_trace");
  EXPECT_EQ(report->rows, 5);
  ASSERT_EQ(sink.collected.size(), 3u);
  EXPECT_EQ(sink.collected[0].name, "Forward Sine Kernel Launch");
  EXPECT_EQ(sink.collected[0].range.start_ns, 282516397);
  EXPECT_EQ(sink.collected[0].range.end_ns, 282516397 + 224515);
  EXPECT_EQ(sink.collected[0].range.pid, 101690);
  EXPECT_EQ(sink.collected[0].range.line, 3);
  EXPECT_EQ(sink.collected[2].name, "Central Polynomial Kernel Launch");
  EXPECT_EQ(sink.collected[2].range.line, 6);
}

TEST(NsysNvtxCsv, BadRowsNameFileLineAndColumn) {
  RangeSink sink;
  std::string text(kPushPopHeader);
  text += "100,50,,,,backwards,1,1,0,0,1,,:1,backwards\n";
  Result<ReadReport> r = ReadText(text, sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nvtx.csv:2:"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("ends before it starts"), std::string::npos);

  text = std::string(kPushPopHeader) + "1x0,200,,,,n,1,1,0,0,1,,:1,n\n";
  r = ReadText(text, sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nvtx.csv:2:"), std::string::npos) << r.status().message();

  r = ReadText(kPushPopHeader, sink);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no rows"), std::string::npos);
}

TEST(NsysNvtxCsvReal, JaxMaxtextNestedOnFiveThreads) {
  fs::path path = kRealDir / "jaxtoolbox_maxtext_fsdp4_h100_nvtx_pushpop_trace.csv";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  ASSERT_EQ(DetectInputKind(path, "maxtext").value(), InputKind::kNsysNvtxTraceCsv);
  RangeSink sink;
  Result<ReadReport> report = ReadInput(path, "maxtext", InputKind::kNsysNvtxTraceCsv, sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->rows, 31550);  // wc -l minus the header
  std::set<int64_t> threads;
  int64_t deepest = 0, duration_sum = 0;
  for (const CollectedRange& r : sink.collected) {
    threads.insert(r.range.tid);
    deepest = std::max(deepest, r.range.depth);
    duration_sum += r.range.end_ns - r.range.start_ns;
  }
  EXPECT_EQ(threads.size(), 5u);
  EXPECT_EQ(deepest, 4);
  EXPECT_EQ(duration_sum, 101288113209);  // sum of the Duration column (Python csv)
  EXPECT_EQ(sink.collected[1].name,
            "TSL:XlaDumpHloModule:#module=jit_convert_element_type,program_id=0#");

  // Steps: jit_train_step's XlaModule ranges, 5 on each of 4 device threads.
  auto collector = std::move(RangeCollector::Create("XlaModule:.*jit_train_step").value());
  ASSERT_TRUE(ReadInput(path, "maxtext", InputKind::kNsysNvtxTraceCsv, *collector).ok());
  std::vector<StepRange> steps = collector->TakeSteps();
  EXPECT_EQ(steps.size(), 20u);
  std::set<int64_t> step_threads;
  for (size_t i = 0; i < steps.size(); ++i) {
    step_threads.insert(steps[i].tid);
    if (i > 0) {
      EXPECT_LE(steps[i - 1].start_ns, steps[i].start_ns);
    }
  }
  EXPECT_EQ(step_threads.size(), 4u);
}

TEST(NsysNvtxCsvReal, PipitNbodyWithoutDomainPrefix) {
  fs::path path = kRealDir / "pipit_nbody_nvtx_pushpop_trace.csv";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  auto collector = std::move(RangeCollector::Create("^computeNBody").value());
  Result<ReadReport> report = ReadInput(path, "nbody", InputKind::kNsysNvtxTraceCsv, *collector);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->rows, 131);
  EXPECT_EQ(collector->TakeSteps().size(), 20u);  // computeNBody11 x10, computeNBody15 x10
}

}  // namespace
}  // namespace stepstat
