// `stepstat diff --format html`: the before/after page (stepstat/html_report.h).
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "stepstat/html_report.h"

namespace stepstat::cli {

int EmitDiffHtml(const DiffRun& run, const std::vector<std::string>& sides,
                 const std::string& output) {
  // The page shows the comparison asked for, rebuilt from what was compared (not argv), so
  // the same request gives the same bytes.
  std::string line = "stepstat diff";
  for (const std::string& side : sides) line += " " + side;
  if (sides.empty()) line += " --base " + run.diff.base.label + " --cand " + run.diff.cand.label;
  line += " --format html -o " + output;
  const int written = Emit(DiffToHtml(run, line), output);
  if (written != 0) return written;
  return run.diff.gates_failed() ? 1 : 0;
}

}  // namespace stepstat::cli
