#include "readers/sqlite/nsys_sqlite_db.h"

#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <utility>

#include "io/read_counts.h"
#include "readers/sqlite/sqlite_progress_vfs.h"

namespace stepstat {
namespace {

// SQLite URI filenames treat '?', '#' and '%' specially; everything else passes through.
std::string FileUri(const std::filesystem::path& path) {
  std::string generic = path.generic_string();
  std::string uri = "file:";
  if (!generic.empty() && generic[0] != '/' && path.has_root_name()) uri += '/';  // "C:/x"
  for (char c : generic) {
    if (c == '?' || c == '#' || c == '%') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
      uri += kHex[static_cast<unsigned char>(c) & 0xF];
    } else {
      uri += c;
    }
  }
  uri += "?immutable=1";
  return uri;
}

Status SqliteError(sqlite3* db, std::string_view display_name, std::string_view what) {
  std::string message(what);
  message += ": ";
  message += sqlite3_errmsg(db);
  return ErrorAt(display_name, 0, message);
}

// The aggregate stepstat_key_order(k1, ..., kn), n <= 4: 0 when the keys of the rows, in
// the order the query visits them, never decrease (lexicographically) and are all integers;
// 1 when some decrease; 2 when one is not an integer. An aggregate runs inside SQLite's VM, so
// the check costs about what `SELECT sum(...)` does, well under stepping rows out through
// the C API.
struct KeyOrderState {
  std::array<int64_t, 4> previous;
  bool started;
  int verdict;
};

void KeyOrderStep(sqlite3_context* context, int argc, sqlite3_value** argv) {
  auto* state =
      static_cast<KeyOrderState*>(sqlite3_aggregate_context(context, sizeof(KeyOrderState)));
  if (state == nullptr) {
    sqlite3_result_error_nomem(context);
    return;
  }
  if (state->verdict == 2) return;
  if (argc < 1 || argc > 4) {
    state->verdict = 2;
    return;
  }
  std::array<int64_t, 4> key{};
  for (int i = 0; i < argc; ++i) {
    if (sqlite3_value_type(argv[i]) != SQLITE_INTEGER) {
      state->verdict = 2;
      return;
    }
    key[i] = sqlite3_value_int64(argv[i]);
  }
  if (state->started && key < state->previous) state->verdict = 1;
  state->previous = key;
  state->started = true;
}

void KeyOrderFinal(sqlite3_context* context) {
  auto* state = static_cast<KeyOrderState*>(sqlite3_aggregate_context(context, 0));
  sqlite3_result_int(context, state == nullptr ? 0 : state->verdict);
}

// stepstat_take_row(?batch, c1, ..., cn): see SqliteDb::Open. A pointer binding
// (sqlite3_bind_pointer) cannot be forged from SQL text, so only our own statements have one.
constexpr char kRowBatchType[] = "stepstat_int_row_batch";

void TakeRow(sqlite3_context* context, int argc, sqlite3_value** argv) {
  auto* batch = argc >= 1 ? static_cast<IntRowBatch*>(sqlite3_value_pointer(argv[0], kRowBatchType))
                          : nullptr;
  if (batch == nullptr || argc - 1 > kMaxRowColumns) {
    sqlite3_result_error(context, "stepstat_take_row: no row batch bound, or too many columns", -1);
    return;
  }
  IntRow& row = batch->rows.emplace_back();
  for (int i = 1; i < argc; ++i) {
    if (sqlite3_value_type(argv[i]) == SQLITE_INTEGER) {
      row.values[i - 1] = sqlite3_value_int64(argv[i]);
      row.integers |= 1U << (i - 1);
    }
  }
  sqlite3_result_int(context, batch->rows.size() >= batch->capacity ? 1 : 0);
}

Status NotADatabase(std::string_view display_name) {
  return ErrorAt(display_name, 0, "not an SQLite database, so not an nsys SQLite export");
}

}  // namespace

Result<SqliteDb> SqliteDb::Open(const std::filesystem::path& path, std::string_view display_name) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return ErrorAt(display_name, 0, "no such file");
  }
  // Memory statistics make every SQLite allocation take one process-wide mutex, which two
  // readers on two threads then fight over (a fifth of the CPU time when both halves of an
  // export were read at once). The call fails harmlessly once SQLite is initialised.
  static std::once_flag no_memory_statistics;
  std::call_once(no_memory_statistics, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
  CountOpen(path);
  sqlite3* db = nullptr;
  // NOMUTEX: a connection is only ever used by the thread that opened it.
  int rc = sqlite3_open_v2(FileUri(path).c_str(), &db,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                           ProgressVfsName());
  if (rc != SQLITE_OK) {
    std::string what = "cannot open as SQLite: ";
    what += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return ErrorAt(display_name, 0, what);
  }
  sqlite3_extended_result_codes(db, 1);
  // stepstat_take_row has a side effect, so it is not SQLITE_DETERMINISTIC: SQLite must call
  // it once per row it is written for.
  if (sqlite3_create_function(db, "stepstat_key_order", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                              nullptr, nullptr, KeyOrderStep, KeyOrderFinal) != SQLITE_OK ||
      sqlite3_create_function(db, "stepstat_take_row", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, nullptr,
                              TakeRow, nullptr, nullptr) != SQLITE_OK) {
    Status status = SqliteError(db, display_name, "registering a function");
    sqlite3_close(db);
    return status;
  }
  return SqliteDb(db, std::string(display_name), path);
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      display_name_(std::move(other.display_name_)),
      path_(std::move(other.path_)),
      pages_file_(std::move(other.pages_file_)) {}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    display_name_ = std::move(other.display_name_);
    path_ = std::move(other.path_);
    pages_file_ = std::move(other.pages_file_);
  }
  return *this;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

