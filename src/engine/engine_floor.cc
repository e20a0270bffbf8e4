// The noise floor from the ledger: a label's runs of one code (same commit or same tag)
// measure the run-to-run noise that the configured 2 % only guesses.
#include <fmt/format.h>

#include "engine/engine_sides.h"
#include "stepstat/compare_stats.h"

namespace stepstat {
namespace {

/// `text` as a GLOB pattern that matches only itself.
std::string GlobLiteral(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[') {
      out += '[';
      out += c;
      out += ']';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

Status ApplyMeasuredFloor(Ledger& ledger, const std::string& label, DiffOptions* options) {
  if (options->noise_floor_source != "configured" || label.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(std::vector<RunInfo> runs, ledger.ListRuns(GlobLiteral(label)));
  std::vector<RunOfCode> spans;
  for (const RunInfo& run : runs) {
    ASSIGN_OR_RETURN(Side side, ledger.LoadRunAsSide(run.id));
    const MetricValues* span = side.Find("gpu_span_ns");
    if (!span) continue;
    double value = !span->steps.empty() ? Median(span->steps) : span->run.value_or(0);
    spans.push_back({run.git_commit, run.tags, value});
  }
  if (std::optional<MeasuredFloor> floor = MeasureNoiseFloor(spans)) {
    options->noise_floor_pct = floor->percent;
    options->noise_floor_source = "measured";
    options->noise_floor_how = fmt::format("label {}: {}", label, floor->how);
  }
  return Status::Ok();
}

Result<std::string> LabelOfRun(Ledger& ledger, int64_t id) {
  ASSIGN_OR_RETURN(std::vector<RunInfo> runs, ledger.ListRuns("*"));
  for (const RunInfo& run : runs) {
    if (run.id == id) return run.label;
  }
  return std::string();
}

}  // namespace stepstat
