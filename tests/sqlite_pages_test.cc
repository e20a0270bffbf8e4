// The page reader (readers/sqlite/nsys_sqlite_page_scan.h) against SQLite's own answer: on the
// synthetic exports of every kind stepstat synth writes and the real exports, the rows of the
// as-stored scans equal `SELECT <columns> FROM t WHERE <filter>`, in the same order. Tables
// with what the page path does not read (an INTEGER PRIMARY KEY read, a column added with a
// default, an overflow page, a real in an integer column, WAL) are either read exactly or
// sent to the SQL path, as each test asserts; damaged files never crash or hang it, and it
// never answers where SQLite gives another answer or an error.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "io/read_progress.h"
#include "readers/sqlite/nsys_sqlite_db.h"
#include "readers/sqlite/nsys_sqlite_internal.h"
#include "readers/sqlite/nsys_sqlite_page_scan.h"
#include "readers/sqlite/nsys_sqlite_reader_queries.h"
#include "readers/sqlite/nsys_sqlite_sorted_scan.h"
#include "readers/sqlite/sqlite_table_pages.h"
#include "stepstat/engine.h"
#include "stepstat/progress.h"
#include "stepstat/synth.h"

namespace stepstat::nsys_sqlite {
namespace {

namespace fs = std::filesystem;

fs::path TestDir() {
  fs::path dir = fs::path(::testing::TempDir()) / "stepstat_sqlite_pages_test" /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::create_directories(dir);
  return dir;
}

void Exec(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << error;
  sqlite3_free(error);
  sqlite3_close(db);
}

using Operand = ScanOperand;
using Term = ScanFilterTerm;

// What SQL gives: every row of the query's SELECT (SelectSql, as the SQL path runs it), or
// its error.
Result<std::vector<IntRow>> SqlRows(const SqliteDb& db, const ScanQuery& query) {
  ASSIGN_OR_RETURN(SqliteStatement stmt, db.Prepare(SelectSql(query)));
  std::vector<IntRow> rows;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    IntRow& r = rows.emplace_back();
    r.integers = stmt.Integers(static_cast<int>(query.columns.size()), r.values.data());
  }
  return rows;
}

// What the page reader gives; null when it does not take the table (the SQL path would).
struct PageRead {
  bool taken = false;
  Status status;
  std::vector<IntRow> rows;
};
PageRead PageRows(const SqliteDb& db, const ScanQuery& query) {
  PageRead read;
  Result<std::unique_ptr<PageScan>> scan = PageScan::Open(db, query);
  if (!scan.ok()) {
    read.status = scan.status();
    return read;
  }
  if (*scan == nullptr) return read;
  read.taken = true;
  IntRowBatch batch;
  batch.capacity = 100;
  for (;;) {
    batch.rows.clear();
    Result<bool> more = (*scan)->Fill(batch);
    if (!more.ok()) {
      read.status = more.status();
      return read;
    }
    read.rows.insert(read.rows.end(), batch.rows.begin(), batch.rows.end());
    if (!*more) return read;
  }
}

bool SameRows(const std::vector<IntRow>& a, const std::vector<IntRow>& b, size_t columns) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].integers != b[i].integers) return false;
    for (size_t c = 0; c < columns; ++c) {
      if (a[i].values[c] != b[i].values[c]) return false;
    }
  }
  return true;
}

// The scans summarize's as-stored pass makes, built by the readers' own functions
// (nsys_sqlite_reader_queries.h), from the export's schema as the readers see it.
std::vector<ScanQuery> ReaderQueries(const SqliteDb& db) {
  std::vector<ScanQuery> queries;
  StringPool pool;
  ExportContext context(db, pool, TableScan::kAsStored);
  Status init = context.Init();
  EXPECT_TRUE(init.ok()) << init.message();
  if (!init.ok()) return queries;
  for (const auto& [table, kind] : kGpuOpTables) {
    Result<std::optional<ScanQuery>> gpu = GpuOpScanQuery(context, table, kind);
    EXPECT_TRUE(gpu.ok()) << gpu.status().message();
    if (gpu.ok() && *gpu) queries.push_back(**gpu);
  }
  if (!context.HasTable("CUPTI_ACTIVITY_KIND_RUNTIME") ||
      !context.HasTable("CUPTI_ACTIVITY_KIND_KERNEL")) {
    return queries;
  }
  Result<std::unordered_set<std::string>> runtime = RuntimeColumns(context);
  Result<std::unordered_set<std::string>> kernels = db.Columns("CUPTI_ACTIVITY_KIND_KERNEL");
  Result<std::unordered_map<int64_t, NameId>> launch_names = LaunchApiNameIds(context);
  EXPECT_TRUE(runtime.ok() && kernels.ok() && launch_names.ok());
  if (!runtime.ok() || !kernels.ok() || !launch_names.ok() || launch_names->empty()) {
    return queries;
  }
  // As stored, the launch side reads all processes as one stream (StreamLaunchCalls).
  LaunchJoinQueries join = LaunchJoinScanQueries(*runtime, *kernels, *launch_names,
                                                 kernels->contains("globalPid"), std::nullopt);
  queries.push_back(join.calls);
  queries.push_back(join.kernels);
  return queries;
}

