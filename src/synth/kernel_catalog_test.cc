// Every generated kernel name must land in its intended component under the default policy.
// The policy is read here from the spec's TOML with a minimal classifier of our own (first
// component with a matching pattern and no matching exclude; case-insensitive search), so
// the check does not depend on the project's classifier.
#include "synth/kernel_catalog.h"

#include <gtest/gtest.h>
#include <re2/re2.h>
#include <toml++/toml.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "synth/step_figures.h"
#include "synth/step_plan.h"

namespace stepstat::synth {
namespace {

struct Rule {
  std::string component;
  std::vector<std::unique_ptr<RE2>> patterns;
  std::vector<std::unique_ptr<RE2>> excludes;
};

std::vector<std::unique_ptr<RE2>> Compile(const toml::array* array) {
  std::vector<std::unique_ptr<RE2>> out;
  if (array == nullptr) return out;
  RE2::Options options;
  options.set_case_sensitive(false);
  for (const toml::node& node : *array) {
    out.push_back(std::make_unique<RE2>(node.value_or(std::string()), options));
    EXPECT_TRUE(out.back()->ok()) << out.back()->pattern();
  }
  return out;
}

std::string Classify(const std::vector<Rule>& rules, std::string_view name) {
  for (const Rule& rule : rules) {
    auto matches = [&](const std::vector<std::unique_ptr<RE2>>& set) {
      for (const auto& re : set) {
        if (RE2::PartialMatch(name, *re)) return true;
      }
      return false;
    };
    if (matches(rule.patterns) && !matches(rule.excludes)) return rule.component;
  }
  return "other";
}

TEST(KernelCatalog, EveryNameLandsInItsComponentUnderTheDefaultPolicy) {
  std::filesystem::path policy_path = STEPSTAT_SHARED_DIR "/spec/dit-nvfp4.toml";
  if (!std::filesystem::exists(policy_path)) GTEST_SKIP() << policy_path << " is absent";
  toml::table policy = toml::parse_file(policy_path.string());
  std::vector<Rule> rules;
  for (const toml::node& node : *policy["component"].as_array()) {
    const toml::table& table = *node.as_table();
    Rule rule;
    rule.component = table["name"].value_or(std::string());
    rule.patterns = Compile(table["patterns"].as_array());
    rule.excludes = Compile(table["exclude"].as_array());
    rules.push_back(std::move(rule));
  }
  ASSERT_EQ(rules.size(), 5u);
  for (const KernelKind& kind : AllKinds()) {
    EXPECT_EQ(Classify(rules, kind.name), ComponentName(kind.component)) << kind.name;
  }
}

TEST(KernelCatalog, NamesAreFullNsysDemangledNames) {
  int with_commas = 0;
  for (const KernelKind& kind : AllKinds()) {
    EXPECT_GT(kind.name.size(), 20u) << kind.name;
    if (kind.name.find(',') != std::string_view::npos) ++with_commas;
    // nsys spells template values as casts, never as 128u/false.
    EXPECT_EQ(kind.name.find("false"), std::string_view::npos) << kind.name;
    EXPECT_EQ(kind.name.find("(anonymous namespace)"), std::string_view::npos) << kind.name;
  }
  EXPECT_GT(with_commas, 10);
  EXPECT_LT(with_commas, static_cast<int>(AllKinds().size()));  // some are unquoted too
}

TEST(StepPlan, LaunchCountsPerComponentMatchTheReferenceStep) {
  StepPlan plan = BuildDitStepPlan();
  std::array<int64_t, kComponentCount> launches{};
  for (const PlannedKernel& kernel : plan.kernels) {
    ++launches[static_cast<int>(KindInfo(kernel.kind).component)];
  }
  // 50 blocks: 5 sage2, 4 GEMMs, 16 packing, 4 norms, 2 gate/add, 23 other each, plus the
  // embeddings and the head (1 norm each, 42 other).
  EXPECT_EQ(launches, (std::array<int64_t, kComponentCount>{250, 200, 800, 202, 100, 1192}));
  EXPECT_EQ(plan.memops.size(), 59u);
  EXPECT_EQ(plan.kernels[plan.host_pause_kernel].kind, Kind::kLayerNorm);
}

}  // namespace
}  // namespace stepstat::synth
