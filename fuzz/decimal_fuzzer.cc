// ParseScaledDecimal on arbitrary text, and differentially: (1) the readers' fast path
// ParseScaled agrees with it everywhere; (2) on plain "DIGITS[.DIGITS]" text made from the
// input it agrees with a simple digit-by-digit reference (shift the point, round half to
// even, fail past INT64_MAX); (3) a scale given as an argument equals the same scale written
// as an exponent.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "core/decimal.h"
#include "fuzz_check.h"
#include "readers/csv/csv_values.h"

namespace {

using stepstat::DecimalResult;

// The reference: `digits` with the point after `int_digits` of them, times 10^scale.
DecimalResult Reference(const std::string& digits, size_t int_digits, int scale) {
  const int64_t point = static_cast<int64_t>(int_digits) + scale;  // new point position
  unsigned __int128 value = 0;
  const unsigned __int128 max = std::numeric_limits<int64_t>::max();
  bool too_big = false;
  auto digit = [&](int64_t k) -> int {  // digit k of the scaled number, zeros past the end
    return k >= 0 && k < static_cast<int64_t>(digits.size()) ? digits[static_cast<size_t>(k)] - '0'
                                                             : 0;
  };
  for (int64_t k = 0; k < point; ++k) {
    value = value * 10 + static_cast<unsigned>(digit(k));
    if (value > max) too_big = true;
    if (too_big) value = max + 1;  // stays beyond, no wrap
  }
  int first_dropped = digit(point);
  bool rest_nonzero = false;
  for (int64_t k = std::max<int64_t>(point + 1, 0); k < static_cast<int64_t>(digits.size()); ++k) {
    if (digit(k) != 0) rest_nonzero = true;
  }
  if (first_dropped > 5 || (first_dropped == 5 && (rest_nonzero || (value & 1)))) ++value;
  if (too_big || value > max) return {0, stepstat::DecimalError::kOutOfRange};
  return {static_cast<int64_t>(value), std::nullopt};
}

void CheckSame(const DecimalResult& want, const DecimalResult& got, std::string_view text,
               int scale, const char* what) {
  if (want.error != got.error || (want.ok() && want.value != got.value)) {
    std::fprintf(stderr, "%s: \"%.*s\" scale %d: want %lld (error %d), got %lld (error %d)\n", what,
                 static_cast<int>(text.size()), text.data(), scale,
                 static_cast<long long>(want.value), want.ok() ? -1 : static_cast<int>(*want.error),
                 static_cast<long long>(got.value), got.ok() ? -1 : static_cast<int>(*got.error));
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int scale = data[0] % 25 - 12;
  std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);

  DecimalResult parsed = stepstat::ParseScaledDecimal(text, scale);
  if (parsed.ok()) FUZZ_CHECK(parsed.value >= 0);
  if (scale >= 0) CheckSame(parsed, stepstat::ParseScaled(text, scale), text, scale, "fast path");
  if (text.find_first_of("eE") == std::string_view::npos) {
    std::string with_exponent = std::string(text) + "e" + std::to_string(scale);
    // Trailing spaces would now sit before the exponent; only compare clean text.
    if (parsed.ok() && text.find_first_of(" \t\r") == std::string_view::npos) {
      CheckSame(parsed, stepstat::ParseScaledDecimal(with_exponent, 0), with_exponent, 0,
                "exponent");
    }
  }

  // Plain digits: each byte a digit, the point after data[1] % (count + 1) of them.
  std::string digits;
  for (char c : text) digits.push_back(static_cast<char>('0' + static_cast<unsigned char>(c) % 10));
  if (digits.empty()) return 0;
  size_t int_digits = data[1] % (digits.size() + 1);
  std::string plain = digits.substr(0, int_digits);
  if (int_digits < digits.size()) plain += "." + digits.substr(int_digits);
  CheckSame(Reference(digits, int_digits, scale), stepstat::ParseScaledDecimal(plain, scale), plain,
            scale, "reference");
  return 0;
}
