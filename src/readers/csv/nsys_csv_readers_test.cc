#include "readers/csv/nsys_csv_readers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/sources.h"
#include "readers/test_sink.h"

namespace stepstat {
namespace {

constexpr std::string_view kHeader2024 =
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n";
constexpr std::string_view kHeader2021 =
    "Start (us),Duration (us),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n";
constexpr std::string_view kHeader2020 =
    "Start(sec),Duration(nsec),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem,DymSMem,"
    "Bytes,Thru(MB/s),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n";
constexpr std::string_view kKernExecHeader =
    "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),Kernel Dur (ns),"
    "Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n";

struct GpuRead {
  Result<ReadReport> report = Status::Error("unset");
  CollectingSink sink;
};

GpuRead ReadGpu(std::string_view text, size_t chunk = 0) {
  auto source = chunk == 0 ? MemoryByteSource(text) : ChunkedMemoryByteSource(text, chunk);
  GpuRead out;
  out.report = ReadNsysGpuTrace(*source, "trace.csv", out.sink);
  return out;
}

std::string GpuError(std::string_view text) {
  GpuRead read = ReadGpu(text);
  return read.report.ok() ? "ok" : read.report.status().message();
}

TEST(NsysGpuTraceTest, Layout2024) {
  std::string text(kHeader2024);
  text +=
      "28717008,357372,233,,,,,,,,,,4.194,11735.663,Pinned,Device,NVIDIA GeForce RTX 2080 Ti "
      "(0),1,,13,[CUDA memcpy Host-to-Device]\n";
  text +=
      "29075500,1792,238,586,1,1,256,1,1,32,0.000,0.000,,,,,NVIDIA GeForce RTX 2080 Ti "
      "(0),1,,14,\"genScoreKernel(int, float *)\"\n";
  text +=
      "29100000,1920,240,,,,,,,,,,0.066,34133.311,Device,,NVIDIA GeForce RTX 2080 Ti "
      "(0),1,,7,[CUDA memset]\n";
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{17}}) {
    GpuRead read = ReadGpu(text, chunk);
    ASSERT_TRUE(read.report.ok()) << read.report.status().message();
    EXPECT_EQ(read.report->layout, "2024+");
    EXPECT_EQ(read.report->time_unit, "ns");
    EXPECT_EQ(read.report->rows, 3);
    ASSERT_EQ(read.sink.ops.size(), 3u);
    const GpuOp& copy = read.sink.ops[0].op;
    EXPECT_EQ(copy.start_ns, 28717008);
    EXPECT_EQ(copy.duration_ns, 357372);
    EXPECT_EQ(copy.correlation_id, 233);
    EXPECT_EQ(copy.stream, 13);
    EXPECT_EQ(copy.bytes, 4194000);
    EXPECT_EQ(copy.kind, OpKind::kMemcpy);
    EXPECT_EQ(copy.line, 2);
    EXPECT_EQ(read.sink.ops[0].device, "NVIDIA GeForce RTX 2080 Ti (0)");
    EXPECT_EQ(read.sink.ops[1].name, "genScoreKernel(int, float *)");
    EXPECT_EQ(read.sink.ops[1].op.kind, OpKind::kKernel);
    EXPECT_EQ(read.sink.ops[1].op.bytes, -1);
    EXPECT_EQ(read.sink.ops[2].op.kind, OpKind::kMemset);
    EXPECT_EQ(read.sink.ops[2].op.bytes, 66000);
  }
}

TEST(NsysGpuTraceTest, Layout2021InMicroseconds) {
  std::string text(kHeader2021);
  text += "1.5,0.0025,7,1,1,1,32,1,1,16,0.000,0.000,,,,,Tesla V100 (0),1,7,k()\n";
  text +=
      "1234567.891,2,8,,,,,,,,,,1.000,10.0,Pageable,Device,Tesla V100 (0),1,7,[CUDA memcpy HtoD]\n";
  GpuRead read = ReadGpu(text);
  ASSERT_TRUE(read.report.ok()) << read.report.status().message();
  EXPECT_EQ(read.report->layout, "2021.2-2023");
  EXPECT_EQ(read.report->time_unit, "us");
  ASSERT_EQ(read.sink.ops.size(), 2u);
  EXPECT_EQ(read.sink.ops[0].op.start_ns, 1500);
  EXPECT_EQ(read.sink.ops[0].op.duration_ns, 2);  // 2.5 ns rounds half to even
  EXPECT_EQ(read.sink.ops[1].op.start_ns, 1234567891);
  EXPECT_EQ(read.sink.ops[1].op.duration_ns, 2000);
  EXPECT_EQ(read.sink.ops[1].op.bytes, 1000000);
}

