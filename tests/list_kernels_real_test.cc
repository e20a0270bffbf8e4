// `classify` from a trace and from nsys's own cuda_gpu_kern_sum of the same run agree on every
// per-name number, the median included (nsys computes it exactly, so must we).
#include <gtest/gtest.h>

#include <filesystem>

#include "stepstat/details.h"
#include "stepstat/policy.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

TEST(ListKernelsRealData, TraceAgreesWithNsysKernSum) {
  const fs::path dir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";
  if (!fs::exists(dir)) GTEST_SKIP() << "needs " << dir;
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok());
  Result<SummaryInputs> trace =
      ResolveInputs({(dir / "hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv").string()});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  Result<std::vector<KernelDetails>> from_trace = ListKernels(*trace, *policy);
  ASSERT_TRUE(from_trace.ok()) << from_trace.status().message();
  const fs::path sum = dir / "hcc_h100nvl_kmeans_cc_cuda_gpu_kern_sum.csv";
  Result<std::vector<KernelDetails>> from_sum =
      ListKernelsOfSummary(TraceInput{sum, "sum.csv", InputKind::kNsysGpuKernSumCsv}, *policy);
  ASSERT_TRUE(from_sum.ok()) << from_sum.status().message();
  ASSERT_EQ(from_trace->size(), from_sum->size());
  for (size_t i = 0; i < from_sum->size(); ++i) {
    const KernelDetails& t = from_trace->at(i);
    const KernelDetails& s = from_sum->at(i);
    EXPECT_EQ(t.name, s.name);
    EXPECT_EQ(t.component, s.component);
    EXPECT_EQ(t.launches, s.launches) << s.name;
    EXPECT_EQ(t.total_ns, s.total_ns) << s.name;
    EXPECT_EQ(t.median_ns, s.median_ns) << s.name;
    EXPECT_EQ(t.min_ns, s.min_ns) << s.name;
    EXPECT_EQ(t.max_ns, s.max_ns) << s.name;
    EXPECT_NEAR(t.mean_ns, s.mean_ns, 0.05) << s.name;  // nsys prints one decimal
  }
}

// The policy hint's listing keeps no durations: the same names, components, launches and
// totals in the same order, with min and median left 0.
TEST(ListKernelsRealData, TotalsAreTheListingWithoutDurations) {
  const fs::path dir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";
  if (!fs::exists(dir)) GTEST_SKIP() << "needs " << dir;
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok());
  Result<SummaryInputs> trace =
      ResolveInputs({(dir / "hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv").string()});
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  Result<std::vector<KernelDetails>> full = ListKernels(*trace, *policy);
  Result<std::vector<KernelDetails>> totals = ListKernelTotals(*trace, *policy);
  ASSERT_TRUE(full.ok() && totals.ok());
  ASSERT_EQ(full->size(), totals->size());
  ASSERT_FALSE(full->empty());
  for (size_t i = 0; i < full->size(); ++i) {
    const KernelDetails& f = full->at(i);
    const KernelDetails& t = totals->at(i);
    EXPECT_EQ(f.name, t.name);
    EXPECT_EQ(f.component, t.component);
    EXPECT_EQ(f.launches, t.launches) << f.name;
    EXPECT_EQ(f.total_ns, t.total_ns) << f.name;
    EXPECT_EQ(f.max_ns, t.max_ns) << f.name;
    EXPECT_EQ(t.median_ns, 0) << f.name;
    EXPECT_EQ(t.min_ns, 0) << f.name;
  }
}

}  // namespace
}  // namespace stepstat
