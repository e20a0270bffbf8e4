// cuda_kern_exec_trace and cuda_api_trace → LaunchCall batches.
#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "readers/csv/csv_fast_row.h"
#include "readers/csv/csv_values.h"
#include "readers/csv/nsys_csv_readers.h"
#include "readers/csv/nsys_csv_table.h"
#include "readers/launch_apis.h"
#include "readers/name_cache.h"
#include "readers/unread_fields.h"

namespace stepstat {

namespace {

// A time column of the current row: required ones must hold a value, optional ones (column
// absent or field empty) give -1.
struct TimeColumn {
  int column = -1;
  int exponent = 0;
};

Result<TimeColumn> RequiredTime(const NsysCsvTable& table,
                                std::initializer_list<std::string_view> names) {
  ASSIGN_OR_RETURN(int column, table.Require(names));
  ASSIGN_OR_RETURN(int exponent, table.TimeExponent(column));
  return TimeColumn{column, exponent};
}

Result<TimeColumn> OptionalTime(const NsysCsvTable& table,
                                std::initializer_list<std::string_view> names) {
  int column = table.header().Find(names);
  if (column < 0) return TimeColumn{};
  ASSIGN_OR_RETURN(int exponent, table.TimeExponent(column));
  return TimeColumn{column, exponent};
}

// ParseValue for a field that is not plain digits: blank (optional fields keep -1), spaces,
// fractions, or an error.
Status ParseOtherValue(const NsysCsvTable& table, int column, int exponent, bool required,
                       int64_t& out) {
  std::string_view text = table.fields()[static_cast<size_t>(column)];
  if (!required && IsBlank(text)) return Status::Ok();
  DecimalResult r = ParseScaled(text, exponent);
  if (!r.ok()) return table.FieldError(column, DecimalErrorText(*r.error));
  out = r.value;
  return Status::Ok();
}

// Plain digits (nearly every field) converted here, inline; anything else by
// ParseOtherValue, out of line. A kern-exec row has nine numbers: the call and the Status
// of an out-of-line parse per number were 16 % of the short-row pair's samples.
inline Status ParseValue(const NsysCsvTable& table, int column, int exponent, bool required,
                         int64_t& out) {
  if (column < 0) return Status::Ok();
  std::string_view text = table.fields()[static_cast<size_t>(column)];
  if (std::optional<int64_t> value = ParsePlainDigits(text, exponent, table.ReadableEnd(text))) {
    out = *value;
    return Status::Ok();
  }
  return ParseOtherValue(table, column, exponent, required, out);
}

Status CheckEnd(const NsysCsvTable& table, int column, int64_t start, int64_t duration) {
  if (start >= 0 && duration > std::numeric_limits<int64_t>::max() - start) {
    return table.FieldError(column, "start + duration is beyond the int64 range");
  }
  return Status::Ok();
}

ReadReport ReportFor(InputKind kind, const NsysCsvTable& table, int start_column,
                     std::string layout) {
  ReadReport report;
  report.kind = kind;
  report.layout = std::move(layout);
  std::string unit(ColumnUnit(table.header().name(start_column)));
  if (unit == "sec") unit = "s";
  if (unit == "nsec") unit = "ns";
  report.time_unit = unit;
  return report;
}

// Older nsys lists a launch twice, as cudaLaunchKernel and the cudaLaunchKernel_v7000 it
// calls, under one correlation id; in start order the second row follows the first within a
// few rows (other threads may interleave), so a short memory of recent ids finds it.
class RecentLaunches {
 public:
  RecentLaunches() { keys_.fill({-1, -1}); }
  bool SeenElseAdd(int64_t pid, int64_t correlation_id) {
    for (const auto& [p, c] : keys_) {
      if (p == pid && c == correlation_id) return true;
    }
    keys_[next_] = {pid, correlation_id};
    next_ = (next_ + 1) % keys_.size();
    return false;
  }

 private:
  std::array<std::pair<int64_t, int64_t>, 16> keys_;
  size_t next_ = 0;
};

// DevId → "GPU <id>", interned once per id (a trace has a handful).
class DeviceIds {
 public:
  NameId NameOf(int64_t id, NameCache& names) {
    for (const auto& [known, name] : ids_) {
      if (known == id) return name;
    }
    NameId name = names.Intern("GPU " + std::to_string(id));
    ids_.emplace_back(id, name);
    return name;
  }

