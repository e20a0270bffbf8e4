// Field text → numbers for the CSV readers, with a fast path for plain digits (the common
// case) and ParseScaledDecimal for everything else (spaces, fractions, exponents, signs).
#pragma once

#include <array>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string_view>

#include "core/decimal.h"

namespace stepstat {

inline constexpr int64_t kPow10[] = {1,         10,         100,         1000,
                                     10000,     100000,     1000000,     10000000,
                                     100000000, 1000000000, 10000000000, 100000000000};

// The largest value that can be scaled by kPow10[i] within int64: a table, because a 64-bit
// division per field cost more than the digit loop.
inline constexpr auto kMaxBeforeScale = [] {
  std::array<uint64_t, std::size(kPow10)> max{};
  for (size_t i = 0; i < max.size(); ++i) {
    max[i] = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) /
             static_cast<uint64_t>(kPow10[i]);
  }
  return max;
}();

/// Non-negative decimal `text` × 10^exponent as an exact int64, the same result as
/// ParseScaledDecimal (which it falls back to for anything but plain digits).
inline DecimalResult ParseScaled(std::string_view text, int exponent) {
  // Fast path: digits, optionally "." and at most `exponent` more digits (so no rounding),
  // at most 18 digits in all (so no overflow before the range check).
  size_t n = text.size();
  if (n >= 1 && n <= 19 && exponent >= 0 && exponent < 12) {
    uint64_t value = 0;
    size_t i = 0;
    for (; i < n; ++i) {
      unsigned digit = static_cast<unsigned char>(text[i]) - unsigned{'0'};
      if (digit > 9) break;
      value = value * 10 + digit;
    }
    int scale = exponent;
    bool plain = i == n && i > 0;
    if (!plain && i > 0 && i + 1 < n && text[i] == '.' &&
        n - i - 1 <= static_cast<size_t>(exponent)) {
      size_t j = i + 1;
      for (; j < n; ++j) {
        unsigned digit = static_cast<unsigned char>(text[j]) - unsigned{'0'};
        if (digit > 9) break;
        value = value * 10 + digit;
      }
      plain = j == n && n <= 19;
      scale = exponent - static_cast<int>(n - i - 1);
    }
    if (plain && n <= 19) {
      auto factor = static_cast<uint64_t>(kPow10[scale]);
      if (value <= kMaxBeforeScale[static_cast<size_t>(scale)]) {
        return {static_cast<int64_t>(value * factor), std::nullopt};
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
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace stepstat
