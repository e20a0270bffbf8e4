// What several subcommands share: choosing an output format, writing the result and
// reporting failure (the engine, stepstat/engine.h, does the rest). Each of these erases
// the progress line first (progress_on_stderr.h).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/policy_coverage.h"
#include "stepstat/report.h"
#include "stepstat/status.h"

namespace stepstat::cli {

enum class OutputFormat { kTable, kJson, kMarkdown, kCsv };

/// --format as given, or (empty) the default: a table when the output is a terminal
/// (`output` is "-" and stdout is a tty), JSON otherwise.
OutputFormat ChooseFormat(const std::string& flag, const std::string& output);

/// How text tables may draw on this stdout (Unicode bars unless the locale or NO_COLOR /
/// TERM=dumb says otherwise) and the width they must fit; a table written to a file
/// (`output` not "-") keeps every column.
TextStyle StdoutTextStyle(const std::string& output = "-");

/// RunOptions::output for -o: nothing to refuse for stdout ("-").
std::filesystem::path OutputToRefuse(const std::string& output);

/// Prints "stepstat: <message>" on stderr; returns the exit code 2.
int Fail(const Status& status);

/// Prints each warning as "stepstat: warning: <what>" on stderr.
void PrintWarnings(const std::vector<std::string>& warnings);

/// Writes `text` to stdout ("-") or atomically to a file; returns the exit code.
int Emit(std::string_view text, const std::string& output);
/// The same for text that `produce` hands out in pieces (a file still appears whole).
int EmitStreamed(const std::function<void(const std::function<void(std::string_view)>&)>& produce,
                 const std::string& output);

/// Prints the engine's policy hint, if any, as "stepstat: hint: ..." on stderr.
void PrintPolicyHint(const std::optional<PolicyHint>& hint);
/// The job's one hint line: the worst trace's hint, named, and how many traces had one.
void PrintJobPolicyHint(const std::optional<PolicyHint>& hint, const std::string& trace,
                        size_t hinted_traces);

}  // namespace stepstat::cli
