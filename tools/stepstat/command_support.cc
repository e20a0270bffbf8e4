#include "command_support.h"

#include <cstdio>
#include <filesystem>

#include "io/atomic_file.h"
#include "io/terminal.h"
#include "stepstat/input_checks.h"

namespace stepstat::cli {

OutputFormat ChooseFormat(const std::string& flag, const std::string& output) {
  if (flag == "table") return OutputFormat::kTable;
  if (flag == "markdown") return OutputFormat::kMarkdown;
  if (flag == "json") return OutputFormat::kJson;
  return output == "-" && StdoutIsTerminal() ? OutputFormat::kTable : OutputFormat::kJson;
}

TextStyle StdoutTextStyle() { return TextStyle{TerminalAllowsUnicode()}; }

Result<Policy> ChoosePolicy(const std::string& choice) {
  if (choice.empty()) return BuiltinPolicy(kDefaultPolicyName);
  std::error_code ec;
  if (!std::filesystem::exists(choice, ec)) {
    for (std::string_view name : BuiltinPolicyNames()) {
      if (name == choice) return BuiltinPolicy(name);
    }
  }
  return LoadPolicyFile(choice);
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

}  // namespace stepstat::cli
