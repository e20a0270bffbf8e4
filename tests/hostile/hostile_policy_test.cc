// Hostile policies through the real binary: patterns built to make a backtracking engine
// explode, patterns RE2 must refuse, thousands of components, and names that would break
// a terminal or a JSON reader if written raw.
#include <gtest/gtest.h>

#include <string>

#include "hostile/hostile_support.h"

namespace stepstat::hostile {
namespace {

constexpr std::string_view kHeader = "Start (ns),Duration (ns),GrdX,Strm,Name\n";

std::string Component(std::string_view name, std::string_view patterns_toml) {
  return "[[component]]\nname = " + std::string(name) + "\ndescription = \"d\"\npatterns = [" +
         std::string(patterns_toml) + "]\n\n";
}

std::string Policy(std::string_view components) {
  return "[policy]\nname = \"hostile\"\ndescription = \"x\"\n\n" + std::string(components);
}

RunResult RunWith(const ScratchDir& dir, std::string_view policy, std::string_view trace) {
  dir.Write("p.toml", policy);
  dir.Write("t.csv", trace);
  RunResult run = Summarize(dir, {"t.csv", "--policy", "p.toml"});
  EXPECT_EQ(CheckOutcome(run), "") << "policy: " << policy.substr(0, 300);
  return run;
}

TEST(HostilePolicy, CatastrophicBacktrackingPatterns) {
  ScratchDir dir("backtracking");
  // Names of 50k 'a's that almost match: exponential for a backtracking engine, linear in RE2.
  const std::string a(50000, 'a');
  std::string trace(kHeader);
  trace += "1,2,1,7," + a + "\n";
  trace += "5,2,1,7," + a + "!\n";
  trace += "9,2,1,7," + std::string(20000, 'x') + "\n";
  std::string components = Component("\"nested\"", "'^(a+)+$'") +
                           Component("\"alt\"", "'^(a|aa)*b$'") +
                           Component("\"xs\"", "'(x+x+)+y', '(.*a){20}'");
  RunResult run = RunWith(dir, Policy(components), trace);
  EXPECT_EQ(run.exit_code, 0);
}

TEST(HostilePolicy, PatternsRe2Refuses) {
  ScratchDir dir("refused");
  const std::string trace = std::string(kHeader) + "1,2,1,7,k\n";
  const std::string refused[] = {
      "'a{1000}{1000}'",                    // repetition too large
      "'(\\x1b[31m'",                       // bad, holds an escape byte
      "\"(\\u001b]0;title\\u0007\\n<b>\"",  // bad, raw control chars in TOML
      "'\\p{NoSuchClass}'",
      "'a\\'",
  };
  for (const std::string& pattern : refused) {
    RunResult run = RunWith(dir, Policy(Component("\"c\"", pattern)), trace);
    EXPECT_EQ(run.exit_code, 2) << pattern;
  }
  // Patterns RE2 may take or refuse (versions differ), huge programs among them: each run
  // must still end by the rule (an error, or a result through the one-at-a-time fallback).
  for (const std::string& pattern :
       {std::string("'((a{100}){100}){10}'"), std::string("'(?P<n>a)(?P<n>b)'"),
        "'" + std::string(2000, '(') + "a" + std::string(2000, ')') + "'"}) {
    RunWith(dir, Policy(Component("\"big\"", pattern)), trace);
  }
}

TEST(HostilePolicy, ThousandsOfComponents) {
  ScratchDir dir("components");
  std::string components;
  std::string trace(kHeader);
  for (int i = 0; i < 5000; ++i) {
    std::string n = std::to_string(i);
    components += Component("\"c" + n + "\"", "'kernel_" + n + "_', 'k" + n + "x(a|b)*'");
    if (i % 50 == 0) trace += std::to_string(i * 10) + ",5,1,7,kernel_" + n + "_fwd\n";
  }
  RunResult run = RunWith(dir, Policy(components), trace);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("\"c4950\""), std::string::npos);
  // One component with 20000 patterns.
  std::string patterns;
  for (int i = 0; i < 20000; ++i) patterns += (i ? ", 'p" : "'p") + std::to_string(i) + "[0-9]+q'";
  RunResult wide = RunWith(dir, Policy(Component("\"wide\"", patterns)), trace);
  EXPECT_EQ(wide.exit_code, 0);
}

TEST(HostilePolicy, ControlCharactersAndHtmlInComponentNames) {
  ScratchDir dir("names");
  const std::string trace = std::string(kHeader) + "1,2,1,7,gemm\n5,2,1,7,attn\n";
  std::string components = Component("\"\\u001b[31m<script>alert(1)</script>\\u0007\"", "'gemm'") +
                           Component("\"tab\\there\\r\\nnext\\u007f\\u0000\"", "'attn'");
  RunResult run = RunWith(dir, Policy(components), trace);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\\u001b[31m<script>"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\\u0000"), std::string::npos) << run.out;
  // A bad policy whose error names such a component.
  RunResult bad = RunWith(dir, Policy(Component("\"\\u001b[2Jx\\ny\"", "'(unclosed'")), trace);
  EXPECT_EQ(bad.exit_code, 2);
  // TOML that is not TOML at all, and an empty file.
  EXPECT_EQ(RunWith(dir, "\x1b[2J\n[[[\n\xff\xfe", trace).exit_code, 2);
  EXPECT_EQ(RunWith(dir, "", trace).exit_code, 2);
}

}  // namespace
}  // namespace stepstat::hostile
