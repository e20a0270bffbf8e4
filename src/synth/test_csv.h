// Test-only helpers: read a generated CSV with a deliberately simple parser (one record per
// line, RFC 4180 quotes), independent of the project's scanner.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace stepstat::synth {

namespace fs = std::filesystem;

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One CSV record per line (no field here holds a line break); "" inside quotes is a quote.
inline std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

struct Table {
  std::map<std::string, size_t> column;
  std::vector<std::vector<std::string>> rows;
  int64_t Int(size_t row, const std::string& name) const {
    return std::stoll(rows[row].at(column.at(name)));
  }
  const std::string& Text(size_t row, const std::string& name) const {
    return rows[row].at(column.at(name));
  }
};

inline Table ReadCsv(const fs::path& path) {
  std::istringstream in(ReadFile(path));
  Table table;
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header = SplitCsvLine(line);
  for (size_t i = 0; i < header.size(); ++i) table.column[header[i]] = i;
  while (std::getline(in, line)) {
    table.rows.push_back(SplitCsvLine(line));
    EXPECT_EQ(table.rows.back().size(), header.size()) << line;
  }
  return table;
}

}  // namespace stepstat::synth
