// `stepstat steps` INPUT arguments: a summary's inputs plus at most one NVTX CSV, given or
// beside an nsys base.
#include <filesystem>
#include <system_error>

#include "readers/nsys_base.h"
#include "stepstat/platform.h"
#include "stepstat/steps.h"

namespace stepstat {

Result<StepsInputs> ResolveStepsInputs(const std::vector<std::string>& args) {
  StepsInputs inputs;
  std::vector<std::string> trace_args;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(PathFromUtf8(arg), ec)) {
      ASSIGN_OR_RETURN(InputKind kind, DetectInputKind(PathFromUtf8(arg), arg));
      if (kind == InputKind::kNsysNvtxTraceCsv) {
        if (inputs.ranges) {
          return ErrorAt(arg, 0,
                         "a second NVTX trace (the first is " + inputs.ranges->display_name + ")");
        }
        inputs.ranges = TraceInput{PathFromUtf8(arg), arg, kind};
        continue;
      }
    }
    trace_args.push_back(arg);
  }
  if (trace_args.empty() && inputs.ranges) {
    // Only ranges: name that file and what is missing beside it.
    return ErrorAt(inputs.ranges->display_name, 0,
                   "an NVTX trace only marks the steps; give the run's GPU trace too (its "
                   "cuda_gpu_trace CSV or nsys base, e.g. `stepstat steps run "
                   "run_nvtx_pushpop_trace.csv`)");
  }
  ASSIGN_OR_RETURN(inputs.trace, ResolveInputs(trace_args));
  // An nsys base's NVTX report cuts its steps as if it were given, unless one was: every
  // command that cuts steps (steps, report, summarize --step, diff, record) reads the same.
  for (size_t i = 0; i < trace_args.size() && !inputs.ranges; ++i) {
    std::error_code ec;
    if (std::filesystem::exists(PathFromUtf8(trace_args[i]), ec)) continue;  // a file
    if (auto ranges = FindNsysBaseFiles(trace_args[i]).step_ranges) {
      ASSIGN_OR_RETURN(InputKind kind, DetectInputKind(PathFromUtf8(*ranges), *ranges));
      if (kind != InputKind::kNsysNvtxTraceCsv) {
        return ErrorAt(*ranges, 0, "named as nsys's nvtx_pushpop_trace report, but is not one");
      }
      inputs.ranges = TraceInput{PathFromUtf8(*ranges), *ranges, kind};
    }
  }
  return inputs;
}

}  // namespace stepstat
