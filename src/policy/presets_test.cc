#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "stepstat/policy.h"

namespace stepstat {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(BuiltinPolicy, EveryPresetParsesAndIsNamedAfterItsFile) {
  std::vector<std::string_view> names = BuiltinPolicyNames();
  ASSERT_NE(std::find(names.begin(), names.end(), kDefaultPolicyName), names.end());
  for (std::string_view name : names) {
    Result<Policy> policy = BuiltinPolicy(name);
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    EXPECT_EQ(policy->name, name);
    EXPECT_TRUE(Classifier::Create(*policy).ok()) << name;
  }
}

TEST(BuiltinPolicy, EmbeddedBytesEqualThePresetFile) {
  for (std::string_view name : BuiltinPolicyNames()) {
    const std::string path =
        std::string(STEPSTAT_SOURCE_DIR) + "/src/policy/presets/" + std::string(name) + ".toml";
    Result<Policy> embedded = BuiltinPolicy(name);
    Result<Policy> from_file = LoadPolicyFile(path);
    ASSERT_TRUE(embedded.ok() && from_file.ok()) << path;
    ASSERT_EQ(embedded->components.size(), from_file->components.size());
    for (size_t i = 0; i < embedded->components.size(); ++i) {
      EXPECT_EQ(embedded->components[i].patterns, from_file->components[i].patterns);
      EXPECT_EQ(embedded->components[i].exclude, from_file->components[i].exclude);
    }
  }
}

TEST(BuiltinPolicy, UnknownNameListsTheBuiltins) {
  Result<Policy> policy = BuiltinPolicy("no-such-policy");
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().message().rfind("unknown built-in policy 'no-such-policy' (built-in: "
                                            "dit-nvfp4",
                                            0),
            0u)
      << policy.status().message();
}

/// The `"classification_policy"` object of the reference output, as (name, description) pairs.
std::vector<std::pair<std::string, std::string>> ReferenceDescriptions(const std::string& json) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t at = json.find("\"classification_policy\": {");
  if (at == std::string::npos) return out;
  std::istringstream lines(json.substr(at));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.find('}') == std::string::npos) {
    // `    "name": "description",` (the reference descriptions hold no escapes)
    const size_t a = line.find('"'), b = line.find('"', a + 1);
    const size_t c = line.find('"', b + 1), d = line.rfind('"');
    out.emplace_back(line.substr(a + 1, b - a - 1), line.substr(c + 1, d - c - 1));
  }
  return out;
}

TEST(DefaultPolicy, DescriptionsMatchTheReferenceOutput) {
  const std::string json =
      ReadFile(STEPSTAT_SHARED_DIR "/spec/gb10-post-fc2-warmed-step-stats.json");
  if (json.empty()) GTEST_SKIP() << "reference output not found under " STEPSTAT_SHARED_DIR;
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  std::vector<std::pair<std::string, std::string>> ours;
  for (const ComponentRule& rule : policy->components)
    ours.emplace_back(rule.name, rule.description);
  ours.emplace_back("other", policy->other_description);
  EXPECT_EQ(ours, ReferenceDescriptions(json));
}

// Cases from ../shared/spec/dit-nvfp4-rules.md that labeled.tsv does not cover (nsys spelling).
TEST(DefaultPolicy, FollowsTheRulesNotes) {
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  Result<Classifier> classifier = Classifier::Create(*policy);
  ASSERT_TRUE(classifier.ok()) << classifier.status().message();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<c10::BFloat16, "
       "at::native::MeanOps<float, float, float, float>, unsigned int, c10::BFloat16, (int)4>>(T3)",
       "norm_and_rope"},  // Sage's k.mean()
      {"void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, "
       "at::native::func_wrapper_t<float, at::native::MaxNanFunctor<float>>, unsigned int, float, "
       "(int)4>>(T3)",
       "nvfp4_packing"},  // absmax
      {"void at::native::vectorized_elementwise_kernel<(int)4, "
       "at::native::AbsFunctor<c10::BFloat16>, "
       "std::array<char *, (unsigned long)2>>(int, T2, T3)",
       "nvfp4_packing"},
      {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<int>, "
       "std::array<char *, (unsigned long)1>>(int, T2, T3)",
       "nvfp4_packing"},  // zero-fill of a block-scale buffer
      {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, "
       "std::array<char *, (unsigned long)1>>(int, T2, T3)",
       "other"},  // float fills are not scale buffers
      {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, "
       "int, "
       "int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::"
       "MainloopSm120TmaWarpSpecializedBlockScaled<(int)3, (int)2, cute::tuple<cute::C<(int)1>, "
       "cute::C<(int)1>, cute::C<(int)1>>, cutlass::gemm::"
       "KernelTmaWarpSpecializedCooperativeBlockScaledSm120<(int)3>>, "
       "cute::tuple<cute::C<(int)128>, "
       "cute::C<(int)128>, cute::C<(int)256>>, "
       "cute::tuple<cutlass::nv_float4_t<cutlass::float_e2m1_t>, "
       "cutlass::float_ue4m3_t>>>>(T1::Params)",
       "nvfp4_gemms"},
      {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, "
       "int, "
       "int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::"
       "MainloopSm90TmaGmmaWarpSpecializedBlockScalingFP8<(int)4, cute::tuple<cute::C<(int)1>, "
       "cute::C<(int)2>, cute::C<(int)1>>, cutlass::gemm::"
       "KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum<(int)128>>, "
       "cutlass::float_e4m3_t>>>(T1::Params)",
       "other"},  // FP8 blockwise: not block-scaled
      {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, "
       "int, "
       "int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::"
       "MainloopSm120TmaWarpSpecializedBlockwiseScaling<(int)3, (int)2, "
       "cute::tuple<cute::C<(int)1>, "
       "cute::C<(int)1>, cute::C<(int)1>>, cutlass::gemm::KernelScheduleSm120Blockwise>, "
       "cutlass::float_e4m3_t>>>(T1::Params)",
       "other"},
      {"nvjet_sm121_tst_mma_192x144x64_2_48x72x64_tmaAB_alignCD4_bz_TNNN", "other"},  // dense BF16
  };
  for (const auto& [kernel, expected] : cases) {
    const int index = classifier->Classify(kernel);
    EXPECT_EQ(index == classifier->other_index() ? "other" : policy->components[index].name,
              expected)
        << kernel;
  }
}

TEST(DefaultPolicy, EveryLabeledKernelNameLandsInItsComponent) {
  std::ifstream in(STEPSTAT_SHARED_DIR "/data/kernel-names/labeled.tsv", std::ios::binary);
  if (!in) GTEST_SKIP() << "labeled.tsv not found under " STEPSTAT_SHARED_DIR "/data/kernel-names";
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  Result<Classifier> classifier = Classifier::Create(*policy);
  ASSERT_TRUE(classifier.ok()) << classifier.status().message();
  auto name_of = [&](int index) {
    return index == classifier->other_index() ? std::string("other")
                                              : policy->components[index].name;
  };
  std::string line;
  std::getline(in, line);  // header: component<TAB>kernel_name
  int checked = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    const std::string expected = line.substr(0, tab), kernel = line.substr(tab + 1);
    EXPECT_EQ(name_of(classifier->Classify(kernel)), expected) << kernel;
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace stepstat
