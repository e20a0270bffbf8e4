#include "command_support.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/input_checks.h"
#include "stepstat/output.h"

namespace stepstat::cli {

OutputFormat ChooseFormat(const std::string& flag, const std::string& output) {
  if (flag == "table") return OutputFormat::kTable;
  if (flag == "markdown") return OutputFormat::kMarkdown;
  if (flag == "json") return OutputFormat::kJson;
  if (flag == "csv") return OutputFormat::kCsv;
  return output == "-" && StdoutIsTerminal() ? OutputFormat::kTable : OutputFormat::kJson;
}

TextStyle StdoutTextStyle(const std::string& output) {
  return TextStyle{TerminalAllowsUnicode(), output == "-" ? StdoutColumns() : 0};
}

Result<Policy> ChoosePolicy(const std::string& choice) {
  if (choice.empty()) return BuiltinPolicy(kDefaultPolicyName);
  std::error_code ec;
  if (!std::filesystem::exists(choice, ec)) {
    std::string names;
    for (std::string_view name : BuiltinPolicyNames()) {
      if (name == choice) return BuiltinPolicy(name);
      names += (names.empty() ? "" : ", ") + std::string(name);
    }
    // Neither a file nor a built-in name: a typo of either, so say what the names are.
    return ErrorAt(choice, 0,
                   "no such policy file, and no built-in policy of that name (built-in: " + names +
                       "; `stepstat policies` describes them)");
  }
  return LoadPolicyFile(choice);
}

Status RefuseOutputOverInput(const std::string& output,
                             const std::vector<std::filesystem::path>& inputs) {
  if (output == "-") return Status::Ok();
  namespace fs = std::filesystem;
  std::error_code ec;
  // equivalent() follows symbolic links and sees hard links: the same file by any name.
  // An output that does not exist yet cannot be an input.
  if (!fs::exists(output, ec)) return Status::Ok();
  for (const fs::path& input : inputs) {
    std::error_code same_ec;
    if (fs::equivalent(output, input, same_ec)) {
      return ErrorAt(output, 0,
                     "is an input of this run (" + input.string() +
                         "); writing the result there would destroy it: choose another -o");
    }
  }
  return Status::Ok();
}

std::vector<std::filesystem::path> InputFiles(const SummaryInputs& inputs) {
  std::vector<std::filesystem::path> files = {inputs.gpu.path};
  if (inputs.launches) files.push_back(inputs.launches->path);
  // A .nsys-rep is read through its SQLite export beside it: that file is an input too.
  if (inputs.gpu.kind == InputKind::kNsysRep) {
    files.push_back(std::filesystem::path(inputs.gpu.path).replace_extension(".sqlite"));
  }
  return files;
}

int Fail(const Status& status) {
  std::fprintf(stderr, "stepstat: %s\n", status.message().c_str());
  return 2;
}

Result<std::vector<std::string>> CheckInputWarnings(const SummaryInputs& inputs) {
  ASSIGN_OR_RETURN(InputCheckReport checks, CheckInputs(inputs));
  return std::move(checks.warnings);
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    std::fprintf(stderr, "stepstat: warning: %s\n", OneLineMessage(warning).c_str());
  }
}

int EmitStreamed(const std::function<void(const std::function<void(std::string_view)>&)>& produce,
                 const std::string& output) {
  if (output == "-") {
    bool ok = true;
    produce([&ok](std::string_view piece) { ok = ok && WriteStdout(piece); });
    return ok ? 0 : 2;
  }
  Result<std::unique_ptr<AtomicFileWriter>> file = AtomicFileWriter::Open(output);
  if (!file.ok()) return Fail(file.status());
  produce([&file](std::string_view piece) { file.value()->Append(piece); });
  Status written = file.value()->Commit();
  return written.ok() ? 0 : Fail(written);
}

int Emit(std::string_view text, const std::string& output) {
  if (output == "-") return WriteStdout(text) ? 0 : 2;
  Status written = WriteFileAtomically(output, text);
  return written.ok() ? 0 : Fail(written);
}

void PrintPolicyHint(const Result<std::optional<PolicyHint>>& hint) {
  if (hint.ok() && hint->has_value())
    std::fprintf(stderr, "stepstat: %s\n", OneLineMessage(hint.value()->Message()).c_str());
}

Result<std::vector<KernelDetails>> ListKernelsOfArgs(const std::vector<std::string>& args,
                                                     const Policy& policy, std::string* source) {
  // As cmd_classify.cc resolves its inputs: a cuda_gpu_kern_sum report alone holds all it needs.
  std::error_code ec;
  if (args.size() == 1 && std::filesystem::is_regular_file(args.front(), ec)) {
    ASSIGN_OR_RETURN(InputKind kind, DetectInputKind(args.front(), args.front()));
    if (kind == InputKind::kNsysGpuKernSumCsv) {
      *source = args.front();
      return ListKernelsOfSummary(TraceInput{args.front(), args.front(), kind}, policy);
    }
  }
  ASSIGN_OR_RETURN(SummaryInputs inputs, ResolveInputs(args));
  *source = inputs.gpu.display_name;
  return ListKernels(inputs, policy);
}

}  // namespace stepstat::cli