TEST(NsysGpuTraceTest, Layout2020SecondsAndNanoseconds) {
  std::string text(kHeader2020);
  text +=
      "1.234567891,2464,5,,,,,,,,,,4194304,1700.5,Pageable,Device,GeForce GTX 1080 (0),1,7,[CUDA "
      "memcpy HtoD]\n";
  text += "10,100,6,1,1,1,1,1,1,8,0,0,,,,,GeForce GTX 1080 (0),1,7,\"k<int, 2>(int)\"\n";
  GpuRead read = ReadGpu(text);
  ASSERT_TRUE(read.report.ok()) << read.report.status().message();
  EXPECT_EQ(read.report->layout, "2020-2021.1");
  EXPECT_EQ(read.report->time_unit, "s");
  ASSERT_EQ(read.sink.ops.size(), 2u);
  EXPECT_EQ(read.sink.ops[0].op.start_ns, 1234567891);
  EXPECT_EQ(read.sink.ops[0].op.duration_ns, 2464);
  EXPECT_EQ(read.sink.ops[0].op.bytes, 4194304);
  EXPECT_EQ(read.sink.ops[1].op.start_ns, 10000000000);
  EXPECT_EQ(read.sink.ops[1].name, "k<int, 2>(int)");
}

TEST(NsysGpuTraceTest, ConsolePreambleBomCrlfAndAFollowingReport) {
  std::string header(kHeader2024);
  header.insert(header.size() - 1, "\r");
  std::string text =
      "\xEF\xBB\xBF"
      "NOTICE: Existing SQLite export found: a \"quoted\" path\r\n"
      "Processing [r.sqlite] with [/opt/nsys/reports/cuda_gpu_trace.py]... \r\n"
      "\r\n ** CUDA GPU Trace (cuda_gpu_trace):\r\n\r\n" +
      header +
      "100,5,1,,,,,,,,,,,,,,GPU (0),1,,7,a\r\n"
      "200,5,2,,,,,,,,,,,,,,GPU (0),1,,7,b\r\n"
      "\r\nProcessing [r.sqlite] with [cuda_kern_exec_trace.py]... \r\n\r\n"
      " ** CUDA Kernel Launch & Exec Time Trace (cuda_kern_exec_trace):\r\n\r\n" +
      std::string(kKernExecHeader) +
      "10,20,30,40,50,60,70,1,1,0,cudaLaunchKernel,  1 1 1,  1 1 1,a\r\n";
  GpuRead read = ReadGpu(text, 7);
  ASSERT_TRUE(read.report.ok()) << read.report.status().message();
  ASSERT_EQ(read.sink.ops.size(), 2u);
  EXPECT_EQ(read.sink.ops[0].op.line, 7);
  EXPECT_EQ(read.sink.ops[1].name, "b");

  auto source = MemoryByteSource(text);
  CollectingSink sink;
  auto report = ReadNsysKernExecTrace(*source, "trace.csv", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.calls.size(), 1u);
  EXPECT_EQ(sink.calls[0].call.line, 15);
  EXPECT_EQ(sink.calls[0].call.kernel_start_ns, 50);
}

