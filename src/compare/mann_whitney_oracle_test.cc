// MannWhitneyU against scipy.stats.mannwhitneyu (method='auto', use_continuity=True, the
// defaults) on generated samples: exact small cases, ties, large samples. Skips, saying so,
// when python3 with scipy is not installed (scripts/setup installs python3-scipy).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/process.h"
#include "stepstat/compare_stats.h"

namespace stepstat {
namespace {

struct Case {
  std::vector<double> base, cand;
};

// One case per line: "x1 x2 ...|y1 y2 ..."; the answer per line: the p-value and the method
// scipy's own rule picks.
constexpr const char* kOracle = R"(
import sys
from scipy.stats import mannwhitneyu
from scipy.stats._mannwhitneyu import _mwu_choose_method
import numpy as np
for line in open(sys.argv[1]):
    a, b = line.split('|')
    x = [float(v) for v in a.split()]
    y = [float(v) for v in b.split()]
    method = _mwu_choose_method(len(x), len(y), np.array(x + y), 'auto')
    print(repr(float(mannwhitneyu(x, y).pvalue)), method)
)";

std::string Python() {
  return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::vector<Case> GenerateCases() {
  std::vector<Case> cases;
  std::mt19937_64 random(2026);
  std::normal_distribution<double> normal(0, 1);
  auto sample = [&](size_t n, double shift, int tie_grid) {
    std::vector<double> values(n);
    for (double& v : values) {
      double x = 100 + 5 * normal(random) + shift;
      v = tie_grid ? std::round(x * tie_grid / 10) * 10 / tie_grid : x;
    }
    return values;
  };
  const double shifts[] = {0, 1, 3, 10, 30};
  for (int seed = 0; seed < 400; ++seed) {
    size_t n1, n2;
    switch (seed % 4) {
      case 0: n1 = 1 + random() % 8, n2 = 1 + random() % 20; break;  // exact territory
      case 1: n1 = 1 + random() % 20, n2 = 1 + random() % 8; break;
      case 2: n1 = 9 + random() % 40, n2 = 9 + random() % 40; break;  // asymptotic
      default: n1 = 50 + random() % 400, n2 = 50 + random() % 400; break;
    }
    int tie_grid = seed % 3 == 0 ? int(1 + random() % 3) : 0;  // a third with ties
    double shift = shifts[seed % 5];
    cases.push_back({sample(n1, 0, tie_grid), sample(n2, shift, tie_grid)});
  }
  cases.push_back({std::vector<double>(12, 4.0), std::vector<double>(7, 4.0)});  // all tied
  cases.push_back({{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}});
  cases.push_back({{1}, {2}});
  return cases;
}

TEST(MannWhitneyOracleTest, AgreesWithScipy) {
  auto probe = RunProcess({Python(), "-c", "import scipy.stats"});
  if (!probe.ok() || probe->exit_code != 0) {
    GTEST_SKIP() << "python3 with scipy is not installed (scripts/setup installs python3-scipy)";
  }
  std::vector<Case> cases = GenerateCases();
  std::filesystem::path file =
      std::filesystem::path(testing::TempDir()) / "mann_whitney_oracle_cases.txt";
  {
    std::ofstream out(file);
    for (const Case& c : cases) {
      for (double x : c.base) out << fmt::format("{} ", x);
      out << "|";
      for (double y : c.cand) out << fmt::format("{} ", y);
      out << "\n";
    }
  }
  auto answer = RunProcess({Python(), "-c", kOracle, file.string()});
  ASSERT_TRUE(answer.ok()) << answer.status().message();
  ASSERT_EQ(answer->exit_code, 0) << answer->output;
  std::istringstream lines(answer->output);
  int exact = 0, ties = 0;
  double worst = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    double expected_p;
    std::string expected_method;
    ASSERT_TRUE(lines >> expected_p >> expected_method) << "case " << i;
    MannWhitneyResult ours = MannWhitneyU(cases[i].base, cases[i].cand);
    EXPECT_EQ(ours.method == MannWhitneyMethod::kExact ? "exact" : "asymptotic", expected_method)
        << "case " << i;
    EXPECT_NEAR(ours.p, expected_p, 1e-9 * expected_p + 1e-300)
        << "case " << i << " n=" << cases[i].base.size() << "," << cases[i].cand.size();
    if (expected_p > 0) worst = std::max(worst, std::abs(ours.p - expected_p) / expected_p);
    exact += ours.method == MannWhitneyMethod::kExact;
    std::vector<double> pooled = cases[i].base;
    pooled.insert(pooled.end(), cases[i].cand.begin(), cases[i].cand.end());
    std::sort(pooled.begin(), pooled.end());
    ties += std::adjacent_find(pooled.begin(), pooled.end()) != pooled.end();
  }
  std::printf("scipy oracle: %zu cases (%d exact, %d with ties), worst relative error %.3g\n",
              cases.size(), exact, ties, worst);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace stepstat
