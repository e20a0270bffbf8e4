// Field text → numbers for the CSV readers, with a fast path for plain digits (the common
// case) and ParseScaledDecimal for everything else (spaces, fractions, exponents, signs).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
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

namespace csv_values_internal {

inline constexpr uint64_t kZeros = 0x3030303030303030ull;  // "00000000"

// True when all 8 bytes are '0'..'9' (simdjson's test).
inline bool AllDigits(uint64_t w) {
  return (((w + 0x4646464646464646ull) | (w - kZeros)) & 0x8080808080808080ull) == 0;
}

// Eight ASCII digits, the first in the lowest byte (little-endian load) → their value.
inline uint64_t EightDigits(uint64_t w) {
  w -= kZeros;
  w = (w * 10) + (w >> 8);
  w = (((w & 0x000000FF000000FFull) * 0x000F424000000064ull) +
       (((w >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >>
      32;
  return static_cast<uint32_t>(w);
}

// The `k` (1..8) bytes at `p` (8 readable) as a word of eight digits, led by '0's.
inline uint64_t LoadDigits(const char* p, size_t k) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  if (k == 8) return w;
  return (w << (8 * (8 - k))) | (kZeros >> (8 * k));
}

}  // namespace csv_values_internal

/// The fast path of the ParseScaled below, alone: plain digits of 1 to 16 characters whose
/// value × 10^exponent fits int64, converted eight at a time with no branch per digit (a
/// field's length varies row to row, and the digit loop's exit was a mispredicted branch
/// per number); nullopt for anything else (which ParseScaled then decides). Bytes up to
/// `readable_end` (past the field's end: the rest of its row) may be read.
inline std::optional<int64_t> ParsePlainDigits(std::string_view text, int exponent,
                                               const char* readable_end) {
  using namespace csv_values_internal;
  const size_t n = text.size();
  const char* p = text.data();
  if constexpr (std::endian::native == std::endian::little) {
    if (n >= 1 && n <= 16 && exponent >= 0 && exponent < 12 && readable_end - p >= 16) {
      const uint64_t first = LoadDigits(p, n < 8 ? n : 8);
      const uint64_t second = n > 8 ? LoadDigits(p + 8, n - 8) : kZeros;
      if (AllDigits(first) && AllDigits(second)) {
        const uint64_t value =
            n > 8 ? EightDigits(first) * static_cast<uint64_t>(kPow10[n - 8]) + EightDigits(second)
                  : EightDigits(first);
        if (value <= kMaxBeforeScale[static_cast<size_t>(exponent)]) {
          return static_cast<int64_t>(value * static_cast<uint64_t>(kPow10[exponent]));
        }
      }
    }
  }
  return std::nullopt;
}

/// ParseScaled for a field whose bytes up to `readable_end` may be read (ParsePlainDigits
/// first). The same results as ParseScaled.
inline DecimalResult ParseScaled(std::string_view text, int exponent, const char* readable_end) {
  if (std::optional<int64_t> value = ParsePlainDigits(text, exponent, readable_end)) {
    return {*value, std::nullopt};
  }
  return ParseScaled(text, exponent);
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
