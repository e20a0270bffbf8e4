#include "core/decimal.h"

#include <limits>

namespace stepstat {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

}  // namespace

std::string_view DecimalErrorText(DecimalError error) {
  switch (error) {
    case DecimalError::kEmpty: return "empty value";
    case DecimalError::kNotANumber: return "not a number";
    case DecimalError::kNegative: return "negative value";
    case DecimalError::kOutOfRange: return "value beyond the int64 range";
  }
  return "bad number";
}

DecimalResult ParseScaledDecimal(std::string_view text, int scale_exponent) {
  size_t i = 0;
  size_t n = text.size();
  while (i < n && IsSpace(text[i])) ++i;
  while (n > i && (IsSpace(text[n - 1]) || text[n - 1] == '\r')) --n;
  if (i == n) return {0, DecimalError::kEmpty};

  bool negative = false;
  if (text[i] == '+' || text[i] == '-') {
    negative = text[i] == '-';
    ++i;
  }
  // Collect the significant digits once: integer part, then fraction. `point` counts the
  // digits before the decimal point, so the value is 0.DIGITS × 10^point.
  size_t int_begin = i;
  while (i < n && IsDigit(text[i])) ++i;
  size_t int_end = i;
  size_t frac_begin = i;
  size_t frac_end = i;
  if (i < n && text[i] == '.') {
    frac_begin = ++i;
    while (i < n && IsDigit(text[i])) ++i;
    frac_end = i;
  }
  if (int_begin == int_end && frac_begin == frac_end) return {0, DecimalError::kNotANumber};
  int64_t exponent = 0;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) {
      exp_negative = text[i] == '-';
      ++i;
    }
    if (i == n || !IsDigit(text[i])) return {0, DecimalError::kNotANumber};
    while (i < n && IsDigit(text[i])) {
      // Clamp: an exponent this large is out of range (or rounds to zero) either way.
      if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
      ++i;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return {0, DecimalError::kNotANumber};

  // The value is DIGITS × 10^shift, DIGITS = integer part followed by the fraction.
  int64_t shift = exponent + scale_exponent - static_cast<int64_t>(frac_end - frac_begin);
  int64_t value = 0;
  bool any_nonzero = false;
  // Digits that land at or above the units place of the result.
  auto digit_at = [&](size_t k) -> char {
    size_t int_len = int_end - int_begin;
    return k < int_len ? text[int_begin + k] : text[frac_begin + (k - int_len)];
  };
  size_t total = (int_end - int_begin) + (frac_end - frac_begin);
  // Number of leading digits that are whole units of the result.
  int64_t whole = static_cast<int64_t>(total) + (shift < 0 ? shift : 0);
  for (int64_t k = 0; k < whole && k < static_cast<int64_t>(total); ++k) {
    int d = digit_at(static_cast<size_t>(k)) - '0';
    if (d) any_nonzero = true;
    if (value > (kMax - d) / 10) return {0, DecimalError::kOutOfRange};
    value = value * 10 + d;
  }
  if (shift > 0) {
    for (int64_t k = 0; k < shift; ++k) {
      if (value == 0) break;  // zero stays zero however large the exponent
      if (value > kMax / 10) return {0, DecimalError::kOutOfRange};
      value *= 10;
    }
  } else if (whole < static_cast<int64_t>(total)) {
    // Round half to even on the dropped digits.
    int64_t first = std::max<int64_t>(whole, 0);
    int first_dropped = whole >= 0 ? digit_at(static_cast<size_t>(first)) - '0' : 0;
    bool rest_nonzero = false;
    for (int64_t k = first + (whole >= 0 ? 1 : 0); k < static_cast<int64_t>(total); ++k) {
      if (digit_at(static_cast<size_t>(k)) != '0') rest_nonzero = true;
    }
    if (first_dropped || rest_nonzero) any_nonzero = true;
    bool round_up = first_dropped > 5 || (first_dropped == 5 && (rest_nonzero || (value & 1)));
    if (round_up) {
      if (value == kMax) return {0, DecimalError::kOutOfRange};
      ++value;
    }
  }
  if (negative && (value != 0 || any_nonzero)) return {0, DecimalError::kNegative};
  return {value, std::nullopt};
}

}  // namespace stepstat
