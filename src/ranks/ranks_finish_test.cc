// FinishRanks: rank numbering, rows equal to the summary they came from, totals as sums,
// the spread across ranks and the stragglers.
#include <gtest/gtest.h>

#include "stepstat/partial.h"
#include "stepstat/ranks.h"
#include "stepstat/report.h"

namespace stepstat {
namespace {

Policy OneComponentPolicy() {
  Policy policy;
  policy.name = "one";
  policy.components.push_back({"gemm", "GEMMs", {"gemm"}, {}});
  return policy;
}

/// A summary as the summary code computes it (floats from the integers).
StepStats Stats(const std::string& source, int64_t span, int64_t gemm_ns, int64_t other_ns) {
  StepStats s;
  s.source_gpu_trace = source;
  s.gpu_span_ns = span;
  s.gpu_operation_count = 10;
  s.kernel_count = 10;
  s.kernel_time_ns = gemm_ns + other_ns;
  s.kernel_busy_percent_of_span =
      static_cast<double>(s.kernel_time_ns) / static_cast<double>(span) * 100.0;
  s.launch_gaps = {3, 300, 100.0, 200};
  s.components.push_back(
      {"gemm", "GEMMs", gemm_ns, static_cast<double>(gemm_ns) / 1e6,
       static_cast<double>(gemm_ns) / static_cast<double>(s.kernel_time_ns) * 100.0, 4});
  s.components.push_back(
      {"other", "all unmatched kernels", other_ns, static_cast<double>(other_ns) / 1e6,
       static_cast<double>(other_ns) / static_cast<double>(s.kernel_time_ns) * 100.0, 6});
  return s;
}

Partial Job(const std::vector<std::pair<StepStats, std::optional<int64_t>>>& ranks) {
  Partial job;
  for (const auto& [stats, rank] : ranks) {
    Result<Partial> merged = MergePartials(
        std::move(job), MakePartial(stats, OneComponentPolicy(), rank, rank ? kRankFromRegex : ""));
    EXPECT_TRUE(merged.ok()) << merged.status().message();
    job = std::move(merged).value();
  }
  return job;
}

TEST(FinishRanks, EachRowIsTheSummaryItCameFrom) {
  StepStats a = Stats("a/rank1", 1000, 300, 200);
  StepStats b = Stats("b/rank0", 2000, 700, 600);
  RanksReport report = FinishRanks(Job({{a, 1}, {b, 0}}));
  ASSERT_EQ(report.ranks.size(), 2u);
  EXPECT_EQ(report.ranks[0].rank, 0);
  EXPECT_EQ(StepStatsToJson(report.ranks[0].stats), StepStatsToJson(b));
  EXPECT_EQ(StepStatsToJson(report.ranks[1].stats), StepStatsToJson(a));
}

TEST(FinishRanks, TotalsSumSpansAndBusyIsSumOverSumNotAMeanOfPercents) {
  RanksReport report =
      FinishRanks(Job({{Stats("r0", 1000, 500, 0), 0}, {Stats("r1", 3000, 500, 0), 1}}));
  EXPECT_EQ(report.totals.gpu_span_ns, 4000);
  EXPECT_EQ(report.totals.kernel_time_ns, 1000);
  EXPECT_EQ(report.totals.kernel_busy_percent_of_span, 25.0);  // not (50 + 16.7) / 2
  EXPECT_EQ(report.totals.launch_gaps.positive_gap_count, 6);
  EXPECT_EQ(report.totals.launch_gaps.average_ns, 100.0);
  EXPECT_FALSE(report.totals.cpu_gpu_overlap.has_value());
}

TEST(FinishRanks, UnnumberedTracesTakeTheFreeNumbersInNaturalOrder) {
  RanksReport report = FinishRanks(Job({{Stats("t10", 100, 1, 1), std::nullopt},
                                        {Stats("t2", 100, 1, 1), std::nullopt},
                                        {Stats("x", 100, 1, 1), 0}}));
  ASSERT_EQ(report.ranks.size(), 3u);
  EXPECT_EQ(report.ranks[0].stats.source_gpu_trace, "x");
  EXPECT_EQ(report.ranks[0].rank_source, "regex");
  EXPECT_EQ(report.ranks[1].stats.source_gpu_trace, "t2");
  EXPECT_EQ(report.ranks[1].rank, 1);
  EXPECT_EQ(report.ranks[1].rank_source, "order");
  EXPECT_EQ(report.ranks[2].stats.source_gpu_trace, "t10");
}

TEST(FinishRanks, AcrossRanksNamesTheRanksAtMinAndMaxAndMarksStragglers) {
  std::vector<std::pair<StepStats, std::optional<int64_t>>> ranks;
  // Spans 1000 .. 1009 over ranks 0..9, then rank 10 at 1100 (10 % over the median).
  for (int r = 0; r < 10; ++r) ranks.push_back({Stats("r" + std::to_string(r), 1000 + r, 5, 5), r});
  ranks.push_back({Stats("r10", 1100, 5, 5), 10});
  RanksReport report = FinishRanks(Job(ranks));
  const AcrossRanks& span = report.across_ranks.front();
  EXPECT_EQ(span.name, "gpu_span_ns");
  EXPECT_EQ(span.min_int, 1000);
  EXPECT_EQ(span.min_rank, 0);
  EXPECT_EQ(span.p50_int, 1005);  // the 6th of 11
  EXPECT_EQ(span.p90_int, 1009);  // the 10th of 11
  EXPECT_EQ(span.max_int, 1100);
  EXPECT_EQ(span.max_rank, 10);
  for (const RankRow& row : report.ranks) EXPECT_EQ(row.straggler, row.rank == 10) << row.rank;
  EXPECT_NE(RanksToJson(report).find("\"ranks\": [\n      10\n    ]"), std::string::npos);
}

TEST(NaturalLess, ComparesDigitRunsAsNumbers) {
  EXPECT_TRUE(NaturalLess("rank2", "rank10"));
  EXPECT_FALSE(NaturalLess("rank10", "rank2"));
  EXPECT_TRUE(NaturalLess("a", "b"));
  EXPECT_TRUE(NaturalLess("rank01", "rank1"));  // equal numbers: bytewise decides
  EXPECT_FALSE(NaturalLess("rank1", "rank01"));
  EXPECT_FALSE(NaturalLess("rank1", "rank1"));
}

TEST(RankFromPath, TheDefaultTakesRankDigitsFromTheFileNameFirst) {
  auto rank = [](std::string_view path, std::string_view regex = {}) {
    Result<std::optional<int64_t>> r = RankFromPath(path, regex);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : std::nullopt;
  };
  EXPECT_EQ(rank("job/rank0.sqlite"), 0);
  EXPECT_EQ(rank("job/run_rank_3_cuda"), 3);
  EXPECT_EQ(rank("job/RANK-12.pt.trace.json"), 12);
  EXPECT_EQ(rank("rank9/worker_rank2.sqlite"), 2);
  EXPECT_EQ(rank("rank9/worker.sqlite"), 9);
  EXPECT_EQ(rank("job/trace.sqlite"), std::nullopt);
  EXPECT_EQ(rank("job/gpu7.sqlite", R"(gpu(\d+))"), 7);
  EXPECT_FALSE(RankFromPath("x", "gpu\\d+").ok());  // no group
  EXPECT_FALSE(RankFromPath("x", "(").ok());
}

}  // namespace
}  // namespace stepstat
