// What the ledger tests share: a fresh folder per test and a run to record.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <utility>

#include "stepstat/ledger.h"
#include "stepstat/report.h"

namespace stepstat {

/// Tests open (and create) ledgers where they please.
inline const LedgerOptions kCreate{.create = true};

inline std::filesystem::path FreshDir(const std::string& name) {
  auto dir = std::filesystem::path(testing::TempDir()) / ("ledger_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// A run of `steps` steps (the first one warm-up) whose span grows by `slower` ns per step.
inline RecordRequest SampleRun(std::string label, std::string input_hash, int steps = 6,
                               double span = 1000) {
  StepStats stats;
  stats.source_gpu_trace = "run.csv";
  stats.gpu_span_ns = int64_t(span) * steps;
  stats.kernel_count = 10 * steps;
  stats.components.push_back({"other", "all unmatched kernels", 1, 0.000001, 100.0, 10});
  RecordRequest r;
  r.label = std::move(label);
  r.summary_json = StepStatsToJson(stats);
  for (int s = 0; s < steps; ++s) {
    r.steps.push_back({s, "gpu_span_ns", s == 0 ? span * 3 : span + s});
    r.steps.push_back({s, "gpu_operation_count", 10});
    r.steps.push_back({s, "kernel_count", 10});
  }
  r.warmup_steps = 1;
  r.gpu = "GB10";
  r.policy_name = "llm-inference";
  r.policy_hash = "0123456789abcdef";
  r.input_hash = std::move(input_hash);
  r.tool_version = "0.1.0";
  r.tags = {{"branch", "main"}};
  return r;
}

/// One number from the ledger file, read with a connection of its own.
inline int64_t QueryInt(const std::filesystem::path& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  int64_t value = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    value = sqlite3_column_int64(stmt, 0);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

/// The first column of the first row `sql` answers, as text; `otherwise` when none.
/// (`flags`: how the connection opens: read-write lets it recover a killed writer's WAL.)
inline std::string QueryText(const std::filesystem::path& path, const char* sql,
                             std::string otherwise = "", int flags = SQLITE_OPEN_READONLY) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.string().c_str(), &db, flags, nullptr);
  sqlite3_stmt* stmt = nullptr;
  std::string result = std::move(otherwise);
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
    result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return result;
}

inline std::string IntegrityCheck(const std::filesystem::path& path) {
  return QueryText(path, "PRAGMA integrity_check", "no answer", SQLITE_OPEN_READWRITE);
}

}  // namespace stepstat
