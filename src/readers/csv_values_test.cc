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

// Digit runs with one odd byte anywhere (also the bytes
// next to '0'-'9' and high bytes) must give the same result as ParseScaledDecimal.
TEST(CsvValuesTest, DigitFastPathAgreesOnDigitRunsWithOneOddByte) {
  std::mt19937_64 rng(7);
  const std::string odd = std::string("/:.\x80\xff \x00", 7);
  for (int trial = 0; trial < 100000; ++trial) {
    std::string text;
    size_t length = 1 + rng() % 20;
    for (size_t i = 0; i < length; ++i) text += static_cast<char>('0' + rng() % 10);
    if (trial % 2 == 0) text[rng() % length] = odd[rng() % odd.size()];
    int exponent = static_cast<int>(rng() % 12);
    DecimalResult fast = ParseScaled(text, exponent);
    DecimalResult slow = ParseScaledDecimal(text, exponent);
    ASSERT_EQ(fast.error, slow.error) << '"' << text << "\" e" << exponent;
    if (slow.ok()) {
      ASSERT_EQ(fast.value, slow.value) << '"' << text << "\" e" << exponent;
    }
  }
  EXPECT_EQ(ParseScaled("41793482336", 0).value, 41793482336);
  EXPECT_EQ(ParseScaled("1234567890123456789", 0).value, 1234567890123456789);
}

}  // namespace
}  // namespace stepstat
