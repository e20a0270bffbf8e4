#include "io/padded_file_map.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "test_platform.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <unistd.h>
#endif

namespace stepstat {
namespace {

namespace fs = std::filesystem;

fs::path WriteTemp(const std::string& name, const std::string& content) {
  fs::path path =
      fs::temp_directory_path() / (name + "." + std::to_string(testing_support::ProcessId()));
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

size_t PageSize() {
#if defined(_WIN32)
  SYSTEM_INFO info;
  GetSystemInfo(&info);
  return info.dwPageSize;
#else
  return static_cast<size_t>(::sysconf(_SC_PAGESIZE));
#endif
}

// Sizes around page ends are the ones where the zero tail lies in a page after the file.
TEST(PaddedFileMap, FileBytesThenZerosAtEverySizeAroundAPageEnd) {
  const size_t page = PageSize();
  constexpr size_t kTail = 64;
  for (size_t size : {size_t{0}, size_t{1}, page - kTail, page - kTail + 1, page - 1, page,
                      page + 1, 3 * page - 7}) {
    std::string content(size, '\0');
    for (size_t i = 0; i < size; ++i) content[i] = static_cast<char>('a' + i % 26);
    fs::path path = WriteTemp("padded_file_map_test", content);
    Result<std::unique_ptr<PaddedFileMap>> map = PaddedFileMap::Open(path, "t.json", kTail);
#if defined(_WIN32)
    // Windows maps only the file: the zeros are the rest of its last page, and where that is
    // shorter than the tail Open fails so that the caller reads the file instead.
    if (size > 0 && (page - size % page) % page < kTail) {
      ASSERT_FALSE(map.ok()) << size;
      EXPECT_NE(map.status().message().find("no room for the padding"), std::string::npos);
      fs::remove(path);
      continue;
    }
#endif
    ASSERT_TRUE(map.ok()) << map.status().message();
    std::string_view bytes = map.value()->bytes();
    EXPECT_EQ(bytes, content) << size;
    ASSERT_GE(map.value()->readable_size(), size + kTail) << size;
    for (size_t i = size; i < size + kTail; ++i) {
      ASSERT_EQ(bytes.data()[i], '\0') << "size " << size << " byte " << i;
    }
    fs::remove(path);
  }
}

TEST(PaddedFileMap, MissingFileAndDirectoryAreErrorsNamingTheFile) {
  Result<std::unique_ptr<PaddedFileMap>> missing =
      PaddedFileMap::Open("/nonexistent/stepstat/x.json", "x.json", 64);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("x.json"), std::string::npos);
  EXPECT_FALSE(PaddedFileMap::Open(fs::temp_directory_path(), "dir", 64).ok());
}

// Release drops pages from this process only: the bytes read the same afterwards, also
// at ranges that start or end inside a page, and Prefetch of any range is harmless.
TEST(PaddedFileMap, ReleasedAndPrefetchedPagesReadTheSame) {
  const size_t page = PageSize();
  std::string content(5 * page + 123, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>('a' + i * 7 % 26);
  fs::path path = WriteTemp("padded_file_map_release_test", content);
  Result<std::unique_ptr<PaddedFileMap>> map = PaddedFileMap::Open(path, "t.json", 64);
  ASSERT_TRUE(map.ok()) << map.status().message();
  const PaddedFileMap& file = *map.value();
  file.Prefetch(0, 2 * page + 5);
  EXPECT_EQ(file.bytes(), content);
  file.Release(0, 2 * page + 5);
  file.Release(3 * page - 1, 4 * page + 1);
  EXPECT_EQ(file.bytes(), content);
  file.Release(0, content.size() + 1000);  // past the end: clipped to the file
  file.Prefetch(4 * page, content.size() + 1000);
  EXPECT_EQ(file.bytes(), content);
  for (size_t i = content.size(); i < content.size() + 64; ++i) {
    ASSERT_EQ(file.bytes().data()[i], '\0') << i;  // the zero tail is untouched
  }
  fs::remove(path);
}

// ReadAt copies the file's bytes, any range inside it, from several threads at once;
// a range past the end is refused. Where it reads nothing at all (Windows) it says so for
// every range and callers copy from bytes().
TEST(PaddedFileMap, ReadAtCopiesRangesOfTheFile) {
  const size_t page = PageSize();
  std::string content(3 * page + 77, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>('A' + i * 11 % 26);
  fs::path path = WriteTemp("padded_file_map_read_test", content);
  Result<std::unique_ptr<PaddedFileMap>> map = PaddedFileMap::Open(path, "t.json", 64);
  ASSERT_TRUE(map.ok()) << map.status().message();
  const PaddedFileMap& file = *map.value();
  const bool reads = file.ReadAt(0, nullptr, 0);
#if defined(_WIN32)
  EXPECT_FALSE(reads);
#else
  EXPECT_TRUE(reads);
#endif
  auto read = [&](size_t offset, size_t size) {
    std::string out(size, '?');
    return file.ReadAt(offset, out.data(), size) ? out : std::string("(refused)");
  };
  if (reads) {
    EXPECT_EQ(read(0, content.size()), content);
    EXPECT_EQ(read(page - 3, page + 9), content.substr(page - 3, page + 9));
    EXPECT_EQ(read(content.size() - 5, 5), content.substr(content.size() - 5));
    std::string a, b;
    std::thread other([&] { a = read(1, 2 * page); });
    b = read(page, 2 * page);
    other.join();
    EXPECT_EQ(a, content.substr(1, 2 * page));
    EXPECT_EQ(b, content.substr(page, 2 * page));
  }
  EXPECT_EQ(read(content.size() - 5, 6), "(refused)");
  EXPECT_EQ(read(content.size() + 1, 1), "(refused)");
  fs::remove(path);
}

}  // namespace
}  // namespace stepstat
