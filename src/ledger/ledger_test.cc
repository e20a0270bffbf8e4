// The ledger on one connection: schema, idempotence, references, baselines, runs as diff
// sides, refusals that leave foreign files alone, and the path and commit helpers.
#include <fstream>
#include <sstream>

#include "io/process.h"
#include "ledger/ledger_test_support.h"

namespace stepstat {
namespace {

std::string Bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(LedgerTest, CreatesAStrictWalLedgerAndRecordsOnce) {
  auto path = FreshDir("create") / "sub" / "ledger.sqlite";
  auto ledger = Ledger::Open(path, kCreate);
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  auto first = ledger->Record(SampleRun("dit", "h1"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->message(), "recorded as run 1");
  auto again = ledger->Record(SampleRun("dit", "h1"));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->already_recorded);
  EXPECT_EQ(again->message(), "already recorded as run 1");
  RecordRequest newer_tool = SampleRun("dit", "h1");
  newer_tool.tool_version = "0.2.0";
  EXPECT_EQ(ledger->Record(newer_tool)->run_id, 2);
  EXPECT_EQ(QueryInt(path, "PRAGMA user_version"), Ledger::kSchemaVersion);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM sqlite_master WHERE sql LIKE '%STRICT%'"), 5);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM steps"), 2 * 18);
  sqlite3* db = nullptr;
  sqlite3_open(path.string().c_str(), &db);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  EXPECT_FALSE(ledger->Record(SampleRun("dit", "")).ok());  // no input hash
}

TEST(LedgerTest, ResolvesReferencesAndBaselines) {
  auto ledger = Ledger::Open(FreshDir("refs") / "l.sqlite", kCreate);
  ASSERT_TRUE(ledger.ok());
  EXPECT_NE(ledger->ResolveReference("@latest").status().message().find("no runs"),
            std::string::npos);
  ledger->Record(SampleRun("a", "h1")).value();
  ledger->Record(SampleRun("b", "h2")).value();
  ledger->Record(SampleRun("a", "h3")).value();
  EXPECT_EQ(ledger->ResolveReference("@latest").value(), 3);
  EXPECT_EQ(ledger->ResolveReference("@prev").value(), 2);
  EXPECT_EQ(ledger->ResolveReference("@1").value(), 1);
  EXPECT_EQ(ledger->ResolveReference("label:a").value(), 3);
  EXPECT_NE(ledger->ResolveReference("@9").status().message().find("no run @9"), std::string::npos);
  EXPECT_NE(ledger->ResolveReference("label:zz").status().message().find("no run labeled"),
            std::string::npos);
  EXPECT_NE(ledger->ResolveReference("main").status().message().find("@ID, @latest"),
            std::string::npos);
  EXPECT_FALSE(ledger->ResolveReference("@x1").ok());
  EXPECT_FALSE(ledger->ResolveReference("baseline:main").ok());
  ASSERT_TRUE(ledger->SetBaseline("main", 1).ok());
  ASSERT_TRUE(ledger->SetBaseline("main", 2).ok());  // moves
  EXPECT_FALSE(ledger->SetBaseline("main", 42).ok());
  EXPECT_EQ(ledger->ResolveReference("baseline:main").value(), 2);
  auto baselines = ledger->ListBaselines();
  ASSERT_EQ(baselines->size(), 1u);
  EXPECT_EQ((*baselines)[0].run_id, 2);

  auto previous = ledger->PreviousRun("a");
  ASSERT_TRUE(previous.ok() && previous->has_value());
  EXPECT_EQ((*previous)->id, 3);
  EXPECT_EQ(ledger->PreviousRun("a", 3).value()->id, 1);
  EXPECT_FALSE(ledger->PreviousRun("a", 1)->has_value());
  auto runs = ledger->ListRuns("a*");
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[1].step_count, 6);
  EXPECT_EQ((*runs)[1].tags.at(0), (std::pair<std::string, std::string>{"branch", "main"}));
  EXPECT_EQ(ledger->ListRuns("*")->size(), 3u);
}

