// What a SortedScan reads, as a structure rather than SQL text: a table, a SELECT list of
// integer operands and a filter of AND-ed terms. Two readers take it: ScanSql renders the
// SQL that SQLite runs (the checked scans, ORDER BY, the order check), and PageScan
// evaluates the same structure on the table's pages. Only forms both can evaluate can be
// written, so a reader that changes its scan changes both paths alike, and the page path is
// never left behind by a query text it does not recognise.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace stepstat::nsys_sqlite {

/// One integer expression over a row: an output column or what a filter term tests.
/// `column` is a column name as the schema spells it (a plain identifier: it is written
/// into the SQL unquoted, as the readers' fixed names always were).
struct ScanOperand {
  enum class Kind {
    kRowid,             ///< rowid
    kNull,              ///< NULL (a column the export lacks)
    kConstant,          ///< `number`
    kColumn,            ///< column
    kColumnOrConstant,  ///< IFNULL(column, number)
    kColumnAnd,         ///< (column & number)
  };
  Kind kind = Kind::kNull;
  std::string column;
  int64_t number = 0;

  static ScanOperand Rowid();
  static ScanOperand Null();
  static ScanOperand Constant(int64_t number);
  static ScanOperand Column(std::string column);
  static ScanOperand ColumnOr(std::string column, int64_t fallback);
  static ScanOperand ColumnAnd(std::string column, int64_t mask);
  /// Column(column) when `columns` has it, else Null(): SELECT lists over varying schemas.
  static ScanOperand ColumnIfPresent(const std::unordered_set<std::string>& columns,
                                     const std::string& column);
};

/// One term of a filter; a row passes when every term is true (SQL's NULL is not true).
struct ScanFilterTerm {
  enum class Kind {
    kIsNotNull,  ///< operand IS NOT NULL
    kIn,         ///< operand IN (values)
    kEquals,     ///< operand = values[0]
  };
  Kind kind = Kind::kIsNotNull;
  ScanOperand operand;
  std::vector<int64_t> values;

  static ScanFilterTerm IsNotNull(ScanOperand operand);
  static ScanFilterTerm In(ScanOperand operand, std::vector<int64_t> values);
  static ScanFilterTerm Equals(ScanOperand operand, int64_t value);
};

/// A SELECT over one table: integer expressions, a filter, and the columns whose values
/// order the rows (ascending, most significant first). The key must be unique per row (end
/// it with rowid) so that the order is the same whichever way it is produced.
struct ScanQuery {
  std::string table;                  ///< a plain identifier
  std::vector<ScanOperand> columns;   ///< at most kMaxScanColumns
  std::vector<ScanFilterTerm> where;  ///< AND-ed; empty: every row
  std::vector<int> key;               ///< indexes into `columns`
};

/// The SQL text of each piece, as SQLite runs it.
std::string OperandSql(const ScanOperand& operand);
/// "a, b, c".
std::string OperandListSql(const std::vector<ScanOperand>& operands);
/// The filter's condition ("x IS NOT NULL AND y IN (1,2)"); empty when it has no terms.
std::string ConditionSql(const std::vector<ScanFilterTerm>& where);
/// "SELECT <columns> FROM <table>[ WHERE <condition>]".
std::string SelectSql(const ScanQuery& query);

}  // namespace stepstat::nsys_sqlite
