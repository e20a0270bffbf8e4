// NVTX_EVENTS → CpuRange batches: push/pop and start/end ranges, named as nsys's
// nvtx_pushpop_trace prints them ("<domain>:<text>" for ranges of a named domain).
#include <limits>
#include <unordered_map>
#include <vector>

#include "readers/sqlite/nsys_sqlite_internal.h"

namespace stepstat::nsys_sqlite {

namespace {

// ENUM_NSYS_EVENT_TYPE: NvtxPushPopRange, NvtxStartEndRange and their NVTXT twins.
constexpr const char* kRangeEventTypes = "59, 60, 70, 71";
constexpr int64_t kDomainCreate = 75;

}  // namespace

Result<int64_t> ReadNvtxRanges(ExportContext& context, TraceSink& sink) {
  if (!context.HasTable("NVTX_EVENTS")) return int64_t{0};
  ASSIGN_OR_RETURN(auto columns, context.db().Columns("NVTX_EVENTS"));
  for (const char* required : {"start", "eventType"}) {
    if (!columns.contains(required)) {
      return ErrorAt(context.display_name(), 0,
                     std::string("NVTX_EVENTS has no '") + required + "' column");
    }
  }
  const std::string text = ColumnOrNull(columns, "text");
  const std::string text_id = ColumnOrNull(columns, "textId");
  const std::string domain = ColumnOrNull(columns, "domainId");
  StringPool& pool = context.pool();

  // Domain names, from the rows that created them.
  std::unordered_map<int64_t, std::string> domains;
  {
    ASSIGN_OR_RETURN(SqliteStatement stmt,
                     context.db().Prepare(
                         "SELECT " + domain + ", " + text + ", " + text_id +
                         " FROM NVTX_EVENTS WHERE eventType = " + std::to_string(kDomainCreate)));
    for (;;) {
      ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      std::optional<int64_t> id = stmt.OptionalInt64(0);
      if (!id) continue;
      std::string name(stmt.Text(1));
      if (name.empty() && !stmt.IsNull(2)) {
        ASSIGN_OR_RETURN(std::optional<NameId> resolved, context.ResolveString(stmt.Int64(2)));
        if (resolved) name = pool.Get(*resolved);
      }
      if (!name.empty()) domains.emplace(*id, std::move(name));
    }
  }

  ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      context.db().Prepare("SELECT rowid, start, " + ColumnOrNull(columns, "end") + ", " + text +
                           ", " + text_id + ", " + ColumnOrNull(columns, "globalTid") + ", " +
                           domain + " FROM NVTX_EVENTS WHERE eventType IN (" + kRangeEventTypes +
                           ") ORDER BY start, rowid"));
  std::string scratch;
  std::vector<CpuRange> batch;
  int64_t rows = 0;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    ++rows;
    int64_t rowid = stmt.Int64(0);
    CpuRange range;
    range.line = rowid;
    range.start_ns = stmt.Int64(1);
    std::optional<int64_t> end = stmt.OptionalInt64(2);
    // A range still open when the capture stopped has no end: it lasts to the end of time.
    range.end_ns = end.value_or(std::numeric_limits<int64_t>::max());
    if (range.start_ns < 0 || range.end_ns < range.start_ns) {
      return context.RowError("NVTX_EVENTS", rowid, "a range with a negative or reversed time");
    }
    NameId name = 0;
    if (!stmt.IsNull(3)) {
      name = pool.Intern(stmt.Text(3));
    } else if (!stmt.IsNull(4)) {
      ASSIGN_OR_RETURN(std::optional<NameId> resolved, context.ResolveString(stmt.Int64(4)));
      if (!resolved) {
        return context.RowError("NVTX_EVENTS", rowid, "textId is not in StringIds");
      }
      name = *resolved;
    } else {
      name = pool.Intern("");
    }
    if (std::optional<int64_t> domain_id = stmt.OptionalInt64(6)) {
      auto named = domains.find(*domain_id);
      if (named != domains.end()) {
        scratch = named->second;
        scratch += ':';
        scratch += pool.Get(name);
        name = pool.Intern(scratch);
      }
    }
    range.name = name;
    if (std::optional<int64_t> global_tid = stmt.OptionalInt64(5)) {
      range.pid = (*global_tid >> 24) & 0xFFFFFF;
      range.tid = *global_tid & 0xFFFFFF;
    }
    batch.push_back(range);
    if (batch.size() == kBatchSize) {
      RETURN_IF_ERROR(sink.OnRanges(batch, pool));
      batch.clear();
    }
  }
  if (!batch.empty()) RETURN_IF_ERROR(sink.OnRanges(batch, pool));
  return rows;
}

}  // namespace stepstat::nsys_sqlite
