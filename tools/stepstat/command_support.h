// What several subcommands share: choosing a policy, choosing an output format, writing
// the result and reporting failure.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/policy_coverage.h"
#include "stepstat/report.h"
#include "stepstat/status.h"
#include "stepstat/step_stats.h"

namespace stepstat::cli {

enum class OutputFormat { kTable, kJson, kMarkdown, kCsv };

/// --format as given, or (empty) the default: a table when the output is a terminal
/// (`output` is "-" and stdout is a tty), JSON otherwise.
OutputFormat ChooseFormat(const std::string& flag, const std::string& output);

/// How text tables may draw on this stdout (Unicode bars unless the locale or NO_COLOR /
/// TERM=dumb says otherwise) and the width they must fit; a table written to a file
/// (`output` not "-") keeps every column.
TextStyle StdoutTextStyle(const std::string& output = "-");

/// --policy takes a file, or the name of a built-in policy when no such file exists.
Result<Policy> ChoosePolicy(const std::string& choice);

/// An error when `output` (a file, not "-") is one of `inputs` after following links: the
/// result must never overwrite the trace it was computed from.
Status RefuseOutputOverInput(const std::string& output,
                             const std::vector<std::filesystem::path>& inputs);

/// The files a summary reads (for RefuseOutputOverInput).
std::vector<std::filesystem::path> InputFiles(const SummaryInputs& inputs);

/// Prints "stepstat: <message>" on stderr; returns the exit code 2.
int Fail(const Status& status);

/// CheckInputs' warnings, to be said once the command has succeeded (a failing command says
/// one line: its error); an error when the inputs are refused.
Result<std::vector<std::string>> CheckInputWarnings(const SummaryInputs& inputs);

/// Prints each warning as "stepstat: warning: <what>" on stderr.
void PrintWarnings(const std::vector<std::string>& warnings);

/// Prints SuggestBuiltinPolicy's hint, if any, as "stepstat: hint: ..." on stderr. Failing to
/// compute one is no failure of the command: it prints nothing.
void PrintPolicyHint(const Result<std::optional<PolicyHint>>& hint);

/// The distinct kernel names of INPUT arguments, as `classify` reads them: a trace or nsys base
/// (its GPU side), or an nsys cuda_gpu_kern_sum report given alone. `source` names the GPU side.
Result<std::vector<KernelDetails>> ListKernelsOfArgs(const std::vector<std::string>& args,
                                                     const Policy& policy, std::string* source);

/// Writes `text` to stdout ("-") or atomically to a file; returns the exit code.
int Emit(std::string_view text, const std::string& output);
/// The same for text that `produce` hands out in pieces (a file still appears whole).
int EmitStreamed(const std::function<void(const std::function<void(std::string_view)>&)>& produce,
                 const std::string& output);

}  // namespace stepstat::cli
