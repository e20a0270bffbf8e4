// How much of a trace's kernel time each built-in policy classifies, so a user can pick one,
// and the hint `summarize` and `classify` give when the chosen policy leaves most in `other`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/status.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// One policy over one trace's kernels.
struct PolicyCoverage {
  std::string policy;
  int64_t kernel_time_ns = 0;
  int64_t classified_time_ns = 0;  ///< kernel time outside `other`
  double classified_percent_of_kernel_time = 0.0;
  double other_percent_of_kernel_time = 0.0;
  int64_t other_names = 0;  ///< distinct kernel names in `other`
};

/// `policy` over `kernels` (their names and total_ns; their `component` is ignored).
Result<PolicyCoverage> CoverageOf(const Policy& policy, const std::vector<KernelDetails>& kernels);

/// Every built-in policy over `kernels`, in BuiltinPolicyNames() order; the one named `except`
/// (when not empty) is left out, not parsed or compiled.
Result<std::vector<PolicyCoverage>> CoverageOfBuiltinPolicies(
    const std::vector<KernelDetails>& kernels, std::string_view except = {});

/// A hint is given when more than this share of kernel time is in `other`.
inline constexpr double kPolicyHintOtherPercent = 30.0;

struct PolicyHint {
  std::string current_policy;
  double current_other_percent = 0.0;
  std::string suggested_policy;  ///< a built-in policy
  double suggested_other_percent = 0.0;
  /// One line for stderr, without the "stepstat: " prefix and the newline.
  std::string Message() const;
};

/// The built-in policy that leaves the least kernel time in `other`, when `current` leaves more
/// than kPolicyHintOtherPercent there and that policy leaves less; nullopt otherwise.
Result<std::optional<PolicyHint>> SuggestBuiltinPolicy(const Policy& current,
                                                       const std::vector<KernelDetails>& kernels);

/// The same for a summary already computed under `current`, looked at only when `stats` has
/// more than kPolicyHintOtherPercent in `other`: then over `whole_trace_kernels` (each
/// distinct kernel name of the whole trace with its total_ns, as the summary's own pass
/// counted them) or, when that is null (the summary covered one step or one device), over
/// the trace's kernel names read again.
Result<std::optional<PolicyHint>> SuggestBuiltinPolicy(
    const Policy& current, const StepStats& stats, const SummaryInputs& inputs,
    const std::vector<KernelDetails>* whole_trace_kernels = nullptr);

}  // namespace stepstat
