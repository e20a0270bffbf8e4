#include "csv/csv_scanner.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "csv/structural_mask.h"
#include "io/sources.h"

namespace stepstat {
namespace {

using Rows = std::vector<std::vector<std::string>>;

struct Scanned {
  Rows rows;
  std::vector<int64_t> lines;
  std::string error;
};

Scanned ScanAll(std::string_view text, size_t chunk = 0) {
  auto source = chunk == 0 ? MemoryByteSource(text) : ChunkedMemoryByteSource(text, chunk);
  CsvScanner scanner(*source, "t.csv");
  Scanned out;
  for (;;) {
    auto row = scanner.NextRow();
    if (!row.ok()) {
      out.error = row.status().message();
      return out;
    }
    if (!*row) return out;
    out.rows.emplace_back(scanner.fields().begin(), scanner.fields().end());
    out.lines.push_back(scanner.line());
  }
}

TEST(CsvScannerTest, PlainRowsAndEmptyFields) {
  Scanned s = ScanAll("a,b,c\n1,,3\n,,\n\n");
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.rows, (Rows{{"a", "b", "c"}, {"1", "", "3"}, {"", "", ""}, {""}}));
  EXPECT_EQ(s.lines, (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(CsvScannerTest, QuotesEscapesAndEmbeddedNewlinesKeepLineNumbers) {
  Scanned s = ScanAll("x,\"a,b\"\n\"say \"\"hi\"\"\",\"two\nlines\"\n\"\",end\n");
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.rows, (Rows{{"x", "a,b"}, {"say \"hi\"", "two\nlines"}, {"", "end"}}));
  EXPECT_EQ(s.lines, (std::vector<int64_t>{1, 2, 4}));
}

TEST(CsvScannerTest, CrlfAndBomAndSpacesKeptAsWritten) {
  Scanned s = ScanAll(
      "\xEF\xBB\xBF"
      "a,b\r\n  1, x \r\n\"q\"\r\n");
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.rows, (Rows{{"a", "b"}, {"  1", " x "}, {"q"}}));
}

TEST(CsvScannerTest, BomSplitAcrossChunks) {
  Scanned s = ScanAll(
      "\xEF\xBB\xBF"
      "a\n",
      1);
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.rows, (Rows{{"a"}}));
}

// The bytes fetched while looking for a BOM in a tiny first window were never scanned for NUL,
// so "a\0" was a row (found by csv_scanner_fuzzer).
TEST(CsvScannerTest, NulInTheFirstBytesOfTinyWindows) {
  using namespace std::string_literals;
  for (size_t chunk : {1, 2}) {
    EXPECT_EQ(ScanAll("a\0\n"s, chunk).error, "t.csv:1: NUL byte in a text file") << chunk;
    EXPECT_EQ(ScanAll("[\0\xff"s, chunk).error, "t.csv:1: NUL byte in a text file") << chunk;
  }
}

TEST(CsvScannerTest, EmptyInput) {
  Scanned s = ScanAll("");
  EXPECT_EQ(s.error, "");
  EXPECT_TRUE(s.rows.empty());
}

TEST(CsvScannerTest, Errors) {
  EXPECT_EQ(ScanAll("a,b\n1,2").error, "t.csv:2: truncated last line (no newline at the end)");
  EXPECT_EQ(ScanAll("a,b\n1,\"x\ny\n\nz\n").error, "t.csv:2: unterminated quote");
  EXPECT_EQ(ScanAll("a\nb\n\"x\ny\"z\n").error, "t.csv:4: unexpected text after a closing quote");
  EXPECT_EQ(ScanAll(std::string("a,b\n1,2\n3,\0\n", 12)).error, "t.csv:3: NUL byte in a text file");
  EXPECT_EQ(ScanAll(std::string("a,\"b\n\0\"\n", 9)).error, "t.csv:2: NUL byte in a text file");
  // The same errors when rows cross window boundaries.
  EXPECT_EQ(ScanAll("a,b\n1,2", 3).error, "t.csv:2: truncated last line (no newline at the end)");
  EXPECT_EQ(ScanAll("a,b\n1,\"x\ny\n\nz\n", 2).error, "t.csv:2: unterminated quote");
}

TEST(CsvScannerTest, SkipLinesUntilLooksAtRawLines) {
  std::string text =
      "NOTICE: a \"stray quote\n\nProcessing [x] with [y]...\r\n ** CUDA GPU "
      "Trace:\n\nh1,h2\n1,2\n";
  auto source = ChunkedMemoryByteSource(text, 5);
  CsvScanner scanner(*source, "t.csv");
  auto found = scanner.SkipLinesUntil([](std::string_view line) { return line == "h1,h2"; });
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(*found);
  ASSERT_TRUE(scanner.NextRow().value());
  EXPECT_EQ(scanner.line(), 6);
  EXPECT_EQ(scanner.fields()[1], "h2");
  ASSERT_TRUE(scanner.NextRow().value());
  EXPECT_EQ(scanner.line(), 7);
  EXPECT_FALSE(scanner.NextRow().value());

  auto source2 = MemoryByteSource("x\ny\n");
  CsvScanner scanner2(*source2, "t.csv");
  auto not_found = scanner2.SkipLinesUntil([](std::string_view) { return false; });
  ASSERT_TRUE(not_found.ok());
  EXPECT_FALSE(*not_found);
}

// Runs a test body with each block classification this machine can run (the best SIMD, the
// baseline SIMD, the portable SWAR code), so every path of ClassifyBlocks is exercised.
class CsvScannerBothPathsTest : public ::testing::TestWithParam<MaskPath> {
 protected:
  void SetUp() override { ForceStructuralMaskPath(GetParam()); }
  void TearDown() override { ForceStructuralMaskPath(MaskPath::kBest); }
};

INSTANTIATE_TEST_SUITE_P(Masks, CsvScannerBothPathsTest,
                         ::testing::Values(MaskPath::kBest, MaskPath::kBaseline,
                                           MaskPath::kPortable),
                         [](const ::testing::TestParamInfo<MaskPath>& info) {
                           return std::string(info.param == MaskPath::kBest       ? "Best"
                                              : info.param == MaskPath::kBaseline ? "Baseline"
                                                                                  : "Portable");
                         });

// Random rows, encoded the RFC 4180 way, must scan back to the same fields and lines,
// whatever the window boundaries. Long fields (up to 150 bytes) make rows and quoted
// fields cross 64-byte blocks and 1 KiB chunks of masks.
TEST_P(CsvScannerBothPathsTest, RandomRoundTripAcrossWindowBoundaries) {
  std::mt19937 rng(GetParam() == MaskPath::kPortable ? 1234 : 4321);
  const std::string alphabet = "ab ,\"\n\r1";
  for (int trial = 0; trial < 300; ++trial) {
    Rows rows;
    std::vector<int64_t> lines;
    std::string text;
    if (trial % 7 == 0) text = "\xEF\xBB\xBF";
    int64_t line = 1;
    int row_count = 1 + static_cast<int>(rng() % 20);
    for (int r = 0; r < row_count; ++r) {
      std::vector<std::string> row;
      int field_count = 1 + static_cast<int>(rng() % 6);
      lines.push_back(line);
      for (int f = 0; f < field_count; ++f) {
        std::string field;
        int length = static_cast<int>(trial % 3 == 0 ? rng() % 150 : rng() % 8);
        for (int i = 0; i < length; ++i) field += alphabet[rng() % alphabet.size()];
        bool quote = field.find_first_of(",\"\n\r") != std::string::npos || rng() % 5 == 0;
        if (f > 0) text += ',';
        if (quote) {
          text += '"';
          for (char c : field) {
            if (c == '"') text += '"';
            text += c;
            if (c == '\n') ++line;
          }
          text += '"';
        } else {
          text += field;
        }
        row.push_back(field);
      }
      text += rng() % 2 ? "\r\n" : "\n";
      ++line;
      rows.push_back(row);
    }
    for (size_t chunk : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{64}, size_t{1000}}) {
      Scanned s = ScanAll(text, chunk);
      ASSERT_EQ(s.error, "") << "trial " << trial;
      ASSERT_EQ(s.rows, rows) << "trial " << trial << " chunk " << chunk;
      ASSERT_EQ(s.lines, lines) << "trial " << trial << " chunk " << chunk;
    }
  }
}

