// Issue 16 as a user runs it: `stepstat ranks` over a job of synthetic ranks in three
// formats, `merge` of the partials it and `summarize --partial-out` wrote, and the failures
// (a bad trace among good ones, one rank twice, partials of two policies).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_suite.h"

namespace {

namespace fs = std::filesystem;
namespace testing_support = stepstat::testing_support;

// A path under the scratch folder as stepstat prints it for a trace it found in a folder:
// joined with the platform's separator (a backslash on Windows), as typed otherwise.
std::string Native(std::string path) {
  if (fs::path::preferred_separator != '/') {
    for (char& c : path) c = c == '/' ? static_cast<char>(fs::path::preferred_separator) : c;
  }
  return path;
}

// The same inside a JSON string, where a backslash is doubled.
std::string NativeInJson(const std::string& path) {
  std::string escaped;
  for (char c : Native(path)) escaped += c == '\\' ? std::string("\\\\") : std::string(1, c);
  return escaped;
}

// A copy the test may remove again: a read-only source (shared data) stays writable here.
void CopyWritable(const fs::path& from, const fs::path& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  fs::permissions(to, fs::perms::owner_write, fs::perm_options::add);
}

using testing_support::ReadAll;

class RanksCli : public testing_support::CliSuite<RanksCli> {
 protected:
  // The job is written once for the suite: rank0/rank1 as CSV pairs, rank2 a Kineto trace,
  // rank3 an SQLite export, rank4 two steps where the others have one (its straggler).
  static void SetUpTestSuite() {
    MakeScratch("stepstat_ranks_cli_");
    fs::create_directories(*dir_ / "job");
    for (const char* run : {"synth --out job/rank0 --seed 1", "synth --out job/rank1 --seed 2",
                            "synth --out job/rank2 --seed 3 --format kineto",
                            "synth --out job/rank3 --seed 4 --format sqlite",
                            "synth --out job/rank4 --seed 5 --steps 2"}) {
      ASSERT_EQ(Run(run), 0) << run << ": " << err_;
    }
    ready_ = true;
  }
};

TEST_F(RanksCli, EachRankRowHoldsExactlyWhatSummarizePrints) {
  ASSERT_EQ(Run("ranks job --format json"), 0) << err_;
  const std::string job = out_;
  for (const char* input :
       {"job/rank0", "job/rank1", "job/rank2.pt.trace.json", "job/rank3.sqlite", "job/rank4"}) {
    ASSERT_EQ(Run("summarize --format json " + Native(input)), 0) << err_;
    // The summary's fields, indented as they sit in ranks[] (two levels deeper).
    std::string fields;
    std::istringstream lines(out_);
    std::string line;
    std::getline(lines, line);  // "{"
    while (std::getline(lines, line)) {
      if (line != "}") fields += "    " + line + "\n";
    }
    EXPECT_NE(job.find(fields), std::string::npos) << input << "'s summary is not in:\n" << job;
  }
  EXPECT_EQ(job.rfind("{\n  \"schema\": \"stepstat.ranks/1\",", 0), 0u);
  EXPECT_NE(job.find("\"rank_count\": 5"), std::string::npos);
  EXPECT_NE(job.find("\"errors\": []"), std::string::npos);
}

TEST_F(RanksCli, AnyJobCountAndArgumentOrderPrintTheSameBytes) {
  ASSERT_EQ(Run("ranks job --format json -j 1"), 0) << err_;
  const std::string one = out_;
  ASSERT_EQ(Run("ranks job --format json -j 2"), 0) << err_;
  EXPECT_EQ(out_, one);
  ASSERT_EQ(Run(Native("ranks job/rank4 job/rank3.sqlite job/rank2.pt.trace.json job/rank1 "
                       "job/rank0 --format json -j 3")),
            0)
      << err_;
  EXPECT_EQ(out_, one);
  ASSERT_EQ(Run("ranks job --format csv -j 1"), 0) << err_;
  const std::string csv = out_;
  ASSERT_EQ(Run("ranks job --format csv -j 2"), 0) << err_;
  EXPECT_EQ(out_, csv);
}

TEST_F(RanksCli, PartialsFromAnywhereMergeIntoTheSameBytes) {
  ASSERT_EQ(Run("ranks job --format json -o whole.json --partials-dir partials"), 0) << err_;
  const std::string whole = ReadAll(*dir_ / "whole.json");
  ASSERT_EQ(Run("merge partials/rank0.partial.json partials/rank1.partial.json "
                "partials/rank2.pt.trace.json.partial.json partials/rank3.sqlite.partial.json "
                "partials/rank4.partial.json --format json"),
            0)
      << err_;
  EXPECT_EQ(out_, whole);
  // One rank summarized on its own (another machine, say) joins the others' partials.
  ASSERT_EQ(Run("summarize " + Native("job/rank4") + " --format json --partial-out rank4.json"), 0)
      << err_;
  ASSERT_EQ(Run("merge rank4.json partials/rank3.sqlite.partial.json partials/rank0.partial.json "
                "partials/rank2.pt.trace.json.partial.json partials/rank1.partial.json "
                "--format json"),
            0)
      << err_;
  EXPECT_EQ(out_, whole);
}

TEST_F(RanksCli, TheTableMarksTheStraggler) {
  ASSERT_EQ(Run("ranks job --format table"), 0) << err_;
  std::istringstream lines(out_);
  std::string line;
  int marked = 0;
  while (std::getline(lines, line)) {
    if (line.find("straggler") == std::string::npos || line.find("rank") == 0) continue;
    if (line.find("stragglers:") != std::string::npos) continue;
    ++marked;
    EXPECT_NE(line.find("rank4"), std::string::npos) << line;
  }
  EXPECT_EQ(marked, 1) << out_;
}

TEST_F(RanksCli, ABadTraceIsAnErrorEntryAndTheOthersAreStillReported) {
  fs::create_directories(*dir_ / "bad");
  CopyWritable(*dir_ / "job/rank3.sqlite", *dir_ / "bad/rank3.sqlite");
  std::ofstream(*dir_ / "bad/rank7_cuda_gpu_trace.csv") << "Start (ns),Duration (ns),Name\n1,x,k\n";
  EXPECT_EQ(Run("ranks bad --format json -o bad.json"), 2);
  EXPECT_NE(err_.find("stepstat: " + Native("bad/rank7_cuda_gpu_trace.csv")), std::string::npos)
      << err_;
  const std::string job = ReadAll(*dir_ / "bad.json");
  EXPECT_NE(job.find("\"rank_count\": 1"), std::string::npos) << job;
  EXPECT_NE(job.find("\"input\": \"" + NativeInJson("bad/rank7") + "\""), std::string::npos) << job;
}

TEST_F(RanksCli, OneRankTwiceIsAnErrorNamingBothTraces) {
  fs::create_directories(*dir_ / "again");
  CopyWritable(*dir_ / "job/rank3.sqlite", *dir_ / "again/rank_3.sqlite");
  fs::remove(*dir_ / "twice.json");
  EXPECT_EQ(Run("ranks job again --format json -o twice.json"), 2);
  EXPECT_NE(err_.find(Native("job/rank3.sqlite")), std::string::npos) << err_;
  EXPECT_NE(err_.find(Native("again/rank_3.sqlite")), std::string::npos) << err_;
  EXPECT_NE(err_.find("both rank 3"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(*dir_ / "twice.json"));
}

TEST_F(RanksCli, PartialsOfTwoPoliciesDoNotMerge) {
  ASSERT_EQ(Run("summarize job/rank0 --format json --partial-out dit.json"), 0) << err_;
  ASSERT_EQ(Run("summarize job/rank1 --format json --policy llm-inference --partial-out llm.json"),
            0)
      << err_;
  EXPECT_EQ(Run("merge dit.json llm.json"), 2);
  EXPECT_NE(err_.find("dit.json"), std::string::npos) << err_;
  EXPECT_NE(err_.find("llm.json"), std::string::npos) << err_;
  EXPECT_NE(err_.find("one policy"), std::string::npos) << err_;
}

// A policy that leaves most kernel time in `other` on every rank: one hint line for the job
// (not one per rank, nor none), naming the worst trace, with the numbers `summarize` gives
// that trace.
TEST_F(RanksCli, OnePolicyHintForTheJob) {
  std::ofstream(*dir_ / "norms-only.toml")
      << "[policy]\nname = \"norms-only\"\ndescription = \"n\"\n"
         "[[component]]\nname = \"norms\"\ndescription = \"n\"\npatterns = ['norm']\n";
  ASSERT_EQ(Run("ranks job --policy norms-only.toml --format json"), 0) << err_;
  const std::string job_err = err_;
  const size_t at = job_err.find("stepstat: hint: ");
  ASSERT_NE(at, std::string::npos) << job_err;
  EXPECT_EQ(job_err.find("hint: ", at + 16), std::string::npos) << "one line:\n" << job_err;
  EXPECT_NE(job_err.find(" (the worst of 5 traces over 30 %): "), std::string::npos) << job_err;
  // The named trace's own hint says the same numbers.
  const size_t name_end = job_err.find(" (the worst", at);
  const std::string trace = job_err.substr(at + 16, name_end - at - 16);
  const std::string numbers = job_err.substr(job_err.find("): ", at) + 3);
  ASSERT_EQ(Run("summarize " + trace + " --policy norms-only.toml --format json"), 0) << err_;
  EXPECT_NE(err_.find("stepstat: hint: " + numbers), std::string::npos) << trace << ":\n"
                                                                        << err_ << "\njob:\n"
                                                                        << job_err;
  // Under the default policy no rank is over the line: no hint.
  ASSERT_EQ(Run("ranks job --format json"), 0) << err_;
  EXPECT_EQ(err_.find("hint"), std::string::npos) << err_;
}

TEST_F(RanksCli, ARankRegexNumbersTracesAndUnmatchedOnesFollowNaturalOrder) {
  ASSERT_EQ(Run("ranks job --format json --rank-regex 'rank([34])'"), 0) << err_;
  // rank3 and rank4 keep their numbers; rank0, rank1, rank2 take 0, 1, 2 in natural order.
  EXPECT_NE(out_.find("\"rank\": 3,\n      \"rank_source\": \"regex\""), std::string::npos);
  EXPECT_NE(out_.find("\"rank\": 0,\n      \"rank_source\": \"order\""), std::string::npos);
  EXPECT_EQ(Run("ranks job --rank-regex 'rank\\d'"), 2);
  EXPECT_NE(err_.find("no capture group"), std::string::npos) << err_;
}

TEST_F(RanksCli, APyTorchTraceNamesItsOwnRank) {
  const fs::path real = fs::path(STEPSTAT_SHARED_DIR) / "data/real/hta_sampled_rank0_kineto.json";
  if (!fs::exists(real)) GTEST_SKIP() << real << " is absent";
  fs::create_directories(*dir_ / "content");
  CopyWritable(real, *dir_ / "content/worker_a.pt.trace.json");
  ASSERT_EQ(Run("ranks content --format json"), 0) << err_;
  EXPECT_NE(out_.find("\"rank\": 0,\n      \"rank_source\": \"content\""), std::string::npos)
      << out_;
}

}  // namespace
