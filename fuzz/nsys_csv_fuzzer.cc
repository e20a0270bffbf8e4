// The nsys CSV readers (cuda_gpu_trace, cuda_kern_exec_trace, cuda_api_trace) over arbitrary
// bytes. The first byte picks the reader and a window size. Checks: ops and calls keep the
// promises of trace.h (CheckingSink); errors follow the message rules; reading the bytes
// whole and a few at a time gives the same ops, calls, report and error, and so does
// reading them whole with every row on the checked path (no FastRowPlan walk).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "io/sources.h"
#include "readers/csv/nsys_csv_readers.h"

namespace {

constexpr std::string_view kName = "fuzz.csv";

// What summarize's sinks read of either side (summary_sinks.h, start_order.h).
constexpr stepstat::TraceFields kSummaryFields{
    stepstat::TraceFields::kOpStart | stepstat::TraceFields::kOpDuration |
        stepstat::TraceFields::kOpName,
    stepstat::TraceFields::kApiStart | stepstat::TraceFields::kApiDuration};

// `fields`: what the sink says it reads; `kept`: what of each row the digest holds.
std::string Read(int reader, stepstat::ByteSource& source, bool fast_walk = true,
                 stepstat::TraceFields fields = stepstat::TraceFields::All(),
                 stepstat::TraceFields kept = stepstat::TraceFields::All()) {
  stepstat::fuzz::CheckingSink sink;
  sink.fields = fields;
  sink.kept = kept;
  const stepstat::CsvRowWalk walk{fast_walk, nullptr};
  stepstat::Result<stepstat::ReadReport> report =
      reader == 0   ? stepstat::ReadNsysGpuTrace(source, kName, sink, walk)
      : reader == 1 ? stepstat::ReadNsysKernExecTrace(source, kName, sink, walk)
                    : stepstat::ReadNsysApiTrace(source, kName, sink);
  if (!report.ok()) {
    stepstat::fuzz::CheckErrorMessage(report.status(), kName);
    return "error " + report.status().message();
  }
  FUZZ_CHECK(report->rows > 0);
  return sink.digest() + "|" + report->layout + "|" + report->time_unit + "|" +
         std::to_string(report->rows);
}

void CheckSameWalks(const std::string& fast, const std::string& checked) {
  if (fast != checked) {
    std::fprintf(stderr, "the fast walk and the checked path differ:\n%s\nvs\n%s\n",
                 fast.substr(0, 500).c_str(), checked.substr(0, 500).c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % 3;
  const size_t chunk = 1 + (data[0] >> 2) % 32;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  auto whole = stepstat::MemoryByteSource(input);
  std::string reference = Read(reader, *whole);
  auto chunked = stepstat::ChunkedMemoryByteSource(input, chunk);
  std::string windowed = Read(reader, *chunked);
  if (reference != windowed) {
    std::fprintf(stderr, "whole vs %zu-byte windows differ:\n%s\nvs\n%s\n", chunk,
                 reference.substr(0, 500).c_str(), windowed.substr(0, 500).c_str());
    std::abort();
  }
  auto again = stepstat::MemoryByteSource(input);
  CheckSameWalks(reference, Read(reader, *again, false));
  // Padded with blank lines (which end a table) so that its last rows lie in whole 64-byte
  // blocks, which the fast walk needs: it then reads short inputs' rows too.
  std::string padded(input);
  padded.append(128, '\n');
  auto fast_padded = stepstat::MemoryByteSource(padded);
  auto checked_padded = stepstat::MemoryByteSource(padded);
  CheckSameWalks(Read(reader, *fast_padded), Read(reader, *checked_padded, false));
  // A sink that reads only the summary's fields: both walks agree; where every field reads,
  // the summary's fields read the same, and a failure there is a failure of the full read.
  auto narrow_fast_source = stepstat::MemoryByteSource(padded);
  auto narrow_checked_source = stepstat::MemoryByteSource(padded);
  auto full_source = stepstat::MemoryByteSource(padded);
  const std::string narrow =
      Read(reader, *narrow_fast_source, true, kSummaryFields, kSummaryFields);
  CheckSameWalks(narrow,
                 Read(reader, *narrow_checked_source, false, kSummaryFields, kSummaryFields));
  const std::string full =
      Read(reader, *full_source, true, stepstat::TraceFields::All(), kSummaryFields);
  const bool full_failed = full.rfind("error ", 0) == 0;
  const bool narrow_failed = narrow.rfind("error ", 0) == 0;
  if (!full_failed && narrow != full) {
    std::fprintf(stderr, "a read of the summary's fields differs from a full read:\n%s\nvs\n%s\n",
                 narrow.substr(0, 500).c_str(), full.substr(0, 500).c_str());
    std::abort();
  }
  FUZZ_CHECK(!narrow_failed || full_failed);
  return 0;
}
