// INPUT arguments → the files of one summary. A file's kind comes from its content; a name
// that is not a file is taken as an nsys output base, as `nsys stats --output <base>` writes.
#include "readers/inputs.h"

#include <filesystem>
#include <system_error>

#include "readers/csv/nsys_csv_header.h"
#include "readers/input_source.h"
#include "readers/nsys_base.h"
#include "readers/sqlite/nsys_rep.h"
#include "stepstat/platform.h"
#include "stepstat/step_stats.h"

namespace stepstat {

namespace {

namespace fs = std::filesystem;

bool IsFile(const std::string& name) {
  std::error_code ec;
  return fs::is_regular_file(PathFromUtf8(name), ec);
}

Result<TraceInput> Detected(const std::string& name) {
  ASSIGN_OR_RETURN(InputKind kind, DetectInputKind(PathFromUtf8(name), name));
  return TraceInput{PathFromUtf8(name), name, kind};
}

}  // namespace

Result<std::vector<TraceInput>> ResolveInputFiles(const std::vector<std::string>& args) {
  std::vector<TraceInput> files;
  for (const std::string& arg : args) {
    if (IsFile(arg)) {
      ASSIGN_OR_RETURN(TraceInput input, Detected(arg));
      files.push_back(std::move(input));
      continue;
    }
    const NsysBaseFiles base = FindNsysBaseFiles(arg);
    if (!base.gpu_trace) {
      std::error_code ec;
      if (fs::exists(PathFromUtf8(arg), ec)) return ErrorAt(arg, 0, "not a regular file");
      // A name with an extension was meant as a file, not as an nsys output base.
      if (PathFromUtf8(arg).has_extension()) return ErrorAt(arg, 0, "no such file");
      return ErrorAt(arg, 0,
                     "no such file, and no nsys output " + arg +
                         "_cuda_gpu_trace.csv (or .csv.gz, .csv.zst) beside it");
    }
    ASSIGN_OR_RETURN(TraceInput gpu_input, Detected(*base.gpu_trace));
    files.push_back(std::move(gpu_input));
    if (base.launches) {
      ASSIGN_OR_RETURN(TraceInput launch_input, Detected(*base.launches));
      files.push_back(std::move(launch_input));
    }
  }
  return files;
}

Result<TraceInput> InMemoryInput(const std::string& name, std::string_view bytes) {
  // Named by what it would be called on disk: a .nsys-rep is no format of its own bytes.
  if (IsNsysRepPath(fs::path(name))) {
    return ErrorAt(name, 0, NotReadableInMemory(InputKind::kNsysRep));
  }
  ASSIGN_OR_RETURN(InputKind kind, DetectInputKindOfBytes(bytes, name));
  if (kind == InputKind::kNsysSqlite) return ErrorAt(name, 0, NotReadableInMemory(kind));
  return TraceInput{fs::path(), name, kind, bytes};
}

Result<SummaryInputs> AssignInputRoles(std::vector<TraceInput> files, std::string_view first_name) {
  SummaryInputs inputs;
  std::optional<TraceInput> gpu;
  for (TraceInput& file : files) {
    switch (file.kind) {
      case InputKind::kNsysSqlite:
      case InputKind::kNsysRep:
      case InputKind::kKinetoJson:
        if (files.size() != 1) {
          return ErrorAt(file.display_name, 0,
                         "holds both GPU operations and launch calls; give it on its own");
        }
        [[fallthrough]];
      case InputKind::kNsysGpuTraceCsv:
        if (gpu) {
          return ErrorAt(file.display_name, 0,
                         "a second GPU trace (the first is " + gpu->display_name + ")");
        }
        gpu = std::move(file);
        break;
      case InputKind::kNsysKernExecTraceCsv:
      case InputKind::kNsysApiTraceCsv:
        if (inputs.launches) {
          return ErrorAt(
              file.display_name, 0,
              "a second launch source (the first is " + inputs.launches->display_name + ")");
        }
        inputs.launches = std::move(file);
        break;
      case InputKind::kNsysGpuKernSumCsv:
        return ErrorAt(file.display_name, 0, SummaryIsNotATrace("cuda_gpu_kern_sum"));
      case InputKind::kNsysNvtxTraceCsv:
        return ErrorAt(
            file.display_name, 0,
            "an NVTX trace marks steps, it holds no GPU operations; use it with `stepstat steps`");
    }
  }
  // A kern-exec trace alone carries each kernel's start and duration too.
  if (!gpu && inputs.launches && inputs.launches->kind == InputKind::kNsysKernExecTraceCsv) {
    gpu = std::move(inputs.launches);
    inputs.launches.reset();
  }
  if (!gpu) {
    constexpr std::string_view kNeed =
        "no GPU trace among the inputs (need a cuda_gpu_trace CSV, an nsys SQLite export or a "
        "PyTorch profiler trace)";
    // Messages are printed after "stepstat: ": with no file to name, name none.
    if (first_name.empty()) return Status::Error(std::string(kNeed));
    return ErrorAt(first_name, 0, kNeed);
  }
  inputs.gpu = std::move(*gpu);
  return inputs;
}

Result<SummaryInputs> ResolveInputs(const std::vector<std::string>& args) {
  ASSIGN_OR_RETURN(std::vector<TraceInput> files, ResolveInputFiles(args));
  return AssignInputRoles(std::move(files), args.empty() ? std::string_view() : args.front());
}

}  // namespace stepstat
