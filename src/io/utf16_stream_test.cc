// Issue 13: a CSV saved by Windows PowerShell `>` is UTF-16 with a byte order mark; it must
// read as the same UTF-8 text nsys writes.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/byte_source.h"
#include "io/sources.h"
#include "test_platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

// UTF-8 → UTF-16 code units with a BOM, in either byte order (test inputs are valid UTF-8).
std::string ToUtf16(const std::string& utf8, bool big_endian) {
  std::u32string points;
  for (size_t i = 0; i < utf8.size();) {
    auto c = static_cast<unsigned char>(utf8[i]);
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    char32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < n; ++k) cp = cp << 6 | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    points.push_back(cp);
    i += n;
  }
  std::string out;
  auto unit = [&](uint16_t u) {
    char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xFF);
    out += big_endian ? std::string{hi, lo} : std::string{lo, hi};
  };
  unit(0xFEFF);
  for (char32_t cp : points) {
    if (cp < 0x10000) {
      unit(static_cast<uint16_t>(cp));
    } else {
      unit(static_cast<uint16_t>(0xD800 + ((cp - 0x10000) >> 10)));
      unit(static_cast<uint16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
    }
  }
  return out;
}

fs::path WriteTemp(const std::string& name, const std::string& bytes) {
  // The process id too: other worktrees on this machine run the same tests in the same /tmp.
  fs::path path = fs::temp_directory_path() / ("stepstat_utf16_test_" + name + "_" +
                                               std::to_string(testing_support::ProcessId()));
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

Result<std::string> ReadAll(const fs::path& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path, "f.csv"));
  std::string out;
  size_t consumed = 0;
  for (;;) {
    ASSIGN_OR_RETURN(std::string_view view, source->Next(consumed));
    out.append(view);
    consumed = view.size();
    if (source->exhausted()) return out;
  }
}

TEST(Utf16Stream, LittleAndBigEndianReadAsUtf8) {
  // ASCII, two- and three-byte characters, and one outside the BMP (a surrogate pair);
  // long enough to cross the transcoder's 64 KiB chunks many times.
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += "k\xC3\xA9rnel,\xE2\x80\xA6,\xF0\x9F\x98\x80," + std::to_string(i) + "\r\n";
  for (bool big_endian : {false, true}) {
    fs::path path = WriteTemp(big_endian ? "be" : "le", ToUtf16(text, big_endian));
    Result<std::string> read = ReadAll(path);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read.value(), text) << (big_endian ? "big" : "little") << " endian";
    fs::remove(path);
  }
}

// A PowerShell export compressed afterwards: decompressed, then transcoded.
TEST(Utf16Stream, CompressedUtf16ReadsAsUtf8) {
  const std::string text = "Start (ns),Duration (ns),Name\r\n1,2,k\xC3\xA9rnel\r\n";
  std::string utf16 = ToUtf16(text, false);
  std::string gz(compressBound(static_cast<uLong>(utf16.size())) + 64, '\0');
  z_stream z{};
  ASSERT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(utf16.data());
  z.avail_in = static_cast<uInt>(utf16.size());
  z.next_out = reinterpret_cast<Bytef*>(gz.data());
  z.avail_out = static_cast<uInt>(gz.size());
  ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  gz.resize(z.total_out);
  deflateEnd(&z);
  fs::path path = WriteTemp("gz", gz);
  Result<std::string> read = ReadAll(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read.value(), text);
  fs::remove(path);
}

TEST(Utf16Stream, BrokenUtf16IsAnErrorNamingTheFile) {
  std::string odd = ToUtf16("abc", false) + "x";  // half a code unit at the end
  fs::path path = WriteTemp("odd", odd);
  Result<std::string> read = ReadAll(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(),
            "f.csv: UTF-16 text ends in the middle of a character (odd byte count)");
  std::string lone = ToUtf16("ab", false) + std::string("\x00\xDC", 2);  // a lone low surrogate
  fs::path lone_path = WriteTemp("lone", lone);
  read = ReadAll(lone_path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(), "f.csv: invalid UTF-16 (an unpaired surrogate) at byte 6");
  fs::remove(path);
  fs::remove(lone_path);
}

}  // namespace
}  // namespace stepstat
