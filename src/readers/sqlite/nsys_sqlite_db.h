// A thin RAII layer over the sqlite3 C API for reading nsys exports: read-only, immutable,
// no extensions. Errors become Status with the file's display name.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "io/random_access_file.h"
#include "stepstat/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace stepstat {

class FileProgress;
class SqliteStatement;

inline constexpr int kMaxRowColumns = 9;

/// One row of integer columns copied out of SQLite.
struct IntRow {
  std::array<int64_t, kMaxRowColumns> values{};
  uint32_t integers = 0;  ///< bit i set: column i held an integer (not NULL, text or real)

  int64_t Int64(int column) const { return values[column]; }
  /// As SqliteStatement::OptionalInt64: nullopt for anything but an integer.
  std::optional<int64_t> OptionalInt64(int column) const {
    if ((integers >> column & 1U) == 0) return std::nullopt;
    return values[column];
  }
};

/// Rows the SQL function stepstat_take_row fills (see SqliteDb::Open); bound to a statement
/// with SqliteStatement::BindRowBatch, so it must stay where it is while the statement runs.
struct IntRowBatch {
  std::vector<IntRow> rows;
  size_t capacity = 0;  ///< the function says "full" at this many rows
};

class SqliteDb {
 public:
  /// Opens `path` read-only as an immutable database (no locks, no journal, no writes). The
  /// connection and its statements must be used by one thread at a time. Queries may call
  /// the aggregate stepstat_key_order(k1, ..., k4): 0 when the rows' keys, as visited, never
  /// decrease; 1 when some do; 2 when one is not an integer. And they may call
  /// stepstat_take_row(?batch, c1, ..., cn), n <= kMaxRowColumns: it appends the row's
  /// values to the IntRowBatch bound as ?batch and returns 1 when the batch is then full,
  /// else 0. So `SELECT 1 FROM t WHERE stepstat_take_row(?1, ...)` hands rows out a batch
  /// per sqlite3_step, inside SQLite's VM: about half the CPU of stepping each row out
  /// and fetching its columns through the C API.
  static Result<SqliteDb> Open(const std::filesystem::path& path, std::string_view display_name);

  SqliteDb(SqliteDb&& other) noexcept;
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  Result<SqliteStatement> Prepare(std::string_view sql) const;
  /// Names of the tables and views in the schema.
  Result<std::unordered_set<std::string>> TableNames() const;
  /// Column names of `table` (PRAGMA table_info); empty when the table does not exist.
  Result<std::unordered_set<std::string>> Columns(std::string_view table) const;

  /// "<display_name>: <what>: <sqlite's message>".
  Status Error(std::string_view what) const;
  const std::string& display_name() const { return display_name_; }
  /// The file opened (the page reader opens it again to read a table's pages itself).
  const std::filesystem::path& path() const { return path_; }
  /// What this connection's open of the file counts into the progress meter (null when none
  /// is installed): the page reader counts its reads there, on this connection's thread.
  FileProgress* file_progress() const;
  /// The file opened for the page reader, once per connection and shared by its scans (a
  /// check and the read that follows it, the scans of each table): positional reads, on this
  /// connection's thread.
  Result<std::shared_ptr<RandomAccessFile>> PagesFile() const;

 private:
  SqliteDb(sqlite3* db, std::string display_name, std::filesystem::path path)
      : db_(db), display_name_(std::move(display_name)), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string display_name_;
  std::filesystem::path path_;
  mutable std::shared_ptr<RandomAccessFile> pages_file_;
};

/// One prepared statement; it must not outlive its SqliteDb. Column getters take 0-based indexes
/// into the SELECT list.
class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  /// True when a row is ready, false when done.
  Result<bool> Step();
  Status BindInt64(int index_from_1, int64_t value);
  Status BindText(int index_from_1, std::string_view text);
  /// Binds `batch` for stepstat_take_row; it must outlive the statement's steps.
  Status BindRowBatch(int index_from_1, IntRowBatch* batch);
  void Reset();

  bool IsNull(int column) const;
  int64_t Int64(int column) const;
  /// NULL → nullopt. Non-integer values (text, real) also → nullopt: nsys never writes them.
  std::optional<int64_t> OptionalInt64(int column) const;
  /// Valid until the next Step() or Reset().
  std::string_view Text(int column) const;
  /// Columns [0, count) into `values` (0 where not an integer); returns a mask whose bit i is
  /// set when column i held an integer. One value fetch per column: cheaper than
  /// OptionalInt64 column by column on hot paths.
  uint32_t Integers(int count, int64_t* values) const;

 private:
  friend class SqliteDb;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::string display_name)
      : db_(db), stmt_(stmt), display_name_(std::move(display_name)) {}
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string display_name_;
};

}  // namespace stepstat
