// The merge algebra on random partials (associative, commutative, an identity), its
// refusals, and the JSON round trip.
#include "stepstat/partial.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "stepstat/ranks.h"

namespace stepstat {
namespace {

Policy TwoComponentPolicy(std::string name = "test-policy") {
  Policy policy;
  policy.name = std::move(name);
  policy.components.push_back({"attention", "attention kernels", {"attn"}, {}});
  policy.components.push_back({"gemm", "GEMMs", {"gemm"}, {}});
  return policy;
}

/// A summary of plausible random integers (each well under 2^40, so that sums of a few
/// hundred cannot overflow), with or without a launch source.
StepStats RandomStats(std::mt19937_64& rng, const std::string& source) {
  std::uniform_int_distribution<int64_t> value(0, int64_t{1} << 40);
  StepStats s;
  s.source_gpu_trace = source;
  if (rng() % 2) s.source_kernel_exec_trace = source + "_kexec";
  s.gpu_span_ns = value(rng);
  s.gpu_operation_count = value(rng) % 100000;
  s.kernel_count = value(rng) % 100000;
  s.launch_gaps.positive_gap_count = value(rng) % 1000;
  s.launch_gaps.total_ns = value(rng);
  s.launch_gaps.maximum_ns = value(rng);
  if (s.source_kernel_exec_trace) {
    s.cpu_gpu_overlap = CpuGpuOverlap{value(rng), value(rng), 0.0};
  }
  for (const char* name : {"attention", "gemm", "other"}) {
    ComponentStats c;
    c.name = name;
    c.description = std::string(name) == "other"  ? "all unmatched kernels"
                    : std::string(name) == "gemm" ? "GEMMs"
                                                  : "attention kernels";
    c.time_ns = value(rng);
    c.launches = value(rng) % 10000;
    s.kernel_time_ns += c.time_ns;
    s.components.push_back(c);
  }
  return s;
}

/// Partials of 1 to 4 ranks each, ranks numbered or not, no rank or trace twice overall.
std::vector<Partial> RandomPartials(std::mt19937_64& rng, int count) {
  const Policy policy = TwoComponentPolicy();
  std::vector<Partial> partials;
  int next_trace = 0;
  for (int p = 0; p < count; ++p) {
    Partial partial;
    int ranks = 1 + static_cast<int>(rng() % 4);
    for (int r = 0; r < ranks; ++r) {
      int id = next_trace++;
      std::string source = "job/host" + std::to_string(id % 3) + "/trace" + std::to_string(id);
      // Every third trace carries no number: FinishRanks numbers it by its path.
      std::optional<int64_t> rank;
      if (id % 3 != 0) rank = 1000 - id;
      Result<Partial> merged = MergePartials(
          std::move(partial),
          MakePartial(RandomStats(rng, source), policy, rank, rank ? kRankFromRegex : ""));
      EXPECT_TRUE(merged.ok()) << merged.status().message();
      partial = std::move(merged).value();
    }
    partials.push_back(std::move(partial));
  }
  return partials;
}

Partial Merge(Partial a, Partial b) {
  Result<Partial> merged = MergePartials(std::move(a), std::move(b));
  EXPECT_TRUE(merged.ok()) << merged.status().message();
  return merged.ok() ? std::move(merged).value() : Partial{};
}

TEST(MergePartials, IsAssociativeCommutativeWithAnIdentityOnRandomPartials) {
  std::mt19937_64 rng(16);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Partial> p = RandomPartials(rng, 3);
    const std::string left = PartialToJson(Merge(Merge(p[0], p[1]), p[2]));
    EXPECT_EQ(left, PartialToJson(Merge(p[0], Merge(p[1], p[2]))));
    EXPECT_EQ(left, PartialToJson(Merge(Merge(p[2], p[0]), p[1])));
    EXPECT_EQ(PartialToJson(Merge(p[0], p[1])), PartialToJson(Merge(p[1], p[0])));
    EXPECT_EQ(PartialToJson(Merge(p[0], Partial{})), PartialToJson(p[0]));
    EXPECT_EQ(PartialToJson(Merge(Partial{}, p[0])), PartialToJson(p[0]));
    // And the finished job is the same bytes whatever the order.
    EXPECT_EQ(RanksToJson(FinishRanks(Merge(Merge(p[0], p[1]), p[2]))),
              RanksToJson(FinishRanks(Merge(p[2], Merge(p[1], p[0])))));
  }
}

TEST(MergePartials, SumsTheTotalsOfEveryRank) {
  std::mt19937_64 rng(7);
  std::vector<Partial> p = RandomPartials(rng, 2);
  Partial job = Merge(p[0], p[1]);
  int64_t span = 0;
  int64_t launch_ranks = 0;
  for (const RankPartial& r : job.ranks) {
    span += r.gpu_span_ns;
    launch_ranks += r.has_launches ? 1 : 0;
  }
  EXPECT_EQ(job.totals.gpu_span_ns, span);
  EXPECT_EQ(job.totals.launch_ranks, launch_ranks);
  EXPECT_EQ(job.totals.rank_count, static_cast<int64_t>(job.ranks.size()));
}

TEST(MergePartials, ASumPastInt64IsAnErrorNamingBothPartials) {
  std::mt19937_64 rng(1);
  StepStats a = RandomStats(rng, "a");
  StepStats b = RandomStats(rng, "b");
  a.gpu_span_ns = int64_t{1} << 62;
  b.gpu_span_ns = int64_t{1} << 62;
  Result<Partial> merged =
      MergePartials(MakePartial(a, TwoComponentPolicy()), MakePartial(b, TwoComponentPolicy()));
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("a and b"), std::string::npos)
      << merged.status().message();
  EXPECT_NE(merged.status().message().find("GPU spans"), std::string::npos);
}

