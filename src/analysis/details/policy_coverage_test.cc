#include "stepstat/policy_coverage.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stepstat {
namespace {

KernelDetails Kernel(std::string name, int64_t total_ns) {
  KernelDetails k;
  k.name = std::move(name);
  k.total_ns = total_ns;
  return k;
}

// An llama.cpp prefill: GEMMs, their q8_1 quantization, rope and a broadcast add.
std::vector<KernelDetails> LlamaCppPrefill() {
  return {Kernel("void mul_mat_q<(ggml_type)12, (int)128, (bool)0>(...)", 700),
          Kernel("void quantize_mmq_q8_1<(mmq_q8_1_ds_layout)1>(...)", 100),
          Kernel("void rope_neox<(bool)1, (bool)0, float, float>(...)", 100),
          Kernel("void k_bin_bcast<&op_add, float, float, float>(...)", 50),
          Kernel("some_unknown_kernel", 50)};
}

Policy Builtin(std::string_view name) {
  Result<Policy> policy = BuiltinPolicy(name);
  EXPECT_TRUE(policy.ok());
  return policy.ok() ? *policy : Policy{};
}

TEST(PolicyCoverage, SharesOfKernelTimeOutsideOther) {
  Result<PolicyCoverage> c = CoverageOf(Builtin("llm-inference"), LlamaCppPrefill());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->policy, "llm-inference");
  EXPECT_EQ(c->kernel_time_ns, 1000);
  EXPECT_EQ(c->classified_time_ns, 950);
  EXPECT_DOUBLE_EQ(c->classified_percent_of_kernel_time, 95.0);
  EXPECT_DOUBLE_EQ(c->other_percent_of_kernel_time, 5.0);
  EXPECT_EQ(c->other_names, 1);
}

TEST(PolicyCoverage, EveryBuiltinInOrder) {
  Result<std::vector<PolicyCoverage>> all = CoverageOfBuiltinPolicies(LlamaCppPrefill());
  ASSERT_TRUE(all.ok());
  std::vector<std::string_view> names = BuiltinPolicyNames();
  ASSERT_EQ(all->size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ((*all)[i].policy, names[i]);
}

TEST(PolicyCoverage, NoKernelsIsNoDivisionByZero) {
  Result<PolicyCoverage> c = CoverageOf(Builtin("llm-inference"), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->kernel_time_ns, 0);
  EXPECT_EQ(c->classified_percent_of_kernel_time, 0.0);
}

// Issue 18: the default policy on an LLM trace said nothing while 89 % went to `other`.
TEST(PolicyHint, NamesTheBuiltinThatLeavesLeastInOther) {
  Result<std::optional<PolicyHint>> hint =
      SuggestBuiltinPolicy(Builtin("dit-nvfp4"), LlamaCppPrefill());
  ASSERT_TRUE(hint.ok());
  ASSERT_TRUE(hint->has_value());
  EXPECT_EQ((*hint)->current_policy, "dit-nvfp4");
  EXPECT_DOUBLE_EQ((*hint)->current_other_percent, 90.0);  // dit-nvfp4 knows the rope
  EXPECT_EQ((*hint)->suggested_policy, "llm-inference");
  EXPECT_DOUBLE_EQ((*hint)->suggested_other_percent, 5.0);
  EXPECT_EQ((*hint)->Message(),
            "hint: 90.0 % of kernel time is in `other` under policy dit-nvfp4; --policy "
            "llm-inference would leave 5.0 % there (stepstat policies --check compares them)");
}

TEST(PolicyHint, NoneAtOrBelowTheThreshold) {
  // 30 % exactly in other: no hint (the rule is "more than 30 %").
  std::vector<KernelDetails> kernels = {Kernel("void mul_mat_q<(ggml_type)12>(...)", 70),
                                        Kernel("some_unknown_kernel", 30)};
  Result<std::optional<PolicyHint>> hint = SuggestBuiltinPolicy(Builtin("llm-inference"), kernels);
  ASSERT_TRUE(hint.ok());
  EXPECT_FALSE(hint->has_value());
}

TEST(PolicyHint, NoneWhenNoBuiltinDoesBetter) {
  std::vector<KernelDetails> kernels = {Kernel("some_unknown_kernel", 100)};
  Result<std::optional<PolicyHint>> hint = SuggestBuiltinPolicy(Builtin("dit-nvfp4"), kernels);
  ASSERT_TRUE(hint.ok());
  EXPECT_FALSE(hint->has_value());
}

TEST(PolicyHint, SummaryUnderTheThresholdReadsNothing) {
  StepStats stats;
  stats.components.push_back({"other", "", 10, 0.0, 10.0, 1});
  SummaryInputs inputs;
  inputs.gpu.path = "/no/such/file.csv";  // would fail if read
  Result<std::optional<PolicyHint>> hint =
      SuggestBuiltinPolicy(Builtin("dit-nvfp4"), stats, inputs);
  ASSERT_TRUE(hint.ok()) << hint.status().message();
  EXPECT_FALSE(hint->has_value());
}

}  // namespace
}  // namespace stepstat