// Every reader scan of `path`: the page path taken, and the same rows as SQL's.
void ExpectPagesEqualSql(const fs::path& path) {
  Result<SqliteDb> db = SqliteDb::Open(path, path.filename().string());
  ASSERT_TRUE(db.ok()) << db.status().message();
  std::vector<ScanQuery> queries = ReaderQueries(*db);
  ASSERT_FALSE(queries.empty());
  for (const ScanQuery& query : queries) {
    SCOPED_TRACE(SelectSql(query));
    Result<std::vector<IntRow>> sql = SqlRows(*db, query);
    ASSERT_TRUE(sql.ok()) << sql.status().message();
    PageRead pages = PageRows(*db, query);
    ASSERT_TRUE(pages.taken);
    ASSERT_TRUE(pages.status.ok()) << pages.status.message();
    EXPECT_FALSE(sql->empty() && query.where.empty());
    EXPECT_TRUE(SameRows(pages.rows, *sql, query.columns.size()))
        << pages.rows.size() << " rows from the pages, " << sql->size() << " from SQL";
    // And summarize's as-stored scan is the one that reads them.
    Result<SortedScan> scan =
        SortedScan::Open(*db, query, kDefaultWindowRows, ScanOrder::kAsStored);
    ASSERT_TRUE(scan.ok());
    EXPECT_TRUE(scan->reads_pages());
  }
}

// summarize itself reads every big table (each as-stored scan) from pages, none declined: a
// reader whose query the page path turned away would fail here, not just run slower.
void ExpectSummarizeReadsPages(const fs::path& path) {
  Result<SqliteDb> db = SqliteDb::Open(path, path.filename().string());
  ASSERT_TRUE(db.ok()) << db.status().message();
  const size_t scans = ReaderQueries(*db).size();
  RunOptions options;
  options.inputs = {path};
  ResetPageScanCounts();
  Result<SummaryResult> summary = RunSummary(options);
  const PageScanCounts counts = CurrentPageScanCounts();
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(counts.as_stored, static_cast<int64_t>(scans));
  EXPECT_EQ(counts.reading_pages, counts.as_stored);
  EXPECT_EQ(counts.declined, 0);
}

struct SynthCase {
  const char* name;
  int streams;
  bool nvtx;
  int64_t steps;
};

class SynthExports : public ::testing::TestWithParam<SynthCase> {};

TEST_P(SynthExports, PageRowsEqualSqlRows) {
  synth::SynthOptions options;
  options.out_base = TestDir() / GetParam().name;
  options.format = synth::SynthFormat::kSqlite;
  options.streams = GetParam().streams;
  options.nvtx = GetParam().nvtx;
  options.steps = GetParam().steps;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  ExpectPagesEqualSql(written->gpu_trace);
  ExpectSummarizeReadsPages(written->gpu_trace);
}

INSTANTIATE_TEST_SUITE_P(Formats, SynthExports,
                         ::testing::Values(SynthCase{"one_step", 1, false, 1},
                                           SynthCase{"steps", 1, false, 12},
                                           SynthCase{"streams", 4, false, 6},
                                           SynthCase{"nvtx", 2, true, 6}),
                         [](const auto& info) { return std::string(info.param.name); });

class RealExports : public ::testing::TestWithParam<const char*> {};

TEST_P(RealExports, PageRowsEqualSqlRows) {
  const fs::path path = fs::path(STEPSTAT_SHARED_DIR) / "data/real" / GetParam();
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent (shared data not mounted)";
  ExpectPagesEqualSql(path);
  ExpectSummarizeReadsPages(path);
}

