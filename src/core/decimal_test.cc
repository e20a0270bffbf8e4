#include "core/decimal.h"

#include <gtest/gtest.h>

namespace stepstat {
namespace {

int64_t Ok(std::string_view text, int scale) {
  DecimalResult r = ParseScaledDecimal(text, scale);
  EXPECT_TRUE(r.ok()) << text;
  return r.value;
}
DecimalError Err(std::string_view text, int scale) {
  DecimalResult r = ParseScaledDecimal(text, scale);
  EXPECT_FALSE(r.ok()) << text;
  return r.error.value_or(DecimalError::kEmpty);
}

TEST(Decimal, IntegersInTheirOwnUnit) {
  EXPECT_EQ(Ok("0", 0), 0);
  EXPECT_EQ(Ok("28717008", 0), 28717008);
  EXPECT_EQ(Ok("  148 ", 0), 148);
  EXPECT_EQ(Ok("9223372036854775807", 0), INT64_MAX);
}

TEST(Decimal, ScalesUnitsExactly) {
  EXPECT_EQ(Ok("1.5", 3), 1500);                            // us → ns
  EXPECT_EQ(Ok("0.123456789", 9), 123456789);               // s → ns, 2020-era Start(sec)
  EXPECT_EQ(Ok("12", 6), 12000000);                         // ms → ns
  EXPECT_EQ(Ok("1718000000000.125", 3), 1718000000000125);  // beyond a double's 2^53
  EXPECT_EQ(Ok("4.194", 6), 4194000);                       // MB → bytes
  EXPECT_EQ(Ok(".5", 3), 500);
  EXPECT_EQ(Ok("5.", 3), 5000);
  EXPECT_EQ(Ok("1e3", 0), 1000);
  EXPECT_EQ(Ok("1.25E-1", 3), 125);
}

TEST(Decimal, RoundsDigitsFinerThanTheUnitHalfToEven) {
  EXPECT_EQ(Ok("1.2344", 3), 1234);
  EXPECT_EQ(Ok("1.2346", 3), 1235);
  EXPECT_EQ(Ok("1.2345", 3), 1234);  // tie → even
  EXPECT_EQ(Ok("1.2355", 3), 1236);  // tie → even
  EXPECT_EQ(Ok("1.23450001", 3), 1235);
  EXPECT_EQ(Ok("0.0004", 3), 0);
  EXPECT_EQ(Ok("0.0006", 3), 1);
  EXPECT_EQ(Ok("0.00006", 3), 0);  // all digits below the half
}

TEST(Decimal, RejectsWhatIsNotATime) {
  EXPECT_EQ(Err("", 0), DecimalError::kEmpty);
  EXPECT_EQ(Err("   ", 0), DecimalError::kEmpty);
  EXPECT_EQ(Err("abc", 0), DecimalError::kNotANumber);
  EXPECT_EQ(Err("1.2.3", 0), DecimalError::kNotANumber);
  EXPECT_EQ(Err("12 34", 0), DecimalError::kNotANumber);
  EXPECT_EQ(Err(".", 0), DecimalError::kNotANumber);
  EXPECT_EQ(Err("1e", 0), DecimalError::kNotANumber);
  EXPECT_EQ(Err("nan", 0), DecimalError::kNotANumber);
  EXPECT_EQ(Err("-5", 0), DecimalError::kNegative);
  EXPECT_EQ(Err("9223372036854775808", 0), DecimalError::kOutOfRange);
  EXPECT_EQ(Err("9223372036854775.808", 3), DecimalError::kOutOfRange);
  EXPECT_EQ(Err("1e30", 0), DecimalError::kOutOfRange);
  EXPECT_EQ(Ok("-0", 0), 0);
  EXPECT_EQ(Ok("0e999999999", 0), 0);
  EXPECT_EQ(Ok("1e-999999", 0), 0);
}

}  // namespace
}  // namespace stepstat
