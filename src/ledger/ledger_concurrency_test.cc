// Many writers on one ledger, and a writer killed inside its transaction.
//
// Who owns what: in EightWritersAllLand each of the 8 writer threads owns its own Ledger
// (its own SQLite connection) and shares nothing with the others but the file; the test's
// thread only starts and joins them, then reads the file with a fresh connection. In
// KilledWriter the forked child owns its connection and dies holding the write lock; the
// parent owns nothing of the child's and opens the file only after waitpid. Every body runs
// under MustFinishWithin, so a lock that is never released fails the test instead of
// hanging it.
#if !defined(_WIN32)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <atomic>
#include <thread>

#include "deadline.h"
#include "ledger/ledger_internal.h"
#include "ledger/ledger_test_support.h"

namespace stepstat {
namespace {

constexpr int kWriters = 8;
constexpr int kRunsEach = 5;

TEST(LedgerConcurrencyTest, EightWritersAllLand) {
  auto path = FreshDir("eight") / "ledger.sqlite";  // created by whichever writer is first
  std::atomic<int> failures{0};
  MustFinishWithin(std::chrono::seconds(120), "eight ledger writers", [&] {
    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        auto ledger = Ledger::Open(path, kCreate);
        if (!ledger.ok()) {
          ADD_FAILURE() << ledger.status().message();
          ++failures;
          return;
        }
        for (int r = 0; r < kRunsEach; ++r) {
          auto recorded = ledger->Record(SampleRun(
              "writer" + std::to_string(w), "h" + std::to_string(w) + "_" + std::to_string(r)));
          if (!recorded.ok() || recorded->already_recorded) ++failures;
        }
        // And the same inputs from everyone: one run, whoever is first.
        auto shared = ledger->Record(SampleRun("shared", "same-input"));
        if (!shared.ok()) ++failures;
      });
    }
    for (std::thread& t : writers) t.join();
  });
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM runs"), kWriters * kRunsEach + 1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM runs WHERE input_hash = 'same-input'"), 1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM steps"), (kWriters * kRunsEach + 1) * 18);
  EXPECT_EQ(IntegrityCheck(path), "ok");
}

#if defined(_WIN32)
TEST(LedgerConcurrencyTest, KilledWriterLeavesTheLedgerAsBefore) {
  GTEST_SKIP() << "needs fork() and SIGKILL to kill a writer inside its transaction; "
                  "Windows has neither";
}
#else
TEST(LedgerConcurrencyTest, KilledWriterLeavesTheLedgerAsBefore) {
  auto path = FreshDir("killed") / "ledger.sqlite";
  {
    auto ledger = Ledger::Open(path, kCreate);
    ASSERT_TRUE(ledger.ok());
    ASSERT_TRUE(ledger->Record(SampleRun("a", "h1")).ok());
  }
  const int64_t runs_before = QueryInt(path, "SELECT count(*) FROM runs");
  const int64_t steps_before = QueryInt(path, "SELECT count(*) FROM steps");
  int status = 0;
  MustFinishWithin(std::chrono::seconds(60), "a writer killed mid-record", [&] {
    pid_t child = fork();
    if (child == 0) {
      // Every row of the run is written; the COMMIT never comes.
      SetRecordHookForTesting([] { raise(SIGKILL); });
      auto ledger = Ledger::Open(path, kCreate);
      if (ledger.ok()) (void)ledger->Record(SampleRun("a", "h2", 500));
      _exit(0);  // reached only if the hook did not run
    }
    ASSERT_GT(child, 0);
    ASSERT_EQ(waitpid(child, &status, 0), child);
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child was not killed inside the transaction";
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(IntegrityCheck(path), "ok");
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM runs"), runs_before);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM steps"), steps_before);
  // And the next writer goes on as if nothing happened.
  auto ledger = Ledger::Open(path, kCreate);
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  auto recorded = ledger->Record(SampleRun("a", "h2"));
  ASSERT_TRUE(recorded.ok()) << recorded.status().message();
  EXPECT_EQ(recorded->run_id, 2);
}
#endif

}  // namespace
}  // namespace stepstat
