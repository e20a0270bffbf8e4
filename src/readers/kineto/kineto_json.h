// Reader for PyTorch profiler (Kineto) JSON traces: complete ("ph": "X") events of the GPU
// categories become GpuOps; CUDA runtime/driver launch calls become LaunchCalls, joined to
// their kernels by correlation id; user annotations (ProfilerStep#N, record_function ranges)
// become CpuRanges. Times are exact: "ts"/"dur" are decimal microseconds
// converted from their JSON text, never through a double.
//
// Memory: a plain file is mapped and, when it can be cut into chunks (one event per line,
// as the profiler writes it), parsed a few MiB at a time, its pages mapped in ahead of the
// parse and released behind it, so only a window of it is resident; a compressed file is
// decompressed into one buffer, and a file that cannot be cut is parsed whole (simdjson's
// index then takes 4 bytes per JSON token). Each chunk's GPU ops, launch calls and CPU
// ranges go to external sorters (kineto_json_sorted.h): a few MiB of compact records each,
// sorted runs spilled to temporary files beyond that, merged at the end; so on a plain file
// memory does not grow with the trace.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "stepstat/read.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Reads `path` (plain, .gz or .zst) into memory and parses it like ParseKinetoJson.
Result<ReadReport> ReadKinetoJson(const std::filesystem::path& path, std::string_view display_name,
                                  TraceSink& sink);

/// The same for bytes in memory (plain or compressed), which are copied once: simdjson
/// needs padding after the document.
Result<ReadReport> ReadKinetoJsonBytes(std::string_view bytes, std::string_view display_name,
                                       TraceSink& sink);

/// Parses a whole Kineto JSON document. GPU ops reach `sink` sorted by start, then launch
/// calls sorted by API start, then CPU ranges sorted by start, in batches. May grow `json`'s
/// capacity for simdjson's padding; its contents stay as they are. GpuOp::line and LaunchCall::line
/// are the event's line.
Result<ReadReport> ParseKinetoJson(std::string& json, std::string_view display_name,
                                   TraceSink& sink);

}  // namespace stepstat