TEST(NsysGpuTraceTest, ErrorsNameFileLineAndColumn) {
  std::string h(kHeader2024);
  const std::string good = "1,2,3,,,,,,,,,,,,,,G,1,,7,k\n";
  EXPECT_EQ(GpuError(""), "trace.csv: empty file");
  EXPECT_EQ(GpuError(h), "trace.csv:1: no rows after the header");
  EXPECT_EQ(GpuError("NOTICE: x\nsomething else\n"),
            "trace.csv: no cuda_gpu_trace CSV header found");
  EXPECT_EQ(GpuError("Start (ns),Duration (ns),CorrId,GrdX,Strm\n1,2,3,4,5\n"),
            "trace.csv:1: no \"Name\" column in the header");
  EXPECT_EQ(GpuError("Duration (ns),CorrId,GrdX,Strm,Name\n1,2,3,4,5\n"),
            "trace.csv:1: no \"Start\" column in the header");
  EXPECT_EQ(GpuError(h + good + "x1,2,3,,,,,,,,,,,,,,G,1,,7,k\n"),
            "trace.csv:3: Start (ns): not a number");
  EXPECT_EQ(GpuError(h + good + good + "1,-2,3,,,,,,,,,,,,,,G,1,,7,k\n"),
            "trace.csv:4: Duration (ns): negative value");
  EXPECT_EQ(GpuError(h + ",2,3,,,,,,,,,,,,,,G,1,,7,k\n"), "trace.csv:2: Start (ns): empty value");
  EXPECT_EQ(GpuError(h + "99999999999999999999,2,3,,,,,,,,,,,,,,G,1,,7,k\n"),
            "trace.csv:2: Start (ns): value beyond the int64 range");
  EXPECT_EQ(GpuError(h + "9223372036854775807,1,3,,,,,,,,,,,,,,G,1,,7,k\n"),
            "trace.csv:2: Duration (ns): start + duration is beyond the int64 range");
  EXPECT_EQ(GpuError(h + good + "1,2,3,,,,,,,,,,,,,,G,1,,7,\"k(int,\n"),
            "trace.csv:3: unterminated quote");
  EXPECT_EQ(GpuError(h + good + "1,2,3,,,,,,,,,,,,,,G,1,,7,k"),
            "trace.csv:3: truncated last line (no newline at the end)");
  EXPECT_EQ(GpuError(h + good + "1,2,3\n"), "trace.csv:3: 3 fields, but the header has 21");
  EXPECT_EQ(GpuError(h + good + "\n" + good), "trace.csv:3: blank line between data rows");
  EXPECT_EQ(GpuError(h + "1,2,x,,,,,,,,,,,,,,G,1,,7,k\n"), "trace.csv:2: CorrId: not a number");
  EXPECT_EQ(GpuError("Start (fortnights),Duration (ns),CorrId,GrdX,Strm,Name\n1,2,3,4,5,6\n"),
            "trace.csv:1: Start (fortnights): unknown time unit \"fortnights\"");
}

// After a blank line the table looked ahead at most 1000 lines of at most 1 MB for more
// rows; past either limit it took the rest for console output and dropped it silently.
TEST(NsysGpuTraceTest, RowsAfterManyBlankLinesOrAfterAHugeLineAreNotDropped) {
  const std::string h(kHeader2024);
  const std::string good = "1,2,3,,,,,,,,,,,,,,G,1,,7,k\n";
  EXPECT_EQ(GpuError(h + good + std::string(1001, '\n') + good),
            "trace.csv:3: blank line between data rows");
  const std::string huge = "1,2,3,,,,,,,,,,,,,,G,1,,7," + std::string(2 << 20, 'k') + "\n";
  EXPECT_EQ(GpuError(h + good + "\n" + huge), "trace.csv:3: blank line between data rows");
}

// Header cells and file names went into messages raw: an escape sequence reached the terminal.
TEST(NsysGpuTraceTest, MessagesEscapeControlBytesFromTheFile) {
  EXPECT_EQ(GpuError("Start (\x1b[2J),Duration (ns),CorrId,GrdX,Strm,Name\n1,2,3,4,5,6\n"),
            "trace.csv:1: Start (\\x1b[2J): unknown time unit \"\\x1b[2J\"");
}

TEST(NsysGpuTraceTest, BatchesAndSinkErrorStopsReading) {
  std::string text(kHeader2024);
  for (int i = 0; i < 10000; ++i) text += std::to_string(i) + ",1,1,,,,,,,,,,,,,,G,1,,7,k\n";
  GpuRead all = ReadGpu(text);
  ASSERT_TRUE(all.report.ok());
  EXPECT_EQ(all.sink.ops.size(), 10000u);
  EXPECT_EQ(all.sink.batches, 3);
  EXPECT_EQ(all.sink.ops[9999].op.start_ns, 9999);

  auto source = MemoryByteSource(text);
  CollectingSink failing;
  failing.fail_after_batches = 1;
  auto report = ReadNsysGpuTrace(*source, "trace.csv", failing);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(), "sink full");
  EXPECT_EQ(failing.batches, 1);
}

