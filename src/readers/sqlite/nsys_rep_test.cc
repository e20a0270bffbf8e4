#include "readers/sqlite/nsys_rep.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fixtures/formats/collecting_sink.h"

namespace stepstat {
namespace {

#if !defined(_WIN32)

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_support::CollectingSink;

// A scratch directory with a .nsys-rep (content irrelevant: only nsys reads it), a prepared
// export to hand out, and a bin/ directory that becomes the whole PATH.
class NsysRepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("stepstat_nsys_rep_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "bin");
    rep_ = dir_ / "run 1.nsys-rep";
    std::ofstream(rep_) << "not really a report";
    prepared_ = dir_ / "prepared.sqlite";
    MakeExport(prepared_);
    const char* path = getenv("PATH");
    saved_path_ = path ? path : "";
    setenv("PATH", (dir_ / "bin").c_str(), 1);
  }
  void TearDown() override { setenv("PATH", saved_path_.c_str(), 1); }

  static void MakeExport(const fs::path& path) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, R"sql(
      CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO StringIds VALUES (1, 'kernel_a');
      CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
        deviceId INTEGER, streamId INTEGER, correlationId INTEGER, demangledName INTEGER);
      INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 250, 0, 7, 1, 1);
    )sql",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }

  // The machine's own install folders must not leak into these tests.
  static NsysExportOptions NoInstallPlaces() {
    NsysExportOptions options;
    options.nsys_places.clear();
    return options;
  }

  // A fake nsys that logs its arguments and writes the prepared export to --output.
  void InstallFakeNsys(int exit_code = 0, const fs::path& bin = {}) {
    fs::create_directories(bin.empty() ? dir_ / "bin" : bin);
    fs::path script = (bin.empty() ? dir_ / "bin" : bin) / "nsys";
    std::ofstream(script) << "#!/bin/sh\n"
                          << "printf '%s\\n' \"$@\" > '" << (dir_ / "args.txt").string() << "'\n"
                          << "if [ " << exit_code << " -ne 0 ]; then echo 'nsys: bad report' >&2; "
                          << "exit " << exit_code << "; fi\n"
                          << "while [ $# -gt 0 ]; do if [ \"$1\" = --output ]; then out=\"$2\"; "
                          << "fi; shift; done\n"
                          << "/bin/cp '" << prepared_.string() << "' \"$out\"\n";
    fs::permissions(script, fs::perms::owner_all);
  }

  std::string Args() {
    std::ifstream in(dir_ / "args.txt");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_, rep_, prepared_;
  std::string saved_path_;
};

TEST_F(NsysRepTest, WithoutNsysSaysWhatToRun) {
  Result<fs::path> sqlite = SqliteForNsysRep(rep_, "run 1.nsys-rep", NoInstallPlaces());
  ASSERT_FALSE(sqlite.ok());
  EXPECT_EQ(sqlite.status().message(),
            "run 1.nsys-rep: reading .nsys-rep needs nsys (looked on PATH and in the standard "
            "install folders); export it with: nsys export --type sqlite --output '" +
                (dir_ / "run 1.sqlite").string() + "' '" + rep_.string() + "'");
}

