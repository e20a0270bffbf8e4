// The CSV readers' fast row walk (FastRowPlan) against their checked path (CsvScanner, then
// each field converted and checked): on every real cuda_gpu_trace and cuda_kern_exec_trace
// CSV, on synth output, and on each kind of odd row, reading with the walk and without it
// gives the same ops and calls (every field and line number) or the same message; an odd
// row the walk does not read goes to the checked path, and every plain row is walked.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "cli_suite.h"
#include "io/byte_source.h"
#include "io/input_stream.h"
#include "io/sources.h"
#include "readers/csv/nsys_csv_readers.h"
#include "readers/test_sink.h"
#include "stepstat/synth.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;
const fs::path kRealDir = testing_support::RealDir();

using testing_support::ReadAll;
using testing_support::RealFiles;

// What summarize's sinks read of either side (summary_sinks.h, start_order.h).
constexpr TraceFields kSummaryFields{
    TraceFields::kOpStart | TraceFields::kOpDuration | TraceFields::kOpName,
    TraceFields::kApiStart | TraceFields::kApiDuration};

enum class Report { kGpuTrace, kKernExec };

// One reading: the ops or calls as text, one line each (every field), or the error.
struct Reading {
  std::vector<std::string> rows;
  std::string error;
  int64_t fast_rows = 0;
};

std::string Describe(const CollectedOp& o) {
  std::ostringstream s;
  s << o.op.line << " " << o.op.start_ns << " " << o.op.duration_ns << " " << o.op.stream << " "
    << o.op.bytes << " " << o.op.correlation_id << " " << static_cast<int>(o.op.kind) << " "
    << o.op.pid << " [" << o.name << "] [" << o.device << "]";
  return s.str();
}

std::string Describe(const CollectedCall& c) {
  std::ostringstream s;
  s << c.call.line << " " << c.call.api_start_ns << " " << c.call.api_duration_ns << " "
    << c.call.queue_duration_ns << " " << c.call.kernel_start_ns << " " << c.call.kernel_duration_ns
    << " " << c.call.pid << " " << c.call.tid << " " << c.call.correlation_id << " [" << c.api_name
    << "] [" << c.kernel_name << "] [" << c.device << "]";
  return s.str();
}

