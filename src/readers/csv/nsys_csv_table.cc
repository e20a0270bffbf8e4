#include "readers/csv/nsys_csv_table.h"

#include <limits>
#include <string>

#include "readers/csv/csv_values.h"

namespace stepstat {

namespace {

// Lines nsys prints around its reports when output goes to the console.
bool IsConsoleLine(std::string_view line) {
  for (std::string_view prefix : {"NOTICE", "WARNING", "ERROR", "Processing [", " ** ", "** ",
                                  "Generating", "Exporting", "SKIPPED", "Collecting"}) {
    if (line.substr(0, prefix.size()) == prefix) return true;
  }
  return ClassifyNsysCsvHeader(line).has_value();
}

}  // namespace

std::string_view NsysReportName(InputKind kind) {
  switch (kind) {
    case InputKind::kNsysGpuTraceCsv: return "cuda_gpu_trace";
    case InputKind::kNsysKernExecTraceCsv: return "cuda_kern_exec_trace";
    case InputKind::kNsysApiTraceCsv: return "cuda_api_trace";
    case InputKind::kNsysNvtxTraceCsv: return "nvtx trace";
    case InputKind::kNsysGpuKernSumCsv: return "cuda_gpu_kern_sum";
    default: return "nsys CSV";
  }
}

Result<std::unique_ptr<NsysCsvTable>> NsysCsvTable::Open(ByteSource& source,
                                                         std::string_view display_name,
                                                         InputKind kind) {
  std::unique_ptr<NsysCsvTable> table(new NsysCsvTable(source, display_name));
  CsvScanner& scanner = table->scanner_;
  ASSIGN_OR_RETURN(
      bool found, scanner.SkipLinesUntil(
                      [kind](std::string_view line) { return ClassifyNsysCsvHeader(line) == kind; },
                      std::numeric_limits<int64_t>::max()));
  if (scanner.input_was_empty()) return ErrorAt(display_name, 0, "empty file");
  if (!found) {
    return ErrorAt(display_name, 0,
                   "no " + std::string(NsysReportName(kind)) + " CSV header found");
  }
  ASSIGN_OR_RETURN(bool has_header, scanner.NextRow());
  if (!has_header) return ErrorAt(display_name, 0, "empty file");
  table->header_ = CsvHeader(scanner.fields());
  table->header_line_ = scanner.line();
  return table;
}

Result<bool> NsysCsvTable::NextRow() {
  if (ended_) return false;
  ASSIGN_OR_RETURN(bool more, scanner_.NextRow());
  if (!more) return false;
  const auto& fields = scanner_.fields();
  if (fields.size() == header_.size()) return true;
  if (fields.size() == 1 && IsBlank(fields[0])) {
    RETURN_IF_ERROR(EndAtBlankLine());
    return false;
  }
  return ErrorAt(display_name(), scanner_.line(),
                 std::to_string(fields.size()) + " fields, but the header has " +
                     std::to_string(header_.size()));
}

// A blank line ends the table only when what follows is console output (another report's
// banner or header, log lines) or nothing; a blank line between data rows is an error.
Status NsysCsvTable::EndAtBlankLine() {
  int64_t blank_line = scanner_.line();
  std::string_view next_text;
  // No limits: stopping early would read as "nothing follows" and drop the rows after.
  auto found = scanner_.SkipLinesUntil(
      [&next_text](std::string_view line) {
        if (IsBlank(line)) return false;
        next_text = line;
        return true;
      },
      std::numeric_limits<int64_t>::max(), std::numeric_limits<size_t>::max());
  if (!found.ok()) return found.status();
  if (found.value() && !IsConsoleLine(next_text)) {
    return ErrorAt(display_name(), blank_line, "blank line between data rows");
  }
  ended_ = true;
  return Status::Ok();
}

Result<int> NsysCsvTable::Require(std::initializer_list<std::string_view> names) const {
  int column = header_.Find(names);
  if (column >= 0) return column;
  std::string what = "no \"" + std::string(*names.begin()) + "\" column in the header";
  return ErrorAt(display_name(), header_line_, what);
}

Result<int> NsysCsvTable::TimeExponent(int column) const {
  std::string_view unit = ColumnUnit(header_.name(column));
  std::optional<int> exponent = TimeUnitToNsExponent(unit);
  if (!exponent) {
    return ErrorAt(display_name(), header_line_,
                   header_.name(column) + ": unknown time unit \"" + std::string(unit) + "\"");
  }
  return *exponent;
}

Status NsysCsvTable::FieldError(int column, std::string_view what) const {
  return ErrorAt(display_name(), scanner_.line(), header_.name(column) + ": " + std::string(what));
}

}  // namespace stepstat
