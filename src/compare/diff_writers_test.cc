// The diff's writers: the JSON schema's fields, the words beside colored numbers, NO color
// codes unless asked, and the "Δ = cand − base" header.
#include <gtest/gtest.h>

#include "stepstat/compare.h"

namespace stepstat {
namespace {

DiffResult SlowerDiff() {
  Side base, cand;
  base.meta.label = "base.json";
  cand.meta.label = "cand.json";
  base.metrics = {{"gpu_span_ns", {}, 100e6}, {"kernel_count", {}, 10}};
  cand.metrics = {{"gpu_span_ns", {}, 110e6}, {"kernel_count", {}, 10}};
  base.meta.kernels = {{"gemm", {10, 1000}}};
  cand.meta.kernels = {{"gemm", {10, 1500}}};
  DiffOptions options;
  options.gates = {SlowerGate("5").value()};
  return Diff(base, cand, options).value();
}

TEST(DiffWritersTest, JsonCarriesTheSchemaAndEveryRowField) {
  std::string json = DiffToJson(SlowerDiff());
  for (const char* field :
       {"\"schema\": \"stepstat.diff/2\"", "\"delta\": \"cand - base\"", "\"delta_pct\": 10.0",
        "\"delta_pp\": null", "\"n_base\": 1", "\"p\": null", "\"beyond_floor\": true",
        "\"verdict\": \"inconclusive\"", "\"decides\": false", "\"status\": \"slower\"",
        "\"count_part_ns\": 0", "\"per_call_part_ns\": 500", "\"passed\": false",
        "\"comparability\""}) {
    EXPECT_NE(json.find(field), std::string::npos) << field << "\n" << json;
  }
}

TEST(DiffWritersTest, TableSaysSlowerWithAndWithoutColor) {
  DiffResult diff = SlowerDiff();
  std::string plain = DiffToTable(diff, {});
  EXPECT_NE(plain.find("Δ = cand − base"), std::string::npos);
  EXPECT_NE(plain.find("+10.0 % slower"), std::string::npos) << plain;
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(plain.find("FAIL --fail-if-slower 5"), std::string::npos) << plain;
  DiffTextStyle colored;
  colored.color = true;
  std::string color = DiffToTable(diff, colored);
  EXPECT_NE(color.find("\x1b[31m+10.0 % slower\x1b[0m"), std::string::npos) << color;
}

TEST(DiffWritersTest, MarkdownForAPullRequest) {
  std::string md = DiffToMarkdown(SlowerDiff());
  EXPECT_NE(md.find("(Δ = cand − base)"), std::string::npos);
  EXPECT_NE(md.find("| metric | base | cand |"), std::string::npos) << md;
  EXPECT_NE(md.find("+10.0 % slower"), std::string::npos);
  EXPECT_NE(md.find("**FAIL**"), std::string::npos);
}

}  // namespace
}  // namespace stepstat
