#include "report/python_float.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>

namespace stepstat {
namespace {

TEST(PythonFloat, SpellsTheCasesTheSpecNames) {
  EXPECT_EQ(PythonFloat(100.0), "100.0");
  EXPECT_EQ(PythonFloat(1e-5), "1e-05");
  EXPECT_EQ(PythonFloat(1e-4), "0.0001");
  EXPECT_EQ(PythonFloat(1e16), "1e+16");
  EXPECT_EQ(PythonFloat(1.5e16), "1.5e+16");
  EXPECT_EQ(PythonFloat(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(PythonFloat(-0.0), "-0.0");
  EXPECT_EQ(PythonFloat(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(PythonFloat(1e300), "1e+300");
  EXPECT_EQ(PythonFloat(5e-324), "5e-324");
  EXPECT_EQ(PythonFloat(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(PythonFloat(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(PythonFloat(-std::numeric_limits<double>::infinity()), "-Infinity");
}

// python_floats.tsv was written by /usr/bin/python3 (make_python_floats.py beside it).
TEST(PythonFloat, MatchesPythonOnThousandsOfDoubles) {
  const std::string path = STEPSTAT_SOURCE_DIR "/tests/fixtures/report/python_floats.tsv";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    const uint64_t bits = std::stoull(line.substr(0, tab), nullptr, 16);
    const double x = std::bit_cast<double>(bits);
    EXPECT_EQ(PythonFloat(x), line.substr(tab + 1)) << "bits " << line.substr(0, tab);
    ++checked;
  }
  EXPECT_GT(checked, 3000);
}

}  // namespace
}  // namespace stepstat
