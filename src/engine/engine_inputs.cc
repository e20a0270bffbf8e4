// Inputs given as paths go through ResolveInputs / ResolveStepsInputs unchanged, so the CLI
// resolves (and words its errors) exactly as before the engine; inputs in memory join the
// files after them and are put in their roles by the same rules.
#include "engine/engine_inputs.h"

#include <string>
#include <system_error>
#include <utility>

#include "readers/input_traits.h"
#include "readers/inputs.h"

namespace stepstat {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> PathArgs(const RunOptions& options) {
  std::vector<std::string> args;
  args.reserve(options.inputs.size());
  for (const fs::path& input : options.inputs) args.push_back(input.string());
  return args;
}

// The paths' files, then the inputs in memory; and the name of the first input of all.
Result<std::vector<TraceInput>> AllInputs(const RunOptions& options, std::string& first_name) {
  std::vector<std::string> args = PathArgs(options);
  ASSIGN_OR_RETURN(std::vector<TraceInput> files, ResolveInputFiles(args));
  for (const InputBytes& in_memory : options.input_bytes) {
    ASSIGN_OR_RETURN(TraceInput input, InMemoryInput(in_memory.name, in_memory.bytes));
    files.push_back(std::move(input));
  }
  first_name = !args.empty()                  ? args.front()
               : !options.input_bytes.empty() ? options.input_bytes.front().name
                                              : std::string();
  return files;
}

}  // namespace

Result<SummaryInputs> ResolveSummaryInputs(const RunOptions& options) {
  if (options.input_bytes.empty()) return ResolveInputs(PathArgs(options));
  std::string first_name;
  ASSIGN_OR_RETURN(std::vector<TraceInput> files, AllInputs(options, first_name));
  return AssignInputRoles(std::move(files), first_name);
}

Result<StepsInputs> ResolveStepsRunInputs(const RunOptions& options) {
  if (options.input_bytes.empty()) return ResolveStepsInputs(PathArgs(options));
  std::string first_name;
  ASSIGN_OR_RETURN(std::vector<TraceInput> files, AllInputs(options, first_name));
  StepsInputs inputs;
  std::vector<TraceInput> trace;
  for (TraceInput& file : files) {
    if (!IsStepRanges(file.kind)) {
      trace.push_back(std::move(file));
    } else if (inputs.ranges) {
      return ErrorAt(file.display_name, 0,
                     "a second NVTX trace (the first is " + inputs.ranges->display_name + ")");
    } else {
      inputs.ranges = std::move(file);
    }
  }
  if (trace.empty() && inputs.ranges) {
    return ErrorAt(inputs.ranges->display_name, 0,
                   "an NVTX trace only marks the steps; give the run's GPU trace too");
  }
  ASSIGN_OR_RETURN(inputs.trace, AssignInputRoles(std::move(trace), first_name));
  return inputs;
}

Result<SummaryInputs> ResolveKernelsInputs(const RunOptions& options) {
  // A cuda_gpu_kern_sum report, given on its own, holds all that classify needs; anything
  // else resolves as for a summary (which refuses a kern_sum, saying why).
  const size_t count = options.inputs.size() + options.input_bytes.size();
  std::optional<TraceInput> alone;
  std::error_code ec;
  if (count == 1 && !options.inputs.empty() && fs::is_regular_file(options.inputs.front(), ec)) {
    const std::string name = options.inputs.front().string();
    ASSIGN_OR_RETURN(InputKind kind, DetectInputKind(name, name));
    alone = TraceInput{name, name, kind};
  } else if (count == 1 && !options.input_bytes.empty()) {
    const InputBytes& in_memory = options.input_bytes.front();
    ASSIGN_OR_RETURN(alone, InMemoryInput(in_memory.name, in_memory.bytes));
  }
  if (alone && IsKernelSummary(alone->kind)) {
    SummaryInputs inputs;
    inputs.gpu = std::move(*alone);
    return inputs;
  }
  return ResolveSummaryInputs(options);
}

std::vector<fs::path> InputFiles(const StepsInputs& inputs) {
  std::vector<fs::path> files;
  auto add = [&files](const TraceInput& input) {
    if (!input.bytes) files.push_back(input.path);
  };
  add(inputs.trace.gpu);
  if (inputs.trace.launches) add(*inputs.trace.launches);
  if (ExportedBeforeReading(inputs.trace.gpu.kind)) {
    files.push_back(fs::path(inputs.trace.gpu.path).replace_extension(".sqlite"));
  }
  if (inputs.ranges) add(*inputs.ranges);
  return files;
}

Status RefuseOutputOverInput(const fs::path& output, const std::vector<fs::path>& inputs) {
  std::error_code ec;
  // equivalent() follows symbolic links and sees hard links: the same file by any name.
  // An output that does not exist yet cannot be an input.
  if (output.empty() || !fs::exists(output, ec)) return Status::Ok();
  for (const fs::path& input : inputs) {
    std::error_code same_ec;
    if (fs::equivalent(output, input, same_ec)) {
      return ErrorAt(output.string(), 0,
                     "is an input of this run (" + input.string() +
                         "); writing the result there would destroy it: choose another -o");
    }
  }
  return Status::Ok();
}

std::vector<ResolvedInput> DescribeInputs(const StepsInputs& inputs) {
  std::vector<ResolvedInput> described;
  auto add = [&described](const TraceInput& input, InputRole role) {
    described.push_back(
        ResolvedInput{input.display_name, input.bytes ? fs::path() : input.path, input.kind, role});
  };
  add(inputs.trace.gpu, InputRole::kGpuOperations);
  if (inputs.trace.launches) add(*inputs.trace.launches, InputRole::kLaunches);
  if (inputs.ranges) add(*inputs.ranges, InputRole::kStepRanges);
  return described;
}

}  // namespace stepstat