INSTANTIATE_TEST_SUITE_P(NsysExports, RealExports,
                         ::testing::Values("nsightful_power_iteration_t4.sqlite",
                                           "pipit_cloverleaf_perlmutter.sqlite"),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

// A table t of `rows` rows (start, tag) behind `create`, enough rows for interior pages.
fs::path SmallTable(const std::string& create, int rows, const std::string& extra_sql = "") {
  fs::path path = TestDir() / "t.sqlite";
  fs::remove(path);
  std::string sql = create + "; BEGIN;";
  for (int i = 0; i < rows; ++i) {
    sql += "INSERT INTO t (start, tag) VALUES (" + std::to_string(int64_t{i} * 1000003) + ", " +
           std::to_string(i % 7 == 0 ? -i : i) + ");";
  }
  sql += "COMMIT;" + extra_sql;
  Exec(path, sql);
  return path;
}

// "rowid" or a column, by name.
std::vector<ScanOperand> Columns(std::initializer_list<const char*> names) {
  std::vector<ScanOperand> columns;
  for (const char* name : names) {
    columns.push_back(std::string(name) == "rowid" ? Operand::Rowid() : Operand::Column(name));
  }
  return columns;
}

ScanQuery TableQuery(std::vector<ScanOperand> columns, std::vector<ScanFilterTerm> where = {}) {
  ScanQuery query;
  query.columns = std::move(columns);
  query.table = "t";
  query.where = std::move(where);
  query.key = {0};
  return query;
}

// How the page path met `query` on `path`: "exact" (taken, equal to SQL), "sql" (not taken),
// "declined" (taken, then declined a row), or what went wrong.
std::string PagePathOutcome(const fs::path& path, const ScanQuery& query) {
  Result<SqliteDb> db = SqliteDb::Open(path, "t.sqlite");
  if (!db.ok()) return "open failed: " + db.status().message();
  Result<std::vector<IntRow>> sql = SqlRows(*db, query);
  PageRead pages = PageRows(*db, query);
  if (!pages.taken) return pages.status.ok() ? "sql" : "error: " + pages.status.message();
  if (!pages.status.ok()) {
    return IsPagesDeclined(pages.status) ? "declined" : "error: " + pages.status.message();
  }
  if (!sql.ok()) return "pages answered where SQL failed: " + sql.status().message();
  return SameRows(pages.rows, *sql, query.columns.size()) ? "exact" : "different rows";
}

// The page reader counts its reads into the progress meter where its connection counts
// them: the connection planned the file's bytes when it opened, and a scan that planned them
// again would leave the line's total (and time left) several files too large, five scans
// into summarize.
TEST(SqlitePages, ReadsCountInTheConnectionsShareOfTheMeter) {
  synth::SynthOptions options;
  options.out_base = TestDir() / "dit";
  options.format = synth::SynthFormat::kSqlite;
  options.steps = 12;
  Result<synth::SynthResult> written = synth::WriteSynthTraces(options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  const uint64_t file_size = fs::file_size(written->gpu_trace);
  ProgressMeter meter;
  ProgressScope scope(&meter);
  Result<SqliteDb> db = SqliteDb::Open(written->gpu_trace, "dit.sqlite");
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_NE(db->file_progress(), nullptr);
  const std::vector<ScanQuery> queries = ReaderQueries(*db);
  ASSERT_FALSE(queries.empty());
  EXPECT_EQ(meter.Snapshot().bytes_total, file_size);
  const uint64_t read_before = meter.Snapshot().bytes_read;
  const PageRead read = PageRows(*db, queries.front());
  ASSERT_TRUE(read.taken);
  ASSERT_TRUE(read.status.ok()) << read.status.message();
  ASSERT_FALSE(read.rows.empty());
  const ProgressSnapshot after = meter.Snapshot();
  EXPECT_EQ(after.bytes_total, file_size);
  EXPECT_GT(after.bytes_read, read_before);
  EXPECT_LE(after.bytes_read, file_size);
}

TEST(SqlitePages, IntegerPrimaryKeyReadOnlyAsRowid) {
  fs::path path =
      SmallTable("CREATE TABLE t (id INTEGER PRIMARY KEY, start INTEGER, tag INTEGER)", 3000);
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "start", "tag"}))), "exact");
  // The key column itself is stored as NULL: the page path leaves it to SQL.
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"id", "start"}))), "sql");
}

