// The run history: one SQLite file of recorded runs (`stepstat record`, `history`,
// `baseline`, and `diff @prev` / `diff baseline:main`). Each run keeps its summary JSON
// verbatim and every step's values, so a later diff sees exactly what was measured.
// Many processes may record at once (WAL, a busy timeout, one transaction per run); a
// writer killed mid-record leaves the ledger as it was. A file that is not a ledger, or a
// ledger of a newer schema, is refused and never altered.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepstat/compare.h"
#include "stepstat/status.h"

namespace stepstat {

/// The ledger file: `flag` (--ledger PATH) when given, else `env` ($STEPSTAT_LEDGER) when
/// set and non-empty, else `cwd`/.stepstat/ledger.sqlite.
std::filesystem::path ResolveLedgerPath(const std::optional<std::string>& flag, const char* env,
                                        const std::filesystem::path& cwd);

/// The commit checked out in the git work tree holding `dir` (40 hex digits), read from
/// .git/HEAD, the refs and packed-refs (worktrees included) without running git; nullopt
/// outside a repository or when HEAD names a ref that does not exist yet.
std::optional<std::string> GitCommitOf(const std::filesystem::path& dir);

/// An identity of the input files' bytes (one 64-bit content hash over each file in order,
/// each followed by its size; 16 hex digits), for recognizing the same inputs recorded twice
/// or diffed against themselves. The same on every machine.
Result<std::string> HashInputFiles(const std::vector<std::filesystem::path>& files);

struct RecordRequest {
  std::string label;             ///< e.g. "dit-gb10"; what history and `label:L` group by
  std::string summary_json;      ///< the summary as `summarize --format json` prints it
  std::vector<StepValue> steps;  ///< StepValuesOf(report, policy); empty without steps
  int64_t warmup_steps = 0;      ///< steps before this one are warm-up
  std::string gpu;
  std::string policy_name;
  std::string policy_hash;  ///< PolicyIdentity(policy)
  std::string input_hash;   ///< HashInputFiles(...); required
  std::string tool_version;
  std::optional<std::string> git_commit;
  std::vector<std::pair<std::string, std::string>> tags;  ///< k=v
  std::string note;
  /// The run's kernel table with every call's duration (SideMetadata::kernels); empty when
  /// unknown.
  std::map<std::string, KernelTotals> kernels;
};

struct RunInfo {
  int64_t id = 0;
  std::string label;
  std::string recorded_at;  ///< UTC, ISO 8601
  std::optional<std::string> git_commit;
  std::string gpu, policy_name, policy_hash, input_hash, tool_version, note;
  int64_t step_count = 0;
  std::vector<std::pair<std::string, std::string>> tags;
};

struct Recorded {
  int64_t run_id = 0;
  bool already_recorded = false;  ///< same inputs, policy and tool version: not stored twice
  std::string message() const;    ///< "recorded as run N" / "already recorded as run N"
};

struct Baseline {
  std::string name;
  int64_t run_id = 0;
  std::string set_at;
};

struct LedgerOptions {
  int busy_timeout_ms = 10000;  ///< how long a writer waits for another one's transaction
  /// Create the ledger (and its folder) when the path does not exist; else that is an error.
  /// Only `record` creates: a mistyped path elsewhere must not leave an empty ledger.
  bool create = false;
};

class Ledger {
 public:
  /// Opens the ledger, or creates it (and its folder) with `options.create`; migrates an
  /// older schema.
  static Result<Ledger> Open(const std::filesystem::path& path, const LedgerOptions& options = {});
  Ledger(Ledger&&) noexcept;
  Ledger& operator=(Ledger&&) noexcept;
  ~Ledger();

  /// One transaction: the run, its steps and tags, or nothing.
  Result<Recorded> Record(const RecordRequest& request);
  /// The latest run with `label` (before run `before`, when given).
  Result<std::optional<RunInfo>> PreviousRun(std::string_view label,
                                             std::optional<int64_t> before = std::nullopt);
  /// Runs whose label matches the glob (`*`, `?`, `[...]`; "*" for all), oldest first.
  Result<std::vector<RunInfo>> ListRuns(std::string_view label_glob);
  /// `@ID`, `@latest`, `@prev` (the run before the latest), `label:L` (its latest run) or
  /// `baseline:NAME` → a run id that exists.
  Result<int64_t> ResolveReference(std::string_view reference);
  /// The run as a diff side: its summary's whole-run values plus its steady steps' values.
  Result<Side> LoadRunAsSide(int64_t run_id);
  Status SetBaseline(std::string_view name, int64_t run_id);
  Result<std::vector<Baseline>> ListBaselines();

  /// The schema this build writes (PRAGMA user_version).
  static constexpr int kSchemaVersion = 2;

 private:
  struct Impl;
  explicit Ledger(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace stepstat
