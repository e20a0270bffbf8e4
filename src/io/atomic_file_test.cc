#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "stepstat/output.h"
#include "stepstat/platform.h"

#if defined(_WIN32)
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace stepstat {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t FilesIn(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

fs::path FreshDir(const std::string& tag) {
  fs::path dir = fs::temp_directory_path() / ("stepstat_atomic_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(AtomicFileWriter, TheFileAppearsWholeAtCommit) {
  fs::path dir = FreshDir("commit");
  fs::path out = dir / "out.json";
  {
    std::ofstream(out) << "old";
    Result<std::unique_ptr<AtomicFileWriter>> file = AtomicFileWriter::Open(out);
    ASSERT_TRUE(file.ok()) << file.status().message();
    EXPECT_TRUE(file.value()->Append("{\"a\": "));
    EXPECT_EQ(Read(out), "old");  // nothing replaced before Commit
    EXPECT_TRUE(file.value()->Append("1}\n"));
    ASSERT_TRUE(file.value()->Commit().ok());
  }
  EXPECT_EQ(Read(out), "{\"a\": 1}\n");
  EXPECT_EQ(FilesIn(dir), 1u);  // no temporary file left
  fs::remove_all(dir);
}

TEST(AtomicFileWriter, AWriterDroppedBeforeCommitLeavesNothing) {
  fs::path dir = FreshDir("dropped");
  {
    Result<std::unique_ptr<AtomicFileWriter>> file = AtomicFileWriter::Open(dir / "out.json");
    ASSERT_TRUE(file.ok());
    file.value()->Append("partial");
  }
  EXPECT_EQ(FilesIn(dir), 0u);
  Result<std::unique_ptr<AtomicFileWriter>> nowhere =
      AtomicFileWriter::Open(dir / "missing" / "out.json");
  ASSERT_FALSE(nowhere.ok());
  EXPECT_NE(nowhere.status().message().find("cannot write"), std::string::npos);
  fs::remove_all(dir);
}

// Windows' rename() refuses an existing target: the output must still replace it, whole.
TEST(AtomicFileWriter, ReplacesAnExistingFile) {
  fs::path dir = FreshDir("replace");
  std::ofstream(dir / "out.json", std::ios::binary) << "the old, longer result";
  ASSERT_TRUE(WriteFileAtomically(dir / "out.json", "new").ok());
  EXPECT_EQ(Read(dir / "out.json"), "new");
  EXPECT_EQ(FilesIn(dir), 1u);
  fs::remove_all(dir);
}

// A name outside ASCII, given as UTF-8 (as arguments are): the file has that name, not its
// bytes read in a code page (fopen() on Windows would).
TEST(AtomicFileWriter, WritesANameGivenInUtf8) {
  fs::path dir = FreshDir("utf8");
  const std::string name = "r\xC3\xA9sum\xC3\xA9-\xE2\x88\x91.json";  // résumé-∑.json
  ASSERT_TRUE(WriteFileAtomically(dir / PathFromUtf8(name), "{}").ok());
  ASSERT_EQ(FilesIn(dir), 1u);
  EXPECT_EQ(PathToUtf8(fs::directory_iterator(dir)->path().filename()), name);
  fs::remove_all(dir);
}

#if defined(_WIN32)
// `-o NUL` is Windows' /dev/null: written in place, no file named NUL or temp file appears.
TEST(AtomicFileWriter, WritesIntoTheNulDeviceInPlace) {
  fs::path dir = FreshDir("nul");
  fs::path cwd = fs::current_path();
  fs::current_path(dir);
  Status written = WriteFileAtomically("NUL", "nothing");
  fs::current_path(cwd);
  EXPECT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(FilesIn(dir), 0u);
  fs::remove_all(dir);
}

// A target that another program holds open without FILE_SHARE_DELETE cannot be replaced on
// Windows: an error naming it after the retries, and the old bytes stay.
TEST(AtomicFileWriter, ATargetHeldOpenElsewhereIsAnErrorAndKeepsItsBytes) {
  fs::path dir = FreshDir("held");
  fs::path target = dir / "out.json";
  std::ofstream(target, std::ios::binary) << "old";
  HANDLE held = CreateFileW(target.c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                            0, nullptr);
  ASSERT_NE(held, INVALID_HANDLE_VALUE);
  Status written = WriteFileAtomically(target, "new");
  CloseHandle(held);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.message().find("another program has it open"), std::string::npos)
      << written.message();
  EXPECT_EQ(Read(target), "old");
  EXPECT_EQ(FilesIn(dir), 1u);
  fs::remove_all(dir);
}
#else
// `-o /dev/null` run as root replaced the machine's /dev/null with a regular file: a device or
// pipe must be written in place. A FIFO stands in for the device (no root needed).
TEST(AtomicFileWriter, WritesIntoAFifoInsteadOfReplacingIt) {
  fs::path fifo = FreshDir("fifo") / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (bool streamed : {false, true}) {
    // Opened for reading first (non-blocking), so the writer's open does not wait.
    int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    Status written = Status::Ok();
    if (streamed) {
      Result<std::unique_ptr<AtomicFileWriter>> file = AtomicFileWriter::Open(fifo);
      ASSERT_TRUE(file.ok()) << file.status().message();
      file.value()->Append("through ");
      file.value()->Append("the pipe");
      written = file.value()->Commit();
    } else {
      written = WriteFileAtomically(fifo, "through the pipe");
    }
    char buffer[64] = {};
    ssize_t n = ::read(reader, buffer, sizeof buffer);
    ::close(reader);
    EXPECT_TRUE(written.ok()) << written.message();
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  }
  fs::remove_all(fifo.parent_path());
}
#endif

}  // namespace
}  // namespace stepstat