TEST(SqlitePages, ColumnAddedLater) {
  fs::path path = SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER)", 3000,
                             "ALTER TABLE t ADD COLUMN plain INTEGER;"
                             "ALTER TABLE t ADD COLUMN seven INTEGER DEFAULT 7;"
                             "INSERT INTO t VALUES (1, 2, 3, 4);");
  // Rows written before the column have no value for it: NULL without a default, read.
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "start", "plain"}))), "exact");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "plain"}),
                                             {Term::IsNotNull(Operand::Column("plain"))})),
            "exact");
  // With a default the page path does not evaluate it.
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "seven"}))), "declined");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "start", "tag"}))), "exact");
}

// A checked scan (its order checked first: what steps, report and record read) takes the
// pages when its check read every row from them, and gives what ORDER BY gives either way.
TEST(SqlitePages, CheckedScansReadPagesOnlyWhenTheirCheckReadEveryRow) {
  fs::path path = SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER, note)", 3000,
                             "INSERT INTO t VALUES (3000000000000, 6, 1.5);");
  Result<SqliteDb> db = SqliteDb::Open(path, "t.sqlite");
  ASSERT_TRUE(db.ok()) << db.status().message();
  struct Scanned {
    bool pages = false;
    ScanOrder order = ScanOrder::kSqlSort;
    std::vector<std::pair<int64_t, int64_t>> keys;  // the first two columns, as handed out
  };
  auto scan = [&](const ScanQuery& query, size_t window = kDefaultWindowRows) {
    Scanned out;
    Result<SortedScan> opened = SortedScan::Open(*db, query, window);
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    if (!opened.ok()) return out;
    out.pages = opened->reads_pages();
    out.order = opened->order();
    for (;;) {
      Result<bool> row = opened->Step();
      EXPECT_TRUE(row.ok()) << row.status().message();
      if (!row.ok() || !*row) break;
      out.keys.emplace_back(opened->row().Int64(0), opened->row().Int64(1));
    }
    return out;
  };
  auto ordered_by_sql = [&](const ScanQuery& query) {
    std::vector<std::pair<int64_t, int64_t>> keys;
    Result<SqliteStatement> stmt = db->Prepare(SelectSql(query) + " ORDER BY 1, 2");
    EXPECT_TRUE(stmt.ok());
    for (;;) {
      if (!stmt.ok()) break;
      Result<bool> row = stmt->Step();
      if (!row.ok() || !*row) break;
      keys.emplace_back(stmt->Int64(0), stmt->Int64(1));
    }
    return keys;
  };
  // In start order and every value read an integer: checked on the pages, read from them.
  ScanQuery by_start = TableQuery(Columns({"start", "rowid", "tag"}));
  ResetPageScanCounts();
  Scanned in_order = scan(by_start);
  EXPECT_EQ(CurrentPageScanCounts().page_checks, 1);
  // Read again (as steps read a table three times): the check is remembered, the rows equal.
  Scanned again = scan(by_start);
  EXPECT_EQ(CurrentPageScanCounts().page_checks, 1);
  EXPECT_EQ(CurrentPageScanCounts().checked_reading_pages, 2);
  EXPECT_EQ(again.keys, in_order.keys);
  EXPECT_TRUE(in_order.pages);
  EXPECT_EQ(in_order.order, ScanOrder::kStorage);
  EXPECT_EQ(in_order.keys, ordered_by_sql(by_start));
  EXPECT_EQ(in_order.keys.size(), 3001u);
  // A real in a column read: the pages cannot give every row, so SQL checks and reads.
  ScanQuery with_note = TableQuery(Columns({"start", "rowid", "note"}));
  Scanned declined = scan(with_note);
  EXPECT_FALSE(declined.pages);
  EXPECT_EQ(declined.keys, ordered_by_sql(with_note));
  // Every seventh tag negative: the default window puts them in order (from the pages),
  // a window of 16 rows cannot (ORDER BY).
  ScanQuery by_tag = TableQuery(Columns({"tag", "rowid"}));
  by_tag.key = {0, 1};
  Scanned windowed = scan(by_tag);
  EXPECT_EQ(windowed.order, ScanOrder::kWindow);
  EXPECT_TRUE(windowed.pages);
  EXPECT_EQ(windowed.keys, ordered_by_sql(by_tag));
  Scanned sorted = scan(by_tag, 16);
  EXPECT_EQ(sorted.order, ScanOrder::kSqlSort);
  EXPECT_FALSE(sorted.pages);
  EXPECT_EQ(sorted.keys, ordered_by_sql(by_tag));
}

