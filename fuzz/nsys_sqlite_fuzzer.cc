// The nsys SQLite reader on databases the fuzzer builds: the input is an SQL script run on a
// fresh file (statements that fail are skipped), so mutations change schemas, NULLs, types,
// huge and negative values, duplicate ids and missing tables rather than breaking the file
// format on every try. The seeds are the hand-built exports of nsys_sqlite_test.cc.
// Checks: ops and calls keep trace.h's promises and arrive sorted by start (nsys_sqlite.h);
// errors follow the message rules. And the page reader (readers/sqlite/nsys_sqlite_page_scan.h) on
// every table: when it reads one, SQLite gives the same rows, in the same order, without an
// error. Bytes after a NUL in the input damage the written file first (each three: a 16-bit
// offset, a byte to xor there), so that the page reader meets broken pages as well.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "readers/sqlite/nsys_sqlite.h"
#include "readers/sqlite/nsys_sqlite_db.h"
#include "readers/sqlite/nsys_sqlite_page_scan.h"

namespace {

constexpr std::string_view kName = "fuzz.sqlite";

// Only plain SQL on the one database: no other files, no pragmas that change how it is stored.
int Authorize(void*, int action, const char*, const char*, const char*, const char*) {
  switch (action) {
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
    case SQLITE_PRAGMA: return SQLITE_DENY;
    default: return SQLITE_OK;
  }
}

// Stops runaway statements (recursive CTEs, huge joins): the fuzzer is after the reader.
int Progress(void* steps) { return ++*static_cast<int*>(steps) > 2000; }

// Flips bytes of the file at `path` as `flips` says (offset high, offset low, xor mask).
void Damage(const std::filesystem::path& path, std::string_view flips) {
  if (flips.size() < 3) return;
  std::FILE* file = std::fopen(path.c_str(), "r+b");
  if (file == nullptr) return;
  for (size_t i = 0; i + 3 <= flips.size(); i += 3) {
    const long offset =
        static_cast<unsigned char>(flips[i]) << 8 | static_cast<unsigned char>(flips[i + 1]);
    unsigned char byte = 0;
    if (std::fseek(file, offset, SEEK_SET) != 0 || std::fread(&byte, 1, 1, file) != 1) continue;
    byte ^= static_cast<unsigned char>(flips[i + 2]);
    if (std::fseek(file, offset, SEEK_SET) == 0) std::fwrite(&byte, 1, 1, file);
  }
  std::fclose(file);
}

// Every table: `rowid` and its first columns (IFNULL'd and masked too), read by pages and by
// SQL. Where the pages answer, SQL must give the same rows.
void CheckPagesAgainstSql(const std::filesystem::path& path) {
  using stepstat::IntRow;
  stepstat::Result<stepstat::SqliteDb> db = stepstat::SqliteDb::Open(path, kName);
  if (!db.ok()) return;
  stepstat::Result<std::unordered_set<std::string>> tables = db->TableNames();
  if (!tables.ok()) return;
  for (const std::string& table : *tables) {
    stepstat::Result<stepstat::SqliteStatement> info =
        db->Prepare("SELECT name FROM pragma_table_info('" + table + "') LIMIT 4");
    if (!info.ok() || table.find('\'') != std::string::npos) continue;
    using stepstat::nsys_sqlite::ScanFilterTerm;
    using stepstat::nsys_sqlite::ScanOperand;
    stepstat::nsys_sqlite::ScanQuery query;
    query.columns = {ScanOperand::Rowid()};
    query.table = table;
    query.key = {0};
    for (;;) {
      stepstat::Result<bool> row = info->Step();
      if (!row.ok() || !*row) break;
      const std::string column(info->Text(0));
      query.columns.push_back(ScanOperand::Column(column));
      query.columns.push_back(ScanOperand::ColumnOr(column, 7));
      if (query.where.empty())
        query.where = {ScanFilterTerm::IsNotNull(ScanOperand::Column(column))};
    }
    if (query.columns.size() > 1)
      query.columns.push_back(ScanOperand::ColumnAnd(query.columns[1].column, -256));
    while (query.columns.size() > static_cast<size_t>(stepstat::kMaxRowColumns))
      query.columns.pop_back();
    stepstat::Result<std::unique_ptr<stepstat::nsys_sqlite::PageScan>> pages =
        stepstat::nsys_sqlite::PageScan::Open(*db, query);
    if (!pages.ok() || *pages == nullptr) continue;
    std::vector<IntRow> page_rows;
    stepstat::IntRowBatch batch;
    batch.capacity = 64;
    bool declined = false;
    for (;;) {
      batch.rows.clear();
      stepstat::Result<bool> more = (*pages)->Fill(batch);
      if (!more.ok()) {
        FUZZ_CHECK(stepstat::nsys_sqlite::IsPagesDeclined(more.status()));
        declined = true;
        break;
      }
      page_rows.insert(page_rows.end(), batch.rows.begin(), batch.rows.end());
      if (!*more) break;
    }
    if (declined) continue;
    stepstat::Result<stepstat::SqliteStatement> sql =
        db->Prepare(stepstat::nsys_sqlite::SelectSql(query));
    if (!sql.ok()) continue;  // a name only a quoted identifier could use
    size_t at = 0;
    for (;;) {
      stepstat::Result<bool> row = sql->Step();
      FUZZ_CHECK(row.ok());  // the pages answered: SQL must not call the file corrupt
      if (!*row) break;
      FUZZ_CHECK(at < page_rows.size());
      IntRow expected;
      expected.integers =
          sql->Integers(static_cast<int>(query.columns.size()), expected.values.data());
      FUZZ_CHECK(expected.integers == page_rows[at].integers);
      for (size_t c = 0; c < query.columns.size(); ++c) {
        FUZZ_CHECK(expected.values[c] == page_rows[at].values[c]);
      }
      ++at;
    }
    FUZZ_CHECK(at == page_rows.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string sql(reinterpret_cast<const char*>(data), size);
  std::string flips;
  if (const size_t nul = sql.find('\0'); nul != std::string::npos) {
    flips = sql.substr(nul + 1);
    sql.resize(nul);
  }
  std::string lower = sql;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower.find("vacuum") != std::string::npos) return 0;  // VACUUM INTO writes other files

  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("stepstat-sqlite-fuzz-" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  FUZZ_CHECK(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  sqlite3_set_authorizer(db, Authorize, nullptr);
  int steps = 0;
  sqlite3_progress_handler(db, 1000, Progress, &steps);
  // Run statement by statement so one bad statement does not drop the rest.
  const char* next = sql.c_str();
  for (int statements = 0; *next != '\0' && statements < 200; ++statements) {
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(db, next, -1, &stmt, &tail);
    if (stmt != nullptr) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
      }
      sqlite3_finalize(stmt);
    }
    if (tail == nullptr || tail == next) {
      if (rc == SQLITE_OK) break;
      // Skip past the next ';' to resynchronize after a syntax error.
      const char* semicolon = std::strchr(next, ';');
      if (semicolon == nullptr) break;
      tail = semicolon + 1;
    }
    next = tail;
  }
  sqlite3_close(db);
  Damage(path, flips);
  CheckPagesAgainstSql(path);

  stepstat::fuzz::CheckingSink sink(/*sorted=*/true);
  stepstat::Result<stepstat::ReadReport> report = stepstat::ReadNsysSqlite(path, kName, sink);
  if (!report.ok()) {
    stepstat::fuzz::CheckErrorMessage(report.status(), kName);
    return 0;
  }
  FUZZ_CHECK(report->kind == stepstat::InputKind::kNsysSqlite);
  FUZZ_CHECK(report->rows >= 0);
  return 0;
}