TEST(NsysKernExecTest, ReadsLaunchesWithPaddedFields) {
  std::string text(kKernExecHeader);
  text +=
      "318371767,800895684,1119267451,3988,1119271439,102402786,903302458,1944,1945,0,"
      "cudaLaunchKernel,  32    1    1,   1    1    1,foo()\n";
  text += "1,2,,,,,,7,8,0,cuLaunchKernel, 1 1 1, 1 1 1,\"bar(int, int)\"\n";
  auto source = MemoryByteSource(text);
  CollectingSink sink;
  auto report = ReadNsysKernExecTrace(*source, "k.csv", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->layout, "kern-exec");
  ASSERT_EQ(sink.calls.size(), 2u);
  const LaunchCall& c = sink.calls[0].call;
  EXPECT_EQ(c.api_start_ns, 318371767);
  EXPECT_EQ(c.api_duration_ns, 800895684);
  EXPECT_EQ(c.queue_duration_ns, 3988);
  EXPECT_EQ(c.kernel_start_ns, 1119271439);
  EXPECT_EQ(c.kernel_duration_ns, 102402786);
  EXPECT_EQ(c.pid, 1944);
  EXPECT_EQ(c.tid, 1945);
  EXPECT_EQ(c.correlation_id, -1);
  EXPECT_EQ(sink.calls[0].api_name, "cudaLaunchKernel");
  EXPECT_EQ(sink.calls[0].kernel_name, "foo()");
  EXPECT_EQ(sink.calls[1].call.kernel_start_ns, -1);
  EXPECT_EQ(sink.calls[1].kernel_name, "bar(int, int)");

  auto missing = MemoryByteSource("API Start (ns),Queue Dur (ns),Kernel Name\n1,2,k\n");
  CollectingSink unused;
  auto error = ReadNsysKernExecTrace(*missing, "k.csv", unused);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().message(), "k.csv:1: no \"API Dur\" column in the header");
}

TEST(NsysApiTraceTest, KeepsOnlyKernelLaunches) {
  std::string text = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n";
  text += "1,10,cuModuleGetLoadingMode,0,1,4984,4984,20,main\n";
  text += "20,5,cudaLaunchKernel_v7000,0,2,4984,4985,20,main\n";
  text += "30,5,cuLaunchKernel_ptsz,0,3,4984,4985,20,main\n";
  text += "40,5,cudaMemcpyAsync_v3020,0,4,4984,4985,20,main\n";
  text += "50,5,cudaGraphLaunch_ptsz_v10000,0,5,4984,4985,20,main\n";
  auto source = MemoryByteSource(text);
  CollectingSink sink;
  auto report = ReadNsysApiTrace(*source, "api.csv", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->rows, 5);
  EXPECT_EQ(report->layout, "api-trace");
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[0].api_name, "cudaLaunchKernel");
  EXPECT_EQ(sink.calls[0].call.api_start_ns, 20);
  EXPECT_EQ(sink.calls[0].call.correlation_id, 2);
  EXPECT_EQ(sink.calls[0].call.tid, 4985);
  EXPECT_EQ(sink.calls[0].call.kernel_start_ns, -1);
  EXPECT_EQ(sink.calls[1].api_name, "cuLaunchKernel");
  EXPECT_EQ(sink.calls[2].api_name, "cudaGraphLaunch");
}

// Issue 30: the copy and memset calls, marked, only for a sink that asks for them.
TEST(NsysApiTraceTest, CopyCallsOnlyForASinkThatAsks) {
  std::string text = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n";
  text += "20,5,cudaLaunchKernel_v7000,0,2,4984,4985,20,main\n";
  text += "40,5,cudaMemcpyAsync_v3020,0,4,4984,4985,20,main\n";
  text += "45,5,cudaStreamSynchronize_v3020,0,5,4984,4985,20,main\n";
  text += "50,5,cuMemsetD32Async,0,6,4984,4986,20,main\n";
  for (bool ask : {false, true}) {
    auto source = MemoryByteSource(text);
    CollectingSink sink;
    if (ask) sink.fields = TraceFields::All() | TraceFields{0, TraceFields::kCopyCalls};
    ASSERT_TRUE(ReadNsysApiTrace(*source, "api.csv", sink).ok());
    ASSERT_EQ(sink.calls.size(), ask ? 3u : 1u);
    EXPECT_EQ(sink.calls[0].call.kind, CallKind::kKernelLaunch);
    if (!ask) continue;
    EXPECT_EQ(sink.calls[1].api_name, "cudaMemcpyAsync");
    EXPECT_EQ(sink.calls[1].call.kind, CallKind::kCopy);
    EXPECT_EQ(sink.calls[1].call.correlation_id, 4);
    EXPECT_EQ(sink.calls[2].api_name, "cuMemsetD32Async");
    EXPECT_EQ(sink.calls[2].call.kind, CallKind::kCopy);
    EXPECT_EQ(sink.calls[2].call.tid, 4986);
  }
}