TEST(SqlitePages, OverflowPageDeclined) {
  fs::path path = SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER, note BLOB)", 3000,
                             "INSERT INTO t VALUES (5, 6, zeroblob(20000));");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "start", "tag"}))), "declined");
}

TEST(SqlitePages, NonIntegersInColumnsRead) {
  fs::path path =
      SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER, note)", 3000,
                 "INSERT INTO t VALUES (5, 6, 'text'); INSERT INTO t VALUES (7, 8, 1.5);"
                 "INSERT INTO t VALUES (1.25, 9, 0);");
  // A real in a column read: declined (SQL's answer stands); where it is not read: exact.
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "start"}))), "declined");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "tag"}))), "exact");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "note"}))), "declined");
  EXPECT_EQ(PagePathOutcome(path, TableQuery({Operand::Rowid(), Operand::Column("tag"),
                                              Operand::ColumnOr("note", 3)},
                                             {Term::In(Operand::Column("tag"), {1, 2, 3, 8, 9})})),
            "declined");
}

TEST(SqlitePages, FiltersAndExpressionsAsSql) {
  fs::path path = SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER, maybe INTEGER)", 5000,
                             "UPDATE t SET maybe = start WHERE tag % 3 = 0;");
  const std::vector<ScanOperand> columns = {
      Operand::Rowid(), Operand::ColumnOr("maybe", 0), Operand::ColumnAnd("start", -4096),
      Operand::Null(),  Operand::Constant(0),          Operand::Column("tag")};
  EXPECT_EQ(PagePathOutcome(
                path, TableQuery(columns, {Term::In(Operand::Column("tag"), {3, 6, -7, 9, 12}),
                                           Term::IsNotNull(Operand::Column("maybe"))})),
            "exact");
  // Terms on expressions, = and NULL operands, as SQL evaluates them.
  EXPECT_EQ(
      PagePathOutcome(path, TableQuery(columns, {Term::Equals(Operand::ColumnAnd("tag", 3), 1),
                                                 Term::IsNotNull(Operand::Rowid())})),
      "exact");
  EXPECT_EQ(PagePathOutcome(
                path, TableQuery(columns, {Term::Equals(Operand::ColumnOr("maybe", -1), -1)})),
            "exact");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(columns, {Term::IsNotNull(Operand::Null())})),
            "exact");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(columns, {Term::In(Operand::Column("tag"), {})})),
            "exact");
  // A column the table lacks: left to SQL (which reports it).
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "absent"}))), "sql");
}

// Names are written into the SQL unquoted: one SQL reads as a value, not the column, is
// left to SQL; one SQL resolves to the column (a keyword such as `end`) is read.
TEST(SqlitePages, ColumnNamedAsSqlLiteralLeftToSql) {
  fs::path path =
      SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER, \"null\" INTEGER, \"end\" INTEGER)",
                 3000, "UPDATE t SET \"null\" = 1, \"end\" = start + 1;");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "null"}))), "sql");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "end"}),
                                             {Term::IsNotNull(Operand::Column("END"))})),
            "exact");
}

TEST(SqlitePages, WalDatabaseAndJournalLeftToSql) {
  fs::path path = SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER)", 3000,
                             "PRAGMA journal_mode = WAL; INSERT INTO t VALUES (1, 2);");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"rowid", "start"}))), "sql");
  fs::path plain = SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER)", 3000);
  EXPECT_EQ(PagePathOutcome(plain, TableQuery(Columns({"rowid", "start"}))), "exact");
  std::ofstream(plain.string() + "-journal") << "x";
  EXPECT_EQ(PagePathOutcome(plain, TableQuery(Columns({"rowid", "start"}))), "sql");
}

