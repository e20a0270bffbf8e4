// Record(): one run in one IMMEDIATE transaction. IMMEDIATE takes the write lock up front,
// so two recorders of the same inputs cannot both see "not there yet" and both insert, and
// a writer never has to upgrade a read lock (which fails at once instead of waiting).
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include "ledger/ledger_internal.h"
#include "ledger/sqlite_statement.h"

namespace stepstat {
namespace {

void (*record_hook)() = nullptr;

std::string NowUtc() {
  auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

/// The rows of one run, inside the caller's transaction.
Result<Recorded> WriteRun(sqlite3* db, const std::string& path, const RecordRequest& r) {
  Statement existing(db, path,
                     "SELECT id FROM runs WHERE input_hash = ? AND policy_hash = ? AND "
                     "tool_version = ?");
  existing.Bind(1, r.input_hash).Bind(2, r.policy_hash).Bind(3, r.tool_version);
  if (existing.Step()) return Recorded{existing.Int(0), true};
  RETURN_IF_ERROR(existing.status());

  Statement run(db, path,
                "INSERT INTO runs (label, recorded_at, git_commit, gpu, policy_name, "
                "policy_hash, input_hash, tool_version, warmup_steps, summary_json, note) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  run.Bind(1, r.label).Bind(2, NowUtc()).BindOptional(3, r.git_commit).Bind(4, r.gpu);
  run.Bind(5, r.policy_name).Bind(6, r.policy_hash).Bind(7, r.input_hash);
  run.Bind(8, r.tool_version).Bind(9, r.warmup_steps).Bind(10, r.summary_json).Bind(11, r.note);
  run.Step();
  RETURN_IF_ERROR(run.status());
  const int64_t id = sqlite3_last_insert_rowid(db);

  Statement step(db, path, "INSERT INTO steps (run_id, step, metric, value) VALUES (?, ?, ?, ?)");
  for (const StepValue& v : r.steps) {
    step.Reset();
    step.Bind(1, id).Bind(2, v.step).Bind(3, v.metric).Bind(4, v.value);
    step.Step();
    RETURN_IF_ERROR(step.status());
  }
  Statement kernel(db, path,
                   "INSERT INTO kernels (run_id, name, component, calls, total_ns, durations) "
                   "VALUES (?, ?, ?, ?, ?, ?)");
  for (const auto& [name, totals] : r.kernels) {
    kernel.Reset();
    kernel.Bind(1, id).Bind(2, name).Bind(3, totals.component).Bind(4, totals.count);
    kernel.Bind(5, totals.total_ns).Bind(6, EncodeDurations(totals.calls));
    kernel.Step();
    RETURN_IF_ERROR(kernel.status());
  }
  Statement tag(db, path, "INSERT INTO tags (run_id, key, value) VALUES (?, ?, ?)");
  for (const auto& [key, value] : r.tags) {
    tag.Reset();
    tag.Bind(1, id).Bind(2, key).Bind(3, value);
    tag.Step();
    RETURN_IF_ERROR(tag.status());
  }
  return Recorded{id, false};
}

}  // namespace

void SetRecordHookForTesting(void (*hook)()) { record_hook = hook; }

std::string Recorded::message() const {
  return fmt::format("{} as run {}", already_recorded ? "already recorded" : "recorded", run_id);
}

Result<Recorded> Ledger::Record(const RecordRequest& request) {
  if (request.input_hash.empty()) {
    return Status::Error(fmt::format("{}: a run needs its input hash", impl_->path));
  }
  sqlite3* db = impl_->db;
  RETURN_IF_ERROR(Exec(db, impl_->path, "BEGIN IMMEDIATE"));
  Result<Recorded> recorded = WriteRun(db, impl_->path, request);
  if (recorded.ok() && !recorded->already_recorded && record_hook) record_hook();
  if (!recorded.ok()) {
    (void)Exec(db, impl_->path, "ROLLBACK");
    return recorded;
  }
  if (Status commit = Exec(db, impl_->path, "COMMIT"); !commit.ok()) {
    (void)Exec(db, impl_->path, "ROLLBACK");
    return commit;
  }
  return recorded;
}

}  // namespace stepstat
