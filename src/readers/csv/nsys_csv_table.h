// An nsys stats CSV report as a table: finds the header of the wanted report by content
// (console output has log lines before it), then hands out data rows with the header's
// number of fields. Shared by the nsys CSV readers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "csv/csv_scanner.h"
#include "io/byte_source.h"
#include "readers/csv/nsys_csv_header.h"
#include "stepstat/read.h"

namespace stepstat {

class NsysCsvTable {
 public:
  /// Reads up to and including the header of a `kind` report. `source` must outlive the table.
  static Result<std::unique_ptr<NsysCsvTable>> Open(ByteSource& source,
                                                    std::string_view display_name, InputKind kind);

  /// Reads the next data row into fields(). Returns false at the end of the table: the end
  /// of input, or a blank line followed only by console output (another report, log lines).
  Result<bool> NextRow();

  /// For a caller that reads plain rows itself (FastRowPlan): the unread rest of the
  /// window (empty once the table ended), its number, and TakeLine() to consume one row's
  /// line read there. See CsvScanner::Unread.
  std::string_view Unread() const { return ended_ ? std::string_view() : scanner_.Unread(); }
  uint64_t window() const { return scanner_.window(); }
  void TakeLine(size_t size) { scanner_.TakeLine(size); }

  /// Valid until the next NextRow(); exactly header().size() of them.
  std::span<const std::string_view> fields() const { return scanner_.fields(); }
  /// CsvScanner::ReadableEnd of one of fields().
  const char* ReadableEnd(std::string_view field) const { return scanner_.ReadableEnd(field); }
  int64_t line() const { return scanner_.line(); }
  int64_t header_line() const { return header_line_; }
  const CsvHeader& header() const { return header_; }
  const std::string& display_name() const { return scanner_.display_name(); }

  /// Index of a required column, or an error naming it and the file at the header line.
  Result<int> Require(std::initializer_list<std::string_view> names) const;

  /// The time exponent (unit → ns) of column `column`, or an error at the header line.
  Result<int> TimeExponent(int column) const;

  /// "<file>:<line>: <column name>: <what>" for the current row.
  Status FieldError(int column, std::string_view what) const;

 private:
  NsysCsvTable(ByteSource& source, std::string_view display_name)
      : scanner_(source, display_name), header_({}) {}
  Status EndAtBlankLine();

  CsvScanner scanner_;
  CsvHeader header_;
  int64_t header_line_ = 0;
  bool ended_ = false;
};

/// The report name for messages: "cuda_gpu_trace", "cuda_kern_exec_trace", ...
std::string_view NsysReportName(InputKind kind);

/// `column` when a sink reads the field it holds, else -1: the reader then passes the
/// column over like an absent one, neither converting nor checking it (TraceFields).
inline int ColumnIfRead(int column, bool read) { return read ? column : -1; }

}  // namespace stepstat
