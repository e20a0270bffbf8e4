#include "command_support.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "progress_on_stderr.h"
#include "stepstat/output.h"
#include "stepstat/platform.h"

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

std::filesystem::path OutputToRefuse(const std::string& output) {
  return output == "-" ? std::filesystem::path() : PathFromUtf8(output);
}

int Fail(const Status& status) {
  StopProgress();
  std::fprintf(stderr, "stepstat: %s\n", status.message().c_str());
  return 2;
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  StopProgress();
  for (const std::string& warning : warnings) {
    std::fprintf(stderr, "stepstat: warning: %s\n", OneLineMessage(warning).c_str());
  }
}

int EmitStreamed(const std::function<void(const std::function<void(std::string_view)>&)>& produce,
                 const std::string& output) {
  StopProgress();
  if (output == "-") {
    bool ok = true;
    produce([&ok](std::string_view piece) { ok = ok && WriteStdout(piece); });
    return ok ? 0 : 2;
  }
  Result<std::unique_ptr<AtomicFileWriter>> file = AtomicFileWriter::Open(PathFromUtf8(output));
  if (!file.ok()) return Fail(file.status());
  produce([&file](std::string_view piece) { file.value()->Append(piece); });
  Status written = file.value()->Commit();
  return written.ok() ? 0 : Fail(written);
}

int Emit(std::string_view text, const std::string& output) {
  StopProgress();
  if (output == "-") return WriteStdout(text) ? 0 : 2;
  Status written = WriteFileAtomically(PathFromUtf8(output), text);
  return written.ok() ? 0 : Fail(written);
}

void PrintPolicyHint(const std::optional<PolicyHint>& hint) {
  StopProgress();
  if (hint) std::fprintf(stderr, "stepstat: %s\n", OneLineMessage(hint->Message()).c_str());
}

void PrintJobPolicyHint(const std::optional<PolicyHint>& hint, const std::string& trace,
                        size_t hinted_traces) {
  StopProgress();
  if (!hint) return;
  // "hint: X % of kernel time ..." becomes "hint: TRACE (the worst of N traces over 30 %):
  // X % of kernel time ...": one line for the job, not one per trace.
  std::string message = hint->Message();
  const std::string_view prefix = "hint: ";
  if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  const std::string which = hinted_traces > 1 ? fmt::format(" (the worst of {} traces over {:g} %)",
                                                            hinted_traces, kPolicyHintOtherPercent)
                                              : std::string();
  std::fprintf(stderr, "stepstat: %s\n",
               OneLineMessage(fmt::format("hint: {}{}: {}", trace, which, message)).c_str());
}

}  // namespace stepstat::cli
