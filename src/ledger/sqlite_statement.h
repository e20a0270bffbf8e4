// A thin RAII layer over the SQLite C API for the ledger: statements that finalize
// themselves and errors that name the ledger file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

/// "<path>: <what>: <sqlite's message>".
Status SqliteError(sqlite3* db, std::string_view path, std::string_view what);

/// Runs SQL without results (several statements allowed).
Status Exec(sqlite3* db, std::string_view path, const char* sql);

class Statement {
 public:
  Statement(sqlite3* db, std::string_view path, const char* sql);
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  const Status& status() const { return status_; }
  Statement& Bind(int index, std::string_view text);
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& BindOptional(int index, const std::optional<std::string>& text);
  /// Next row: true with a row, false when done or on error (then status() says which).
  bool Step();
  /// Resets for new bindings, keeping the prepared statement.
  void Reset();

  int64_t Int(int column) const { return sqlite3_column_int64(stmt_, column); }
  double Double(int column) const { return sqlite3_column_double(stmt_, column); }
  std::string Text(int column) const;
  std::optional<std::string> OptionalText(int column) const;

 private:
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_ = nullptr;
  Status status_;
};

}  // namespace stepstat
