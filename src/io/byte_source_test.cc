#include "io/byte_source.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "io/sources.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

std::string TestBytes(size_t size) {
  std::string bytes(size, '\0');
  std::mt19937 rng(42);
  for (char& c : bytes) c = static_cast<char>('a' + rng() % 26);
  for (size_t i = 99; i < size; i += 100) bytes[i] = '\n';
  return bytes;
}

fs::path WriteTemp(const std::string& name, const std::string& bytes) {
  fs::path path = fs::temp_directory_path() / ("stepstat_io_test_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Reads a whole source, consuming a varying part of each view, and checks the invariants of
// the interface on the way (offsets, strictly growing views).
std::string Drain(ByteSource& source, size_t step_seed = 7) {
  std::string out;
  std::mt19937 rng(static_cast<unsigned>(step_seed));
  size_t consumed = 0;
  size_t previous_rest = 0;
  for (;;) {
    auto view = source.Next(consumed);
    EXPECT_TRUE(view.ok()) << view.status().message();
    if (!view.ok()) return out;
    EXPECT_EQ(source.offset(), out.size());
    if (!source.exhausted()) {
      EXPECT_GT(view->size(), previous_rest);
    }
    if (source.exhausted() && view->empty()) return out;
    // Sometimes consume nothing, to force the window to grow.
    consumed = rng() % 4 == 0 ? 0 : rng() % (view->size() + 1);
    if (source.exhausted() && consumed == 0) consumed = view->size();
    out.append(view->substr(0, consumed));
    previous_rest = view->size() - consumed;
  }
}

TEST(ByteSourceTest, MemoryAndChunkedMemoryGiveBackTheBytes) {
  std::string bytes = TestBytes(10000);
  EXPECT_EQ(Drain(*MemoryByteSource(bytes)), bytes);
  EXPECT_EQ(Drain(*ChunkedMemoryByteSource(bytes, 13)), bytes);
  EXPECT_EQ(Drain(*MemoryByteSource("")), "");
}

TEST(ByteSourceTest, MappedFileWithTinyWindowSlidesAndGrows) {
  std::string bytes = TestBytes(300000);
  fs::path path = WriteTemp("mapped", bytes);
  auto source = OpenMappedFile(path, "mapped.csv", 4096);
  ASSERT_TRUE(source.ok()) << source.status().message();
  EXPECT_EQ(Drain(**source), bytes);
  // Consuming nothing must still make progress: the window doubles until it holds the file.
  auto again = OpenMappedFile(path, "mapped.csv", 4096);
  ASSERT_TRUE(again.ok());
  size_t last = 0;
  while (!(*again)->exhausted()) {
    auto view = (*again)->Next(0);
    ASSERT_TRUE(view.ok());
    ASSERT_GT(view->size(), last);
    last = view->size();
  }
  EXPECT_EQ(last, bytes.size());
  fs::remove(path);
}

TEST(ByteSourceTest, OpenByteSourceReadsPlainFilesAndEmptyFiles) {
  std::string bytes = TestBytes(50000);
  fs::path path = WriteTemp("plain", bytes);
  auto source = OpenByteSource(path, "plain.csv");
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(Drain(**source), bytes);
  fs::path empty = WriteTemp("empty", "");
  auto empty_source = OpenByteSource(empty, "empty.csv");
  ASSERT_TRUE(empty_source.ok());
  EXPECT_EQ(Drain(**empty_source), "");
  // Removed while still open: on Windows too (FILE_SHARE_DELETE), as another program may
  // replace a trace that stepstat is reading.
  fs::remove(path);
  fs::remove(empty);
}

TEST(ByteSourceTest, StdioStreamFallbackWithSmallBuffer) {
  std::string bytes = TestBytes(70000);
  fs::path path = WriteTemp("stdio", bytes);
  auto stream = OpenStdioStream(path, "stdio.csv");
  ASSERT_TRUE(stream.ok());
  auto source = BufferedSource(std::move(stream).value(), 100);
  EXPECT_EQ(Drain(*source), bytes);
  source.reset();  // closed first: Windows removes no file that a program has open
  fs::remove(path);
}

TEST(ByteSourceTest, MissingFileNamesTheFile) {
  auto source = OpenByteSource("/nonexistent/x.csv", "x.csv");
  ASSERT_FALSE(source.ok());
  EXPECT_EQ(source.status().message(), "x.csv: cannot open: No such file or directory");
}

std::string Gzip(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

TEST(ByteSourceTest, GzipMultiMemberRoundTrip) {
  std::string a = TestBytes(3 << 20);
  std::string b = TestBytes(1000);
  fs::path path = WriteTemp("gz", Gzip(a) + Gzip(b));
  auto source = OpenByteSource(path, "trace.csv.gz");
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(Drain(**source), a + b);
  fs::remove(path);
}

TEST(ByteSourceTest, ZstdMultiFrameRoundTrip) {
  std::string a = TestBytes(3 << 20);
  std::string b = TestBytes(777);
  fs::path path = WriteTemp("zst", Zstd(a) + Zstd(b));
  auto source = OpenByteSource(path, "trace.csv.zst");
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(Drain(**source), a + b);
  fs::remove(path);
}

// Bytes a face hands over in memory: decoded as a file's would be; plain ones viewed in place.
TEST(ByteSourceTest, MemoryBytesAreDecodedLikeFiles) {
  std::string a = TestBytes(1 << 20);
  std::string b = TestBytes(333);
  for (const std::string& bytes : {Gzip(a) + Gzip(b), Zstd(a) + Zstd(b)}) {
    auto source = OpenMemoryByteSource(bytes, "trace.csv.gz");
    ASSERT_TRUE(source.ok()) << source.status().message();
    EXPECT_EQ(Drain(**source), a + b);
  }
  auto plain = OpenMemoryByteSource(a, "trace.csv");
  ASSERT_TRUE(plain.ok());
  auto view = (*plain)->Next(0);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->data(), a.data());
  std::string empty;
  auto none = OpenMemoryByteSource(empty, "empty.csv");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(Drain(**none), "");
  std::string cut = Gzip(a).substr(0, 1000);
  auto truncated = OpenMemoryByteSource(cut, "cut.csv.gz");
  ASSERT_TRUE(truncated.ok());
  Status status = [&] {
    size_t consumed = 0;
    for (;;) {
      auto next = (*truncated)->Next(consumed);
      if (!next.ok()) return next.status();
      if ((*truncated)->exhausted()) return Status::Ok();
      consumed = next->size();
    }
  }();
  EXPECT_EQ(status.message().rfind("cut.csv.gz: corrupt ", 0), 0u) << status.message();
}

Status DrainStatus(ByteSource& source) {
  size_t consumed = 0;
  for (;;) {
    auto view = source.Next(consumed);
    if (!view.ok()) return view.status();
    if (source.exhausted()) return Status::Ok();
    consumed = view->size();
  }
}

TEST(ByteSourceTest, TruncatedOrCorruptCompressedStreamsAreErrorsNamingTheFile) {
  std::string text = TestBytes(200000);
  std::string gz = Gzip(text);
  std::string zst = Zstd(text);
  struct Case {
    std::string name;
    std::string bytes;
  };
  std::string corrupt_gz = gz;
  for (size_t i = 20; i < 60; ++i) corrupt_gz[i] = static_cast<char>(corrupt_gz[i] ^ 0x5a);
  std::string corrupt_zst = zst;
  for (size_t i = 10; i < 60; ++i) corrupt_zst[i] = static_cast<char>(corrupt_zst[i] ^ 0x5a);
  for (const Case& c :
       {Case{"cut.gz", gz.substr(0, gz.size() / 2)}, Case{"bad.gz", corrupt_gz},
        Case{"cut.zst", zst.substr(0, zst.size() / 2)}, Case{"bad.zst", corrupt_zst}}) {
    fs::path path = WriteTemp(c.name, c.bytes);
    auto source = OpenByteSource(path, c.name);
    ASSERT_TRUE(source.ok());
    Status status = DrainStatus(**source);
    EXPECT_FALSE(status.ok()) << c.name;
    EXPECT_EQ(status.message().rfind(c.name + ": corrupt ", 0), 0u) << status.message();
    fs::remove(path);
  }
}

}  // namespace
}  // namespace stepstat
