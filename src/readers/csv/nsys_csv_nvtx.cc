#include "readers/csv/nsys_csv_nvtx.h"

#include <limits>
#include <vector>

#include "readers/csv/csv_values.h"
#include "readers/csv/nsys_csv_readers.h"
#include "readers/csv/nsys_csv_table.h"
#include "readers/name_cache.h"

namespace stepstat {

namespace {

struct Column {
  int index = -1;
  int exponent = 0;
};

Result<Column> TimeColumnOf(const NsysCsvTable& table, int index) {
  if (index < 0) return Column{};
  ASSIGN_OR_RETURN(int exponent, table.TimeExponent(index));
  return Column{index, exponent};
}

// Parses a field; a blank optional field leaves `out` alone.
Status Parse(const NsysCsvTable& table, Column column, bool required, int64_t& out) {
  if (column.index < 0) return Status::Ok();
  std::string_view text = table.fields()[static_cast<size_t>(column.index)];
  if (!required && IsBlank(text)) return Status::Ok();
  DecimalResult r = ParseScaled(TrimSpaces(text), column.exponent);
  if (!r.ok()) return table.FieldError(column.index, DecimalErrorText(*r.error));
  out = r.value;
  return Status::Ok();
}

}  // namespace

Result<ReadReport> ReadNsysNvtxTrace(ByteSource& source, std::string_view display_name,
                                     TraceSink& sink) {
  ASSIGN_OR_RETURN(auto table,
                   NsysCsvTable::Open(source, display_name, InputKind::kNsysNvtxTraceCsv));
  const CsvHeader& header = table->header();
  // A GPU projection's own Start columns are GPU times; its Orig columns are the CPU range.
  bool projection = header.Find({"Orig Start"}) >= 0;
  int start_index = projection ? header.Find({"Orig Start"}) : header.Find({"Start"});
  if (start_index < 0) {
    return ErrorAt(display_name, table->header_line(), "no 'Start (ns)' column in the NVTX trace");
  }
  ASSIGN_OR_RETURN(Column start, TimeColumnOf(*table, start_index));
  ASSIGN_OR_RETURN(Column end, TimeColumnOf(*table, projection ? -1 : header.Find({"End"})));
  ASSIGN_OR_RETURN(Column duration,
                   TimeColumnOf(*table, header.Find({projection ? "Orig Duration" : "Duration"})));
  if (end.index < 0 && duration.index < 0) {
    return ErrorAt(display_name, table->header_line(),
                   "no 'End (ns)' or 'Duration (ns)' column in the NVTX trace");
  }
  ASSIGN_OR_RETURN(int name_index, table->Require({"Name"}));
  const Column pid{header.Find({"PID", "Pid"}), 0};
  const Column tid{header.Find({"TID", "Tid"}), 0};
  const Column level{header.Find({"Lvl", "Level"}), 0};

  ReadReport report;
  report.kind = InputKind::kNsysNvtxTraceCsv;
  report.layout = projection ? "nvtx_gpu_proj_trace" : "nvtx_pushpop_trace";
  report.time_unit = std::string(ColumnUnit(header.name(start.index)));
  StringPool pool;
  NameCache names(pool);
  std::vector<CpuRange> batch;
  batch.reserve(kReaderBatchRows);
  for (;;) {
    ASSIGN_OR_RETURN(bool more, table->NextRow());
    if (!more) break;
    CpuRange range;
    range.line = table->line();
    std::string_view start_text = table->fields()[static_cast<size_t>(start.index)];
    // A projection's row for the GPU work outside every range has no CPU range (nsys prints
    // None): it is not a step candidate.
    if (projection && (IsBlank(start_text) || TrimSpaces(start_text) == "None")) {
      ++report.rows;
      continue;
    }
    RETURN_IF_ERROR(Parse(*table, start, true, range.start_ns));
    if (end.index >= 0 && !IsBlank(table->fields()[static_cast<size_t>(end.index)])) {
      RETURN_IF_ERROR(Parse(*table, end, true, range.end_ns));
    } else {
      // A range still open when the capture stopped has no end: it lasts to the end of time.
      int64_t length = std::numeric_limits<int64_t>::max() - range.start_ns;
      RETURN_IF_ERROR(Parse(*table, duration, false, length));
      if (length > std::numeric_limits<int64_t>::max() - range.start_ns) {
        return table->FieldError(duration.index, "start + duration is beyond the int64 range");
      }
      range.end_ns = range.start_ns + length;
    }
    if (range.end_ns < range.start_ns) {
      return table->FieldError(end.index >= 0 ? end.index : duration.index,
                               "the range ends before it starts");
    }
    RETURN_IF_ERROR(Parse(*table, pid, false, range.pid));
    RETURN_IF_ERROR(Parse(*table, tid, false, range.tid));
    RETURN_IF_ERROR(Parse(*table, level, false, range.depth));
    range.name = names.Intern(table->fields()[static_cast<size_t>(name_index)]);
    batch.push_back(range);
    ++report.rows;
    if (batch.size() == kReaderBatchRows) {
      RETURN_IF_ERROR(sink.OnRanges(batch, pool));
      batch.clear();
    }
  }
  if (report.rows == 0) {
    return ErrorAt(display_name, table->header_line(), "no rows after the header");
  }
  if (!batch.empty()) RETURN_IF_ERROR(sink.OnRanges(batch, pool));
  return report;
}

}  // namespace stepstat
