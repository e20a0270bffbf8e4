// distributedInfo.rank from the start of a Kineto trace, synthetic and real.
#include "readers/kineto/kineto_rank.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace stepstat {
namespace {

TEST(KinetoRank, ReadsTheRankOfDistributedInfo) {
  EXPECT_EQ(
      KinetoRankInPrefix(
          R"({"distributedInfo": {"backend": "nccl", "rank": 12, "world_size": 16}, "traceEvents": [)"),
      12);
  EXPECT_EQ(KinetoRankInPrefix("{\n  \"distributedInfo\": {\"rank\":\n 3}"), 3);
  EXPECT_EQ(KinetoRankInPrefix(R"({"traceEvents": [{"name": "rank 5"}]})"), std::nullopt);
  EXPECT_EQ(KinetoRankInPrefix(R"({"distributedInfo": {"backend": "nccl"}, "rank": 4})"),
            std::nullopt);  // a "rank" outside distributedInfo is not its rank
  EXPECT_EQ(KinetoRankInPrefix(R"({"distributedInfo": {"rank": -1}})"), std::nullopt);
  EXPECT_EQ(KinetoRankInPrefix(R"({"distributedInfo": {"rank": 12345678901234567890}})"),
            std::nullopt);
  EXPECT_EQ(KinetoRankInPrefix(R"({"distributedInfo": {"rank": 1)"), std::nullopt);  // cut
}

TEST(KinetoRank, ReadsRealTracesPlainAndGzipped) {
  const std::filesystem::path real = std::filesystem::path(STEPSTAT_SHARED_DIR) / "data/real";
  const std::filesystem::path files[] = {real / "hta_sampled_rank0_kineto.json",
                                         real / "hta_a100_80g_rank0_ws16_kineto.json.gz"};
  for (const std::filesystem::path& file : files) {
    if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is absent";
    Result<std::optional<int64_t>> rank = KinetoRankOfFile(file, file.filename().string());
    ASSERT_TRUE(rank.ok()) << rank.status().message();
    EXPECT_EQ(*rank, 0) << file;
  }
}

}  // namespace
}  // namespace stepstat