// Both classifiers must set exactly the bits of a byte-by-byte reference, at every position.
TEST_P(CsvScannerBothPathsTest, BlockMasksMatchByteReference) {
  std::mt19937 rng(99);
  const std::string alphabet = std::string(",\"\n\r\0ab\x80\xff\x7f\x01", 11);
  std::vector<char> text(64 * 5);
  for (int trial = 0; trial < 200; ++trial) {
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    StructuralMasks masks[5];
    ClassifyBlocks(text.data(), 5, masks);
    for (size_t b = 0; b < 5; ++b) {
      StructuralMasks want{0, 0, 0, 0};
      for (size_t i = 0; i < 64; ++i) {
        const char c = text[64 * b + i];
        const uint64_t bit = uint64_t{1} << i;
        if (c == ',' || c == '"' || c == '\n' || c == '\0') want.any |= bit;
        if (c == '"') want.quote |= bit;
        if (c == '\n') want.newline |= bit;
        if (c == '\0') want.nul |= bit;
      }
      ASSERT_EQ(masks[b].any, want.any) << StructuralMaskKind() << " trial " << trial;
      ASSERT_EQ(masks[b].quote, want.quote) << StructuralMaskKind();
      ASSERT_EQ(masks[b].newline, want.newline) << StructuralMaskKind();
      ASSERT_EQ(masks[b].nul, want.nul) << StructuralMaskKind();
    }
  }
}

// Errors found inside a long quoted field report the line of the offending byte, and
// escapes right at block boundaries (the "" pair split over two blocks) unescape.
TEST_P(CsvScannerBothPathsTest, QuotedFieldsAcrossBlocks) {
  for (size_t pad = 55; pad < 75; ++pad) {
    std::string field = std::string(pad, 'x') + "\"\"" + std::string(pad, 'y');
    std::string text = "a,\"" + field + "\"\n";
    Scanned s = ScanAll(text);
    ASSERT_EQ(s.error, "") << pad;
    ASSERT_EQ(s.rows.size(), 1u);
    EXPECT_EQ(s.rows[0][1], std::string(pad, 'x') + "\"" + std::string(pad, 'y')) << pad;
    std::string with_nul = "a\n\"" + std::string(pad, 'x') + "\n\n" + std::string("\0", 1) + "\"\n";
    EXPECT_EQ(ScanAll(with_nul).error, "t.csv:4: NUL byte in a text file") << pad;
  }
}

}  // namespace
}  // namespace stepstat
