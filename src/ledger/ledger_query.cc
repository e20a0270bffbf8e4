// Reading the ledger: runs, references, baselines, and a run as a diff side.
#include <fmt/format.h>

#include <charconv>

#include "ledger/ledger_internal.h"
#include "ledger/sqlite_statement.h"

namespace stepstat {
namespace {

constexpr const char* kRunColumns =
    "SELECT id, label, recorded_at, git_commit, gpu, policy_name, policy_hash, input_hash, "
    "tool_version, note, (SELECT count(DISTINCT step) FROM steps WHERE run_id = runs.id) "
    "FROM runs ";

RunInfo ReadRun(const Statement& row) {
  RunInfo run;
  run.id = row.Int(0);
  run.label = row.Text(1);
  run.recorded_at = row.Text(2);
  run.git_commit = row.OptionalText(3);
  run.gpu = row.Text(4);
  run.policy_name = row.Text(5);
  run.policy_hash = row.Text(6);
  run.input_hash = row.Text(7);
  run.tool_version = row.Text(8);
  run.note = row.Text(9);
  run.step_count = row.Int(10);
  return run;
}

Status AddTags(sqlite3* db, const std::string& path, RunInfo* run) {
  Statement tags(db, path, "SELECT key, value FROM tags WHERE run_id = ? ORDER BY key");
  tags.Bind(1, run->id);
  while (tags.Step()) run->tags.emplace_back(tags.Text(0), tags.Text(1));
  return tags.status();
}

constexpr std::string_view kReferenceForms = "@ID, @latest, @prev, label:L or baseline:NAME";

}  // namespace

Result<std::optional<RunInfo>> Ledger::PreviousRun(std::string_view label,
                                                   std::optional<int64_t> before) {
  std::string sql =
      std::string(kRunColumns) + "WHERE label = ? AND id < ? ORDER BY id DESC LIMIT 1";
  Statement query(impl_->db, impl_->path, sql.c_str());
  query.Bind(1, label).Bind(2, before.value_or(INT64_MAX));
  if (!query.Step()) {
    RETURN_IF_ERROR(query.status());
    return std::optional<RunInfo>();
  }
  RunInfo run = ReadRun(query);
  RETURN_IF_ERROR(AddTags(impl_->db, impl_->path, &run));
  return std::optional<RunInfo>(std::move(run));
}

Result<std::vector<RunInfo>> Ledger::ListRuns(std::string_view label_glob) {
  std::string sql = std::string(kRunColumns) + "WHERE label GLOB ? ORDER BY id";
  Statement query(impl_->db, impl_->path, sql.c_str());
  query.Bind(1, label_glob);
  std::vector<RunInfo> runs;
  while (query.Step()) runs.push_back(ReadRun(query));
  RETURN_IF_ERROR(query.status());
  for (RunInfo& run : runs) RETURN_IF_ERROR(AddTags(impl_->db, impl_->path, &run));
  return runs;
}

Result<int64_t> Ledger::ResolveReference(std::string_view reference) {
  std::string sql;
  std::string argument;
  std::string what = fmt::format("\"{}\"", reference);
  if (reference == "@latest") {
    sql = "SELECT id FROM runs ORDER BY id DESC LIMIT 1";
    what = "@latest: the ledger has no runs";
  } else if (reference == "@prev") {
    sql = "SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET 1";
    what = "@prev: the ledger has fewer than two runs";
  } else if (reference.starts_with("@")) {
    int64_t id = 0;
    std::string_view digits = reference.substr(1);
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
      return Status::Error(
          fmt::format("\"{}\" is not a ledger reference ({})", reference, kReferenceForms));
    }
    sql = "SELECT id FROM runs WHERE id = ?";
    argument = std::to_string(id);
    what = fmt::format("no run {} in the ledger", reference);
  } else if (reference.starts_with("label:")) {
    sql = "SELECT id FROM runs WHERE label = ? ORDER BY id DESC LIMIT 1";
    argument = std::string(reference.substr(6));
    what = fmt::format("no run labeled \"{}\" in the ledger", argument);
  } else if (reference.starts_with("baseline:")) {
    sql = "SELECT run_id FROM baselines WHERE name = ?";
    argument = std::string(reference.substr(9));
    what = fmt::format("no baseline \"{}\" in the ledger", argument);
  } else {
    return Status::Error(
        fmt::format("\"{}\" is not a ledger reference ({})", reference, kReferenceForms));
  }
  Statement query(impl_->db, impl_->path, sql.c_str());
  if (!argument.empty()) query.Bind(1, argument);
  if (query.Step()) return query.Int(0);
  RETURN_IF_ERROR(query.status());
  return Status::Error(fmt::format("{}: {}", impl_->path, what));
}