TEST(LedgerTest, LoadsARunAsADiffSide) {
  auto ledger = Ledger::Open(FreshDir("side") / "l.sqlite", kCreate);
  ledger->Record(SampleRun("a", "h1", 6, 1000)).value();
  ledger->Record(SampleRun("a", "h2", 6, 1100)).value();
  auto base = ledger->LoadRunAsSide(1);
  ASSERT_TRUE(base.ok()) << base.status().message();
  EXPECT_EQ(base->meta.label, "@1 (a)");
  EXPECT_EQ(base->meta.gpu, "GB10");
  const MetricValues* span = base->Find("gpu_span_ns");
  ASSERT_NE(span, nullptr);
  EXPECT_EQ(span->steps, (std::vector<double>{1001, 1002, 1003, 1004, 1005}));  // no warm-up
  EXPECT_EQ(span->run, 6000);
  auto cand = ledger->LoadRunAsSide(2);
  auto diff = Diff(*base, *cand, {});
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->verdict, Verdict::kRegression);  // 10 % slower, 5 steps each
  EXPECT_FALSE(ledger->LoadRunAsSide(7).ok());
}

TEST(LedgerTest, NewerSchemaIsRefusedAndLeftAlone) {
  auto path = FreshDir("newer") / "l.sqlite";
  { ASSERT_TRUE(Ledger::Open(path, kCreate).ok()); }
  sqlite3* db = nullptr;
  sqlite3_open(path.string().c_str(), &db);
  sqlite3_exec(db, "PRAGMA user_version = 7", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  std::string before = Bytes(path);
  auto opened = Ledger::Open(path, kCreate);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("schema 7 was written by a newer stepstat"),
            std::string::npos)
      << opened.status().message();
  EXPECT_EQ(Bytes(path), before);
}

TEST(LedgerTest, FilesThatAreNotLedgersAreRefusedAndLeftAlone) {
  auto dir = FreshDir("foreign");
  auto other_db = dir / "other.sqlite";
  sqlite3* db = nullptr;
  sqlite3_open(other_db.string().c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto text = dir / "notes.txt";
  std::ofstream(text) << "these are my notes, not a database\n" << std::string(600, 'x');
  for (const auto& path : {other_db, text}) {
    std::string before = Bytes(path);
    auto opened = Ledger::Open(path, kCreate);
    ASSERT_FALSE(opened.ok()) << path;
    EXPECT_NE(opened.status().message().find("not a stepstat ledger"), std::string::npos)
        << opened.status().message();
    EXPECT_EQ(Bytes(path), before) << path;
    EXPECT_FALSE(std::filesystem::exists(path.string() + "-wal"));
  }
}

TEST(LedgerPathTest, FlagThenEnvironmentThenTheWorkingFolder) {
  EXPECT_EQ(ResolveLedgerPath("x.sqlite", "env.sqlite", "/w"), "x.sqlite");
  EXPECT_EQ(ResolveLedgerPath(std::nullopt, "env.sqlite", "/w"), "env.sqlite");
  EXPECT_EQ(ResolveLedgerPath(std::nullopt, "", "/w"), "/w/.stepstat/ledger.sqlite");
  EXPECT_EQ(ResolveLedgerPath(std::nullopt, nullptr, "/w"), "/w/.stepstat/ledger.sqlite");
}

TEST(GitCommitTest, ReadsHeadRefsPackedRefsAndWorktrees) {
  const std::string a(40, 'a'), b(40, 'b'), c(40, 'c');
  auto repo = FreshDir("git");
  std::filesystem::create_directories(repo / ".git/refs/heads");
  std::filesystem::create_directories(repo / "src/deep");
  std::ofstream(repo / ".git/HEAD") << "ref: refs/heads/main\n";
  EXPECT_FALSE(GitCommitOf(repo / "src/deep").has_value());  // unborn branch
  std::ofstream(repo / ".git/packed-refs") << "# pack-refs\n" << b << " refs/heads/main\n";
  EXPECT_EQ(GitCommitOf(repo / "src/deep"), b);
  std::ofstream(repo / ".git/refs/heads/main") << a << "\n";
  EXPECT_EQ(GitCommitOf(repo / "src/deep"), a);  // a loose ref wins over packed
  // A linked worktree: .git is a file; HEAD is its own, branches are the main repo's.
  std::filesystem::create_directories(repo / ".git/worktrees/wt");
  std::ofstream(repo / ".git/worktrees/wt/HEAD") << "ref: refs/heads/main\n";
  std::ofstream(repo / ".git/worktrees/wt/commondir") << "../..\n";
  auto wt = FreshDir("git_wt");
  std::ofstream(wt / ".git") << "gitdir: " << (repo / ".git/worktrees/wt").string() << "\n";
  EXPECT_EQ(GitCommitOf(wt), a);
  std::ofstream(repo / ".git/worktrees/wt/HEAD") << c << "\n";  // detached
  EXPECT_EQ(GitCommitOf(wt), c);
  EXPECT_FALSE(GitCommitOf("/").has_value());
}

TEST(HashInputFilesTest, SameBytesSameHash) {
  auto dir = FreshDir("hash");
  std::ofstream(dir / "a") << "ab";
  std::ofstream(dir / "b") << "c";
  std::ofstream(dir / "c") << "ab";
  EXPECT_EQ(HashInputFiles({dir / "a", dir / "b"}).value(),
            HashInputFiles({dir / "c", dir / "b"}).value());
  EXPECT_NE(HashInputFiles({dir / "a"}).value(), HashInputFiles({dir / "b"}).value());
  EXPECT_FALSE(HashInputFiles({dir / "missing"}).ok());
}

}  // namespace
}  // namespace stepstat

