#include "io/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace stepstat {
namespace {

namespace fs = std::filesystem;

fs::path FreshDir() {
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("stepstat_atomic_file_" +
                  std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WriteFileAtomically, ReplacesAFileAndLeavesNoTempFile) {
  fs::path dir = FreshDir();
  fs::path out = dir / "out.json";
  std::ofstream(out) << "old and longer";
  ASSERT_TRUE(WriteFileAtomically(out, "new").ok());
  EXPECT_EQ(ReadAll(out), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

#if !defined(_WIN32)
// `-o /dev/null` run as root replaced the machine's /dev/null with a regular file: a device or
// pipe must be written in place. A FIFO stands in for the device (no root needed).
TEST(WriteFileAtomically, WritesIntoAFifoInsteadOfReplacingIt) {
  fs::path fifo = FreshDir() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opened for reading first (non-blocking), so the writer's open does not wait for a reader.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  Status written = WriteFileAtomically(fifo, "through the pipe");
  char buffer[64] = {};
  ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_TRUE(written.ok()) << written.message();
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
}
#endif

}  // namespace
}  // namespace stepstat
