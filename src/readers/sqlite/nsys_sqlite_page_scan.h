// A storage-order scan's rows read from the table's B-tree pages (sqlite_table_pages.h)
// instead of through SQLite's VM, which spent most of a scan's time decoding each column of
// each row (OP_Column). The scan's SELECT list and filter (a ScanQuery, the structure the SQL
// path renders as text: nsys_sqlite_scan_query.h) are evaluated here in C++; SQLite itself
// still answers every question about the schema (the table's root page, its columns and their
// positions, defaults, keys). The rows come out exactly as SelectSql(query) gives them, in
// the same order; a scan this cannot be sure of is not opened (the SQL path runs), and a row it
// cannot be sure of fails the scan with IsPagesDeclined (its caller then reads again through SQL).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "readers/sqlite/nsys_sqlite_db.h"
#include "readers/sqlite/nsys_sqlite_sorted_scan.h"
#include "readers/sqlite/sqlite_table_pages.h"
#include "stepstat/status.h"

namespace stepstat::nsys_sqlite {

class PageScan {
 public:
  /// The page reader for `query`, or null when the SQL path must run: a column the table
  /// does not store plainly (missing, a key, generated or hidden, or a name that is not a
  /// plain identifier), a table with a column called rowid or without rowid, a WAL database or a
  /// journal beside the file, a file laid out otherwise than SQLite's defaults read (see
  /// ReadPageLayout).
  static Result<std::unique_ptr<PageScan>> Open(const SqliteDb& db, const ScanQuery& query);

  /// Appends rows to `batch` until it holds batch.capacity or the table ends; false once it
  /// has ended. A value that is not an integer (text, a real, a blob) in a column read, a
  /// row shorter than the table whose missing column has a default, or a damaged page:
  /// an IsPagesDeclined error.
  Result<bool> Fill(IntRowBatch& batch);

  /// An operand with its column resolved to the column's position in each record.
  struct Operand {
    ScanOperand::Kind kind = ScanOperand::Kind::kNull;
    int column = -1;     ///< the table column (its position in each record); -1: none
    int64_t number = 0;  ///< the constant, IFNULL's fallback or the mask
  };

 private:
  PageScan() = default;
  Status Declined(std::string_view why) const;
  /// Decodes the referenced columns of `record` into values_ / nulls_.
  Status DecodeRecord(std::string_view record);

  std::unique_ptr<TablePages> pages_;
  std::string display_name_;
  // A filter term: the operand is not NULL and (unless any_value) one of `values`.
  struct Test {
    Operand operand;
    bool any_value = false;       ///< IS NOT NULL
    std::vector<int64_t> values;  ///< IN, =: sorted
  };
  std::vector<Operand> outputs_;
  std::vector<Test> filter_;
  std::vector<int> referenced_;        ///< the columns decoded from each record, ascending
  std::vector<bool> default_is_null_;  ///< per table column: ALTER TABLE ADD COLUMN without one
  // Per table column up to the last referenced one, for the current record.
  std::vector<uint64_t> types_;
  std::vector<uint32_t> offsets_;
  std::vector<int64_t> values_;
  std::vector<uint8_t> nulls_;
};

}  // namespace stepstat::nsys_sqlite
