#include "readers/csv/csv_values.h"

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

// The word-at-a-time path reads past the field into the rest of its row: whatever those bytes
// are (digits, commas, odd bytes), the result must be ParseScaledDecimal's of the field alone.
TEST(CsvValuesTest, WordPathAgreesWhateverFollowsTheField) {
  std::mt19937_64 rng(15);
  const std::string odd = std::string("/:.,\x80\xff -\x00", 10);
  for (int trial = 0; trial < 300000; ++trial) {
    std::string row;
    size_t length = 1 + rng() % 20;
    for (size_t i = 0; i < length; ++i) row += static_cast<char>('0' + rng() % 10);
    if (trial % 3 == 0) row[rng() % length] = odd[rng() % odd.size()];
    for (int i = 0; i < 20; ++i) {
      row += trial % 2 == 0 ? static_cast<char>('0' + rng() % 10) : odd[rng() % odd.size()];
    }
    const std::string_view text(row.data(), length);
    const char* row_end = row.data() + row.size();
    const int exponent = static_cast<int>(rng() % 12);
    DecimalResult word = ParseScaled(text, exponent, row_end);
    DecimalResult slow = ParseScaledDecimal(text, exponent);
    ASSERT_EQ(word.error, slow.error) << '"' << text << "\" e" << exponent;
    if (slow.ok()) {
      ASSERT_EQ(word.value, slow.value) << '"' << text << "\" e" << exponent;
    }
  }
  // Every length of the word path, and its edges: 8 and 16 digits, the range check.
  for (size_t length = 1; length <= 17; ++length) {
    std::string row(length, '9');
    row += ",12345678901234567890\n";
    const std::string_view text(row.data(), length);
    for (int exponent = 0; exponent < 12; ++exponent) {
      DecimalResult word = ParseScaled(text, exponent, row.data() + row.size());
      DecimalResult slow = ParseScaledDecimal(text, exponent);
      ASSERT_EQ(word.error, slow.error) << length << " e" << exponent;
      if (slow.ok()) {
        ASSERT_EQ(word.value, slow.value) << length << " e" << exponent;
      }
    }
  }
  const std::string row = "41793482336,1504,7\n";
  EXPECT_EQ(ParseScaled(std::string_view(row.data(), 11), 0, row.data() + row.size()).value,
            41793482336);
  EXPECT_EQ(ParseScaled(std::string_view(row.data() + 12, 4), 3, row.data() + row.size()).value,
            1504000);
}

}  // namespace
}  // namespace stepstat
