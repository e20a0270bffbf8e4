// Floats spelled the way Python's json.dumps spells them, so our JSON is byte-for-byte
// Python's.
#pragma once

#include <string>

namespace stepstat {

/// Appends x as json.dumps(x) prints it: repr(x) (shortest round-trip digits, `100.0`,
/// `1e-05`, `1.5e+16`, `-0.0`), except NaN, Infinity and -Infinity, which repr spells
/// nan/inf.
void AppendPythonFloat(double x, std::string* out);
std::string PythonFloat(double x);

}  // namespace stepstat