FileProgress* SqliteDb::file_progress() const { return ConnectionProgress(db_); }

Result<std::shared_ptr<RandomAccessFile>> SqliteDb::PagesFile() const {
  if (pages_file_ == nullptr) {
    // Its reads count into this connection's share of the progress meter, which planned the
    // file's bytes when it opened: a share of its own would plan them once more.
    ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                     RandomAccessFile::Open(path_, display_name_, file_progress()));
    CountOpen(path_);  // as the library's open of the file counts
    pages_file_ = std::move(file);
  }
  return pages_file_;
}

Status SqliteDb::Error(std::string_view what) const {
  return SqliteError(db_, display_name_, what);
}

Result<SqliteStatement> SqliteDb::Prepare(std::string_view sql) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    if ((rc & 0xFF) == SQLITE_NOTADB) return NotADatabase(display_name_);
    return Error("SQL failed");
  }
  return SqliteStatement(db_, stmt, display_name_);
}

Result<std::unordered_set<std::string>> SqliteDb::TableNames() const {
  ASSIGN_OR_RETURN(SqliteStatement stmt,
                   Prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"));
  std::unordered_set<std::string> names;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    names.emplace(stmt.Text(0));
  }
  return names;
}

Result<std::unordered_set<std::string>> SqliteDb::Columns(std::string_view table) const {
  ASSIGN_OR_RETURN(SqliteStatement stmt, Prepare("SELECT name FROM pragma_table_info(?1)"));
  if (sqlite3_bind_text(stmt.stmt_, 1, table.data(), static_cast<int>(table.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("binding a table name");
  }
  std::unordered_set<std::string> names;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    names.emplace(stmt.Text(0));
  }
  return names;
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      display_name_(std::move(other.display_name_)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    display_name_ = std::move(other.display_name_);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

Result<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  if ((rc & 0xFF) == SQLITE_NOTADB) return NotADatabase(display_name_);
  return SqliteError(db_, display_name_, "reading rows failed");
}

Status SqliteStatement::BindInt64(int index_from_1, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index_from_1, value) != SQLITE_OK)
    return SqliteError(db_, display_name_, "binding");
  return Status::Ok();
}

Status SqliteStatement::BindText(int index_from_1, std::string_view text) {
  if (sqlite3_bind_text(stmt_, index_from_1, text.data(), static_cast<int>(text.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    return SqliteError(db_, display_name_, "binding");
  return Status::Ok();
}

Status SqliteStatement::BindRowBatch(int index_from_1, IntRowBatch* batch) {
  if (sqlite3_bind_pointer(stmt_, index_from_1, batch, kRowBatchType, nullptr) != SQLITE_OK)
    return SqliteError(db_, display_name_, "binding");
  return Status::Ok();
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);  // returns the last Step()'s error, which Step() already reported
}

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t SqliteStatement::Int64(int column) const { return sqlite3_column_int64(stmt_, column); }

std::optional<int64_t> SqliteStatement::OptionalInt64(int column) const {
  if (sqlite3_column_type(stmt_, column) != SQLITE_INTEGER) return std::nullopt;
  return sqlite3_column_int64(stmt_, column);
}

uint32_t SqliteStatement::Integers(int count, int64_t* values) const {
  // sqlite3_column_value's value is "unprotected": safe to read here because a connection
  // and its statements are used by one thread (Open's NOMUTEX), as SQLite's docs allow.
  uint32_t integers = 0;
  for (int i = 0; i < count; ++i) {
    sqlite3_value* value = sqlite3_column_value(stmt_, i);
    if (sqlite3_value_type(value) == SQLITE_INTEGER) {
      values[i] = sqlite3_value_int64(value);
      integers |= 1U << i;
    } else {
      values[i] = 0;
    }
  }
  return integers;
}

std::string_view SqliteStatement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text),
          static_cast<size_t>(sqlite3_column_bytes(stmt_, column))};
}

}  // namespace stepstat
