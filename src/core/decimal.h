// Exact decimal text → int64 conversion for times and sizes. Trace files write times as
// decimal text in some unit ("1.234567" s, "12.5" us); going through a double would lose
// nanoseconds past 2^53 ns (104 days) and round differently across platforms.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stepstat {

enum class DecimalError {
  kEmpty,       ///< nothing but spaces
  kNotANumber,  ///< anything but [+-]digits[.digits][e[+-]digits]
  kNegative,    ///< a minus sign on a nonzero value
  kOutOfRange,  ///< the value does not fit in int64 after scaling
};

struct DecimalResult {
  int64_t value = 0;
  std::optional<DecimalError> error;
  bool ok() const { return !error.has_value(); }
};

/// Parses non-negative decimal text (surrounding spaces allowed, optional exponent) and
/// multiplies it by 10^scale_exponent exactly, e.g. ("1.5", 3) → 1500 for µs → ns. Digits
/// finer than the result's unit are rounded half to even, the only rounding that happens.
DecimalResult ParseScaledDecimal(std::string_view text, int scale_exponent);

/// A one-line description of an error ("not a number", "negative", ...).
std::string_view DecimalErrorText(DecimalError error);

}  // namespace stepstat
