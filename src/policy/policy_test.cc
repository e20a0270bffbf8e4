#include "stepstat/policy.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace stepstat {
namespace {

constexpr std::string_view kValid = R"(# a comment
[policy]
name = "mine"
description = "my policy"
case_sensitive = true

[[component]]
name = "gemms"
description = "matrix multiplies"
patterns = ['gemm', 'nvjet_\w+']
exclude = ['attn']

[[component]]
name = "copies"
description = "copy kernels"
patterns = ['copy']

[other]
description = "the rest"
)";

TEST(ParsePolicy, ReadsEveryField) {
  Result<Policy> policy = ParsePolicy(kValid, "mine.toml");
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_EQ(policy->name, "mine");
  EXPECT_EQ(policy->description, "my policy");
  EXPECT_TRUE(policy->case_sensitive);
  ASSERT_EQ(policy->components.size(), 2u);
  EXPECT_EQ(policy->components[0].name, "gemms");
  EXPECT_EQ(policy->components[0].description, "matrix multiplies");
  EXPECT_EQ(policy->components[0].patterns, (std::vector<std::string>{"gemm", "nvjet_\\w+"}));
  EXPECT_EQ(policy->components[0].exclude, (std::vector<std::string>{"attn"}));
  EXPECT_EQ(policy->components[1].name, "copies");
  EXPECT_TRUE(policy->components[1].exclude.empty());
  EXPECT_EQ(policy->other_description, "the rest");
}

TEST(ParsePolicy, OptionalFieldsHaveDefaults) {
  Result<Policy> policy = ParsePolicy(R"([policy]
name = "p"
description = "d"
[[component]]
name = "c"
description = "cd"
patterns = ['x']
)",
                                      "p.toml");
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_FALSE(policy->case_sensitive);
  EXPECT_EQ(policy->other_description, "all unmatched kernels");
}

// Issue 13: a policy without descriptions failed, though the README never said they were
// required. They are optional and default to empty.
TEST(ParsePolicy, DescriptionsAreOptional) {
  Result<Policy> policy = ParsePolicy(R"([policy]
name = "p"
[[component]]
name = "c"
patterns = ['x']
)",
                                      "p.toml");
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_EQ(policy->description, "");
  ASSERT_EQ(policy->components.size(), 1u);
  EXPECT_EQ(policy->components[0].description, "");
}

struct BadPolicy {
  const char* what;
  std::string toml;
  std::string message;
};

// A policy header followed by `rest`; the header takes lines 1-3.
std::string WithHeader(const std::string& rest) {
  return "[policy]\nname = \"p\"\ndescription = \"d\"\n" + rest;
}

const std::string kComponentStart = "[[component]]\nname = \"gemms\"\ndescription = \"g\"\n";

void PrintTo(const BadPolicy& bad, std::ostream* out) { *out << bad.what; }

class ParsePolicyError : public testing::TestWithParam<BadPolicy> {};

TEST_P(ParsePolicyError, SaysWhereAndWhat) {
  Result<Policy> policy = ParsePolicy(GetParam().toml, "my.toml");
  ASSERT_FALSE(policy.ok()) << GetParam().what;
  EXPECT_EQ(policy.status().message(), GetParam().message) << GetParam().what;
}

