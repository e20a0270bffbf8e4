// Reading trace files of any supported format into a TraceSink. The kind of a file is
// detected from its content (header, magic bytes), never from its name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat {

enum class InputKind {
  kNsysGpuTraceCsv,       ///< nsys stats cuda_gpu_trace (older: gputrace)
  kNsysKernExecTraceCsv,  ///< nsys stats cuda_kern_exec_trace
  kNsysApiTraceCsv,       ///< nsys stats cuda_api_trace
  kNsysNvtxTraceCsv,      ///< nsys stats nvtx_pushpop_trace / nvtx_gpu_proj_trace
  kNsysSqlite,            ///< nsys export --type sqlite
  kKinetoJson,            ///< PyTorch profiler trace
  kNsysRep,               ///< .nsys-rep: read through `nsys export --type sqlite`
  /// nsys stats cuda_gpu_kern_sum: per-name totals, not a trace. Only `classify` reads it.
  kNsysGpuKernSumCsv,
};

std::string_view InputKindName(InputKind kind);

/// What a reader found out about its file, for `details` and for messages.
struct ReadReport {
  InputKind kind = InputKind::kNsysGpuTraceCsv;
  std::string layout;     ///< e.g. "2024+", "2021.2-2023", "2020-2021.1"
  std::string time_unit;  ///< unit of the start column as written: "ns", "us", "ms", "s"
  int64_t rows = 0;       ///< data rows read (header and preamble excluded)
  /// The step every start time moves in (1: ns; 1000: the file holds µs); 0 unknown. Set by
  /// ReadInput, measured on the rows (a header's unit says nothing of the digits written).
  int64_t time_resolution_ns = 0;
};

/// One input: where it is (a file, or bytes in memory), how messages and `source_*` fields
/// name it, what it holds.
struct TraceInput {
  std::filesystem::path path;  ///< unused when `bytes` is set
  std::string display_name;
  InputKind kind = InputKind::kNsysGpuTraceCsv;
  /// The input's content when it is in memory rather than in a file: plain or compressed
  /// CSV and JSON. Not for SQLite exports or .nsys-rep (SQLite and nsys open files by path).
  /// The bytes must outlive every use of this TraceInput (and of copies of it).
  std::optional<std::string_view> bytes = std::nullopt;
};

/// Sniffs the first bytes of `path`. `display_name` is how messages name the file.
Result<InputKind> DetectInputKind(const std::filesystem::path& path, std::string_view display_name);
/// The same for bytes in memory (plain or compressed).
Result<InputKind> DetectInputKindOfBytes(std::string_view bytes, std::string_view display_name);

/// Reads a whole file of a known kind into `sink`. Errors carry "<display_name>:<line>: ".
Result<ReadReport> ReadInput(const std::filesystem::path& path, std::string_view display_name,
                             InputKind kind, TraceSink& sink);
/// The same for an input that may be in memory; an SQLite export or .nsys-rep in memory is
/// refused, saying to pass its path.
Result<ReadReport> ReadInput(const TraceInput& input, TraceSink& sink);

/// The rank a trace file says it is (a PyTorch profiler trace's torch.distributed rank);
/// nullopt when its format or the file itself says none. Reads a bounded prefix.
Result<std::optional<int64_t>> RankStatedInFile(const std::filesystem::path& path,
                                                std::string_view display_name, InputKind kind);

}  // namespace stepstat
