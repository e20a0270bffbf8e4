// What the ports (aarch64: DGX Spark, GB10) rely on, checked on whatever machine runs the
// tests; scripts/cross-aarch64 runs them under qemu-aarch64.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/steps/steps_distribution.h"
#include "csv/structural_mask.h"

namespace stepstat {
namespace {

// a + (b - a) * f must round twice, as the Python reference does. GCC fuses it into one fma
// where the machine has one (aarch64; x86 with -mfma) unless built with -ffp-contract=off,
// and then the last digit of a p10 or p90 (and of a cv) differs between machines.
TEST(Platform, FloatingPointExpressionsRoundLikePython) {
  const std::vector<double> sorted = {98.354989, 99.090959};
  // Python: 98.354989 + (99.090959 - 98.354989) * 0.1 == 98.428586; one fma gives
  // 98.42858600000001.
  EXPECT_EQ(Quantile(sorted, 0.1), 98.428586);
}

// The CSV scanner's block classifier runs the SIMD code of the machine it was built for, so a
// run on aarch64 tests the NEON code rather than the portable fallback twice.
TEST(Platform, StructuralMasksUseTheMachinesSimd) {
  const std::string kind = StructuralMaskKind();
#if defined(__aarch64__) && defined(__ARM_NEON)
  EXPECT_EQ(kind, "neon");
#elif defined(__SSE2__) && defined(__GNUC__) && !defined(_WIN32)
  // AVX2 where the CPU has it, chosen at run time.
  EXPECT_EQ(kind, __builtin_cpu_supports("avx2") ? "avx2" : "sse2");
#elif defined(__SSE2__)
  EXPECT_EQ(kind, "sse2");
#else
  EXPECT_EQ(kind, "swar");
#endif
}

}  // namespace
}  // namespace stepstat
