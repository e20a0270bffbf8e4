// Rows of an nsys export's table in key order without SQLite's sorter. An export has no
// indexes, so `ORDER BY` sorts the whole table (most of what reading an export cost). But
// nsys writes each activity table in time order (rowids follow start: no inversion in the
// real exports of ../shared/data/real, nor in `stepstat synth` output), and within a process
// correlation ids follow it too, but for streams or threads racing. So a table is first
// checked in one cheap pass over its key columns, then read in storage order (a plain walk of
// its B-tree): as is when the keys already come sorted, through a min-heap of a bounded
// number of rows when every row is at most that many places late, and with `ORDER BY` only
// when it is further out of order. Each way yields exactly the rows, in exactly the order,
// that `ORDER BY <key>` yields.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "readers/nearly_sorted_queue.h"
#include "readers/sqlite/nsys_sqlite_db.h"
#include "readers/sqlite/nsys_sqlite_scan_query.h"
#include "stepstat/status.h"

namespace stepstat::nsys_sqlite {

inline constexpr int kMaxScanColumns = kMaxRowColumns;
/// Rows a reorder window holds at most (~80 bytes each).
inline constexpr size_t kDefaultWindowRows = size_t{1} << 14;
/// Rows a storage-order read takes out of SQLite per sqlite3_step.
inline constexpr size_t kStepBatchRows = 256;

/// How a scan produces its order.
enum class ScanOrder {
  kStorage,  ///< the table's own order already was the key's
  kWindow,   ///< storage order through a reorder window
  kSqlSort,  ///< `ORDER BY`: rows too far out of order, or keys that are not integers
  /// Storage order through a reorder window, not checked first: Step() fails
  /// (IsTooFarOutOfOrder) at the first row the window cannot put in order. Rows handed out
  /// before that are in order but may miss rows still to come, so the caller must drop what
  /// it made of them and read again with the order checked first.
  kAsStored,
};

/// The status Step() of a kAsStored scan fails with when the window cannot restore the order.
Status TooFarOutOfOrder(std::string_view display_name);
bool IsTooFarOutOfOrder(const Status& status);

/// How the as-stored scans (kAsStored) were read, process-wide since the last reset: the
/// check that every big-table scan of summarize reads pages (tests/sqlite_pages_test.cc), so
/// that a reader's query the page path turns away fails a test instead of quietly costing
/// time. Relaxed counters: scans may run on more than one thread.
struct PageScanCounts {
  int64_t as_stored = 0;      ///< kAsStored scans opened
  int64_t reading_pages = 0;  ///< of those, the ones PageScan took
  int64_t declined = 0;       ///< page reads that declined a row (the caller read again by SQL)
  int64_t checked_reading_pages = 0;  ///< checked scans whose check and read took the pages
  int64_t page_checks = 0;            ///< order checks walked on the pages (not remembered)
};
PageScanCounts CurrentPageScanCounts();
void ResetPageScanCounts();

class PageScan;

class SortedScan {
 public:
  /// Checks the table's order with one pass over its rows (unless the caller already knows it
  /// from a pass of its own, or wants kAsStored: `known_order`), then prepares the read. The
  /// check reads the table's pages when they give every row (then the read takes them too),
  /// else it runs in SQL over the key columns. `window_rows` bounds the reorder window (and
  /// so the memory a scan holds).
  /// A kAsStored scan reads the table's pages itself (PageScan) when it can be sure that
  /// gives what SQL gives; a row it cannot be sure of then fails Step() (IsPagesDeclined),
  /// as a row too far out of order does, and the caller reads again checked, through SQL.
  /// `pages_give_every_row`: the caller's own pass read every row of `query` from the pages
  /// (with `known_order`), so the read takes them from the pages too.
  static Result<SortedScan> Open(const SqliteDb& db, const ScanQuery& query,
                                 size_t window_rows = kDefaultWindowRows,
                                 std::optional<ScanOrder> known_order = std::nullopt,
                                 bool pages_give_every_row = false);
  SortedScan(SortedScan&& other) noexcept;
  SortedScan& operator=(SortedScan&& other) noexcept;
  ~SortedScan();

  /// Moves to the next row in key order; false at the end. An error when the rows do not
  /// come as the check found them (the file changed between the two passes).
  Result<bool> Step();
  /// The current row; valid until the next Step().
  const IntRow& row() const { return current_; }
  ScanOrder order() const { return order_; }
  /// True when the rows come from the table's pages rather than through SQL.
  bool reads_pages() const { return pages_ != nullptr; }

 private:
  // Orders rows by the key columns (at most four, most significant first).
  struct KeyLess {
    std::array<int, 4> columns{};
    size_t size = 0;
    bool operator()(const IntRow& a, const IntRow& b) const {
      for (size_t i = 0; i < size; ++i) {
        const int column = columns[i];
        if (a.values[column] != b.values[column]) return a.values[column] < b.values[column];
      }
      return false;
    }
  };

  SortedScan(SqliteStatement stmt, ScanOrder order, KeyLess key_less, size_t window_rows,
             int columns, std::string display_name);

  /// The next row as the statement yields it (storage order, or SQL's for kSqlSort), in
  /// the batch or stepped_; null at the end. Valid until the next call.
  Result<const IntRow*> NextRow();
  /// The window's smallest row (still in it: Step pops it once copied); null at the end.
  Result<const IntRow*> StepWindow();

  SqliteStatement stmt_;
  /// Storage-order reads: the rows stepstat_take_row filled, bound to stmt_ (so on the heap:
  /// a scan moves, the binding must not); null for kSqlSort, which steps rows out one by one.
  std::unique_ptr<IntRowBatch> batch_;
  /// kAsStored: the table's pages read directly, filling batch_ instead of stmt_.
  std::unique_ptr<PageScan> pages_;
  size_t batch_next_ = 0;
  bool statement_done_ = false;
  Status pending_error_;  ///< the statement's error, once the rows taken before it are out
  ScanOrder order_;
  KeyLess key_less_;
  size_t window_rows_;
  int columns_;
  std::string display_name_;
  IntRow current_;
  IntRow stepped_;  ///< kSqlSort: the row stepped out of SQLite
  bool have_previous_ = false;
  bool exhausted_ = false;
  /// kWindow, kAsStored: rows read but not yet handed out; in-order rows cost O(1).
  NearlySortedQueue<IntRow, KeyLess> window_;
};

/// How `query`'s rows lie in storage order: kStorage when their keys never decrease,
/// kWindow when a min-heap of `window_rows` rows restores the key order, else kSqlSort (also
/// for a key that is not an integer somewhere: SQL orders NULL and text its own way).
Result<ScanOrder> CheckStorageOrder(const SqliteDb& db, const ScanQuery& query, size_t window_rows);

}  // namespace stepstat::nsys_sqlite
