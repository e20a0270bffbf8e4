// Standalone check (no gtest) that the native block classifier agrees with the portable SWAR
// one and with a byte reference, and that the scanner gives the same rows on both paths.
// Built outside CMake to run the NEON path under qemu (see bench/results/csv-simd-2026-12-02.md):
//   aarch64-linux-gnu-g++ -std=c++20 -O2 -static -Isrc -Iinclude
//   src/csv/structural_mask_check_main.cc
//     src/csv/structural_mask.cc src/csv/csv_scanner.cc src/io/buffered_source.cc
//     src/core/status.cc -o /tmp/mask_check && qemu-aarch64-static /tmp/mask_check
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "csv/csv_scanner.h"
#include "csv/structural_mask.h"
#include "io/sources.h"

namespace stepstat {
namespace {

bool SameMasks(const StructuralMasks& a, const StructuralMasks& b) {
  return a.any == b.any && a.quote == b.quote && a.newline == b.newline && a.nul == b.nul;
}

StructuralMasks Reference(const char* p) {
  StructuralMasks want{0, 0, 0, 0};
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (p[i] == ',' || p[i] == '"' || p[i] == '\n' || p[i] == '\0') want.any |= bit;
    if (p[i] == '"') want.quote |= bit;
    if (p[i] == '\n') want.newline |= bit;
    if (p[i] == '\0') want.nul |= bit;
  }
  return want;
}

std::string Scan(const std::string& text, size_t chunk) {
  auto source = ChunkedMemoryByteSource(text, chunk);
  CsvScanner scanner(*source, "t.csv");
  std::string out;
  for (;;) {
    auto row = scanner.NextRow();
    if (!row.ok()) return out + "error: " + row.status().message();
    if (!*row) return out;
    out += std::to_string(scanner.line());
    for (std::string_view field : scanner.fields()) out += "|" + std::string(field);
    out += "\n";
  }
}

int Run() {
  std::mt19937 rng(7);
  const std::string alphabet = std::string(",\"\n\r\0ab\x80\xff 1", 11);
  int failures = 0;
  std::vector<char> block(64 * 8);
  for (int trial = 0; trial < 20000; ++trial) {
    for (char& c : block) c = alphabet[rng() % (trial % 2 ? alphabet.size() : 4)];
    StructuralMasks native[8], portable[8];
    ClassifyBlocks(block.data(), 8, native);
    ClassifyBlocksPortable(block.data(), 8, portable);
    for (int b = 0; b < 8; ++b) {
      StructuralMasks want = Reference(block.data() + 64 * b);
      if (!SameMasks(native[b], want) || !SameMasks(portable[b], want)) ++failures;
    }
  }
  const std::string csv_alphabet = "ab ,\"\n1";
  int scans = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    int rows = 1 + static_cast<int>(rng() % 30);
    for (int r = 0; r < rows; ++r) {
      int fields = 1 + static_cast<int>(rng() % 5);
      for (int f = 0; f < fields; ++f) {
        if (f > 0) text += ',';
        int length = static_cast<int>(rng() % 120);
        bool quoted = rng() % 2 == 0;
        if (quoted) text += '"';
        for (int i = 0; i < length; ++i) {
          char c = csv_alphabet[rng() % csv_alphabet.size()];
          if (!quoted && (c == ',' || c == '"' || c == '\n')) c = 'x';
          text += c;
          if (quoted && c == '"') text += '"';
        }
        if (quoted) text += '"';
      }
      text += '\n';
    }
    if (trial % 10 == 0) text.pop_back();  // some inputs end in an error
    for (size_t chunk : {size_t{3}, size_t{64}, size_t{1 << 20}}) {
      ForceStructuralMaskPath(MaskPath::kBest);
      std::string native = Scan(text, chunk);
      ForceStructuralMaskPath(MaskPath::kPortable);
      std::string portable = Scan(text, chunk);
      ++scans;
      if (native != portable || native.empty()) ++failures;
    }
  }
  ForceStructuralMaskPath(MaskPath::kBest);
  std::printf("classifier %s: 160000 blocks, %d scans compared, %d failures\n",
              StructuralMaskKind(), scans, failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace stepstat

int main() { return stepstat::Run(); }
