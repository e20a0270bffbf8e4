#include "core/true_divide.h"

#include <bit>
#include <cmath>

namespace stepstat {

double TrueDivide(int64_t a, int64_t b) {
  constexpr int64_t kExact = int64_t{1} << 53;
  if (a <= kExact && b <= kExact) return static_cast<double>(a) / static_cast<double>(b);
  if (a == 0) return 0.0;
#if defined(__SIZEOF_INT128__)
  // Scale so the integer quotient has 55-56 bits, fold the remainder into a sticky bit, and
  // let the one conversion to double do the single correct rounding (as CPython does).
  auto ua = static_cast<unsigned __int128>(a);
  auto ub = static_cast<unsigned __int128>(b);
  int shift =
      std::bit_width(static_cast<uint64_t>(a)) - std::bit_width(static_cast<uint64_t>(b)) - 55;
  if (shift >= 0) {
    ub <<= shift;
  } else {
    ua <<= -shift;
  }
  unsigned __int128 q = ua / ub;
  if (ua % ub != 0) q |= 1;
  return std::ldexp(static_cast<double>(static_cast<uint64_t>(q)), shift);
#else
  return static_cast<double>(static_cast<long double>(a) / static_cast<long double>(b));
#endif
}

}  // namespace stepstat
