// Opening a ledger: refuse what is not one (or is newer) before writing a byte, then create
// or migrate the schema in one transaction, then switch to WAL so writers do not block
// readers.
#include <fmt/format.h>

#include <chrono>
#include <system_error>
#include <thread>

#include "ledger/ledger_internal.h"
#include "ledger/sqlite_statement.h"

namespace stepstat {
namespace {

/// "SLGR" in the header's application_id: how a ledger is told from any other SQLite file.
constexpr int64_t kApplicationId = 0x534c4752;

// Version 1. Tables are STRICT so a wrong type is an error, not a silent conversion.
constexpr const char* kSchemaV1 = R"(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  git_commit TEXT,
  gpu TEXT NOT NULL,
  policy_name TEXT NOT NULL,
  policy_hash TEXT NOT NULL,
  input_hash TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  warmup_steps INTEGER NOT NULL,
  summary_json TEXT NOT NULL,
  note TEXT NOT NULL,
  UNIQUE (input_hash, policy_hash, tool_version)
) STRICT;
CREATE INDEX runs_by_label ON runs (label, id);
CREATE TABLE steps (
  run_id INTEGER NOT NULL REFERENCES runs (id),
  step INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, step, metric)
) STRICT, WITHOUT ROWID;
CREATE TABLE tags (
  run_id INTEGER NOT NULL REFERENCES runs (id),
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) STRICT;
CREATE TABLE baselines (
  name TEXT PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  set_at TEXT NOT NULL
) STRICT;
PRAGMA user_version = 1;
)";

// Version 2: each run's kernel table, so a run recorded from one capture can be judged per
// call (docs/diff.md) as `diff` judges the trace. `durations` is every call's duration as
// "ns:calls" pairs, shortest first, comma-separated.
constexpr const char* kMigrateToV2 = R"(
CREATE TABLE kernels (
  run_id INTEGER NOT NULL REFERENCES runs (id),
  name TEXT NOT NULL,
  component TEXT NOT NULL,
  calls INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,
  durations TEXT NOT NULL,
  PRIMARY KEY (run_id, name)
) STRICT, WITHOUT ROWID;
PRAGMA user_version = 2;
)";

struct Identity {
  int64_t application_id = 0;
  int64_t user_version = 0;
  int64_t tables = 0;
};

Result<Identity> ReadIdentity(sqlite3* db, const std::string& path) {
  // One statement, so one snapshot: three separate reads could straddle another writer's
  // creation of the schema and see its tables without its application_id.
  Statement query(db, path,
                  "SELECT a.application_id, v.user_version, "
                  "(SELECT count(*) FROM sqlite_master) "
                  "FROM pragma_application_id AS a, pragma_user_version AS v");
  if (!query.Step()) {
    return Status::Error(
        fmt::format("{}: not a stepstat ledger (not a SQLite database: {}); left as it is", path,
                    sqlite3_errmsg(db)));
  }
  return Identity{query.Int(0), query.Int(1), query.Int(2)};
}

/// Refuses foreign and newer files; true when the schema must be created.
Result<bool> CheckIdentity(const Identity& id, const std::string& path) {
  if (id.application_id == kApplicationId) {
    if (id.user_version > Ledger::kSchemaVersion) {
      return Status::Error(fmt::format(
          "{}: ledger schema {} was written by a newer stepstat (this one reads up to {}); "
          "left as it is",
          path, id.user_version, Ledger::kSchemaVersion));
    }
    return false;
  }
  if (id.application_id == 0 && id.tables == 0) return true;  // empty: a new ledger
  return Status::Error(fmt::format(
      "{}: not a stepstat ledger (a SQLite database with {} tables, application_id {}); left "
      "as it is",
      path, id.tables, id.application_id));
}

Status SetWal(sqlite3* db, const std::string& path, int busy_timeout_ms) {
  // Changing the journal mode takes the file for itself; with other writers opening at the
  // same moment it can report busy, so retry within the busy timeout.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  for (;;) {
    Statement wal(db, path, "PRAGMA journal_mode = WAL");
    if (wal.Step() && wal.Text(0) == "wal") return Status::Ok();
    if (std::chrono::steady_clock::now() > deadline) {
      return wal.status().ok() ? Status::Error(fmt::format("{}: cannot switch to WAL", path))
                               : wal.status();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

Ledger::Ledger(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Ledger::Ledger(Ledger&&) noexcept = default;
Ledger& Ledger::operator=(Ledger&&) noexcept = default;
Ledger::~Ledger() = default;

Result<Ledger> Ledger::Open(const std::filesystem::path& path, const LedgerOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path.string();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    if (!options.create) {
      // A typo must not leave a folder and an empty ledger behind and answer "no runs".
      return Status::Error(fmt::format(
          "{}: no ledger here (`stepstat record` creates one; --ledger or $STEPSTAT_LEDGER "
          "point to another)",
          impl->path));
    }
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  }
  if (sqlite3_open_v2(impl->path.c_str(), &impl->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK) {
    return SqliteError(impl->db, impl->path, "cannot open the ledger");
  }
  sqlite3_busy_timeout(impl->db, options.busy_timeout_ms);
  sqlite3* db = impl->db;
  const std::string& name = impl->path;

  ASSIGN_OR_RETURN(Identity before, ReadIdentity(db, name));
  RETURN_IF_ERROR(CheckIdentity(before, name).status());
  // Decide again inside the write lock: another process may have created it meanwhile.
  RETURN_IF_ERROR(Exec(db, name, "BEGIN IMMEDIATE"));
  auto identity = ReadIdentity(db, name);
  Result<bool> create = identity.ok() ? CheckIdentity(*identity, name) : identity.status();
  Status status = create.status();
  int64_t version = identity.ok() ? identity->user_version : 0;
  if (status.ok() && *create) {
    status = Exec(db, name, kSchemaV1);
    std::string mark = fmt::format("PRAGMA application_id = {}", kApplicationId);
    if (status.ok()) status = Exec(db, name, mark.c_str());
    version = 1;
  }
  // Migrations from older versions, one step each, inside the same write lock.
  if (status.ok() && version == 1) status = Exec(db, name, kMigrateToV2);
  if (!status.ok()) {
    (void)Exec(db, name, "ROLLBACK");
    return status;
  }
  RETURN_IF_ERROR(Exec(db, name, "COMMIT"));
  RETURN_IF_ERROR(SetWal(db, name, options.busy_timeout_ms));
  RETURN_IF_ERROR(Exec(db, name, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL"));
  return Ledger(std::move(impl));
}

}  // namespace stepstat
