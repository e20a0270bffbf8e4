#include "readers/csv_values.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace stepstat {
namespace {

// The fast path must agree with ParseScaledDecimal on every input, valid or not.
TEST(CsvValuesTest, FastPathAgreesWithParseScaledDecimal) {
  std::mt19937_64 rng(99);
  const std::string alphabet = "0123456789012345678901234567890123456789. -e+x";
  for (int trial = 0; trial < 200000; ++trial) {
    std::string text;
    size_t length = rng() % 22;
    for (size_t i = 0; i < length; ++i) text += alphabet[rng() % alphabet.size()];
    int exponent = static_cast<int>(rng() % 12);
    DecimalResult fast = ParseScaled(text, exponent);
    DecimalResult slow = ParseScaledDecimal(text, exponent);
    ASSERT_EQ(fast.error, slow.error) << '"' << text << "\" e" << exponent;
    if (slow.ok()) {
      ASSERT_EQ(fast.value, slow.value) << '"' << text << "\" e" << exponent;
    }
  }
  EXPECT_EQ(ParseScaled("26.997", 6).value, 26997000);
  EXPECT_EQ(ParseScaled("9223372036854775807", 0).value, INT64_MAX);
  EXPECT_FALSE(ParseScaled("9223372036854775808", 0).ok());
  EXPECT_FALSE(ParseScaled("9999999999999999999", 1).ok());
}

}  // namespace
}  // namespace stepstat
