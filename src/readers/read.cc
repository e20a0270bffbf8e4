// ReadInput: one entry point for every input kind.
#include "stepstat/read.h"

#include <memory>

#include "io/byte_source.h"
#include "readers/csv/nsys_csv_header.h"
#include "readers/csv/nsys_csv_nvtx.h"
#include "readers/csv/nsys_csv_readers.h"
#include "readers/csv/nsys_csv_table.h"
#include "readers/input_source.h"
#include "readers/input_traits.h"
#include "readers/kineto/kineto_json.h"
#include "readers/kineto/kineto_rank.h"
#include "readers/read_sides.h"
#include "readers/resolution_sink.h"
#include "readers/sqlite/nsys_rep.h"
#include "readers/sqlite/nsys_sqlite.h"

namespace stepstat {

std::string_view InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kNsysGpuTraceCsv: return "nsys cuda_gpu_trace CSV";
    case InputKind::kNsysKernExecTraceCsv: return "nsys cuda_kern_exec_trace CSV";
    case InputKind::kNsysApiTraceCsv: return "nsys cuda_api_trace CSV";
    case InputKind::kNsysNvtxTraceCsv: return "nsys NVTX trace CSV";
    case InputKind::kNsysSqlite: return "nsys SQLite export";
    case InputKind::kKinetoJson: return "PyTorch profiler JSON trace";
    case InputKind::kNsysRep: return "nsys report (.nsys-rep)";
    case InputKind::kNsysGpuKernSumCsv: return "nsys cuda_gpu_kern_sum CSV";
  }
  return "unknown";
}

namespace {

Result<ReadReport> ReadCsvKind(ByteSource& source, std::string_view display_name, InputKind kind,
                               TraceSink& sink) {
  switch (kind) {
    case InputKind::kNsysGpuTraceCsv: return ReadNsysGpuTrace(source, display_name, sink);
    case InputKind::kNsysKernExecTraceCsv: return ReadNsysKernExecTrace(source, display_name, sink);
    case InputKind::kNsysApiTraceCsv: return ReadNsysApiTrace(source, display_name, sink);
    case InputKind::kNsysNvtxTraceCsv: return ReadNsysNvtxTrace(source, display_name, sink);
    default: return ErrorAt(display_name, 0, "unsupported input kind");
  }
}

Result<ReadReport> ReadKind(const std::filesystem::path& path, std::string_view display_name,
                            InputKind kind, TraceSink& sink) {
  switch (kind) {
    case InputKind::kNsysSqlite: return ReadNsysSqlite(path, display_name, sink);
    case InputKind::kKinetoJson: return ReadKinetoJson(path, display_name, sink);
    case InputKind::kNsysRep: return ReadNsysRep(path, display_name, sink);
    case InputKind::kNsysGpuKernSumCsv:
      return ErrorAt(display_name, 0, SummaryIsNotATrace(NsysReportName(kind)));
    default: break;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path, display_name));
  return ReadCsvKind(*source, display_name, kind, sink);
}

Result<ReadReport> ReadKindOfBytes(std::string_view bytes, std::string_view display_name,
                                   InputKind kind, TraceSink& sink) {
  switch (kind) {
    case InputKind::kNsysSqlite:
    case InputKind::kNsysRep: return ErrorAt(display_name, 0, NotReadableInMemory(kind));
    case InputKind::kKinetoJson: return ReadKinetoJsonBytes(bytes, display_name, sink);
    case InputKind::kNsysGpuKernSumCsv:
      return ErrorAt(display_name, 0, SummaryIsNotATrace(NsysReportName(kind)));
    default: break;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenMemoryByteSource(bytes, display_name));
  return ReadCsvKind(*source, display_name, kind, sink);
}

}  // namespace

std::string NotReadableInMemory(InputKind kind) {
  return std::string("an ") + std::string(InputKindName(kind)) +
         " is read from a file (SQLite and nsys open files, not bytes): pass its path";
}

Result<std::unique_ptr<ByteSource>> OpenInputSource(const TraceInput& input) {
  if (input.bytes) return OpenMemoryByteSource(*input.bytes, input.display_name);
  return OpenByteSource(input.path, input.display_name);
}

namespace {

// One whole read into `sink`, its timestamps' resolution measured on the way; the sink is
// finished only after the whole read succeeded (TraceSink's contract).
template <typename ReadInto>
Result<ReadReport> MeasuredRead(TraceSink& sink, const ReadInto& read_into) {
  ResolutionSink measured(sink);
  ASSIGN_OR_RETURN(ReadReport report, read_into(measured));
  report.time_resolution_ns = measured.resolution_ns();
  RETURN_IF_ERROR(measured.OnFinish());
  return report;
}

}  // namespace

Result<ReadReport> ReadInput(const std::filesystem::path& path, std::string_view display_name,
                             InputKind kind, TraceSink& sink) {
  return MeasuredRead(
      sink, [&](TraceSink& measured) { return ReadKind(path, display_name, kind, measured); });
}

Result<ReadReport> ReadInput(const TraceInput& input, TraceSink& sink) {
  if (!input.bytes) return ReadInput(input.path, input.display_name, input.kind, sink);
  return MeasuredRead(sink, [&](TraceSink& measured) {
    return ReadKindOfBytes(*input.bytes, input.display_name, input.kind, measured);
  });
}

Result<ReadReport> ReadGpuSide(const TraceInput& input, TraceSink& sink, TableScan scan) {
  if (!ReadByQueries(input.kind)) return ReadInput(input, sink);
  return ReadNsysSqliteGpuSide(input.path, input.display_name, sink, scan);
}

Result<ReadReport> ReadLaunchSide(const TraceInput& input, TraceSink& sink, TableScan scan) {
  if (!ReadByQueries(input.kind)) return ReadInput(input, sink);
  return ReadNsysSqliteLaunchSide(input.path, input.display_name, sink, scan);
}

Result<std::optional<int64_t>> RankStatedInFile(const std::filesystem::path& path,
                                                std::string_view display_name, InputKind kind) {
  if (!IsPyTorchProfilerTrace(kind)) return std::optional<int64_t>();
  return KinetoRankOfFile(path, display_name);
}

}  // namespace stepstat