TEST(SqlitePages, WithoutRowidTableLeftToSql) {
  fs::path path = TestDir() / "t.sqlite";
  fs::remove(path);
  Exec(path,
       "CREATE TABLE t (start INTEGER PRIMARY KEY, tag INTEGER) WITHOUT ROWID;"
       "INSERT INTO t VALUES (1, 2), (3, 4);");
  EXPECT_EQ(PagePathOutcome(path, TableQuery(Columns({"tag"}))), "sql");
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The pages of the table B-tree of t in `bytes` (page size 4096): their numbers and types.
std::vector<uint32_t> TablePageNumbers(const std::string& bytes) {
  std::vector<uint32_t> pages;
  for (size_t at = 4096; at + 4096 <= bytes.size(); at += 4096) {
    const auto type = static_cast<uint8_t>(bytes[at]);
    if (type == 0x05 || type == 0x0D) pages.push_back(static_cast<uint32_t>(at / 4096 + 1));
  }
  return pages;
}

// Bytes flipped in page headers, cell pointer arrays and cells: never a crash or a hang
// (ASan in CI), and the page path answers only when SQLite gives the same rows.
TEST(SqlitePages, DamagedPagesGiveSqlsAnswerOrDecline) {
  const fs::path clean = SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER, note)", 4000,
                                    "UPDATE t SET note = tag * 3 WHERE tag % 5 = 0;");
  const std::string bytes = ReadBytes(clean);
  const std::vector<uint32_t> pages = TablePageNumbers(bytes);
  ASSERT_GT(pages.size(), 10u);
  const fs::path damaged = TestDir() / "damaged.sqlite";
  const ScanQuery query = TableQuery({Operand::Rowid(), Operand::Column("start"),
                                      Operand::Column("tag"), Operand::ColumnOr("note", -1)});
  std::mt19937 random(15);
  int declined = 0;
  int exact = 0;
  for (int round = 0; round < 300; ++round) {
    std::string copy = bytes;
    const uint32_t page = pages[random() % pages.size()];
    const size_t base = size_t{page - 1} * 4096;
    // A third in the header, a third in the cell pointers, a third anywhere in the page.
    const size_t where = round % 3 == 0   ? random() % 12
                         : round % 3 == 1 ? 8 + random() % 64
                                          : random() % 4096;
    copy[base + where] = static_cast<char>(copy[base + where] ^ (1 + random() % 255));
    WriteBytes(damaged, copy);
    const std::string outcome = PagePathOutcome(damaged, query);
    SCOPED_TRACE("round " + std::to_string(round) + ": page " + std::to_string(page) + " byte " +
                 std::to_string(where));
    EXPECT_TRUE(outcome == "exact" || outcome == "declined" || outcome == "sql") << outcome;
    declined += outcome == "declined";
    exact += outcome == "exact";
  }
  EXPECT_GT(declined, 0);
  EXPECT_GT(exact, 0);
}

TEST(SqlitePages, ChildPointerCycleDeclined) {
  const fs::path clean = SmallTable("CREATE TABLE t (start INTEGER, tag INTEGER)", 20000);
  std::string bytes = ReadBytes(clean);
  Result<SqliteDb> db = SqliteDb::Open(clean, "t.sqlite");
  ASSERT_TRUE(db.ok());
  Result<SqliteStatement> root = db->Prepare("SELECT rootpage FROM sqlite_master WHERE name = 't'");
  ASSERT_TRUE(root.ok());
  Result<bool> has_root = root->Step();
  ASSERT_TRUE(has_root.ok() && *has_root);
  const auto root_page = static_cast<uint32_t>(root->Int64(0));
  const size_t base = size_t{root_page - 1} * 4096;
  ASSERT_EQ(static_cast<uint8_t>(bytes[base]), 0x05) << "the root is an interior page";
  // The root's right-most child pointer points back at the root.
  for (int i = 0; i < 4; ++i) bytes[base + 8 + i] = static_cast<char>(root_page >> (24 - 8 * i));
  const fs::path damaged = TestDir() / "cycle.sqlite";
  WriteBytes(damaged, bytes);
  const ScanQuery query = TableQuery(Columns({"rowid", "start"}));
  Result<SqliteDb> bad = SqliteDb::Open(damaged, "t.sqlite");
  ASSERT_TRUE(bad.ok());
  PageRead pages = PageRows(*bad, query);
  ASSERT_TRUE(pages.taken);
  EXPECT_TRUE(IsPagesDeclined(pages.status)) << pages.status.message();
}

}  // namespace
}  // namespace stepstat::nsys_sqlite
