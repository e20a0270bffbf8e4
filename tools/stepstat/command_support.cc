#include "command_support.h"

#include <cstdio>
#include <filesystem>

#include "io/atomic_file.h"
#include "io/terminal.h"

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

int Emit(std::string_view text, const std::string& output) {
  if (output == "-") return WriteStdout(text) ? 0 : 2;
  Status written = WriteFileAtomically(output, text);
  return written.ok() ? 0 : Fail(written);
}

}  // namespace stepstat::cli
