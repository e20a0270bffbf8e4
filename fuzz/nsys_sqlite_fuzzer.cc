// The nsys SQLite reader on databases the fuzzer builds: the input is an SQL script run on a
// fresh file (statements that fail are skipped), so mutations change schemas, NULLs, types,
// huge and negative values, duplicate ids and missing tables rather than breaking the file
// format on every try. The seeds are the hand-built exports of nsys_sqlite_test.cc.
// Checks: ops and calls keep trace.h's promises and arrive sorted by start (nsys_sqlite.h);
// errors follow the message rules.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include "fuzz_check.h"
#include "readers/nsys_sqlite.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string sql(reinterpret_cast<const char*>(data), size);
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