TEST(MergePartials, AnotherPolicyIsAnErrorNamingBothPartials) {
  std::mt19937_64 rng(2);
  Policy other = TwoComponentPolicy();
  other.components[1].patterns.push_back("cutlass");  // same names, other classification
  Result<Partial> merged =
      MergePartials(MakePartial(RandomStats(rng, "a.csv"), TwoComponentPolicy()),
                    MakePartial(RandomStats(rng, "b.csv"), other));
  ASSERT_FALSE(merged.ok());
  const std::string message = merged.status().message();
  EXPECT_NE(message.find("a.csv"), std::string::npos) << message;
  EXPECT_NE(message.find("b.csv"), std::string::npos) << message;
  EXPECT_NE(PolicyHash(other), PolicyHash(TwoComponentPolicy()));
}

TEST(MergePartials, OneRankTwiceIsAnErrorNamingBothTraces) {
  std::mt19937_64 rng(3);
  Result<Partial> merged = MergePartials(
      MakePartial(RandomStats(rng, "x/rank3.csv"), TwoComponentPolicy(), 3, kRankFromRegex),
      MakePartial(RandomStats(rng, "y/rank_3.csv"), TwoComponentPolicy(), 3, kRankFromRegex));
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.status().message(), "x/rank3.csv and y/rank_3.csv are both rank 3");
}

TEST(MergePartials, OneTraceTwiceIsAnError) {
  std::mt19937_64 rng(4);
  StepStats stats = RandomStats(rng, "same.csv");
  Result<Partial> merged = MergePartials(MakePartial(stats, TwoComponentPolicy()),
                                         MakePartial(stats, TwoComponentPolicy()));
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("same.csv: summarized twice"), std::string::npos);
}

TEST(PartialJson, RoundTripsEveryField) {
  std::mt19937_64 rng(5);
  for (const Partial& partial : RandomPartials(rng, 20)) {
    const std::string json = PartialToJson(partial);
    Result<Partial> back = PartialFromJson(json, "p.json");
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(PartialToJson(*back), json);
  }
}

TEST(PartialJson, StartsWithItsSchema) {
  std::mt19937_64 rng(6);
  const std::string json = PartialToJson(RandomPartials(rng, 1)[0]);
  EXPECT_EQ(json.rfind("{\n  \"schema\": \"stepstat.partial/1\",", 0), 0u) << json;
}

/// `json` with the first `from` replaced by `to`.
std::string Replaced(std::string json, const std::string& from, const std::string& to) {
  size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) json.replace(at, from.size(), to);
  return json;
}

TEST(PartialJson, RefusesWhatItCannotTrust) {
  std::mt19937_64 rng(8);
  Partial partial = RandomPartials(rng, 1)[0];
  const std::string json = PartialToJson(partial);
  const std::string rank_count = "\"rank_count\": " + std::to_string(partial.totals.rank_count);
  struct Case {
    std::string text;
    std::string expected;
  } cases[] = {
      {"{", "p.json: not JSON"},
      {Replaced(json, "stepstat.partial/1", "stepstat.partial/2"),
       "p.json: schema \"stepstat.partial/2\", this stepstat reads stepstat.partial/1"},
      {Replaced(json, rank_count, "\"rank_count\": 999"),
       "p.json: \"totals\" are not the sums of \"ranks\""},
      {Replaced(json, "\"gpu_span_ns\": ", "\"gpu_span_ns\": -"), "is not an integer >= 0"},
      {Replaced(json, "\"component_ns\": [", "\"component_ns\": [1, "),
       "is not an array of 3 integers"},
      {Replaced(json, "\"kernel_count\"", "\"kernels\""), "has no \"kernel_count\""},
  };
  for (const Case& c : cases) {
    Result<Partial> read = PartialFromJson(c.text, "p.json");
    ASSERT_FALSE(read.ok()) << c.expected;
    EXPECT_NE(read.status().message().find(c.expected), std::string::npos)
        << read.status().message();
  }
}

TEST(PartialJson, AnEmptyPartialUnderAPolicyRoundTrips) {
  std::mt19937_64 rng(9);
  Partial partial = MakePartial(RandomStats(rng, "a"), TwoComponentPolicy());
  partial.ranks.clear();
  partial.totals = PartialTotals{};
  partial.totals.component_ns.assign(3, 0);
  partial.totals.component_launches.assign(3, 0);
  Result<Partial> back = PartialFromJson(PartialToJson(partial), "empty.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(PartialToJson(*back), PartialToJson(partial));
}

}  // namespace
}  // namespace stepstat
