#include "readers/sqlite/nsys_sqlite_scan_query.h"

#include <utility>

namespace stepstat::nsys_sqlite {

ScanOperand ScanOperand::Rowid() {
  ScanOperand operand;
  operand.kind = Kind::kRowid;
  return operand;
}

ScanOperand ScanOperand::Null() { return ScanOperand(); }

ScanOperand ScanOperand::Constant(int64_t number) {
  ScanOperand operand;
  operand.kind = Kind::kConstant;
  operand.number = number;
  return operand;
}

ScanOperand ScanOperand::Column(std::string column) {
  ScanOperand operand;
  operand.kind = Kind::kColumn;
  operand.column = std::move(column);
  return operand;
}

ScanOperand ScanOperand::ColumnOr(std::string column, int64_t fallback) {
  ScanOperand operand = Column(std::move(column));
  operand.kind = Kind::kColumnOrConstant;
  operand.number = fallback;
  return operand;
}

ScanOperand ScanOperand::ColumnAnd(std::string column, int64_t mask) {
  ScanOperand operand = Column(std::move(column));
  operand.kind = Kind::kColumnAnd;
  operand.number = mask;
  return operand;
}

ScanOperand ScanOperand::ColumnIfPresent(const std::unordered_set<std::string>& columns,
                                         const std::string& column) {
  return columns.contains(column) ? Column(column) : Null();
}

ScanFilterTerm ScanFilterTerm::IsNotNull(ScanOperand operand) {
  ScanFilterTerm term;
  term.kind = Kind::kIsNotNull;
  term.operand = std::move(operand);
  return term;
}

ScanFilterTerm ScanFilterTerm::In(ScanOperand operand, std::vector<int64_t> values) {
  ScanFilterTerm term;
  term.kind = Kind::kIn;
  term.operand = std::move(operand);
  term.values = std::move(values);
  return term;
}

ScanFilterTerm ScanFilterTerm::Equals(ScanOperand operand, int64_t value) {
  ScanFilterTerm term;
  term.kind = Kind::kEquals;
  term.operand = std::move(operand);
  term.values = {value};
  return term;
}

std::string OperandSql(const ScanOperand& operand) {
  using Kind = ScanOperand::Kind;
  switch (operand.kind) {
    case Kind::kRowid: return "rowid";
    case Kind::kNull: return "NULL";
    case Kind::kConstant: return std::to_string(operand.number);
    case Kind::kColumn: return operand.column;
    case Kind::kColumnOrConstant:
      return "IFNULL(" + operand.column + ", " + std::to_string(operand.number) + ")";
    case Kind::kColumnAnd:
      return "(" + operand.column + " & " + std::to_string(operand.number) + ")";
  }
  return "NULL";
}

std::string OperandListSql(const std::vector<ScanOperand>& operands) {
  std::string list;
  for (const ScanOperand& operand : operands) {
    if (!list.empty()) list += ", ";
    list += OperandSql(operand);
  }
  return list;
}

std::string ConditionSql(const std::vector<ScanFilterTerm>& where) {
  std::string condition;
  for (const ScanFilterTerm& term : where) {
    if (!condition.empty()) condition += " AND ";
    condition += OperandSql(term.operand);
    switch (term.kind) {
      case ScanFilterTerm::Kind::kIsNotNull: condition += " IS NOT NULL"; break;
      case ScanFilterTerm::Kind::kIn: {
        condition += " IN (";
        for (size_t i = 0; i < term.values.size(); ++i) {
          if (i > 0) condition += ',';
          condition += std::to_string(term.values[i]);
        }
        condition += ')';
        break;
      }
      case ScanFilterTerm::Kind::kEquals:
        // Built by Equals() with its one value; a term built otherwise compares with NULL.
        condition += " = " + (term.values.size() == 1 ? std::to_string(term.values[0]) : "NULL");
        break;
    }
  }
  return condition;
}

std::string SelectSql(const ScanQuery& query) {
  std::string sql = "SELECT " + OperandListSql(query.columns) + " FROM " + query.table;
  if (!query.where.empty()) sql += " WHERE " + ConditionSql(query.where);
  return sql;
}

}  // namespace stepstat::nsys_sqlite
