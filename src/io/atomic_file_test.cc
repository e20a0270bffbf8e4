#include "io/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace stepstat
