#include "readers/sqlite/nsys_sqlite_sorted_scan.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "readers/nearly_sorted_queue.h"

namespace stepstat::nsys_sqlite {
namespace {

namespace fs = std::filesystem;

fs::path TempPath(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / "stepstat_sorted_scan_test" /
                 ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::create_directories(dir);
  fs::path path = dir / name;
  fs::remove(path);
  return path;
}

// A table t(start, tag) whose rows are stored in the order of `starts` (rowid 1, 2, ...).
fs::path WriteTable(const std::vector<std::string>& starts) {
  fs::path path = TempPath("t.sqlite");
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
  std::string sql = "CREATE TABLE t (start INTEGER, tag INTEGER); BEGIN;";
  for (size_t i = 0; i < starts.size(); ++i) {
    sql += "INSERT INTO t VALUES (" + starts[i] + ", " + std::to_string(i % 3) + ");";
  }
  sql += "COMMIT;";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  return path;
}

std::vector<std::string> Numbers(const std::vector<int64_t>& values) {
  std::vector<std::string> texts;
  for (int64_t v : values) texts.push_back(std::to_string(v));
  return texts;
}

ScanQuery StartQuery(std::vector<ScanFilterTerm> where = {}) {
  ScanQuery query;
  query.columns = {ScanOperand::Rowid(), ScanOperand::Column("start"), ScanOperand::Column("tag")};
  query.table = "t";
  query.where = std::move(where);
  query.key = {1, 0};  // start, rowid
  return query;
}

// (rowid, start or "null", tag) of every row a scan yields.
struct Read {
  ScanOrder order;
  std::vector<std::string> rows;
};
Read ReadAll(const fs::path& path, const ScanQuery& query, size_t window_rows) {
  Result<SqliteDb> db = SqliteDb::Open(path, "t.sqlite");
  EXPECT_TRUE(db.ok());
  Result<SortedScan> scan = SortedScan::Open(*db, query, window_rows);
  EXPECT_TRUE(scan.ok()) << scan.status().message();
  Read read{scan->order(), {}};
  for (;;) {
    Result<bool> row = scan->Step();
    EXPECT_TRUE(row.ok()) << row.status().message();
    if (!row.ok() || !*row) break;
    const IntRow& r = scan->row();
    std::optional<int64_t> start = r.OptionalInt64(1);
    read.rows.push_back(std::to_string(r.Int64(0)) + "," +
                        (start ? std::to_string(*start) : "null") + "," +
                        std::to_string(r.Int64(2)));
  }
  return read;
}

// What SQLite's own sorter yields: the order every way of scanning must reproduce.
std::vector<std::string> OrderedBySql(const fs::path& path, const std::string& where = "") {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.string().c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  std::string sql = "SELECT rowid, start, tag FROM t" + where + " ORDER BY start, rowid";
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
  std::vector<std::string> rows;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    bool is_int = sqlite3_column_type(stmt, 1) == SQLITE_INTEGER;
    rows.push_back(std::to_string(sqlite3_column_int64(stmt, 0)) + "," +
                   (is_int ? std::to_string(sqlite3_column_int64(stmt, 1)) : "null") + "," +
                   std::to_string(sqlite3_column_int64(stmt, 2)));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

TEST(SortedScan, StoredInOrderIsReadAsStored) {
  fs::path path = WriteTable(Numbers({1, 2, 2, 5, 9, 9, 9, 12}));
  Read read = ReadAll(path, StartQuery(), 4);
  EXPECT_EQ(read.order, ScanOrder::kStorage);
  EXPECT_EQ(read.rows, OrderedBySql(path));
}

TEST(SortedScan, RowsAFewPlacesLateGoThroughTheWindow) {
  // Every row at most 3 places from where the sort puts it; ties on start keep rowid order.
  std::vector<int64_t> starts;
  std::mt19937 random(7);
  for (int64_t i = 0; i < 2000; ++i) starts.push_back(i / 2 * 10);
  for (size_t i = 0; i + 4 <= starts.size(); i += 4) {
    std::shuffle(starts.begin() + i, starts.begin() + i + 4, random);
  }
  fs::path path = WriteTable(Numbers(starts));
  Read read = ReadAll(path, StartQuery(), 4);
  EXPECT_EQ(read.order, ScanOrder::kWindow);
  EXPECT_EQ(read.rows, OrderedBySql(path));
}

TEST(SortedScan, RowsFurtherOutOfOrderThanTheWindowAreSortedBySql) {
  std::vector<int64_t> starts;
  for (int64_t i = 100; i > 0; --i) starts.push_back(i);
  fs::path path = WriteTable(Numbers(starts));
  Read narrow = ReadAll(path, StartQuery(), 8);
  EXPECT_EQ(narrow.order, ScanOrder::kSqlSort);
  EXPECT_EQ(narrow.rows, OrderedBySql(path));
  Read wide = ReadAll(path, StartQuery(), 100);  // the whole table fits: the window does it
  EXPECT_EQ(wide.order, ScanOrder::kWindow);
  EXPECT_EQ(wide.rows, OrderedBySql(path));
}

TEST(SortedScan, AKeyThatIsNotAnIntegerLeavesTheOrderToSql) {
  // SQL puts NULL first and text after every number: the reader's errors then name the
  // same row as before.
  fs::path path = WriteTable({"5", "NULL", "7", "'abc'", "6"});
  Read read = ReadAll(path, StartQuery(), 16);
  EXPECT_EQ(read.order, ScanOrder::kSqlSort);
  EXPECT_EQ(read.rows, OrderedBySql(path));
  EXPECT_EQ(read.rows.front(), "2,null,1");
}

TEST(SortedScan, TheCheckSeesOnlyTheRowsTheFilterKeeps) {
  // Out of order overall, in order among tag 0 (rows 1, 4, 7).
  fs::path path = WriteTable(Numbers({10, 1, 1, 20, 1, 1, 30}));
  Read read = ReadAll(path, StartQuery({ScanFilterTerm::Equals(ScanOperand::Column("tag"), 0)}), 1);
  EXPECT_EQ(read.order, ScanOrder::kStorage);
  EXPECT_EQ(read.rows, OrderedBySql(path, " WHERE tag = 0"));
  EXPECT_EQ(read.rows.size(), 3u);
}

// Every row a kAsStored scan yields before it ends or fails, and how it ended.
struct AsStoredRead {
  std::vector<int64_t> starts;
  Status end;  ///< Ok when the scan reached the end
};
AsStoredRead ReadAsStored(const fs::path& path, size_t window_rows) {
  Result<SqliteDb> db = SqliteDb::Open(path, "t.sqlite");
  EXPECT_TRUE(db.ok());
  Result<SortedScan> scan = SortedScan::Open(*db, StartQuery(), window_rows, ScanOrder::kAsStored);
  EXPECT_TRUE(scan.ok()) << scan.status().message();
  AsStoredRead read;
  for (;;) {
    Result<bool> row = scan->Step();
    if (!row.ok()) {
      read.end = row.status();
      break;
    }
    if (!*row) break;
    read.starts.push_back(scan->row().Int64(1));
  }
  return read;
}

TEST(SortedScan, AsStoredWithinTheWindowIsTheSqlOrder) {
  // In order, then every row at most 3 places late (across several of the step batches
  // SQLite hands rows out in): no check pass, the same rows as ORDER BY.
  std::vector<int64_t> starts;
  std::mt19937 random(3);
  for (int64_t i = 0; i < 3000; ++i) starts.push_back(i / 3 * 7);
  for (size_t i = 1000; i + 4 <= starts.size(); i += 4) {
    std::shuffle(starts.begin() + i, starts.begin() + i + 4, random);
  }
  fs::path path = WriteTable(Numbers(starts));
  Result<SqliteDb> db = SqliteDb::Open(path, "t.sqlite");
  ASSERT_TRUE(db.ok());
  Result<SortedScan> scan = SortedScan::Open(*db, StartQuery(), 4, ScanOrder::kAsStored);
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  EXPECT_EQ(scan->order(), ScanOrder::kAsStored);
  std::vector<std::string> rows;
  for (;;) {
    Result<bool> row = scan->Step();
    ASSERT_TRUE(row.ok()) << row.status().message();
    if (!*row) break;
    const IntRow& r = scan->row();
    rows.push_back(std::to_string(r.Int64(0)) + "," + std::to_string(r.Int64(1)) + "," +
                   std::to_string(r.Int64(2)));
  }
  EXPECT_EQ(rows, OrderedBySql(path));
}

TEST(SortedScan, AsStoredFailsAtTheFirstRowTheWindowCannotPlace) {
  // In order for 5000 rows, then one row that belongs near the start: the disorder starts
  // late in the table, after thousands of rows were handed out.
  std::vector<int64_t> starts;
  for (int64_t i = 0; i < 5000; ++i) starts.push_back(100 + i);
  starts.push_back(50);
  for (int64_t i = 5000; i < 5100; ++i) starts.push_back(100 + i);
  fs::path path = WriteTable(Numbers(starts));
  AsStoredRead read = ReadAsStored(path, 64);
  EXPECT_TRUE(IsTooFarOutOfOrder(read.end)) << read.end.message();
  // What went out before was in order, and the late row was not among it.
  EXPECT_GT(read.starts.size(), 4000u);
  EXPECT_TRUE(std::is_sorted(read.starts.begin(), read.starts.end()));
  EXPECT_EQ(std::count(read.starts.begin(), read.starts.end(), 50), 0);
  // A window as large as the distance restores it; checked first, the window is chosen.
  AsStoredRead wide = ReadAsStored(path, 5001);
  EXPECT_TRUE(wide.end.ok()) << wide.end.message();
  EXPECT_EQ(wide.starts.size(), starts.size());
  EXPECT_TRUE(std::is_sorted(wide.starts.begin(), wide.starts.end()));
  EXPECT_EQ(ReadAll(path, StartQuery(), 64).rows, OrderedBySql(path));
}

TEST(SortedScan, AsStoredNeverFailsOnAnOrderedTable) {
  fs::path path = WriteTable(Numbers({1, 2, 2, 5, 9, 9, 9, 12}));
  AsStoredRead read = ReadAsStored(path, 1);
  EXPECT_TRUE(read.end.ok()) << read.end.message();
  EXPECT_EQ(read.starts, (std::vector<int64_t>{1, 2, 2, 5, 9, 9, 9, 12}));
}

TEST(NearlySortedQueue, PopsWhatAPriorityQueuePops) {
  std::mt19937 random(11);
  for (int late_by : {0, 1, 5, 1000}) {
    std::vector<int> values(5000);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(i);
    for (size_t i = 0; i < values.size(); i += 37) {  // a straggler every 37 values
      size_t j = std::min(values.size() - 1, i + std::uniform_int_distribution<size_t>(
                                                     0, static_cast<size_t>(late_by))(random));
      std::swap(values[i], values[j]);
    }
    NearlySortedQueue<int, std::less<>> queue;
    std::priority_queue<int, std::vector<int>, std::greater<>> reference;
    std::vector<int> got, expected;
    for (int v : values) {
      queue.Push(v);
      reference.push(v);
      if (queue.size() > 64) {  // a bounded window, as the launch reader keeps
        got.push_back(queue.Top());
        queue.Pop();
        expected.push_back(reference.top());
        reference.pop();
      }
    }
    while (!queue.empty()) {
      got.push_back(queue.Top());
      queue.Pop();
      expected.push_back(reference.top());
      reference.pop();
    }
    EXPECT_EQ(got, expected) << "late by up to " << late_by;
    EXPECT_TRUE(reference.empty());
  }
}

}  // namespace
}  // namespace stepstat::nsys_sqlite
