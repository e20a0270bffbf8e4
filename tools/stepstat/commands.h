// One function per subcommand registers its flags on the app; cli.cc owns nothing else.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "stepstat/engine_compare.h"
#include "stepstat/policy.h"
#include "stepstat/status.h"
#include "stepstat/step_stats.h"

namespace CLI {
class App;
}

namespace stepstat::cli {

/// What a parsed subcommand runs; returns the process exit code (0 ok, 2 error).
using Action = std::function<int()>;

/// Each adds its subcommand to `app` and, when that subcommand is parsed, sets `action`.
void AddSummarizeCommand(CLI::App& app, Action& action);
void AddSynthCommand(CLI::App& app, Action& action);
void AddClassifyCommand(CLI::App& app, Action& action);
void AddPoliciesCommand(CLI::App& app, Action& action);
void AddStepsCommand(CLI::App& app, Action& action);
void AddDiffCommand(CLI::App& app, Action& action);
/// record, history, baseline: the run ledger.
void AddHistoryCommands(CLI::App& app, Action& action);
/// report: the HTML page (cmd_report.cc).
void AddReportCommand(CLI::App& app, Action& action);
/// `diff --format html` (cmd_diff_html.cc): writes the page; the exit code as diff's.
int EmitDiffHtml(const DiffRun& run, const std::vector<std::string>& sides,
                 const std::string& output);
/// ranks, merge: a job of many ranks.
void AddRanksCommands(CLI::App& app, Action& action);

}  // namespace stepstat::cli
