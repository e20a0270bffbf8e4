#include <fmt/format.h>
#include <gtest/gtest.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "stepstat/policy.h"

namespace stepstat {
namespace {

ComponentRule Rule(std::string name, std::vector<std::string> patterns,
                   std::vector<std::string> exclude = {}) {
  return ComponentRule{name, name + " kernels", std::move(patterns), std::move(exclude)};
}

Classifier MakeClassifier(Policy policy, ClassifierOptions options = {}) {
  policy.name = "test";
  Result<Classifier> classifier = Classifier::Create(policy, options);
  EXPECT_TRUE(classifier.ok()) << classifier.status().message();
  return std::move(classifier).value();
}

TEST(Classifier, FirstComponentInPolicyOrderWins) {
  Policy policy;
  policy.components = {Rule("a", {"foo"}), Rule("b", {"foobar", "bar"})};
  Classifier classifier = MakeClassifier(policy);
  EXPECT_EQ(classifier.other_index(), 2);
  EXPECT_EQ(classifier.Classify("foobar"), 0);
  EXPECT_EQ(classifier.Classify("xbarx"), 1);
  EXPECT_EQ(classifier.Classify("baz"), 2);
  EXPECT_EQ(classifier.Classify(""), 2);
}

TEST(Classifier, PatternsSearchAnywhereInTheName) {
  Policy policy;
  policy.components = {Rule("gemm", {"gemm_kernel", "^start"})};
  Classifier classifier = MakeClassifier(policy);
  EXPECT_EQ(classifier.Classify("void ns::my_gemm_kernel<128u>(int)"), 0);
  EXPECT_EQ(classifier.Classify("start_of_name"), 0);
  EXPECT_EQ(classifier.Classify("not_start"), 1);
}

TEST(Classifier, ExcludeMakesTheKernelFallThroughToLaterComponents) {
  Policy policy;
  policy.components = {Rule("gemm", {"gemm"}, {"attn", "flash"}), Rule("attention", {"attn"}),
                       Rule("x", {"x"})};
  Classifier classifier = MakeClassifier(policy);
  EXPECT_EQ(classifier.Classify("sgemm_128"), 0);
  EXPECT_EQ(classifier.Classify("gemm_attn"), 1);
  EXPECT_EQ(classifier.Classify("gemm_flash"), 3);  // excluded, nothing else matches
  EXPECT_EQ(classifier.Classify("gemm_flash_x"), 2);
}

TEST(Classifier, ExcludeOnlyAppliesToItsOwnComponent) {
  Policy policy;
  policy.components = {Rule("a", {"k"}, {"skip_a"}), Rule("b", {"k"}, {"skip_b"})};
  Classifier classifier = MakeClassifier(policy);
  EXPECT_EQ(classifier.Classify("k skip_b"), 0);
  EXPECT_EQ(classifier.Classify("k skip_a"), 1);
  EXPECT_EQ(classifier.Classify("k skip_a skip_b"), 2);
}

TEST(Classifier, CaseInsensitiveUnlessThePolicySaysOtherwise) {
  Policy policy;
  policy.components = {Rule("gemm", {"GEMM"}, {"Attn"})};
  Classifier insensitive = MakeClassifier(policy);
  EXPECT_EQ(insensitive.Classify("sgemm"), 0);
  EXPECT_EQ(insensitive.Classify("sgemm_ATTN"), 1);
  policy.case_sensitive = true;
  Classifier sensitive = MakeClassifier(policy);
  EXPECT_EQ(sensitive.Classify("sgemm"), 1);
  EXPECT_EQ(sensitive.Classify("sGEMM"), 0);
  EXPECT_EQ(sensitive.Classify("sGEMM_ATTN"), 0);
  EXPECT_EQ(sensitive.Classify("sGEMM_Attn"), 1);
}

TEST(Classifier, NamesThatAreNotUtf8StillClassify) {
  Policy policy;
  policy.components = {Rule("reduce", {R"(\breduce_kernel\b.*\bMaxNanFunctor\b)"}),
                       Rule("word", {R"(\bfoo\b)"}), Rule("accent", {"café"}),
                       Rule("any", {"^.{3}$"})};
  Classifier classifier = MakeClassifier(policy);
  EXPECT_EQ(classifier.Classify("reduce_kernel<\xff\xfe\xc3(>::MaxNanFunctor"), 0);
  EXPECT_EQ(classifier.Classify(std::string("reduce_kernel\0\x80MaxNanFunctor x", 31)), 0);
  EXPECT_EQ(classifier.Classify("\xff"
                                "foo\xfe"),
            1);
  EXPECT_EQ(classifier.Classify("my_café_kernel"), 2);  // UTF-8 literal matches UTF-8 bytes
  EXPECT_EQ(classifier.Classify("a\xff\n"), 3);         // one byte is one character
  EXPECT_EQ(classifier.Classify("\xc3\xa9"), 4);
}

TEST(Classifier, CreateRejectsABadPatternInAPolicyBuiltInCode) {
  Policy policy;
  policy.components = {Rule("ok", {"x"}), Rule("broken", {"y", "(z"})};
  Result<Classifier> classifier = Classifier::Create(policy);
  ASSERT_FALSE(classifier.ok());
  EXPECT_EQ(classifier.status().message(), "component 'broken': pattern '(z': missing ): (z");
}

TEST(Classifier, ThousandsOfComponentsAndPathologicalPatternsStayFast) {
  Policy policy;
  policy.components.push_back(Rule("nested_star", {"(a*)*b"}));
  policy.components.push_back(Rule("nested_plus", {"(x+x+)+y"}));
  policy.components.push_back(Rule("alternation", {"(a|aa)+c", "(.*a){20}z"}));
  for (int i = 0; i < 5000; ++i) {
    policy.components.push_back(Rule(fmt::format("kernel_{}", i),
                                     {fmt::format("\\bkernel_{}\\b", i)},
                                     {fmt::format("skip_{}\\b", i)}));
  }
  const auto start = std::chrono::steady_clock::now();
  Classifier classifier = MakeClassifier(policy);
  const std::string as(200000, 'a');
  const std::string xs(200000, 'x');
  EXPECT_EQ(classifier.Classify(as), classifier.other_index());
  EXPECT_EQ(classifier.Classify(as + "b"), 0);
  EXPECT_EQ(classifier.Classify(xs), classifier.other_index());
  EXPECT_EQ(classifier.Classify(xs + "y"), 1);
  EXPECT_EQ(classifier.Classify(as + "c"), 2);
  EXPECT_EQ(classifier.Classify("void kernel_4321<int>(x)"), 3 + 4321);
  EXPECT_EQ(classifier.Classify("kernel_4321 skip_4321 kernel_17"), 3 + 17);
  for (int i = 0; i < 2000; ++i) {
    EXPECT_EQ(classifier.Classify(fmt::format("ns::kernel_{}<float>", i * 2)), 3 + i * 2);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0) << "RE2 is linear; this should take well under a few seconds";
}

TEST(Classifier, FallsBackToOnePatternAtATimeWhenTheSetCannotBeBuilt) {
  Policy policy;
  std::vector<std::string> all_patterns;
  for (int i = 0; i < 300; ++i) {
    all_patterns.push_back(fmt::format("a.{{{}}}b{}", i % 40 + 1, i));
    policy.components.push_back(
        Rule(fmt::format("c{}", i), {all_patterns.back()}, {fmt::format("never{}", i)}));
  }
  // The premise: 64 KiB is enough for each pattern alone but not for all of them in one Set.
  constexpr int64_t kStarved = 64 << 10;
  re2::RE2::Options options;
  options.set_max_mem(kStarved);
  options.set_log_errors(false);
  re2::RE2::Set set(options, re2::RE2::UNANCHORED);
  for (const std::string& pattern : all_patterns) ASSERT_GE(set.Add(pattern, nullptr), 0);
  ASSERT_FALSE(set.Compile());

  Classifier generous = MakeClassifier(policy);
  Classifier starved = MakeClassifier(policy, ClassifierOptions{kStarved});
  std::string text;
  unsigned random = 1;
  for (int i = 0; i < 300; ++i) {
    random = random * 1103515245u + 12345u;
    text += static_cast<char>('a' + (random >> 16) % 3);
  }
  for (int i = 0; i < 300; i += 29) {
    const std::string probe = fmt::format("{}a{}b{}", text, std::string(i % 40 + 1, 'q'), i);
    EXPECT_EQ(starved.Classify(probe), generous.Classify(probe)) << i;
    EXPECT_LE(generous.Classify(probe), i);
    EXPECT_EQ(starved.Classify(probe + "never" + std::to_string(i)),
              generous.Classify(probe + "never" + std::to_string(i)));
  }
  EXPECT_EQ(starved.Classify("nothing here"), starved.other_index());
}

TEST(Classifier, ConstClassifyIsThreadSafe) {
  Policy policy;
  policy.components = {Rule("gemm", {"gemm"}, {"attn"}), Rule("attn", {"attn"})};
  const Classifier classifier = MakeClassifier(policy);
  const std::vector<std::string> names = {"sgemm", "gemm_attn", "copy", "attn"};
  const std::vector<int> expected = {0, 1, 2, 1};
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        const size_t k = (i + t) % names.size();
        if (classifier.Classify(names[k]) != expected[k]) ++wrong[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace stepstat
