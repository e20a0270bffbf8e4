// Division with Python's semantics for `int / int`: the exact quotient rounded once to the
// nearest double. The spec's percentages are defined by the reference's Python, and a plain
// double division rounds twice once an operand passes 2^53.
#pragma once

#include <cstdint>

namespace stepstat {

/// a / b correctly rounded; requires b != 0 and a, b >= 0.
double TrueDivide(int64_t a, int64_t b);

}  // namespace stepstat
