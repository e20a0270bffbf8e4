#include "report/python_float.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace stepstat {

void AppendPythonFloat(double x, std::string* out) {
  if (std::isnan(x)) {
    *out += "NaN";
    return;
  }
  if (std::isinf(x)) {
    *out += x < 0 ? "-Infinity" : "Infinity";
    return;
  }
  if (x == 0) {
    *out += std::signbit(x) ? "-0.0" : "0.0";
    return;
  }
  // Shortest round-trip digits, as Python's repr chooses them (David Gay's mode 0 and
  // to_chars both pick the digits nearest the exact value among the shortest).
  char buffer[64];
  const std::to_chars_result result =
      std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::scientific);
  std::string_view text(buffer, result.ptr - buffer);  // [-]d[.ddd]e(+|-)dd[d]
  if (text.front() == '-') {
    *out += '-';
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits(text.substr(0, e));
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  const int count = static_cast<int>(digits.size());

  // repr switches to scientific notation outside 1e-4 <= |x| < 1e16.
  if (exponent < -4 || exponent >= 16) {
    *out += digits[0];
    if (count > 1) {
      *out += '.';
      out->append(digits, 1, std::string::npos);
    }
    *out += 'e';
    *out += exponent < 0 ? '-' : '+';
    const int magnitude = std::abs(exponent);
    if (magnitude < 10) *out += '0';
    *out += std::to_string(magnitude);
  } else if (exponent < 0) {
    *out += "0.";
    out->append(static_cast<size_t>(-exponent - 1), '0');
    *out += digits;
  } else if (count <= exponent + 1) {
    *out += digits;
    out->append(static_cast<size_t>(exponent + 1 - count), '0');
    *out += ".0";
  } else {
    out->append(digits, 0, exponent + 1);
    *out += '.';
    out->append(digits, exponent + 1, std::string::npos);
  }
}

std::string PythonFloat(double x) {
  std::string out;
  AppendPythonFloat(x, &out);
  return out;
}

}  // namespace stepstat
