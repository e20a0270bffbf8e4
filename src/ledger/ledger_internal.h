// What the ledger's files share: the open connection, and a hook for the crash test.
#pragma once

#include <sqlite3.h>

#include <string>

#include "stepstat/ledger.h"

namespace stepstat {

struct Ledger::Impl {
  sqlite3* db = nullptr;
  std::string path;  ///< for messages
  ~Impl() { sqlite3_close_v2(db); }
};

/// A kernel's calls as the `kernels.durations` column keeps them: "ns:calls,ns:calls".
std::string EncodeDurations(const std::vector<ValueCount>& calls);
/// The reverse; an error (naming the ledger) for text that is not strictly increasing
/// positive-count pairs, or whose counts do not add up to `calls`.
Result<std::vector<ValueCount>> DecodeDurations(std::string_view text, int64_t calls,
                                                const std::string& path);

/// Called inside Record's transaction after every row is written, before COMMIT: the crash
/// test kills the process there. Null (nothing) outside that test.
void SetRecordHookForTesting(void (*hook)());

}  // namespace stepstat
