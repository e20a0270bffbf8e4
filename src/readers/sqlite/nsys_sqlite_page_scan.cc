#include "readers/sqlite/nsys_sqlite_page_scan.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include "io/read_counts.h"

namespace stepstat::nsys_sqlite {
namespace {

using Operand = PageScan::Operand;

struct TableColumn {
  std::string name;
  bool default_is_null = true;
  bool key = false;     ///< part of the PRIMARY KEY (INTEGER PRIMARY KEY stores NULL: rowid)
  bool hidden = false;  ///< generated (not stored where its position says) or hidden
};

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

bool IsIdentifier(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// A plain stored column of the table, by name as SQL resolves it; nullopt for a name that
// is not there, a key column (an INTEGER PRIMARY KEY's record holds NULL: the rowid is
// its value) or a hidden one: the SQL path reads those. So does a name the rendered SQL,
// which writes names unquoted, reads as a value rather than the column (SQLite resolves
// other keywords, such as `end`, to the column of that name, or fails to prepare).
std::optional<int> StoredColumn(const std::vector<TableColumn>& columns, std::string_view name) {
  if (!IsIdentifier(name)) return std::nullopt;
  for (std::string_view literal : {"NULL", "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP"}) {
    if (EqualsIgnoringCase(name, literal)) return std::nullopt;
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!EqualsIgnoringCase(columns[i].name, name)) continue;
    if (columns[i].key || columns[i].hidden) return std::nullopt;
    return static_cast<int>(i);
  }
  return std::nullopt;
}

// `operand` with its column resolved to a position in each record.
std::optional<Operand> Resolve(const std::vector<TableColumn>& columns,
                               const ScanOperand& operand) {
  Operand resolved;
  resolved.kind = operand.kind;
  resolved.number = operand.number;
  switch (operand.kind) {
    case ScanOperand::Kind::kRowid:
    case ScanOperand::Kind::kNull:
    case ScanOperand::Kind::kConstant: return resolved;
    case ScanOperand::Kind::kColumn:
    case ScanOperand::Kind::kColumnOrConstant:
    case ScanOperand::Kind::kColumnAnd: {
      std::optional<int> column = StoredColumn(columns, operand.column);
      if (!column) return std::nullopt;
      resolved.column = *column;
      return resolved;
    }
  }
  return std::nullopt;
}

Result<std::vector<TableColumn>> TableColumns(const SqliteDb& db, std::string_view table) {
  ASSIGN_OR_RETURN(SqliteStatement stmt, db.Prepare("SELECT name, dflt_value IS NULL, pk, hidden "
                                                    "FROM pragma_table_xinfo(?1) ORDER BY cid"));
  RETURN_IF_ERROR(stmt.BindText(1, table));
  std::vector<TableColumn> columns;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    TableColumn column;
    column.name = std::string(stmt.Text(0));
    column.default_is_null = stmt.Int64(1) != 0;
    column.key = stmt.Int64(2) != 0;
    column.hidden = stmt.Int64(3) != 0;
    columns.push_back(std::move(column));
  }
  return columns;
}

Result<std::optional<uint32_t>> RootPage(const SqliteDb& db, std::string_view table) {
  ASSIGN_OR_RETURN(SqliteStatement stmt,
                   db.Prepare("SELECT rootpage FROM sqlite_master "
                              "WHERE type = 'table' AND name = ?1 COLLATE NOCASE"));
  RETURN_IF_ERROR(stmt.BindText(1, table));
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<uint32_t>();
  const std::optional<int64_t> root = stmt.OptionalInt64(0);
  if (!root || *root < 2 || *root > UINT32_MAX) return std::optional<uint32_t>();
  return std::optional<uint32_t>(static_cast<uint32_t>(*root));
}

// A journal or WAL beside the file may hold pages newer than the file's (an export is
// written once and closed, so there never is one; SQLite, opening immutable, ignores them,
// but the page path does not guess).
bool HasSidecar(const std::filesystem::path& path) {
  std::error_code ec;
  for (const char* suffix : {"-wal", "-journal"}) {
    std::filesystem::path sidecar = path;
    sidecar += suffix;
    if (std::filesystem::exists(sidecar, ec)) return true;
  }
  return false;
}

// SQLite's serial types: the bytes a value takes in the record body; nullopt for the two
// reserved types.
std::optional<uint64_t> SerialLength(uint64_t type) {
  static constexpr uint8_t kLength[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
  if (type == 10 || type == 11) return std::nullopt;
  if (type < 12) return kLength[type];
  return (type - 12) / 2;
}

// A big-endian two's complement integer of `bytes` bytes.
int64_t SignedBigEndian(const uint8_t* p, int bytes) {
  uint64_t value = (p[0] & 0x80) != 0 ? ~uint64_t{0} : 0;
  for (int i = 0; i < bytes; ++i) value = value << 8 | p[i];
  return static_cast<int64_t>(value);
}

}  // namespace

Result<std::unique_ptr<PageScan>> PageScan::Open(const SqliteDb& db, const ScanQuery& query) {
  std::unique_ptr<PageScan> none;
  if (!IsIdentifier(query.table)) return none;
  ASSIGN_OR_RETURN(std::vector<TableColumn> columns, TableColumns(db, query.table));
  if (columns.empty()) return none;
  for (const TableColumn& column : columns) {
    // A column called rowid is what "rowid" names; generated columns shift positions.
    if (EqualsIgnoringCase(column.name, "rowid") || column.hidden) return none;
  }
  std::unique_ptr<PageScan> scan(new PageScan());
  for (const ScanOperand& output : query.columns) {
    std::optional<Operand> operand = Resolve(columns, output);
    if (!operand) return none;
    scan->outputs_.push_back(*operand);
  }
  for (const ScanFilterTerm& term : query.where) {
    std::optional<Operand> operand = Resolve(columns, term.operand);
    if (!operand) return none;
    Test test;
    test.operand = *operand;
    switch (term.kind) {
      case ScanFilterTerm::Kind::kIsNotNull: test.any_value = true; break;
      case ScanFilterTerm::Kind::kIn: test.values = term.values; break;
      case ScanFilterTerm::Kind::kEquals:
        // Equals() holds one value; any other count is a term SQL renders as `= NULL`.
        if (term.values.size() != 1) return none;
        test.values = term.values;
        break;
    }
    std::sort(test.values.begin(), test.values.end());
    scan->filter_.push_back(std::move(test));
  }
  for (const Operand& operand : scan->outputs_) {
    if (operand.column >= 0) scan->referenced_.push_back(operand.column);
  }
  for (const Test& test : scan->filter_) {
    if (test.operand.column >= 0) scan->referenced_.push_back(test.operand.column);
  }
  std::sort(scan->referenced_.begin(), scan->referenced_.end());
  scan->referenced_.erase(std::unique(scan->referenced_.begin(), scan->referenced_.end()),
                          scan->referenced_.end());
  for (const TableColumn& column : columns) {
    scan->default_is_null_.push_back(column.default_is_null);
  }
  const size_t slots = scan->referenced_.empty() ? 0 : scan->referenced_.back() + 1;
  scan->types_.resize(slots);
  scan->offsets_.resize(slots);
  scan->values_.resize(slots);
  scan->nulls_.resize(slots);

  ASSIGN_OR_RETURN(std::optional<uint32_t> root, RootPage(db, query.table));
  if (!root || HasSidecar(db.path())) return none;
  // Any trouble opening the file again: the SQL path, which has it open already, reads it.
  Result<std::shared_ptr<RandomAccessFile>> file = db.PagesFile();
  if (!file.ok()) return none;
  Result<std::optional<PageLayout>> layout = ReadPageLayout(**file);
  if (!layout.ok() || !*layout) return none;
  Result<std::unique_ptr<TablePages>> pages =
      TablePages::Open(std::move(*file), **layout, *root, db.display_name());
  if (!pages.ok() || *pages == nullptr) return none;
  scan->pages_ = std::move(*pages);
  scan->display_name_ = db.display_name();
  return scan;
}

namespace {

// The operand's value in the current record (`values`, `nulls` by table column); false for
// NULL. Inline in Fill's loops: a call per operand per row was a third of summarize's CPU.
bool Evaluate(const PageScan::Operand& operand, int64_t rowid, const int64_t* values,
              const uint8_t* nulls, int64_t& value) {
  switch (operand.kind) {
    case ScanOperand::Kind::kRowid: value = rowid; return true;
    case ScanOperand::Kind::kNull: return false;
    case ScanOperand::Kind::kConstant: value = operand.number; return true;
    case ScanOperand::Kind::kColumn:
      if (nulls[operand.column] != 0) return false;
      value = values[operand.column];
      return true;
    case ScanOperand::Kind::kColumnOrConstant:
      value = nulls[operand.column] != 0 ? operand.number : values[operand.column];
      return true;
    case ScanOperand::Kind::kColumnAnd:
      if (nulls[operand.column] != 0) return false;
      value = values[operand.column] & operand.number;
      return true;
  }
  return false;
}

}  // namespace

Status PageScan::Declined(std::string_view why) const { return PagesDeclined(display_name_, why); }

Status PageScan::DecodeRecord(std::string_view record) {
  const auto* begin = reinterpret_cast<const uint8_t*>(record.data());
  const uint8_t* end = begin + record.size();
  const uint8_t* p = begin;
  uint64_t header_size = 0;
  if (!ReadVarint(p, end, header_size) || header_size > record.size() ||
      header_size < static_cast<uint64_t>(p - begin)) {
    return Declined("a record header out of bounds");
  }
  // The header as far as the last column read, as SQLite's OP_Column parses it: a header
  // without a first type, a value past the record's end, or (when the header ends there) a
  // body the values do not fill exactly is what SQLite calls corrupt. Columns past the
  // last one read are not looked at, by SQLite either.
  const uint8_t* header_end = begin + header_size;
  uint64_t offset = header_size;
  size_t count = 0;
  const size_t wanted = types_.size();
  while (count < wanted && p < header_end) {
    uint64_t type = *p;
    if (type < 0x80) {
      ++p;
    } else if (!ReadVarint(p, header_end, type)) {
      return Declined("a record header out of bounds");
    }
    std::optional<uint64_t> length = SerialLength(type);
    if (!length || *length > record.size()) return Declined("a value out of bounds");
    types_[count] = type;
    offsets_[count] = static_cast<uint32_t>(offset);
    offset += *length;
    if (offset > record.size()) return Declined("a value out of bounds");
    ++count;
  }
  if (count == 0 || (p == header_end && offset != record.size())) {
    return Declined("a record that does not match its table");
  }
  for (int column : referenced_) {
    if (static_cast<size_t>(column) >= count) {
      // A column added after this row was written (ALTER TABLE ADD COLUMN): its default.
      if (!default_is_null_[column]) return Declined("a row without a column that has a default");
      nulls_[column] = 1;
      continue;
    }
    const uint8_t* value = begin + offsets_[column];
    int64_t number = 0;
    switch (types_[column]) {
      case 0: nulls_[column] = 1; continue;
      case 1: number = SignedBigEndian(value, 1); break;
      case 2: number = SignedBigEndian(value, 2); break;
      case 3: number = SignedBigEndian(value, 3); break;
      case 4: number = SignedBigEndian(value, 4); break;
      case 5: number = SignedBigEndian(value, 6); break;
      case 6: number = SignedBigEndian(value, 8); break;
      case 8: number = 0; break;
      case 9: number = 1; break;
      default: return Declined("a value that is not an integer");
    }
    nulls_[column] = 0;
    values_[column] = number;
  }
  return Status::Ok();
}

Result<bool> PageScan::Fill(IntRowBatch& batch) {
  int64_t rowid = 0;
  std::string_view record;
  while (batch.rows.size() < batch.capacity) {
    ASSIGN_OR_RETURN(bool more, pages_->Next(rowid, record));
    if (!more) return false;
    if (!referenced_.empty()) RETURN_IF_ERROR(DecodeRecord(record));
    const int64_t* values = values_.data();
    const uint8_t* nulls = nulls_.data();
    bool keep = true;
    for (const Test& test : filter_) {
      int64_t value = 0;
      keep = Evaluate(test.operand, rowid, values, nulls, value) &&
             (test.any_value || std::binary_search(test.values.begin(), test.values.end(), value));
      if (!keep) break;
    }
    if (!keep) continue;
    IntRow& row = batch.rows.emplace_back();
    for (size_t i = 0; i < outputs_.size(); ++i) {
      if (!Evaluate(outputs_[i], rowid, values, nulls, row.values[i])) continue;
      row.integers |= 1U << i;
    }
  }
  return true;
}

}  // namespace stepstat::nsys_sqlite