TEST_F(NsysRepTest, ExportsWithNsysThenReads) {
  InstallFakeNsys();
  CollectingSink sink;
  Result<ReadReport> report = ReadNsysRep(rep_, "run 1.nsys-rep", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(Args(), "export\n--type\nsqlite\n--output\n" + (dir_ / "run 1.sqlite").string() + "\n" +
                        rep_.string() + "\n");
  ASSERT_EQ(sink.ops().size(), 1u);
  EXPECT_EQ(sink.ops()[0].name, "kernel_a");
  EXPECT_EQ(sink.ops()[0].op.duration_ns, 150);
}

TEST_F(NsysRepTest, UsesAnUpToDateExportWithoutNsys) {
  fs::copy_file(prepared_, dir_ / "run 1.sqlite");
  fs::last_write_time(dir_ / "run 1.sqlite", fs::last_write_time(rep_) + std::chrono::seconds(5));
  Result<fs::path> sqlite = SqliteForNsysRep(rep_, "run 1.nsys-rep", NoInstallPlaces());
  ASSERT_TRUE(sqlite.ok()) << sqlite.status().message();
  EXPECT_EQ(*sqlite, dir_ / "run 1.sqlite");
}

TEST_F(NsysRepTest, ReexportsAStaleExport) {
  InstallFakeNsys();
  std::ofstream(dir_ / "run 1.sqlite") << "stale";
  fs::last_write_time(dir_ / "run 1.sqlite", fs::last_write_time(rep_) - std::chrono::seconds(5));
  CollectingSink sink;
  Result<ReadReport> report = ReadNsysRep(rep_, "run 1.nsys-rep", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_THAT(Args(), HasSubstr("--force-overwrite\ntrue\n"));
  EXPECT_EQ(sink.ops().size(), 1u);
}

TEST_F(NsysRepTest, NsysFailureShowsItsOutput) {
  InstallFakeNsys(/*exit_code=*/2);
  Result<fs::path> sqlite = SqliteForNsysRep(rep_, "run 1.nsys-rep", NoInstallPlaces());
  ASSERT_FALSE(sqlite.ok());
  // nsys's output is kept, its newlines escaped so the message stays one line.
  EXPECT_EQ(sqlite.status().message(),
            "run 1.nsys-rep: nsys export failed (exit code 2):\\nnsys: bad report");
}

// Issue 13: nsys installed by NVIDIA's packages is not on PATH; the newest install is used.
TEST_F(NsysRepTest, FindsNsysInTheNewestInstallFolder) {
  fs::path places = dir_ / "nsight-systems";
  fs::create_directories(places / "2024.1.1" / "bin");
  std::ofstream(places / "2024.1.1" / "bin" / "nsys") << "#!/bin/sh\nexit 9\n";
  fs::permissions(places / "2024.1.1" / "bin" / "nsys", fs::perms::owner_all);
  InstallFakeNsys(0, places / "2025.3.2" / "bin");
  NsysExportOptions options;
  options.nsys_places = {{places, "", "bin"}};
  Result<fs::path> sqlite = SqliteForNsysRep(rep_, "run 1.nsys-rep", options);
  ASSERT_TRUE(sqlite.ok()) << sqlite.status().message();
  EXPECT_EQ(*sqlite, dir_ / "run 1.sqlite");
  EXPECT_THAT(Args(), HasSubstr("export\n"));
}

// Issue 13: a report in a read-only folder is exported to the cache folder, not refused.
TEST_F(NsysRepTest, ReadOnlyFolderExportsToTheCache) {
  InstallFakeNsys();
  const char* xdg = getenv("XDG_CACHE_HOME");
  std::string saved = xdg ? xdg : "";
  setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
  NsysExportOptions options = NoInstallPlaces();
  options.writable = [this](const fs::path& folder) { return folder != dir_; };
  Result<fs::path> sqlite = SqliteForNsysRep(rep_, "run 1.nsys-rep", options);
  if (xdg) {
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    unsetenv("XDG_CACHE_HOME");
  }
  ASSERT_TRUE(sqlite.ok()) << sqlite.status().message();
  EXPECT_EQ(sqlite->parent_path(), dir_ / "cache" / "stepstat");
  EXPECT_THAT(sqlite->filename().string(), ::testing::StartsWith("run 1-"));
  EXPECT_TRUE(fs::exists(*sqlite));
  EXPECT_FALSE(fs::exists(dir_ / "run 1.sqlite"));
  // A second run reuses the cached export without nsys.
  fs::remove(dir_ / "bin" / "nsys");
  setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
  Result<fs::path> again = SqliteForNsysRep(rep_, "run 1.nsys-rep", options);
  if (xdg) {
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    unsetenv("XDG_CACHE_HOME");
  }
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, *sqlite);
}

#else

// The stand-in nsys of these tests is a POSIX shell script on a PATH of its own; Windows runs
// RunProcess's own tests (process_test.cc) with cmd.exe instead.
TEST(NsysRepTest, SkippedOnWindows) {
  GTEST_SKIP() << "the stand-in nsys is a POSIX shell script (RunProcess: process_test.cc)";
}

#endif

TEST(NsysRepPath, ByExtension) {
  EXPECT_TRUE(IsNsysRepPath("a/b/report1.nsys-rep"));
  EXPECT_TRUE(IsNsysRepPath("old.qdrep"));
  EXPECT_FALSE(IsNsysRepPath("report1.sqlite"));
  EXPECT_FALSE(IsNsysRepPath(".nsys-rep"));
  EXPECT_FALSE(IsNsysRepPath("x.nsys-rep.csv"));
}

}  // namespace
}  // namespace stepstat