// Bytes handed out a few at a time, as a pipe would.
class TrickleStream : public InputStream {
 public:
  explicit TrickleStream(std::string_view bytes) : bytes_(bytes) {}
  Result<size_t> Read(char* dest, size_t capacity) override {
    const size_t n = std::min({capacity, bytes_.size(), size_t{1000}});
    std::copy_n(bytes_.data(), n, dest);
    bytes_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view bytes_;
};

// How the reader gets the bytes: one view of them; views over them growing `window` bytes at
// a time; or a reused buffer of `window` bytes, the unread rest moved to its start before
// each read (the bytes at an address change under the walk's classified blocks).
enum class Views { kWhole, kGrowing, kBuffer };

// `fields`: what the sink says it reads; `kept`: what it keeps of each row (CollectingSink).
Reading Read(Report report, std::string_view bytes, bool fast, Views views = Views::kWhole,
             size_t window = 0, TraceFields fields = TraceFields::All(),
             TraceFields kept = TraceFields::All()) {
  std::unique_ptr<ByteSource> source =
      views == Views::kWhole     ? MemoryByteSource(bytes)
      : views == Views::kGrowing ? ChunkedMemoryByteSource(bytes, window)
                                 : BufferedSource(std::make_unique<TrickleStream>(bytes), window);
  CollectingSink sink;
  sink.fields = fields;
  sink.kept = kept;
  Reading reading;
  const CsvRowWalk walk{fast, &reading.fast_rows};
  Result<ReadReport> read = report == Report::kGpuTrace
                                ? ReadNsysGpuTrace(*source, "t.csv", sink, walk)
                                : ReadNsysKernExecTrace(*source, "t.csv", sink, walk);
  if (!read.ok()) reading.error = read.status().message();
  for (const CollectedOp& op : sink.ops) reading.rows.push_back(Describe(op));
  for (const CollectedCall& call : sink.calls) reading.rows.push_back(Describe(call));
  return reading;
}

// The fast and checked readings agree row by row; returns the fast one.
Reading ExpectSameReadings(Report report, std::string_view bytes, Views views = Views::kWhole,
                           size_t window = 0, TraceFields fields = TraceFields::All()) {
  Reading fast = Read(report, bytes, true, views, window, fields, fields);
  Reading checked = Read(report, bytes, false, views, window, fields, fields);
  EXPECT_EQ(checked.fast_rows, 0);
  EXPECT_EQ(fast.error, checked.error);
  EXPECT_EQ(fast.rows.size(), checked.rows.size());
  for (size_t i = 0; i < fast.rows.size() && i < checked.rows.size(); ++i) {
    if (fast.rows[i] != checked.rows[i]) {
      ADD_FAILURE() << "row " << i << ": fast " << fast.rows[i] << "\nchecked " << checked.rows[i];
      break;
    }
  }
  return fast;
}

// The bytes with every "\n" written "\r\n", as a Windows tool saves them.
std::string WithCrlf(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 32);
  for (char c : bytes) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

void ExpectWalkAgreesOnFile(Report report, const fs::path& path) {
  SCOPED_TRACE(path.filename().string());
  const std::string bytes = ReadAll(path);
  const Reading whole = ExpectSameReadings(report, bytes);
  ASSERT_EQ(whole.error, "");
  ASSERT_FALSE(whole.rows.empty());
  // Every row but a few at the end of the bytes (a partial 64-byte block) is walked.
  EXPECT_GE(whole.fast_rows, static_cast<int64_t>(whole.rows.size()) - 8);
  {
    SCOPED_TRACE("CRLF");
    const Reading crlf = ExpectSameReadings(report, WithCrlf(bytes));
    EXPECT_EQ(crlf.error, "");
    EXPECT_EQ(crlf.rows.size(), whole.rows.size());
    EXPECT_GE(crlf.fast_rows, static_cast<int64_t>(crlf.rows.size()) - 8);
  }
  for (size_t window : {331, 4093, 65536}) {
    SCOPED_TRACE(window);
    ExpectSameReadings(report, bytes, Views::kGrowing, window);
    const Reading buffered = ExpectSameReadings(report, bytes, Views::kBuffer, window);
    if (window > 1000) {
      EXPECT_GT(buffered.fast_rows, static_cast<int64_t>(buffered.rows.size()) / 2);
    }
  }
  // A sink that reads fewer fields (a summary's, or none beyond the required columns) gets
  // those fields as a full read has them, by either path.
  for (TraceFields fields : {kSummaryFields, TraceFields::None()}) {
    SCOPED_TRACE(testing::Message() << "fields " << fields.op << "/" << fields.call);
    const Reading narrow = ExpectSameReadings(report, bytes, Views::kWhole, 0, fields);
    EXPECT_EQ(narrow.error, "");
    EXPECT_GE(narrow.fast_rows, whole.fast_rows);
    const Reading full_kept =
        Read(report, bytes, true, Views::kWhole, 0, TraceFields::All(), fields);
    EXPECT_EQ(narrow.rows, full_kept.rows);
    EXPECT_EQ(narrow.rows.size(), whole.rows.size());
  }
}

TEST(CsvFastWalk, AgreesWithTheCheckedPathOnEveryRealGpuTrace) {
  const auto files = RealFiles("cuda_gpu_trace.csv");
  if (files.empty()) GTEST_SKIP() << "no *cuda_gpu_trace.csv in " << kRealDir;
  for (const fs::path& path : files) ExpectWalkAgreesOnFile(Report::kGpuTrace, path);
}

TEST(CsvFastWalk, AgreesWithTheCheckedPathOnEveryRealKernExecTrace) {
  const auto files = RealFiles("cuda_kern_exec_trace.csv");
  if (files.empty()) GTEST_SKIP() << "no *cuda_kern_exec_trace.csv in " << kRealDir;
  for (const fs::path& path : files) ExpectWalkAgreesOnFile(Report::kKernExec, path);
}

TEST(CsvFastWalk, AgreesWithTheCheckedPathOnSynthOutput) {
  const fs::path dir = fs::temp_directory_path() / "stepstat-csv-fast-walk";
  fs::remove_all(dir);
  fs::create_directories(dir);
  synth::SynthOptions options;
  options.out_base = dir / "dit";
  options.steps = 2;
  options.streams = 2;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  ExpectWalkAgreesOnFile(Report::kGpuTrace, written->gpu_trace);
  ExpectWalkAgreesOnFile(Report::kKernExec, written->kern_exec_trace);
  fs::remove_all(dir);
}

// A kern-exec table: a plain row, `odd` (a row), then plain rows; padded with blank lines (which
// end the table) so that every row lies in whole 64-byte blocks of the bytes.
constexpr std::string_view kKernExecHeader =
    "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
    "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n";
constexpr std::string_view kPlainRow =
    "41793520376,4894,41793525270,398698,41793923968,4416,408008,70412,70412,0,"
    "cudaLaunchKernel,   1    1    1, 128    1    1,\"void kernel<(int)4, float>(int, T2)\"\n";
constexpr int kPlainRowsAfter = 6;

std::string KernExecTable(std::string_view odd) {
  std::string text(kKernExecHeader);
  text += kPlainRow;
  text += odd;
  for (int i = 0; i < kPlainRowsAfter; ++i) text += kPlainRow;
  text.append(64 - text.size() % 64 + 64, '\n');
  return text;
}

// How the walk takes the odd row (second of the table).
enum class Taken { kWalked, kChecked, kCheckedAndFails };

void ExpectOddRow(std::string_view odd, Taken taken) {
  SCOPED_TRACE(std::string(odd));
  const Reading plain = ExpectSameReadings(Report::kKernExec, KernExecTable(kPlainRow));
  ASSERT_EQ(plain.fast_rows, kPlainRowsAfter + 2);  // every plain row is walked
  const Reading reading = ExpectSameReadings(Report::kKernExec, KernExecTable(odd));
  switch (taken) {
    case Taken::kWalked: EXPECT_EQ(reading.fast_rows, kPlainRowsAfter + 2); break;
    case Taken::kChecked:
      EXPECT_EQ(reading.error, "");
      EXPECT_EQ(reading.fast_rows, kPlainRowsAfter + 1);
      break;
    case Taken::kCheckedAndFails:
      EXPECT_NE(reading.error, "");  // the checked path's message, compared above
      EXPECT_EQ(reading.fast_rows, 1);
      break;
  }
}

TEST(CsvFastWalk, OddRowsReadAsTheCheckedPathReadsThem) {
  const std::string names = ",cudaLaunchKernel,   1    1    1, 128    1    1,k\n";
  // Read the same by the walk: quoted numbers, blank optional fields, a quote inside an
  // unquoted field, commas inside a quoted name.
  ExpectOddRow("\"1\",\"2\",3,\"4\",5,6,7,8,9,0" + names, Taken::kWalked);
  ExpectOddRow("1,2,3,,,,7,,,0" + names, Taken::kWalked);
  ExpectOddRow("1,2,3,  ,5,6,7,8,9,0" + names, Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cuda\"Launch,   1    1    1, 128    1    1,k\n",
               Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\"a, b, c\"\n", Taken::kWalked);
  // Numbers ParseScaled reads that are not plain digits: a sign, a fraction it rounds, an
  // exponent, spaces.
  ExpectOddRow("+1,2,3,4,5,6,7,8,9,0" + names, Taken::kWalked);
  ExpectOddRow("1.5,2,3,4,5,6,7,8,9,0" + names, Taken::kWalked);
  ExpectOddRow("1e3,2,3,4,5,6,7,8,9,0" + names, Taken::kWalked);
  ExpectOddRow(" 1 ,2,3,4,5,6,7,8,9,0" + names, Taken::kWalked);
  // Quotes the walk reads field by field: a quoted field before the last, a quote inside an
  // unquoted field before a quoted last one, an unquoted last field ending in a quote.
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,\"cudaLaunchKernel\",1,1,k\n", Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cuda\"Launch,1,1,\"a, b\"\n", Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,k\"\n", Taken::kWalked);
  // A CR before the newline, dropped from the last field as the scanner drops it (unquoted,
  // quoted, a used number last, a CR alone); a CR elsewhere is text.
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0" + names.substr(0, names.size() - 1) + "\r\n", Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\"quoted\"\r\n", Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,\"cudaLaunchKernel\",1,1,\"a, b\"\r\n", Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\r\n", Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,k\r\r\n", Taken::kWalked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cuda\rLaunch,1\r,1,k\n", Taken::kWalked);
  // Left to the checked path, which reads them.
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\"say \"\"hi\"\"\"\n", Taken::kChecked);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\"two\nlines\"\n", Taken::kChecked);
  // Left to the checked path, which gives its message (the end check's message, the one
  // error a walked row can have, is the walk's own).
  ExpectOddRow("1,2,3,4,5,6,7,8,9" + names, Taken::kCheckedAndFails);      // a field short
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,0" + names, Taken::kCheckedAndFails);  // a field long
  ExpectOddRow("-1,2,3,4,5,6,7,8,9,0" + names, Taken::kCheckedAndFails);   // a sign
  ExpectOddRow("1,2,3,4,5,6,7,8,-9,0" + names, Taken::kCheckedAndFails);   // an optional
  ExpectOddRow("99999999999999999999,2,3,4,5,6,7,8,9,0" + names, Taken::kCheckedAndFails);
  ExpectOddRow("9223372036854775807,2,3,4,5,6,7,8,9,0" + names, Taken::kCheckedAndFails);
  ExpectOddRow(",2,3,4,5,6,7,8,9,0" + names, Taken::kCheckedAndFails);  // required blank
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cuda\0Launch,1,1,k\n"s, Taken::kCheckedAndFails);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\"text\"after\n", Taken::kCheckedAndFails);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\"open\n", Taken::kCheckedAndFails);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\"a\"b\"\n", Taken::kCheckedAndFails);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1,\"a\"\r\r\n", Taken::kCheckedAndFails);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,\"cudaLaunchKernel\"\r,1,1,k\n", Taken::kCheckedAndFails);
  ExpectOddRow("1,2,3,4,5,6,7,8,9\r\n", Taken::kCheckedAndFails);  // fields short, CRLF
  ExpectOddRow("\r\n", Taken::kCheckedAndFails);                   // a blank line, CRLF
  // A quote that opens an earlier field and closes at the row's end: a field too few.
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,\"cudaLaunchKernel,1,1,k\"\n", Taken::kCheckedAndFails);
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,\"1,k\"\r\n", Taken::kCheckedAndFails);
  // A space before the quote: unquoted text, and its comma makes a field too many.
  ExpectOddRow("1,2,3,4,5,6,7,8,9,0,cudaLaunchKernel,1,1, \"a, b\"\n", Taken::kCheckedAndFails);
  ExpectOddRow("\n", Taken::kCheckedAndFails);  // a blank line between data rows
}