// Issue 12: older nsys lists a launch under its API name and its versioned name, with one
// correlation id; that is one launch.
TEST(NsysApiTraceTest, VersionedNamesOfOneCorrelationIdAreOneLaunch) {
  std::string text = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n";
  text += "20,9,cudaLaunchKernel,0,2,4984,4985,20,main\n";
  text += "21,6,cudaLaunchKernel_v7000,0,2,4984,4985,20,main\n";
  text += "22,1,cudaLaunchKernel,0,2,4999,4999,20,other\n";  // another process's id 2
  text += "40,9,cudaLaunchKernel,0,3,4984,4985,20,main\n";
  text += "41,6,cudaLaunchKernel_v7000,0,3,4984,4985,20,main\n";
  auto source = MemoryByteSource(text);
  CollectingSink sink;
  auto report = ReadNsysApiTrace(*source, "api.csv", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[0].call.api_start_ns, 20);
  EXPECT_EQ(sink.calls[0].call.api_duration_ns, 9);
  EXPECT_EQ(sink.calls[1].call.pid, 4999);
  EXPECT_EQ(sink.calls[2].call.correlation_id, 3);
}

// Rows of plain digits take the reader's fast path; a row with any other number in any
// column is read again by the checked path: the same values whichever column it is, and
// the first error in column order (the end check before a later bad field).
TEST(NsysKernExecTest, AnyColumnNotPlainDigitsGivesTheSameValues) {
  const std::vector<std::string> plain = {"11", "22", "3", "44", "55", "66", "7", "88", "99", "2"};
  std::string text(kKernExecHeader);
  for (size_t column = 0; column <= plain.size(); ++column) {  // the last row: all plain
    for (size_t i = 0; i < plain.size(); ++i) {
      text += (i == column ? " " + plain[i] + " " : plain[i]) + ",";
    }
    text += "cudaLaunchKernel, 1 1 1, 1 1 1,k\n";
  }
  auto source = MemoryByteSource(text);
  CollectingSink sink;
  auto report = ReadNsysKernExecTrace(*source, "k.csv", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.calls.size(), plain.size() + 1);
  for (size_t row = 0; row < sink.calls.size(); ++row) {
    const LaunchCall& c = sink.calls[row].call;
    EXPECT_EQ(c.api_start_ns, 11) << row;
    EXPECT_EQ(c.api_duration_ns, 22) << row;
    EXPECT_EQ(c.queue_duration_ns, 44) << row;
    EXPECT_EQ(c.kernel_start_ns, 55) << row;
    EXPECT_EQ(c.kernel_duration_ns, 66) << row;
    EXPECT_EQ(c.pid, 88) << row;
    EXPECT_EQ(c.tid, 99) << row;
    EXPECT_EQ(sink.calls[row].device, "GPU 2") << row;
  }

  const std::string both = std::string(kKernExecHeader) +
                           "9223372036854775807,2,3,4,10,5,9,100,100,x,cudaLaunchKernel,1,1,k\n";
  auto bad = MemoryByteSource(both);
  CollectingSink unused;
  auto error = ReadNsysKernExecTrace(*bad, "k.csv", unused);
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.status().message().find("start + duration is beyond the int64 range"),
            std::string::npos)
      << error.status().message();
}

// Issue 12: a kern-exec trace of several MPI ranks names each row's GPU (DevId) and process.
TEST(NsysKernExecTest, DeviceFromDevIdAndProcessFromPid) {
  std::string text(kKernExecHeader);
  text += "1,2,3,4,10,5,9,100,100,0,cudaLaunchKernel, 1 1 1, 1 1 1,k\n";
  text += "1,2,3,4,10,5,9,200,201,3,cudaLaunchKernel, 1 1 1, 1 1 1,k\n";
  text += "1,2,3,4,10,5,9,300,300,,cudaLaunchKernel, 1 1 1, 1 1 1,k\n";
  auto source = MemoryByteSource(text);
  CollectingSink sink;
  auto report = ReadNsysKernExecTrace(*source, "k.csv", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[0].device, "GPU 0");
  EXPECT_EQ(sink.calls[1].device, "GPU 3");
  EXPECT_EQ(sink.calls[1].call.pid, 200);
  EXPECT_EQ(sink.calls[2].device, "");  // DevId empty: unknown

  const std::string bad_text =
      std::string(kKernExecHeader) + "1,2,3,4,10,5,9,100,100,x,cudaLaunchKernel,1,1,k\n";
  auto bad = MemoryByteSource(bad_text);
  CollectingSink unused;
  auto error = ReadNsysKernExecTrace(*bad, "k.csv", unused);
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.status().message().find("k.csv:2:"), std::string::npos)
      << error.status().message();
}

}  // namespace
}  // namespace stepstat