INSTANTIATE_TEST_SUITE_P(
    AllErrors, ParsePolicyError,
    testing::Values(
        BadPolicy{"bad pattern",
                  WithHeader(kComponentStart + "patterns = ['ok',\n  '(unclosed']\n"),
                  "my.toml:8: component 'gemms': pattern '(unclosed': missing ): (unclosed"},
        BadPolicy{
            "bad exclude", WithHeader(kComponentStart + "patterns = ['x']\nexclude = ['a**']\n"),
            "my.toml:8: component 'gemms': exclude pattern 'a**': bad repetition operator: **"},
        BadPolicy{"misspelt patterns key", WithHeader(kComponentStart + "pattern = ['x']\n"),
                  "my.toml:7: component 'gemms': unknown key 'pattern' (allowed: name, "
                  "description, patterns, exclude)"},
        BadPolicy{"missing patterns", WithHeader(kComponentStart),
                  "my.toml:4: component 'gemms': missing 'patterns'"},
        BadPolicy{"empty patterns", WithHeader(kComponentStart + "patterns = []\n"),
                  "my.toml:7: component 'gemms': 'patterns' must not be empty"},
        BadPolicy{"patterns not an array", WithHeader(kComponentStart + "patterns = 'x'\n"),
                  "my.toml:7: component 'gemms': 'patterns' must be an array of strings, not a "
                  "string"},
        BadPolicy{"pattern not a string", WithHeader(kComponentStart + "patterns = ['x', 3]\n"),
                  "my.toml:7: component 'gemms': 'patterns' must hold strings, not an integer"},
        BadPolicy{"empty pattern", WithHeader(kComponentStart + "patterns = ['']\n"),
                  "my.toml:7: component 'gemms': pattern '': an empty pattern matches every "
                  "kernel"},
        BadPolicy{"duplicate component",
                  WithHeader(kComponentStart + "patterns = ['x']\n" + kComponentStart +
                             "patterns = ['y']\n"),
                  "my.toml:9: component 'gemms': duplicate name (first defined at line 5)"},
        BadPolicy{"component named other",
                  WithHeader("[[component]]\nname = \"other\"\ndescription = \"o\"\npatterns = "
                             "['x']\n"),
                  "my.toml:5: component 'other': the name 'other' is reserved for unmatched "
                  "kernels (describe it in [other])"},
        BadPolicy{"empty component name",
                  WithHeader("[[component]]\nname = \"\"\ndescription = \"o\"\npatterns = ['x']\n"),
                  "my.toml:5: component #1: 'name' must not be empty"},
        BadPolicy{"missing component name",
                  WithHeader("[[component]]\ndescription = \"o\"\npatterns = ['x']\n"),
                  "my.toml:4: component #1: missing 'name'"},
        BadPolicy{"component name not a string",
                  WithHeader("[[component]]\nname = 7\ndescription = \"o\"\npatterns = ['x']\n"),
                  "my.toml:5: component #1: 'name' must be a string, not an integer"},
        BadPolicy{"component as a plain table",
                  WithHeader("[component]\nname = \"c\"\ndescription = \"o\"\npatterns = ['x']\n"),
                  "my.toml:4: 'component' must be an array of tables: write [[component]], not "
                  "[component]"},
        BadPolicy{"no components", WithHeader(""),
                  "my.toml: no [[component]] tables: a policy needs at least one component"},
        BadPolicy{"empty component array", "component = []\n" + WithHeader(""),
                  "my.toml:1: no [[component]] tables: a policy needs at least one component"},
        BadPolicy{"component array of strings", "component = ['x']\n" + WithHeader(""),
                  "my.toml:1: 'component' must be an array of tables: write [[component]], not "
                  "[component]"},
        BadPolicy{"no policy table", kComponentStart + "patterns = ['x']\n",
                  "my.toml: missing the [policy] table"},
        BadPolicy{"policy not a table", "policy = 3\n" + kComponentStart + "patterns = ['x']\n",
                  "my.toml:1: 'policy' must be a table ([policy]), not an integer"},
        BadPolicy{"unknown policy key",
                  "[policy]\nname = \"p\"\ndescription = \"d\"\ncase_sensitiv = true\n",
                  "my.toml:4: [policy]: unknown key 'case_sensitiv' (allowed: name, "
                  "description, case_sensitive)"},
        BadPolicy{"case_sensitive not a boolean",
                  "[policy]\nname = \"p\"\ndescription = \"d\"\ncase_sensitive = \"yes\"\n",
                  "my.toml:4: [policy]: 'case_sensitive' must be a boolean, not a string"},
        BadPolicy{"missing policy name", "[policy]\ndescription = \"d\"\n",
                  "my.toml:1: [policy]: missing 'name'"},
        BadPolicy{"unknown table",
                  WithHeader(kComponentStart + "patterns = ['x']\n[others]\ndescription = \"o\"\n"),
                  "my.toml:8: policy file: unknown key 'others' (allowed: policy, component, "
                  "other)"},
        BadPolicy{"unknown key in other",
                  WithHeader(kComponentStart + "patterns = ['x']\n[other]\ndesc = \"o\"\n"),
                  "my.toml:9: [other]: unknown key 'desc' (allowed: description)"},
        BadPolicy{"other description not a string",
                  WithHeader(kComponentStart + "patterns = ['x']\n[other]\ndescription = 1.5\n"),
                  "my.toml:9: [other]: 'description' must be a string, not a float"},
        BadPolicy{
            "toml syntax error", WithHeader("[[component]]\nname = \"c\ndescription = 1\n"),
            "my.toml:5: Error while parsing string: unescaped control characters other than TAB "
            "(U+0009) are explicitly prohibited"}));

TEST(ParsePolicy, CaseSensitivityDecidesHowPatternsAreChecked) {
  // (?i) flags are fine either way; a pattern that RE2 rejects is rejected in both modes.
  for (const char* flag : {"true", "false"}) {
    std::string toml =
        std::string("[policy]\nname = \"p\"\ndescription = \"d\"\ncase_sensitive = ") + flag +
        "\n" + kComponentStart + "patterns = ['(?i)X', '[z-a]']\n";
    Result<Policy> policy = ParsePolicy(toml, "c.toml");
    ASSERT_FALSE(policy.ok());
    EXPECT_EQ(policy.status().message(),
              "c.toml:8: component 'gemms': pattern '[z-a]': invalid character class range: z-a");
  }
}

TEST(LoadPolicyFile, ReadsAFileAndNamesItInErrors) {
  const std::filesystem::path dir = testing::TempDir();
  const std::filesystem::path good = dir / "good_policy.toml";
  std::ofstream(good, std::ios::binary) << kValid;
  Result<Policy> policy = LoadPolicyFile(good);
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_EQ(policy->name, "mine");

  const std::filesystem::path bad = dir / "bad_policy.toml";
  std::ofstream(bad, std::ios::binary) << WithHeader(kComponentStart + "patterns = ['(']\n");
  Result<Policy> broken = LoadPolicyFile(bad);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().message(),
            bad.string() + ":7: component 'gemms': pattern '(': missing ): (");

  Result<Policy> missing = LoadPolicyFile(dir / "no_such_policy.toml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            (dir / "no_such_policy.toml").string() + ": cannot open the policy file");
}

TEST(ParsePolicy, InvalidUtf8IsASyntaxErrorNotACrash) {
  std::string toml = WithHeader(kComponentStart + "patterns = ['\xff\xfe']\n");
  Result<Policy> policy = ParsePolicy(toml, "u.toml");
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.status().message().rfind("u.toml:7: ", 0), 0u) << policy.status().message();
}

}  // namespace
}  // namespace stepstat