namespace stepstat {
namespace {

TEST(GitCommitTest, AgreesWithGitOnThisCheckout) {
  auto git = RunProcess({"git", "-C", STEPSTAT_SOURCE_DIR, "rev-parse", "HEAD"});
  if (!git.ok() || git->exit_code != 0) GTEST_SKIP() << "git or a git checkout is not here";
  std::string expected = git->output.substr(0, 40);
  EXPECT_EQ(GitCommitOf(STEPSTAT_SOURCE_DIR), expected);
}

TEST(LedgerTest, AMissingLedgerIsAnErrorUnlessCreating) {
  auto dir = FreshDir("missing");
  auto path = dir / "typo" / "ledger.sqlite";
  auto opened = Ledger::Open(path);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("no ledger here"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "typo"));  // nothing created
}

TEST(LedgerTest, KeepsEachKernelsCallsAndMigratesASchemaOneLedger) {
  auto path = FreshDir("kernels") / "l.sqlite";
  {
    auto ledger = Ledger::Open(path, kCreate);
    ASSERT_TRUE(ledger.ok());
    // A schema 1 ledger: no kernels table yet.
    ASSERT_TRUE(ledger->Record(SampleRun("dit", "h0")).ok());
  }
  sqlite3* db = nullptr;
  sqlite3_open(path.string().c_str(), &db);
  ASSERT_EQ(
      sqlite3_exec(db, "DROP TABLE kernels; PRAGMA user_version = 1", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);

  auto ledger = Ledger::Open(path);  // migrates
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  EXPECT_EQ(QueryInt(path, "PRAGMA user_version"), 2);
  auto old_run = ledger->LoadRunAsSide(1);
  ASSERT_TRUE(old_run.ok());
  EXPECT_TRUE(old_run->meta.kernels.empty());
  EXPECT_FALSE(old_run->meta.kernels_complete);

  RecordRequest run = SampleRun("dit", "h1");
  run.kernels["gemm"] = {5, 5 * 100 + 2, "gemm", {{100, 3}, {101, 2}}};
  run.kernels["norm"] = {1, 7, "norm", {{7, 1}}};
  auto recorded = ledger->Record(run);
  ASSERT_TRUE(recorded.ok()) << recorded.status().message();
  auto side = ledger->LoadRunAsSide(recorded->run_id);
  ASSERT_TRUE(side.ok()) << side.status().message();
  EXPECT_TRUE(side->meta.kernels_complete);
  const KernelTotals& gemm = side->meta.kernels.at("gemm");
  EXPECT_EQ(gemm.count, 5);
  EXPECT_EQ(gemm.total_ns, 502);
  EXPECT_EQ(gemm.component, "gemm");
  ASSERT_EQ(gemm.calls.size(), 2u);
  EXPECT_EQ(gemm.calls[1].value, 101);
  EXPECT_EQ(gemm.calls[1].count, 2);

  // Durations that do not add up to the calls: the ledger says it is damaged.
  sqlite3_open(path.string().c_str(), &db);
  sqlite3_exec(db, "UPDATE kernels SET durations = '100:3,99:2' WHERE name = 'gemm'", nullptr,
               nullptr, nullptr);
  sqlite3_close(db);
  auto damaged = ledger->LoadRunAsSide(recorded->run_id);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().message().find("damaged kernel durations"), std::string::npos);
}

}  // namespace
}  // namespace stepstat