// A field no sink reads is passed over, neither converted nor checked: a summary reads
// through a malformed Queue Dur, PID or DevId that stops a read of every field.
TEST(CsvFastWalk, ColumnsNoSinkReadsAreNotChecked) {
  const std::string names = ",cudaLaunchKernel,   1    1    1, 128    1    1,k\n";
  for (const std::string& odd : {"1,2,3,4x,5,6,7,8,9,0" + names, "1,2,3,4,5,6,7,-8,9,0" + names,
                                 "1,2,3,4,5,6,7,8,9,GPU" + names}) {
    SCOPED_TRACE(odd);
    const std::string table = KernExecTable(odd);
    const Reading full = ExpectSameReadings(Report::kKernExec, table);
    EXPECT_NE(full.error, "");
    const Reading summary =
        ExpectSameReadings(Report::kKernExec, table, Views::kWhole, 0, kSummaryFields);
    EXPECT_EQ(summary.error, "");
    EXPECT_EQ(summary.rows.size(), size_t{kPlainRowsAfter + 2});
    EXPECT_EQ(summary.fast_rows, kPlainRowsAfter + 2);
  }
  // The required columns are read whatever the sink reads.
  const Reading bad_start =
      ExpectSameReadings(Report::kKernExec, KernExecTable("x,2,3,4,5,6,7,8,9,0" + names),
                         Views::kWhole, 0, TraceFields::None());
  EXPECT_NE(bad_start.error, "");
}

