// An nsys output base: the name `nsys stats --output BASE` gives its reports, each written as
// BASE_<report>.csv (perhaps compressed). The one place that knows those names: every command
// finds a base's files, and names a file's base, through it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stepstat {

/// The reports of one base that stepstat reads, each the first that exists of its names.
struct NsysBaseFiles {
  /// BASE_cuda_gpu_trace.csv, or BASE_gputrace.csv (its name before nsys 2021.2).
  std::optional<std::string> gpu_trace;
  /// BASE_cuda_kern_exec_trace.csv (each launch with its kernel), else BASE_cuda_api_trace.csv.
  std::optional<std::string> launches;
  /// BASE_nvtx_pushpop_trace.csv: the NVTX ranges that cut the run into steps.
  std::optional<std::string> step_ranges;
};

/// The files of base `base`; each may be plain, .gz or .zst (the plain file first).
NsysBaseFiles FindNsysBaseFiles(const std::string& base);

/// The base that file name `name` is the GPU trace of ("dir/run" for
/// "dir/run_cuda_gpu_trace.csv.gz"); empty when it is not one.
std::string NsysBaseOfGpuTrace(std::string_view name);

/// What a run in file `file_name` is called: the name without the extensions and report
/// suffixes stepstat reads ("run" for run_cuda_gpu_trace.csv, run.sqlite, run.nsys-rep or
/// run.pt.trace.json.gz).
std::string RunNameOf(std::string_view file_name);

}  // namespace stepstat
