#include "readers/sqlite/nsys_sqlite_sorted_scan.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "readers/sqlite/nsys_sqlite_page_scan.h"

namespace stepstat::nsys_sqlite {
namespace {

constexpr size_t kMaxKeyColumns = 4;
constexpr std::string_view kTooFarOutOfOrder =
    "rows further out of order than the reorder window: read again, checked first";
using Key = std::array<int64_t, kMaxKeyColumns>;  // unused places stay 0

std::atomic<int64_t> as_stored_scans{0};
std::atomic<int64_t> page_scans{0};
std::atomic<int64_t> declined_page_reads{0};
std::atomic<int64_t> checked_page_scans{0};
std::atomic<int64_t> page_checks{0};

std::string WhereClause(const ScanQuery& query) {
  return query.where.empty() ? std::string() : " WHERE " + ConditionSql(query.where);
}

// Heap simulation over the keys alone: does a min-heap of `window_rows` rows pop them in
// order? `next(key)` fills the next key, false at the end. False as soon as one comes out
// below its predecessor.
template <typename NextKey>
Result<bool> WindowRestoresOrder(NextKey next, size_t window_rows) {
  std::vector<Key> heap;
  heap.reserve(window_rows + 1);
  const auto later = [](const Key& a, const Key& b) { return b < a; };
  Key last_popped{};
  bool popped_any = false;
  auto pop = [&]() {
    std::pop_heap(heap.begin(), heap.end(), later);
    Key key = heap.back();
    heap.pop_back();
    bool in_order = !popped_any || !(key < last_popped);
    popped_any = true;
    last_popped = key;
    return in_order;
  };
  for (;;) {
    Key key{};
    ASSIGN_OR_RETURN(bool row, next(key));
    if (!row) break;
    heap.push_back(key);
    std::push_heap(heap.begin(), heap.end(), later);
    if (heap.size() > window_rows && !pop()) return false;
  }
  while (!heap.empty()) {
    if (!pop()) return false;
  }
  return true;
}

// The order check read from the table's pages (what the SQL check costs most of a read in
// SQLite's VM): every row of the query, so that a clean pass also shows that the pages give
// each of them, and the read that follows can take them from the pages too. nullopt when
// the pages cannot tell: no page reader for the query, a row it declines, a key that is not
// an integer (SQL orders NULL its own way), any error. The SQL check then runs as before,
// so the answer and any error stay exactly those of a checked read.
std::optional<ScanOrder> CheckOrderByPages(const SqliteDb& db, const ScanQuery& query,
                                           size_t window_rows) {
  page_checks.fetch_add(1, std::memory_order_relaxed);
  const size_t key_size = query.key.size();
  uint32_t key_bits = 0;
  for (int column : query.key) key_bits |= 1U << column;
  // One pass of keys out of a fresh page reader; nullopt when it cannot give them all.
  struct Pass {
    std::unique_ptr<PageScan> pages;
    IntRowBatch batch;
    size_t next = 0;
    bool done = false;
  };
  auto open = [&]() -> std::optional<Pass> {
    Result<std::unique_ptr<PageScan>> pages = PageScan::Open(db, query);
    if (!pages.ok() || *pages == nullptr) return std::nullopt;
    Pass pass;
    pass.pages = std::move(*pages);
    pass.batch.capacity = kStepBatchRows;
    pass.batch.rows.reserve(kStepBatchRows);
    return pass;
  };
  auto next_key = [&](Pass& pass, Key& key) -> Result<bool> {
    if (pass.next == pass.batch.rows.size()) {
      pass.batch.rows.clear();
      pass.next = 0;
      if (pass.done) return false;
      ASSIGN_OR_RETURN(bool more, pass.pages->Fill(pass.batch));
      pass.done = !more;
      if (pass.batch.rows.empty()) return false;
    }
    const IntRow& row = pass.batch.rows[pass.next++];
    if ((row.integers & key_bits) != key_bits) return Status::Error("a key that is no integer");
    for (size_t i = 0; i < key_size; ++i) key[i] = row.values[query.key[i]];
    return true;
  };

  std::optional<Pass> sorted_pass = open();
  if (!sorted_pass) return std::nullopt;
  bool sorted = true;
  Key previous{};
  bool have_previous = false;
  for (;;) {
    Key key{};
    Result<bool> row = next_key(*sorted_pass, key);
    if (!row.ok()) return std::nullopt;
    if (!*row) break;
    if (have_previous && key < previous) sorted = false;  // read on: every row must come
    previous = key, have_previous = true;
  }
  if (sorted) return ScanOrder::kStorage;
  if (window_rows == 0) return ScanOrder::kSqlSort;
  std::optional<Pass> window_pass = open();
  if (!window_pass) return std::nullopt;
  Result<bool> restores =
      WindowRestoresOrder([&](Key& key) { return next_key(*window_pass, key); }, window_rows);
  if (!restores.ok()) return std::nullopt;
  return *restores ? ScanOrder::kWindow : ScanOrder::kSqlSort;
}

// The page checks this process has made, so that a table read again (steps read the GPU
// tables three times: the ranges, the accumulation, the residue) is checked once. Keyed by
// the file (path, size and last write time), the exact query, its key and window: the same
// rows, so the same order and the same pages. A file changed since all the same fails its
// read ("the file changed while it was read": rows out of the order found, or a row the
// pages decline), never a silent difference. Bounded: a long-lived process (the Python
// module, a Dask worker) forgets all of them past kMaxRemembered.
class PageChecks {
 public:
  static PageChecks& Get() {
    static PageChecks checks;
    return checks;
  }
  std::optional<ScanOrder> Find(const std::string& key) {
    if (key.empty()) return std::nullopt;
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = orders_.find(key);
    if (found == orders_.end()) return std::nullopt;
    return found->second;
  }
  void Remember(const std::string& key, ScanOrder order) {
    if (key.empty()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (orders_.size() >= kMaxRemembered) orders_.clear();
    orders_.emplace(key, order);
  }

 private:
  static constexpr size_t kMaxRemembered = 256;
  std::mutex mutex_;
  std::unordered_map<std::string, ScanOrder> orders_;
};

// Empty when the file's pages cannot be opened (then nothing is remembered).
std::string PageCheckKey(const SqliteDb& db, const ScanQuery& query, size_t window_rows) {
  Result<std::shared_ptr<RandomAccessFile>> file = db.PagesFile();
  if (!file.ok()) return {};
  std::string key = db.path().string();
  key += '\n' + std::to_string((*file)->size()) + ' ' + std::to_string((*file)->modified_ticks()) +
         '\n' + SelectSql(query) + '\n';
  for (int column : query.key) key += std::to_string(column) + ',';
  key += '\n' + std::to_string(window_rows);
  return key;
}

}  // namespace

PageScanCounts CurrentPageScanCounts() {
  PageScanCounts counts;
  counts.as_stored = as_stored_scans.load(std::memory_order_relaxed);
  counts.reading_pages = page_scans.load(std::memory_order_relaxed);
  counts.declined = declined_page_reads.load(std::memory_order_relaxed);
  counts.checked_reading_pages = checked_page_scans.load(std::memory_order_relaxed);
  counts.page_checks = page_checks.load(std::memory_order_relaxed);
  return counts;
}

void ResetPageScanCounts() {
  as_stored_scans.store(0, std::memory_order_relaxed);
  page_scans.store(0, std::memory_order_relaxed);
  declined_page_reads.store(0, std::memory_order_relaxed);
  checked_page_scans.store(0, std::memory_order_relaxed);
  page_checks.store(0, std::memory_order_relaxed);
}

Result<ScanOrder> CheckStorageOrder(const SqliteDb& db, const ScanQuery& query,
                                    size_t window_rows) {
  const size_t key_size = query.key.size();
  if (key_size == 0 || key_size > kMaxKeyColumns) return ScanOrder::kSqlSort;
  std::vector<ScanOperand> key_columns;
  for (int column : query.key) key_columns.push_back(query.columns.at(column));
  const std::string from = " FROM " + query.table;
  ASSIGN_OR_RETURN(SqliteStatement check,
                   db.Prepare("SELECT stepstat_key_order(" + OperandListSql(key_columns) + ")" +
                              from + WhereClause(query)));
  ASSIGN_OR_RETURN(bool row, check.Step());
  const int64_t verdict = row ? check.Int64(0) : 0;
  if (verdict == 0) return ScanOrder::kStorage;
  if (verdict != 1 || window_rows == 0) return ScanOrder::kSqlSort;
  ASSIGN_OR_RETURN(SqliteStatement stmt,
                   db.Prepare("SELECT " + OperandListSql(key_columns) + from + WhereClause(query)));
  ASSIGN_OR_RETURN(bool restores, WindowRestoresOrder(
                                      [&](Key& key) -> Result<bool> {
                                        ASSIGN_OR_RETURN(bool row, stmt.Step());
                                        if (row)
                                          stmt.Integers(static_cast<int>(key_size), key.data());
                                        return row;
                                      },
                                      window_rows));
  return restores ? ScanOrder::kWindow : ScanOrder::kSqlSort;
}

Status TooFarOutOfOrder(std::string_view display_name) {
  return ErrorAt(display_name, 0, std::string(kTooFarOutOfOrder));
}

bool IsTooFarOutOfOrder(const Status& status) {
  return !status.ok() && status.message().ends_with(kTooFarOutOfOrder);
}

SortedScan::SortedScan(SqliteStatement stmt, ScanOrder order, KeyLess key_less, size_t window_rows,
                       int columns, std::string display_name)
    : stmt_(std::move(stmt)),
      order_(order),
      key_less_(key_less),
      window_rows_(window_rows),
      columns_(columns),
      display_name_(std::move(display_name)),
      window_(key_less) {}

SortedScan::SortedScan(SortedScan&& other) noexcept = default;
SortedScan& SortedScan::operator=(SortedScan&& other) noexcept = default;
SortedScan::~SortedScan() = default;

Result<SortedScan> SortedScan::Open(const SqliteDb& db, const ScanQuery& query, size_t window_rows,
                                    std::optional<ScanOrder> known_order,
                                    bool pages_give_every_row) {
  if (query.columns.size() > static_cast<size_t>(kMaxScanColumns)) {
    return Status::Error("internal error: a scan of more than kMaxScanColumns columns");
  }
  if (query.key.empty() || query.key.size() > kMaxKeyColumns) {
    return Status::Error("internal error: a scan key of no or more than four columns");
  }
  KeyLess key_less;
  key_less.size = query.key.size();
  std::copy(query.key.begin(), query.key.end(), key_less.columns.begin());
  ScanOrder order = ScanOrder::kSqlSort;
  bool pages_checked = false;  // the check read every row from the pages: so can the read
  if (known_order) {
    order = *known_order;
    pages_checked = pages_give_every_row && order != ScanOrder::kAsStored;
  } else if (std::optional<ScanOrder> known =
                 PageChecks::Get().Find(PageCheckKey(db, query, window_rows))) {
    order = *known;  // checked on these pages before, in this process
    pages_checked = true;
  } else if (std::optional<ScanOrder> by_pages = CheckOrderByPages(db, query, window_rows)) {
    order = *by_pages;
    pages_checked = true;
    PageChecks::Get().Remember(PageCheckKey(db, query, window_rows), order);
  } else {
    ASSIGN_OR_RETURN(order, CheckStorageOrder(db, query, window_rows));
  }
  if (order == ScanOrder::kSqlSort) {
    std::string positions;
    for (int column : query.key) {
      if (!positions.empty()) positions += ", ";
      positions += std::to_string(column + 1);
    }
    ASSIGN_OR_RETURN(SqliteStatement stmt, db.Prepare(SelectSql(query) + " ORDER BY " + positions));
    return SortedScan(std::move(stmt), order, key_less, window_rows,
                      static_cast<int>(query.columns.size()), db.display_name());
  }
  // Storage order: the rows come out a batch per step (stepstat_take_row). The filter is
  // the CASE's condition, so that no row that fails it is taken, whatever order SQLite
  // would evaluate the terms of an AND in.
  const std::string take = "stepstat_take_row(?1, " + OperandListSql(query.columns) + ")";
  const std::string condition = query.where.empty() ? take
                                                    : "CASE WHEN " + ConditionSql(query.where) +
                                                          " THEN " + take + " ELSE 0 END";
  ASSIGN_OR_RETURN(SqliteStatement stmt,
                   db.Prepare("SELECT 1 FROM " + query.table + " WHERE " + condition));
  SortedScan scan(std::move(stmt), order, key_less, window_rows,
                  static_cast<int>(query.columns.size()), db.display_name());
  scan.batch_ = std::make_unique<IntRowBatch>();
  scan.batch_->capacity = kStepBatchRows;
  scan.batch_->rows.reserve(kStepBatchRows);
  RETURN_IF_ERROR(scan.stmt_.BindRowBatch(1, scan.batch_.get()));
  // Only an unchecked pass reads pages: its caller already reads again through SQL on any
  // failure, so a row the page reader declines costs time, never a different answer.
  if (order == ScanOrder::kAsStored) {
    ASSIGN_OR_RETURN(scan.pages_, PageScan::Open(db, query));
    as_stored_scans.fetch_add(1, std::memory_order_relaxed);
    if (scan.pages_ != nullptr) page_scans.fetch_add(1, std::memory_order_relaxed);
  } else if (pages_checked) {
    // The same pages gave every row a moment ago (the file is immutable), so they will again.
    ASSIGN_OR_RETURN(scan.pages_, PageScan::Open(db, query));
    if (scan.pages_ != nullptr) checked_page_scans.fetch_add(1, std::memory_order_relaxed);
  }
  return scan;
}

Result<const IntRow*> SortedScan::NextRow() {
  const IntRow* none = nullptr;
  if (!batch_) {
    ASSIGN_OR_RETURN(bool has_row, stmt_.Step());
    if (!has_row) return none;
    stepped_.integers = stmt_.Integers(columns_, stepped_.values.data());
    return &stepped_;
  }
  if (batch_next_ == batch_->rows.size()) {
    batch_->rows.clear();
    batch_next_ = 0;
    if (!pending_error_.ok()) return pending_error_;
    if (pages_ != nullptr) {
      if (!statement_done_) {
        Result<bool> more = pages_->Fill(*batch_);
        if (!more.ok()) {
          if (IsPagesDeclined(more.status())) {
            declined_page_reads.fetch_add(1, std::memory_order_relaxed);
            // A checked scan's pages gave every row to its check: a row declined now is a
            // file that changed (an unchecked one's caller reads again through SQL).
            if (order_ != ScanOrder::kAsStored) {
              return ErrorAt(display_name_, 0, "the file changed while it was read");
            }
          }
          return more.status();
        }
        statement_done_ = !*more;
      }
    } else {
      // A step returns when the batch is full (a row of `SELECT 1`) or the table is done. An
      // error (a damaged page) waits behind the rows taken before it, so that a bad row
      // among them is still the error reported, as when rows were stepped out one by one.
      while (!statement_done_ && batch_->rows.empty()) {
        Result<bool> full = stmt_.Step();
        if (!full.ok()) {
          pending_error_ = full.status();
          statement_done_ = true;
          if (batch_->rows.empty()) return pending_error_;
          break;
        }
        statement_done_ = !*full;
      }
    }
    if (batch_->rows.empty()) return none;
  }
  return &batch_->rows[batch_next_++];
}

Result<bool> SortedScan::Step() {
  const IntRow* next = nullptr;
  if (order_ == ScanOrder::kWindow || order_ == ScanOrder::kAsStored) {
    ASSIGN_OR_RETURN(next, StepWindow());
  } else {
    ASSIGN_OR_RETURN(next, NextRow());
  }
  if (next == nullptr) return false;
  // The check found this order; an immutable file that changed since breaks it. Unchecked
  // (kAsStored), this is where the window turns out too small. Checked against the row
  // handed out before, still in current_ (rows are copied once out of the window).
  if (order_ != ScanOrder::kSqlSort && have_previous_ && key_less_(*next, current_)) {
    if (order_ == ScanOrder::kAsStored) return TooFarOutOfOrder(display_name_);
    return ErrorAt(display_name_, 0, "the file changed while it was read");
  }
  current_ = *next;
  if (order_ == ScanOrder::kWindow || order_ == ScanOrder::kAsStored) window_.Pop();
  have_previous_ = true;
  return true;
}

Result<const IntRow*> SortedScan::StepWindow() {
  while (!exhausted_ && window_.size() <= window_rows_) {
    ASSIGN_OR_RETURN(const IntRow* row, NextRow());
    if (row == nullptr) {
      exhausted_ = true;
      break;
    }
    window_.Push(*row);
  }
  if (window_.empty()) return static_cast<const IntRow*>(nullptr);
  return &window_.Top();  // popped once Step has copied it
}

}  // namespace stepstat::nsys_sqlite
