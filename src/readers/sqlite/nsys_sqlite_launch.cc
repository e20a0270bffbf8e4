// What the CPU half of the nsys SQLite reader (nsys_sqlite_launch_stream.cc) needs of
// CUPTI_ACTIVITY_KIND_RUNTIME: which names are kernel launches, and its columns.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "readers/launch_apis.h"
#include "readers/sqlite/nsys_sqlite_internal.h"

namespace stepstat::nsys_sqlite {

namespace {

// StringIds ids of the API names `is_api` accepts (normalized) → that normalized name. One
// scan of StringIds with a cheap GLOB prefilter (`where`); the runtime table is then read
// with `nameId IN (...)`.
Result<std::unordered_map<int64_t, NameId>> ApiNameIds(ExportContext& context, const char* where,
                                                       bool (*is_api)(std::string_view)) {
  ASSIGN_OR_RETURN(
      SqliteStatement stmt,
      context.db().Prepare(std::string("SELECT id, value FROM StringIds WHERE ") + where));
  std::unordered_map<int64_t, NameId> ids;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    const std::string_view name = NormalizeCudaApiName(stmt.Text(1));
    if (is_api(name)) ids.emplace(stmt.Int64(0), context.pool().Intern(name));
  }
  return ids;
}

}  // namespace

Result<std::unordered_map<int64_t, NameId>> LaunchApiNameIds(ExportContext& context) {
  return ApiNameIds(context, "value GLOB 'cu*Launch*' OR value GLOB 'cuda*Launch*'",
                    IsKernelLaunchApi);
}

Result<std::unordered_map<int64_t, NameId>> CopyApiNameIds(ExportContext& context) {
  return ApiNameIds(context, "value GLOB 'cu*Mem*'", IsCopyApi);
}

Result<std::unordered_set<std::string>> RuntimeColumns(ExportContext& context) {
  const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  ASSIGN_OR_RETURN(auto columns, context.db().Columns(table));
  for (const char* required : {"start", "end", "nameId"}) {
    if (!columns.contains(required)) {
      return ErrorAt(context.display_name(), 0,
                     table + " has no '" + required + "' column; is this an nsys export?");
    }
  }
  return columns;
}

}  // namespace stepstat::nsys_sqlite
