#include "core/true_divide.h"

#include <gtest/gtest.h>

#include <cmath>

namespace stepstat {
namespace {

TEST(TrueDivide, SmallOperandsAreOneDoubleDivision) {
  EXPECT_EQ(TrueDivide(20895065376, 20907172640), 20895065376.0 / 20907172640.0);
  EXPECT_EQ(TrueDivide(11518912, 2743), 4199.384615384615);
  EXPECT_EQ(TrueDivide(0, 7), 0.0);
}

TEST(TrueDivide, LargeOperandsRoundOnce) {
  // 2^62 + 1 over 2: exact quotient 2^61 + 0.5 rounds to 2^61 (ties to even on 53 bits is
  // far coarser here): compare against the quotient computed in long arithmetic by hand.
  int64_t a = (int64_t{1} << 62) + 1;
  EXPECT_EQ(TrueDivide(a, 2), std::ldexp(1.0, 61));
  // (2^53 + 1) * 3 / 3 must give 2^53 + 1 rounded once (to 2^53), whereas converting the
  // numerator first would already have rounded (3*2^53+3 → 3*2^53+4) then divided.
  int64_t n = ((int64_t{1} << 53) + 1) * 3;
  EXPECT_EQ(TrueDivide(n, 3), 9007199254740992.0);
  // A value just above a halfway point must round up.
  int64_t m = ((int64_t{1} << 53) + 1) * 4 + 1;  // /4 = 2^53 + 1.25 → 2^53 + 2
  EXPECT_EQ(TrueDivide(m, 4), 9007199254740994.0);
  EXPECT_EQ(TrueDivide(INT64_MAX, INT64_MAX), 1.0);
  EXPECT_EQ(TrueDivide(INT64_MAX, 1), 9223372036854775808.0);
}

}  // namespace
}  // namespace stepstat