// Rows of one length in three shapes (commas in other places), handed out so that every
// window of the reused buffer ends at a row's end: the bytes at the buffer's start change
// under the walk's classified blocks, which must not be used again.
TEST(CsvFastWalk, BlocksAreClassifiedAgainInEachWindowOfAReusedBuffer) {
  constexpr size_t kRow = 192;
  auto padded = [](std::string text) {
    text.append(kRow - 1 - text.size(), 'x');
    return text + "\n";
  };
  std::string text =
      padded(std::string(kKernExecHeader.substr(0, kKernExecHeader.size() - 1)) + ",Padding ");
  const std::string shapes[] = {"1,22,333,4444,55555,6,77,888,9999,0,cudaLaunchKernel,1,1,k,",
                                "55555,4444,333,22,1,6,77,888,9999,0,cudaLaunchKernel,1,1,k,",
                                "22,1,4444,333,6,55555,888,77,0,9999,cudaLaunchKernel,1,1,k,"};
  for (int i = 0; i < 60; ++i) text += padded(shapes[i % 3]);
  class RowAtATime : public InputStream {
   public:
    explicit RowAtATime(std::string_view bytes) : bytes_(bytes) {}
    Result<size_t> Read(char* dest, size_t capacity) override {
      const size_t n = std::min({capacity, bytes_.size(), kRow});
      std::copy_n(bytes_.data(), n, dest);
      bytes_.remove_prefix(n);
      return n;
    }

   private:
    std::string_view bytes_;
  };
  auto read = [&](bool fast) {
    auto source = BufferedSource(std::make_unique<RowAtATime>(text), 4 * kRow);
    CollectingSink sink;
    Reading reading;
    auto report = ReadNsysKernExecTrace(*source, "t.csv", sink, {fast, &reading.fast_rows});
    if (!report.ok()) reading.error = report.status().message();
    for (const CollectedCall& call : sink.calls) reading.rows.push_back(Describe(call));
    return reading;
  };
  const Reading fast = read(true);
  const Reading checked = read(false);
  EXPECT_EQ(fast.error, "");
  EXPECT_EQ(fast.rows, checked.rows);
  EXPECT_GT(fast.fast_rows, 20);
}

