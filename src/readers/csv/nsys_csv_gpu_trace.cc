// cuda_gpu_trace (older: gputrace) → GpuOp batches.
#include <limits>
#include <string>
#include <vector>

#include "readers/csv/csv_fast_row.h"
#include "readers/csv/csv_values.h"
#include "readers/csv/nsys_csv_readers.h"
#include "readers/csv/nsys_csv_table.h"
#include "readers/name_cache.h"
#include "readers/unread_fields.h"

namespace stepstat {

namespace {

OpKind KindOfName(std::string_view name) {
  if (name.substr(0, 9) != "[CUDA mem") return OpKind::kKernel;
  return name.substr(0, 12) == "[CUDA memset" ? OpKind::kMemset : OpKind::kMemcpy;
}

std::string LayoutOf(const CsvHeader& header, int start_column) {
  if (header.Find({"GreenCtx"}) >= 0) return "2024+";
  // 2020-era headers glue the unit to the name: "Start(sec)".
  if (header.name(start_column).find(" (") == std::string::npos) return "2020-2021.1";
  return "2021.2-2023";
}

}  // namespace

Result<ReadReport> ReadNsysGpuTrace(ByteSource& source, std::string_view display_name,
                                    TraceSink& sink, CsvRowWalk walk) {
  ASSIGN_OR_RETURN(auto table,
                   NsysCsvTable::Open(source, display_name, InputKind::kNsysGpuTraceCsv));
  ASSIGN_OR_RETURN(const int start_col, table->Require({"Start"}));
  ASSIGN_OR_RETURN(const int duration_col, table->Require({"Duration"}));
  ASSIGN_OR_RETURN(const int name_col, table->Require({"Name"}));
  ASSIGN_OR_RETURN(const int start_exp, table->TimeExponent(start_col));
  ASSIGN_OR_RETURN(const int duration_exp, table->TimeExponent(duration_col));
  const CsvHeader& header = table->header();
  int bytes_col = header.Find({"Bytes"});
  int bytes_exp = 0;
  if (bytes_col >= 0) {
    std::optional<int> exp = SizeUnitToBytesExponent(ColumnUnit(header.name(bytes_col)));
    if (!exp)
      return ErrorAt(display_name, table->header_line(),
                     header.name(bytes_col) + ": unknown size unit");
    bytes_exp = *exp;
  }
  // The header is checked whole; of the rows, the optional columns no sink reads are passed
  // over (the required ones, which give the op its interval, name and kind, always read).
  const TraceFields fields = FieldsToRead(sink);
  const int corr_col =
      ColumnIfRead(header.Find({"CorrId", "CorrID"}), fields.has(TraceFields::kOpCorrelation));
  const int stream_col = ColumnIfRead(header.Find({"Strm"}), fields.has(TraceFields::kOpStream));
  const int device_col = ColumnIfRead(header.Find({"Device"}), fields.has(TraceFields::kOpDevice));
  // Not in the layouts seen so far.
  const int pid_col = ColumnIfRead(header.Find({"PID", "Pid"}), fields.has(TraceFields::kOpPid));
  bytes_col = ColumnIfRead(bytes_col, fields.has(TraceFields::kOpBytes));

  ReadReport report;
  report.kind = InputKind::kNsysGpuTraceCsv;
  report.layout = LayoutOf(header, start_col);
  report.time_unit = std::string(ColumnUnit(header.name(start_col)));
  if (report.time_unit == "sec") report.time_unit = "s";
  if (report.time_unit == "nsec") report.time_unit = "ns";

  StringPool pool;
  NameCache names(pool);
  std::vector<GpuOp> batch;
  batch.reserve(kReaderBatchRows);
  auto hand_over = [&]() -> Status {
    PoisonUnreadIfHooked(batch, fields, pool);
    RETURN_IF_ERROR(sink.OnGpuOps(batch, pool));
    batch.clear();
    return Status::Ok();
  };

  // An optional integer column: empty → -1.
  auto optional_int = [&](int column, int64_t& out) -> Status {
    if (column < 0) return Status::Ok();
    std::string_view text = table->fields()[static_cast<size_t>(column)];
    if (IsBlank(text)) return Status::Ok();
    DecimalResult r = ParseScaled(text, 0, table->ReadableEnd(text));
    if (!r.ok()) return table->FieldError(column, DecimalErrorText(*r.error));
    out = r.value;
    return Status::Ok();
  };

  // The checked path: the row's fields as CsvScanner split them, each converted and checked
  // in turn, so the first error is the message.
  auto read_checked_row = [&](GpuOp& op) -> Status {
    const auto& f = table->fields();
    op.line = table->line();
    const std::string_view start_text = f[static_cast<size_t>(start_col)];
    DecimalResult start = ParseScaled(start_text, start_exp, table->ReadableEnd(start_text));
    if (!start.ok()) return table->FieldError(start_col, DecimalErrorText(*start.error));
    const std::string_view duration_text = f[static_cast<size_t>(duration_col)];
    DecimalResult duration =
        ParseScaled(duration_text, duration_exp, table->ReadableEnd(duration_text));
    if (!duration.ok()) return table->FieldError(duration_col, DecimalErrorText(*duration.error));
    if (duration.value > std::numeric_limits<int64_t>::max() - start.value) {
      return table->FieldError(duration_col, "start + duration is beyond the int64 range");
    }
    op.start_ns = start.value;
    op.duration_ns = duration.value;
    std::string_view name = TrimSpaces(f[static_cast<size_t>(name_col)]);
    op.name = names.Intern(name);
    op.kind = KindOfName(name);
    RETURN_IF_ERROR(optional_int(corr_col, op.correlation_id));
    RETURN_IF_ERROR(optional_int(stream_col, op.stream));
    if (device_col >= 0) op.device = names.Intern(TrimSpaces(f[static_cast<size_t>(device_col)]));
    if (pid_col >= 0) {
      int64_t pid = -1;
      RETURN_IF_ERROR(optional_int(pid_col, pid));
      if (pid > std::numeric_limits<int32_t>::max())
        return table->FieldError(pid_col, "process id beyond 32 bits");
      op.pid = static_cast<int32_t>(pid);
    }
    if (bytes_col >= 0) {
      std::string_view text = f[static_cast<size_t>(bytes_col)];
      if (!IsBlank(text)) {
        DecimalResult bytes = ParseScaled(text, bytes_exp);
        if (!bytes.ok()) return table->FieldError(bytes_col, DecimalErrorText(*bytes.error));
        op.bytes = bytes.value;
      }
    }
    return Status::Ok();
  };

  // The fast walk: the row's numbers converted as their fields are split. Its only possible
  // error is the end check, which the checked path makes first after the two numbers.
  enum Slot { kStart, kDuration, kCorr, kStream, kBytes, kSlots };
  enum TextSlot { kName, kDevice, kTextSlots };
  FastRowPlan plan(header.size());
  plan.Number(start_col, start_exp, true, kStart);
  plan.Number(duration_col, duration_exp, true, kDuration);
  plan.Number(corr_col, 0, false, kCorr);
  plan.Number(stream_col, 0, false, kStream);
  plan.Number(bytes_col, bytes_exp, false, kBytes);
  plan.Text(name_col, kName);
  plan.Text(device_col, kDevice);
  if (pid_col >= 0 || !walk.fast) plan.Disable();  // no layout seen has a PID column
  int64_t values[kSlots];
  std::string_view texts[kTextSlots];
  auto take_fast_row = [&](GpuOp& op) -> Result<bool> {
    const std::string_view unread = table->Unread();
    if (unread.empty()) return false;
    values[kCorr] = values[kStream] = values[kBytes] = -1;
    const size_t size = plan.Walk(unread, table->window(), values, texts);
    if (size == 0) return false;
    table->TakeLine(size);
    op.line = table->line();
    if (values[kDuration] > std::numeric_limits<int64_t>::max() - values[kStart]) {
      return table->FieldError(duration_col, "start + duration is beyond the int64 range");
    }
    op.start_ns = values[kStart];
    op.duration_ns = values[kDuration];
    const std::string_view name = TrimSpaces(texts[kName]);
    op.name = names.Intern(name);
    op.kind = KindOfName(name);
    op.correlation_id = values[kCorr];
    op.stream = values[kStream];
    op.bytes = values[kBytes];
    if (device_col >= 0) op.device = names.Intern(TrimSpaces(texts[kDevice]));
    return true;
  };
  const bool fast = plan.usable();

  for (;;) {
    GpuOp op;
    bool taken = false;
    if (fast) {
      ASSIGN_OR_RETURN(taken, take_fast_row(op));
    }
    if (taken) {
      if (walk.fast_rows != nullptr) ++*walk.fast_rows;
    } else {
      ASSIGN_OR_RETURN(bool more, table->NextRow());
      if (!more) break;
      RETURN_IF_ERROR(read_checked_row(op));
    }
    batch.push_back(op);
    ++report.rows;
    if (batch.size() == kReaderBatchRows) RETURN_IF_ERROR(hand_over());
  }
  if (report.rows == 0)
    return ErrorAt(display_name, table->header_line(), "no rows after the header");
  if (!batch.empty()) RETURN_IF_ERROR(hand_over());
  return report;
}

}  // namespace stepstat
