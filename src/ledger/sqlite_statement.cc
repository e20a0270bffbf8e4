#include "ledger/sqlite_statement.h"

#include <fmt/format.h>

namespace stepstat {

Status SqliteError(sqlite3* db, std::string_view path, std::string_view what) {
  return Status::Error(fmt::format("{}: {}: {}", path, what, sqlite3_errmsg(db)));
}

Status Exec(sqlite3* db, std::string_view path, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return SqliteError(db, path, fmt::format("cannot run \"{:.40}\"", sql));
  }
  return Status::Ok();
}

Statement::Statement(sqlite3* db, std::string_view path, const char* sql) : db_(db), path_(path) {
  if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
    status_ = SqliteError(db, path, fmt::format("cannot prepare \"{:.40}\"", sql));
  }
}

Statement& Statement::Bind(int index, std::string_view text) {
  if (stmt_) sqlite3_bind_text(stmt_, index, text.data(), int(text.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::Bind(int index, int64_t value) {
  if (stmt_) sqlite3_bind_int64(stmt_, index, value);
  return *this;
}
Statement& Statement::Bind(int index, double value) {
  if (stmt_) sqlite3_bind_double(stmt_, index, value);
  return *this;
}
Statement& Statement::BindOptional(int index, const std::optional<std::string>& text) {
  if (text) return Bind(index, *text);
  if (stmt_) sqlite3_bind_null(stmt_, index);
  return *this;
}

bool Statement::Step() {
  if (!status_.ok()) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) status_ = SqliteError(db_, path_, "query failed");
  return false;
}

void Statement::Reset() {
  if (!stmt_) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            size_t(sqlite3_column_bytes(stmt_, column)))
              : std::string();
}

std::optional<std::string> Statement::OptionalText(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return Text(column);
}

}  // namespace stepstat
