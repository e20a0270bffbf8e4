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

/// Called inside Record's transaction after every row is written, before COMMIT: the crash
/// test kills the process there. Null (nothing) outside that test.
void SetRecordHookForTesting(void (*hook)());

}  // namespace stepstat
