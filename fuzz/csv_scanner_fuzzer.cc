// CsvScanner over arbitrary bytes. The first byte picks a window size; the rest is the file.
// Checks: the same rows, lines and error whether the bytes come whole or a few at a time
// (rows then cross window boundaries everywhere); fields lie inside the input or are
// unescaped copies no longer than it; lines only go forward; errors follow the message rules.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "csv/csv_scanner.h"
#include "fuzz_check.h"
#include "io/sources.h"

namespace {

using stepstat::ByteSource;
using stepstat::CsvScanner;

constexpr std::string_view kName = "fuzz.csv";

struct Scan {
  std::string rows;  // fields joined with \x1f, rows with \x1e, each prefixed by its line
  std::string error;
};

Scan ScanAll(ByteSource& source, std::string_view input, bool skip_preamble) {
  CsvScanner scanner(source, kName);
  Scan scan;
  if (skip_preamble) {
    auto found = scanner.SkipLinesUntil(
        [](std::string_view line) { return line.find(',') != line.npos; }, 8, 64);
    if (!found.ok()) {
      stepstat::fuzz::CheckErrorMessage(found.status(), kName);
      scan.error = found.status().message();
      return scan;
    }
    scan.rows += found.value() ? "found\x1e" : "not found\x1e";
  }
  int64_t last_line = 0;
  const char* begin = input.data();
  const char* end = input.data() + input.size();
  for (;;) {
    auto more = scanner.NextRow();
    if (!more.ok()) {
      stepstat::fuzz::CheckErrorMessage(more.status(), kName);
      scan.error = more.status().message();
      return scan;
    }
    if (!more.value()) return scan;
    FUZZ_CHECK(scanner.line() > last_line);
    last_line = scanner.line();
    FUZZ_CHECK(!scanner.fields().empty());
    scan.rows += std::to_string(scanner.line());
    for (std::string_view field : scanner.fields()) {
      FUZZ_CHECK(field.size() <= input.size());
      if (field.data() >= begin && field.data() <= end) {
        FUZZ_CHECK(field.size() <= static_cast<size_t>(end - field.data()));
      }
      scan.rows += '\x1f';
      scan.rows.append(field);
    }
    scan.rows += '\x1e';
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 16;
  const bool skip_preamble = (data[0] & 0x80) != 0;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);

  auto whole = stepstat::MemoryByteSource(input);
  Scan reference = ScanAll(*whole, input, skip_preamble);
  auto chunked = stepstat::ChunkedMemoryByteSource(input, chunk);
  Scan windowed = ScanAll(*chunked, input, skip_preamble);
  if (reference.rows != windowed.rows || reference.error != windowed.error) {
    std::fprintf(stderr, "whole vs %zu-byte windows differ:\n error %s\n vs    %s\n", chunk,
                 reference.error.c_str(), windowed.error.c_str());
    std::abort();
  }
  return 0;
}