TEST(CsvFastWalk, GpuTraceRowsWithBytesAndBlankColumnsAreWalked) {
  std::string text =
      "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,"
      "Name\n";
  const std::string rows[] = {
      "41793482336,306368,1,,,,,,,,,,4.193,13687.069,Pageable,Device,NVIDIA GB10 (0),1,,7,"
      "[CUDA memcpy Host-to-Device]\n",
      "41793798944,1504,2,,,,,,,,,,0.000,5.319,Pageable,Device,NVIDIA GB10 (0),1,,7,"
      "[CUDA memcpy Host-to-Device]\n",
      "41793917440,3584,3,1,1,1,128,1,1,16,0.000,0.000,,,,,NVIDIA GB10 (0),1,,7,"
      "\"void at::native::kernel<(int)4, float>(int, T2)\"\n",
      "41793917440,3584,,1,1,1,128,1,1,16,0.000,0.000,,,,,NVIDIA GB10 (0),1,,,name\n",
      "41793917440,3584,4,1,1,1,128,1,1,16,0.000,0.000,1.2345678,,,,NVIDIA GB10 (0),1,,7,x\n",
  };
  for (const std::string& row : rows) text += row;
  text.append(64 - text.size() % 64 + 64, '\n');
  const Reading reading = ExpectSameReadings(Report::kGpuTrace, text);
  EXPECT_EQ(reading.error, "");
  // The one error a walked GPU row can have is made by the walk, with the checked message.
  const std::string overflow = text.substr(0, text.find('\n') + 1) + rows[0] +
                               "9223372036854775807,5,3,1,1,1,128,1,1,16,0.000,0.000,,,,,"
                               "NVIDIA GB10 (0),1,,7,x\n" +
                               rows[1] + std::string(128, '\n');
  const Reading failed = ExpectSameReadings(Report::kGpuTrace, overflow);
  EXPECT_NE(failed.error, "");
  EXPECT_EQ(failed.fast_rows, 1);
  // The last row's bytes have more decimals than MB to bytes keeps: ParseScaled rounds them,
  // in the walk as in the checked path.
  EXPECT_EQ(reading.fast_rows, 5);
}

}  // namespace
}  // namespace stepstat
