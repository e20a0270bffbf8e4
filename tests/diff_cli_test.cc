// Issue 14 as a user runs it: `stepstat diff` on synthetic runs of 20 NVTX steps. Two seeds
// of one workload are noise (neutral, --fail-if-slower 2 passes); the same run with every
// nvfp4 GEMM 10 % longer is flagged, and its gate fails with exit code 1 after writing -o.
// Then the ledger: record, idempotence, history, baselines and references as diff sides.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "cli_suite.h"

namespace {

namespace fs = std::filesystem;
namespace testing_support = stepstat::testing_support;

// A parsed JSON document that outlives the call (simdjson's DOM elements point into it).
struct Doc {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
};
std::unique_ptr<Doc> Parse(const std::string& text) {
  auto doc = std::make_unique<Doc>();
  EXPECT_EQ(doc->parser.parse(text).get(doc->root), simdjson::SUCCESS) << text;
  return doc;
}
std::string Str(simdjson::dom::element e) { return std::string(std::string_view(e)); }

using testing_support::ReadAll;

class DiffCli : public testing_support::CliSuite<DiffCli> {
 protected:
  // The three runs are written once for the suite: they take most of its time. Every run has
  // a ledger of its own, in the scratch folder.
  static void SetUpTestSuite() {
    MakeScratch("stepstat_diff_cli_", {{"STEPSTAT_LEDGER", "ledger.sqlite"}});
    for (const char* run :
         {"synth --out base --steps 20 --nvtx", "synth --out seed2 --steps 20 --nvtx --seed 2",
          "synth --out gemm10 --steps 20 --nvtx --slower nvfp4_gemms=10"}) {
      ASSERT_EQ(Run(run), 0) << run << ": " << err_;
    }
    ready_ = true;
  }
  static simdjson::dom::element Row(simdjson::dom::element diff, const std::string& section,
                                    const std::string& name) {
    for (simdjson::dom::element row : diff[section].get_array()) {
      if (Str(row["name"]) == name) return row;
    }
    ADD_FAILURE() << "no row " << name << " in " << section;
    return diff;
  }
};

TEST_F(DiffCli, TwoSeedsOfOneWorkloadAreNoise) {
  ASSERT_EQ(Run("diff base seed2 --fail-if-slower 2 --format json"), 0) << err_;
  auto doc = Parse(out_);
  simdjson::dom::element diff = doc->root;
  EXPECT_EQ(Str(diff["schema"]), "stepstat.diff/2");
  EXPECT_EQ(Str(diff["verdict"]), "neutral");
  simdjson::dom::element span = Row(diff, "metrics", "gpu_span_ns");
  EXPECT_EQ(int64_t(span["n_base"]), 20);
  EXPECT_EQ(int64_t(span["n_cand"]), 20);
  EXPECT_FALSE(bool(span["significant"]));
  EXPECT_TRUE(bool(diff["gates"].at(0)["passed"]));
}

TEST_F(DiffCli, LongerGemmsAreFlaggedAndTheirGateFailsAfterWritingTheOutput) {
  EXPECT_EQ(Run("diff base gemm10 --fail-if components.nvfp4_gemms.milliseconds:+5% -o d.json"), 1)
      << err_;
  auto doc = Parse(ReadAll(*dir_ / "d.json"));
  simdjson::dom::element diff = doc->root;
  simdjson::dom::element gemms = Row(diff, "components", "components.nvfp4_gemms.milliseconds");
  EXPECT_TRUE(bool(gemms["significant"]));
  EXPECT_NEAR(double(gemms["delta_pct"]), 10.0, 0.1);
  EXPECT_LT(double(gemms["p"]), 0.001);
  EXPECT_FALSE(bool(diff["gates"].at(0)["passed"]));
  // Other components did not change: noise, not flagged.
  EXPECT_FALSE(bool(Row(diff, "components", "components.sage2.milliseconds")["significant"]));
  // A limit the change stays under passes.
  EXPECT_EQ(Run("diff base gemm10 --fail-if components.nvfp4_gemms.milliseconds:+20% "
                "--format json"),
            0)
      << err_;
}

TEST_F(DiffCli, TheTableSaysWhichWayBesideEveryChange) {
  ASSERT_EQ(Run("diff base gemm10 --format table"), 0) << err_;
  EXPECT_NE(out_.find("cand − base"), std::string::npos) << out_;
  EXPECT_NE(out_.find("verdict: regression"), std::string::npos) << out_;
  EXPECT_NE(out_.find("slower"), std::string::npos);
  EXPECT_EQ(out_.find("\x1b["), std::string::npos) << "no color into a file";
}

TEST_F(DiffCli, WholeRunsCompareWithoutATest) {
  ASSERT_EQ(Run("summarize base -o base.json"), 0) << err_;
  ASSERT_EQ(Run("summarize gemm10 -o gemm10.json"), 0) << err_;
  ASSERT_EQ(Run("diff base.json gemm10.json --format json"), 0) << err_;
  auto doc = Parse(out_);
  simdjson::dom::element span = Row(doc->root, "metrics", "gpu_span_ns");
  EXPECT_EQ(int64_t(span["n_base"]), 1);
  EXPECT_TRUE(span["p"].is_null());
  EXPECT_NE(Str(span["note"]).find("no significance test"), std::string::npos);
  // A trace against a summary: the trace side is compared as a whole run too.
  ASSERT_EQ(Run("diff base gemm10.json --format json"), 0) << err_;
  auto mixed = Parse(out_);
  EXPECT_EQ(int64_t(Row(mixed->root, "metrics", "gpu_span_ns")["n_base"]), 1);
}

TEST_F(DiffCli, AnotherGpuIsSaid) {
  for (const char* file : {"_cuda_gpu_trace.csv", "_cuda_kern_exec_trace.csv"}) {
    std::string text = ReadAll(*dir_ / ("base" + std::string(file)));
    for (size_t at = text.find("NVIDIA GB10"); at != std::string::npos;
         at = text.find("NVIDIA GB10", at)) {
      text.replace(at, 11, "NVIDIA H100");
    }
    std::ofstream(*dir_ / ("h100" + std::string(file)), std::ios::binary) << text;
  }
  ASSERT_EQ(Run("diff base h100 --format json"), 0) << err_;
  auto doc = Parse(out_);
  std::string warnings;
  for (simdjson::dom::element w : doc->root["comparability"]["warnings"].get_array()) {
    warnings += Str(w) + "\n";
  }
  EXPECT_NE(warnings.find("different GPUs: base NVIDIA GB10, cand NVIDIA H100"), std::string::npos)
      << warnings;
}

// The input hash is of the bytes: a copy of a run in another folder is the same input (and
// the diff's JSON names no folder, so it is the same wherever the traces lie), as is the
// ledger's record of it; the other seed is not.
TEST_F(DiffCli, TheSameBytesElsewhereAreTheSameInput) {
  fs::create_directories(*dir_ / "copy");
  for (const char* file : {"_cuda_gpu_trace.csv", "_cuda_kern_exec_trace.csv"}) {
    fs::copy_file(*dir_ / ("base" + std::string(file)),
                  *dir_ / "copy" / ("base" + std::string(file)),
                  fs::copy_options::overwrite_existing);
  }
  auto same_input_warned = [] {
    return out_.find("base and cand are the same input") != std::string::npos;
  };
  ASSERT_EQ(Run("diff base " + (fs::path("copy") / "base").string() + " --format json"), 0) << err_;
  EXPECT_TRUE(same_input_warned()) << out_;
  auto doc = Parse(out_);
  const std::string hash = Str(doc->root["base"]["input_hash"]);
  EXPECT_EQ(hash.size(), 16u) << hash;
  EXPECT_EQ(Str(doc->root["cand"]["input_hash"]), hash);
  EXPECT_EQ(out_.find(dir_->filename().string()), std::string::npos) << "a folder in:\n" << out_;

  ASSERT_EQ(Run("diff base seed2 --format json"), 0) << err_;
  EXPECT_FALSE(same_input_warned()) << out_;
  EXPECT_NE(Str(Parse(out_)->root["cand"]["input_hash"]), hash);

  fs::remove(*dir_ / "ledger.sqlite");
  ASSERT_EQ(Run("record base --label dit"), 0) << err_;
  ASSERT_EQ(Run("diff @1 " + (fs::path("copy") / "base").string() + " --format json"), 0) << err_;
  EXPECT_TRUE(same_input_warned()) << out_;
  fs::remove(*dir_ / "ledger.sqlite");
}

TEST_F(DiffCli, BadUsageIsOneLineAndExitCode2) {
  EXPECT_EQ(Run("diff base"), 2);
  EXPECT_EQ(Run("diff base seed2 --fail-if gpu_span_ns:+5 apples"), 2);
  EXPECT_EQ(Run("diff base seed2 --fail-if nonsense"), 2);
  EXPECT_EQ(err_.find('\n'), err_.size() - 1) << err_;
  EXPECT_EQ(Run("diff base no_such_run"), 2);
  EXPECT_NE(err_.find("no_such_run"), std::string::npos) << err_;
}

TEST_F(DiffCli, TheLedgerRecordsOnceAndServesAsADiffSide) {
  fs::remove(*dir_ / "ledger.sqlite");
  ASSERT_EQ(Run("record base --label dit"), 0) << err_;
  EXPECT_EQ(out_, "recorded as run 1 (label dit)\n");
  ASSERT_EQ(Run("record gemm10 --label dit --tag change=gemm"), 0) << err_;
  const std::string recorded = out_;
  EXPECT_NE(recorded.find("recorded as run 2 (label dit); vs run 1: regression — "),
            std::string::npos)
      << recorded;
  EXPECT_NE(recorded.find("nvfp4_gemms +10.0 %"), std::string::npos) << recorded;
  // record says what diff says of the same pair, word for word.
  ASSERT_EQ(Run("diff @1 @2 --format json"), 0) << err_;
  const std::string reason = Str(Parse(out_)->root["verdict_reason"]);
  EXPECT_NE(recorded.find("regression — " + reason), std::string::npos) << recorded << reason;
  ASSERT_EQ(Run("diff base gemm10 --format json"), 0) << err_;
  EXPECT_EQ(Str(Parse(out_)->root["verdict_reason"]), reason);
  ASSERT_EQ(Run("record gemm10 --label dit"), 0) << err_;
  EXPECT_EQ(out_.rfind("already recorded as run 2", 0), 0u) << out_;

  ASSERT_EQ(Run("history --format json"), 0) << err_;
  auto history = Parse(out_);
  EXPECT_EQ(Str(history->root["schema"]), "stepstat.history/1");
  simdjson::dom::array runs = history->root["runs"].get_array();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(Str(runs.at(1)["verdict_vs_previous"]), "regression");
  EXPECT_EQ(Str(runs.at(1)["tags"]["change"]), "gemm");
  ASSERT_EQ(Run("history --regressions --format json"), 0) << err_;
  EXPECT_EQ(Parse(out_)->root["runs"].get_array().size(), 1u);

  ASSERT_EQ(Run("baseline set main @1"), 0) << err_;
  ASSERT_EQ(Run("diff baseline:main @latest --fail-if-slower 1 --format json"), 1) << err_;
  EXPECT_EQ(Str(Parse(out_)->root["verdict"]), "regression");
  ASSERT_EQ(Run("diff @prev gemm10 --format json"), 0) << err_;
  EXPECT_EQ(Str(Parse(out_)->root["verdict"]), "regression");
  EXPECT_EQ(Run("diff baseline:nope @latest"), 2);
}

}  // namespace