Result<Side> Ledger::LoadRunAsSide(int64_t run_id) {
  Statement run(impl_->db, impl_->path,
                "SELECT summary_json, warmup_steps, label, gpu, policy_name, input_hash "
                "FROM runs WHERE id = ?");
  run.Bind(1, run_id);
  if (!run.Step()) {
    RETURN_IF_ERROR(run.status());
    return Status::Error(fmt::format("{}: no run @{}", impl_->path, run_id));
  }
  std::string label = fmt::format("@{} ({})", run_id, run.Text(2));
  ASSIGN_OR_RETURN(Side side, SideFromJson(run.Text(0), label));
  side.meta.gpu = run.Text(3);
  side.meta.policy_name = run.Text(4);
  side.meta.input_hash = run.Text(5);
  const int64_t warmup_steps = run.Int(1);

  Statement steps(impl_->db, impl_->path,
                  "SELECT step, metric, value FROM steps WHERE run_id = ? ORDER BY step");
  steps.Bind(1, run_id);
  std::vector<StepValue> values;
  while (steps.Step()) values.push_back({steps.Int(0), steps.Text(1), steps.Double(2)});
  RETURN_IF_ERROR(steps.status());
  AddStepValues(values, warmup_steps, &side);

  Statement kernels(impl_->db, impl_->path,
                    "SELECT name, component, calls, total_ns, durations FROM kernels "
                    "WHERE run_id = ?");
  kernels.Bind(1, run_id);
  while (kernels.Step()) {
    const int64_t calls = kernels.Int(2);
    ASSIGN_OR_RETURN(std::vector<ValueCount> durations,
                     DecodeDurations(kernels.Text(4), calls, impl_->path));
    side.meta.kernels[kernels.Text(0)] = {calls, kernels.Int(3), kernels.Text(1),
                                          std::move(durations)};
  }
  RETURN_IF_ERROR(kernels.status());
  // A run recorded before the ledger kept kernels (schema 1) has none: not "complete".
  side.meta.kernels_complete = !side.meta.kernels.empty();
  return side;
}

Status Ledger::SetBaseline(std::string_view name, int64_t run_id) {
  ASSIGN_OR_RETURN(int64_t id, ResolveReference(fmt::format("@{}", run_id)));
  Statement set(impl_->db, impl_->path,
                "INSERT INTO baselines (name, run_id, set_at) VALUES (?, ?, "
                "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) ON CONFLICT (name) DO UPDATE SET "
                "run_id = excluded.run_id, set_at = excluded.set_at");
  set.Bind(1, name).Bind(2, id);
  set.Step();
  return set.status();
}

Result<std::vector<Baseline>> Ledger::ListBaselines() {
  Statement query(impl_->db, impl_->path,
                  "SELECT name, run_id, set_at FROM baselines ORDER BY name");
  std::vector<Baseline> baselines;
  while (query.Step()) baselines.push_back({query.Text(0), query.Int(1), query.Text(2)});
  RETURN_IF_ERROR(query.status());
  return baselines;
}

}  // namespace stepstat
