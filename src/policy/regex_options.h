// The one place that decides how policy patterns are compiled, so validation in ParsePolicy
// and matching in Classifier can never disagree.
#pragma once

#include <re2/re2.h>

#include <cstdint>

#include "stepstat/policy.h"

namespace stepstat::policy_internal {

/// Generous enough that a policy with thousands of patterns compiles into one RE2::Set.
inline constexpr int64_t kDefaultPatternMaxMem = ClassifierOptions().regex_max_mem_bytes;

/// Latin-1 so every byte of a kernel name is one character: invalid UTF-8 can neither make a
/// match fail nor stop `.*` (a non-ASCII literal in a pattern still matches its UTF-8 bytes;
/// classes and case folding beyond ASCII are Latin-1). `.` also matches a newline.
inline re2::RE2::Options PatternOptions(bool case_sensitive,
                                        int64_t max_mem = kDefaultPatternMaxMem) {
  re2::RE2::Options options;
  options.set_encoding(re2::RE2::Options::EncodingLatin1);
  options.set_case_sensitive(case_sensitive);
  options.set_log_errors(false);
  options.set_dot_nl(true);
  options.set_max_mem(max_mem);
  return options;
}

}  // namespace stepstat::policy_internal
