// Field text → numbers for the CSV readers, with a fast path for plain digits (the common
// case) and ParseScaledDecimal for everything else (spaces, fractions, exponents, signs).
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "core/decimal.h"

namespace stepstat {

inline constexpr int64_t kPow10[] = {1,          10,          100,          1000,
                                     10000,      100000,      1000000,      10000000,
                                     100000000,  1000000000,  10000000000,  100000000000};

/// Non-negative decimal `text` × 10^exponent as an exact int64 (rounding as
/// ParseScaledDecimal). On failure returns the error and leaves `out` alone.
inline DecimalResult ParseScaled(std::string_view text, int exponent) {
  size_t n = text.size();
  if (n >= 1 && n <= 18 && exponent >= 0 && exponent < 12) {
    uint64_t value = 0;
    size_t i = 0;
    for (; i < n; ++i) {
      unsigned digit = static_cast<unsigned char>(text[i]) - unsigned{'0'};
      if (digit > 9) break;
      value = value * 10 + digit;
    }
    if (i == n) {
      auto scale = static_cast<uint64_t>(kPow10[exponent]);
      if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / scale) {
        return {static_cast<int64_t>(value * scale), std::nullopt};
      }
    }
  }
  return ParseScaledDecimal(text, exponent);
}

/// True when the text is empty or only spaces: an SQL NULL written out.
inline bool IsBlank(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

inline std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace stepstat
