// The scans the nsys SQLite readers make, built where the readers build them and exposed so
// that tests/sqlite_pages_test.cc checks the page path against the readers' own queries: a
// reader that changes its scan changes what that test reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "readers/sqlite/nsys_sqlite_internal.h"
#include "readers/sqlite/nsys_sqlite_scan_query.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat::nsys_sqlite {

/// The activity tables ReadGpuOps merges, in the order ties go.
inline constexpr std::pair<const char*, OpKind> kGpuOpTables[] = {
    {"CUPTI_ACTIVITY_KIND_KERNEL", OpKind::kKernel},
    {"CUPTI_ACTIVITY_KIND_MEMCPY", OpKind::kMemcpy},
    {"CUPTI_ACTIVITY_KIND_MEMSET", OpKind::kMemset}};

/// ReadGpuOps' scan of `table` (ops of `kind`) in start order; nullopt when the export lacks
/// the table. An error for a table without start or end, or kernels without a name column.
Result<std::optional<ScanQuery>> GpuOpScanQuery(ExportContext& context, const std::string& table,
                                                OpKind kind);

/// StreamLaunchCalls' two scans of one process's join: the launch calls among
/// CUPTI_ACTIVITY_KIND_RUNTIME's rows (`runtime_columns`) named by `launch_name_ids`, and the
/// kernels with a correlation id (`kernel_columns`), both in (process, correlation id, start,
/// rowid) order. `process`: only that process's rows (its pid key), else all of them.
struct LaunchJoinQueries {
  ScanQuery calls;
  ScanQuery kernels;
};
/// The process key's position in both scans' columns.
inline constexpr int kLaunchJoinPidKey = 6;
LaunchJoinQueries LaunchJoinScanQueries(const std::unordered_set<std::string>& runtime_columns,
                                        const std::unordered_set<std::string>& kernel_columns,
                                        const std::unordered_map<int64_t, NameId>& launch_name_ids,
                                        bool kernels_have_pid, std::optional<int64_t> process);

}  // namespace stepstat::nsys_sqlite