 private:
  std::vector<std::pair<int64_t, NameId>> ids_;
};

}  // namespace

Result<ReadReport> ReadNsysKernExecTrace(ByteSource& source, std::string_view display_name,
                                         TraceSink& sink, CsvRowWalk walk) {
  ASSIGN_OR_RETURN(auto table,
                   NsysCsvTable::Open(source, display_name, InputKind::kNsysKernExecTraceCsv));
  ASSIGN_OR_RETURN(TimeColumn api_start, RequiredTime(*table, {"API Start"}));
  ASSIGN_OR_RETURN(TimeColumn api_dur, RequiredTime(*table, {"API Dur"}));
  ASSIGN_OR_RETURN(TimeColumn queue_dur, OptionalTime(*table, {"Queue Dur"}));
  ASSIGN_OR_RETURN(TimeColumn kernel_start, OptionalTime(*table, {"Kernel Start"}));
  ASSIGN_OR_RETURN(TimeColumn kernel_dur, OptionalTime(*table, {"Kernel Dur"}));
  // The header is checked whole; of the rows, the optional columns no sink reads are passed
  // over (the API call's interval, the required columns, always read).
  const TraceFields fields = FieldsToRead(sink);
  queue_dur.column = ColumnIfRead(queue_dur.column, fields.has(TraceFields::kQueueDuration));
  kernel_start.column = ColumnIfRead(kernel_start.column, fields.has(TraceFields::kKernelStart));
  kernel_dur.column = ColumnIfRead(kernel_dur.column, fields.has(TraceFields::kKernelDuration));
  const CsvHeader& header = table->header();
  const int pid_col = ColumnIfRead(header.Find({"PID", "Pid"}), fields.has(TraceFields::kCallPid));
  const int tid_col = ColumnIfRead(header.Find({"TID", "Tid"}), fields.has(TraceFields::kCallTid));
  const int corr_col =
      ColumnIfRead(header.Find({"CorrID", "CorrId"}), fields.has(TraceFields::kCallCorrelation));
  const int api_name_col =
      ColumnIfRead(header.Find({"API Function", "API Name"}), fields.has(TraceFields::kApiName));
  const int kernel_name_col =
      ColumnIfRead(header.Find({"Kernel Name"}), fields.has(TraceFields::kKernelName));
  const int device_col =
      ColumnIfRead(header.Find({"DevId", "Device"}), fields.has(TraceFields::kCallDevice));

  ReadReport report =
      ReportFor(InputKind::kNsysKernExecTraceCsv, *table, api_start.column, "kern-exec");
  StringPool pool;
  NameCache names(pool);
  DeviceIds devices;
  std::vector<LaunchCall> batch;
  batch.reserve(kReaderBatchRows);
  auto hand_over = [&]() -> Status {
    PoisonUnreadIfHooked(batch, fields, pool);
    RETURN_IF_ERROR(sink.OnLaunchCalls(batch, pool));
    batch.clear();
    return Status::Ok();
  };
  // The row being read.
  LaunchCall call;
  int64_t device = -1;
  // The checked path: the row's fields as CsvScanner split them, each converted and checked
  // in turn, so the first error is the message.
  auto read_checked_row = [&]() -> Status {
    RETURN_IF_ERROR(
        ParseValue(*table, api_start.column, api_start.exponent, true, call.api_start_ns));
    RETURN_IF_ERROR(
        ParseValue(*table, api_dur.column, api_dur.exponent, true, call.api_duration_ns));
    RETURN_IF_ERROR(CheckEnd(*table, api_dur.column, call.api_start_ns, call.api_duration_ns));
    RETURN_IF_ERROR(
        ParseValue(*table, queue_dur.column, queue_dur.exponent, false, call.queue_duration_ns));
    RETURN_IF_ERROR(ParseValue(*table, kernel_start.column, kernel_start.exponent, false,
                               call.kernel_start_ns));
    RETURN_IF_ERROR(
        ParseValue(*table, kernel_dur.column, kernel_dur.exponent, false, call.kernel_duration_ns));
    RETURN_IF_ERROR(
        CheckEnd(*table, kernel_dur.column, call.kernel_start_ns, call.kernel_duration_ns));
    RETURN_IF_ERROR(ParseValue(*table, pid_col, 0, false, call.pid));
    RETURN_IF_ERROR(ParseValue(*table, tid_col, 0, false, call.tid));
    RETURN_IF_ERROR(ParseValue(*table, corr_col, 0, false, call.correlation_id));
    RETURN_IF_ERROR(ParseValue(*table, device_col, 0, false, device));
    const auto& f = table->fields();
    if (api_name_col >= 0)
      call.api_name = names.Intern(TrimSpaces(f[static_cast<size_t>(api_name_col)]));
    if (kernel_name_col >= 0) {
      call.kernel_name = names.Intern(TrimSpaces(f[static_cast<size_t>(kernel_name_col)]));
    }
    return Status::Ok();
  };
  // The fast walk: the row's numbers converted as their fields are split, straight into the
  // call (an empty optional field leaves the call's -1). A row of plain numbers can only fail
  // the two end checks, which come in the same order either way.
  enum TextSlot { kApiName, kKernelName, kTextSlots };
  int64_t* const slots[] = {&call.api_start_ns,
                            &call.api_duration_ns,
                            &call.queue_duration_ns,
                            &call.kernel_start_ns,
                            &call.kernel_duration_ns,
                            &call.pid,
                            &call.tid,
                            &call.correlation_id,
                            &device};
  int64_t values[std::size(slots)];
  FastRowPlan plan(header.size());
  plan.Number(api_start.column, api_start.exponent, true, 0);
  plan.Number(api_dur.column, api_dur.exponent, true, 1);
  plan.Number(queue_dur.column, queue_dur.exponent, false, 2);
  plan.Number(kernel_start.column, kernel_start.exponent, false, 3);
  plan.Number(kernel_dur.column, kernel_dur.exponent, false, 4);
  plan.Number(pid_col, 0, false, 5);
  plan.Number(tid_col, 0, false, 6);
  plan.Number(corr_col, 0, false, 7);
  plan.Number(device_col, 0, false, 8);
  plan.Text(api_name_col, kApiName);
  plan.Text(kernel_name_col, kKernelName);
  if (!walk.fast) plan.Disable();
  const bool fast = plan.usable();
  std::string_view texts[kTextSlots];
  auto take_fast_row = [&]() -> Result<bool> {
    const std::string_view unread = table->Unread();
    if (unread.empty()) return false;
    std::fill(std::begin(values), std::end(values), int64_t{-1});
    const size_t size = plan.Walk(unread, table->window(), values, texts);
    if (size == 0) return false;
    table->TakeLine(size);
    call.line = table->line();
    for (size_t i = 0; i < std::size(slots); ++i) *slots[i] = values[i];
    RETURN_IF_ERROR(CheckEnd(*table, api_dur.column, call.api_start_ns, call.api_duration_ns));
    RETURN_IF_ERROR(
        CheckEnd(*table, kernel_dur.column, call.kernel_start_ns, call.kernel_duration_ns));
    if (api_name_col >= 0) call.api_name = names.Intern(TrimSpaces(texts[kApiName]));
    if (kernel_name_col >= 0) call.kernel_name = names.Intern(TrimSpaces(texts[kKernelName]));
    return true;
  };
  for (;;) {
    call = LaunchCall{};
    device = -1;
    bool taken = false;
    if (fast) {
      ASSIGN_OR_RETURN(taken, take_fast_row());
    }
    if (taken) {
      if (walk.fast_rows != nullptr) ++*walk.fast_rows;
    } else {
      ASSIGN_OR_RETURN(bool more, table->NextRow());
      if (!more) break;
      call.line = table->line();
      RETURN_IF_ERROR(read_checked_row());
    }
    // Named as the Kineto reader names a device it has no properties for.
    if (device >= 0) call.device = devices.NameOf(device, names);
    batch.push_back(call);
    ++report.rows;
    if (batch.size() == kReaderBatchRows) RETURN_IF_ERROR(hand_over());
  }
  if (report.rows == 0)
    return ErrorAt(display_name, table->header_line(), "no rows after the header");
  if (!batch.empty()) RETURN_IF_ERROR(hand_over());
  return report;
}

Result<ReadReport> ReadNsysApiTrace(ByteSource& source, std::string_view display_name,
                                    TraceSink& sink) {
  ASSIGN_OR_RETURN(auto table,
                   NsysCsvTable::Open(source, display_name, InputKind::kNsysApiTraceCsv));
  ASSIGN_OR_RETURN(TimeColumn start, RequiredTime(*table, {"Start"}));
  ASSIGN_OR_RETURN(TimeColumn duration, RequiredTime(*table, {"Duration"}));
  ASSIGN_OR_RETURN(const int name_col, table->Require({"Name"}));
  const CsvHeader& header = table->header();
  const int pid_col = header.Find({"Pid", "PID"});
  const int tid_col = header.Find({"Tid", "TID"});
  const int corr_col = header.Find({"CorrID", "CorrId"});

  ReadReport report = ReportFor(InputKind::kNsysApiTraceCsv, *table, start.column, "api-trace");
  StringPool pool;
  NameCache names(pool);
  const bool copy_calls = sink.reads().has(TraceFields::kCopyCalls);
  // Per distinct name as written: its normalized id, or -1 when it is not a launch API (nor
  // a copy API the sink asked for).
  std::vector<int64_t> launch_id_by_name;
  std::vector<bool> copy_by_name;
  RecentLaunches recent;
  std::vector<LaunchCall> batch;
  batch.reserve(kReaderBatchRows);
  for (;;) {
    ASSIGN_OR_RETURN(bool more, table->NextRow());
    if (!more) break;
    ++report.rows;
    NameId raw = names.Intern(TrimSpaces(table->fields()[static_cast<size_t>(name_col)]));
    if (raw >= launch_id_by_name.size()) launch_id_by_name.resize(raw + 1, -2);
    if (launch_id_by_name[raw] == -2) {
      std::string normalized(NormalizeCudaApiName(pool.Get(raw)));
      const bool copy = copy_calls && IsCopyApi(normalized);
      launch_id_by_name[raw] = IsKernelLaunchApi(normalized) || copy
                                   ? static_cast<int64_t>(names.Intern(normalized))
                                   : int64_t{-1};
      if (launch_id_by_name.size() < pool.size()) launch_id_by_name.resize(pool.size(), -2);
      if (copy_by_name.size() < launch_id_by_name.size()) {
        copy_by_name.resize(launch_id_by_name.size(), false);
      }
      copy_by_name[raw] = copy;
    }
    LaunchCall call;
    call.line = table->line();
    RETURN_IF_ERROR(ParseValue(*table, start.column, start.exponent, true, call.api_start_ns));
    RETURN_IF_ERROR(
        ParseValue(*table, duration.column, duration.exponent, true, call.api_duration_ns));
    RETURN_IF_ERROR(CheckEnd(*table, duration.column, call.api_start_ns, call.api_duration_ns));
    if (launch_id_by_name[raw] < 0) continue;
    call.api_name = static_cast<NameId>(launch_id_by_name[raw]);
    if (copy_by_name[raw]) call.kind = CallKind::kCopy;
    RETURN_IF_ERROR(ParseValue(*table, pid_col, 0, false, call.pid));
    RETURN_IF_ERROR(ParseValue(*table, tid_col, 0, false, call.tid));
    RETURN_IF_ERROR(ParseValue(*table, corr_col, 0, false, call.correlation_id));
    if (call.correlation_id >= 0 && recent.SeenElseAdd(call.pid, call.correlation_id)) continue;
    batch.push_back(call);
    if (batch.size() == kReaderBatchRows) {
      RETURN_IF_ERROR(sink.OnLaunchCalls(batch, pool));
      batch.clear();
    }
  }
  if (report.rows == 0)
    return ErrorAt(display_name, table->header_line(), "no rows after the header");
  if (!batch.empty()) RETURN_IF_ERROR(sink.OnLaunchCalls(batch, pool));
  return report;
}

}  // namespace stepstat
