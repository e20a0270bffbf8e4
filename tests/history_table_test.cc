// The history table prints each figure at the precision the registry declares for it
// (issue 33: no raw float where a person reads): times in ms with 3 decimals, shares and
// component milliseconds at theirs, counts whole (or a median's half), and a key the
// registry does not hold as it is. The expected cells are written out from the
// declarations' numbers, not taken from the writer.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "stepstat/engine_compare.h"

namespace stepstat {
namespace {

// The cells of the table's only run row, split at runs of two or more spaces.
std::vector<std::string> RunRowCells(const std::string& table) {
  std::istringstream lines(table);
  std::string line;
  std::getline(lines, line);  // the header
  std::getline(lines, line);
  std::vector<std::string> cells;
  size_t at = line.find_first_not_of(' ');
  while (at != std::string::npos) {
    size_t end = line.find("  ", at);
    cells.push_back(line.substr(at, end == std::string::npos ? end : end - at));
    at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
  }
  return cells;
}

TEST(HistoryTable, EveryFigureAtItsDeclaredPrecision) {
  History history;
  history.metrics = {"gpu_span_ns", "kernel_busy_percent_of_span", "kernel_count",
                     "components.attention.milliseconds", "not.a.figure"};
  HistoryRow row;
  row.run.id = 7;
  row.run.label = "run";
  row.run.recorded_at = "2026-12-07T09:00:00Z";
  row.values = {
      {"gpu_span_ns", 12'345'678.0, -5'124'751.999999717, 0.0},
      {"kernel_busy_percent_of_span", 99.94595287052226, -5.124751999999717, 0.0},
      {"kernel_count", 1504.5, 2.0, 0.0},
      {"components.attention.milliseconds", 4.1234567, 0.25, -0.0004},
      {"not.a.figure", 0.123456789, std::nullopt, std::nullopt},
  };
  history.rows.push_back(row);
  std::vector<std::string> cells = RunRowCells(HistoryToTable(history, /*unicode=*/false));
  const std::vector<std::string> want = {
      "@7",          "run",       "2026-12-07T09:00",
      "12.346 ms",   "-5.125 ms", "+0.000 ms",  // ns: ms, 3 decimals
      "99.9",        "-5.1",      "+0.0",       // a share: 1 decimal
      "1504.5",      "+2",        "0",          // a count: whole, or a median's half
      "4.123",       "+0.250",    "-0.000",     // component ms: 3 decimals
      "0.123456789",                            // no declaration: as it is
  };
  EXPECT_EQ(cells, want);
}

}  // namespace
}  // namespace stepstat
