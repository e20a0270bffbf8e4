// Coverage of policies over a trace's distinct kernel names: each name classified once per
// policy, weighted by its total time.
#include "stepstat/policy_coverage.h"

#include <fmt/format.h>

#include <utility>

#include "core/true_divide.h"

namespace stepstat {

namespace {

double Percent(int64_t a, int64_t b) { return b == 0 ? 0.0 : TrueDivide(a, b) * 100.0; }

}  // namespace

Result<PolicyCoverage> CoverageOf(const Policy& policy, const std::vector<KernelDetails>& kernels) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  PolicyCoverage coverage;
  coverage.policy = policy.name;
  int64_t other_ns = 0;
  for (const KernelDetails& k : kernels) {
    coverage.kernel_time_ns += k.total_ns;
    if (classifier.Classify(k.name) == classifier.other_index()) {
      other_ns += k.total_ns;
      ++coverage.other_names;
    }
  }
  coverage.classified_time_ns = coverage.kernel_time_ns - other_ns;
  coverage.classified_percent_of_kernel_time =
      Percent(coverage.classified_time_ns, coverage.kernel_time_ns);
  coverage.other_percent_of_kernel_time = Percent(other_ns, coverage.kernel_time_ns);
  return coverage;
}

Result<std::vector<PolicyCoverage>> CoverageOfBuiltinPolicies(
    const std::vector<KernelDetails>& kernels, std::string_view except) {
  std::vector<PolicyCoverage> all;
  for (std::string_view name : BuiltinPolicyNames()) {
    if (!except.empty() && name == except) continue;
    ASSIGN_OR_RETURN(Policy policy, BuiltinPolicy(name));
    ASSIGN_OR_RETURN(PolicyCoverage coverage, CoverageOf(policy, kernels));
    all.push_back(std::move(coverage));
  }
  return all;
}

std::string PolicyHint::Message() const {
  return fmt::format(
      "hint: {:.1f} % of kernel time is in `other` under policy {}; --policy {} would leave "
      "{:.1f} % there (stepstat policies --check compares them)",
      current_other_percent, current_policy, suggested_policy, suggested_other_percent);
}

Result<std::optional<PolicyHint>> SuggestBuiltinPolicy(const Policy& current,
                                                       const std::vector<KernelDetails>& kernels) {
  ASSIGN_OR_RETURN(PolicyCoverage now, CoverageOf(current, kernels));
  if (!(now.other_percent_of_kernel_time > kPolicyHintOtherPercent))
    return std::optional<PolicyHint>();
  // The current policy's own built-in is not parsed and compiled again only to be skipped.
  ASSIGN_OR_RETURN(std::vector<PolicyCoverage> builtins,
                   CoverageOfBuiltinPolicies(kernels, current.name));
  std::optional<PolicyHint> best;
  for (const PolicyCoverage& c : builtins) {
    if (!(c.other_percent_of_kernel_time < now.other_percent_of_kernel_time)) continue;
    if (best && !(c.other_percent_of_kernel_time < best->suggested_other_percent)) continue;
    best = PolicyHint{current.name, now.other_percent_of_kernel_time, c.policy,
                      c.other_percent_of_kernel_time};
  }
  return best;
}

Result<std::optional<PolicyHint>> SuggestBuiltinPolicy(
    const Policy& current, const StepStats& stats, const SummaryInputs& inputs,
    const std::vector<KernelDetails>* whole_trace_kernels) {
  // `other` is the summary's last component.
  if (stats.components.empty() ||
      !(stats.components.back().percent_of_kernel_time > kPolicyHintOtherPercent)) {
    return std::optional<PolicyHint>();
  }
  if (whole_trace_kernels != nullptr) return SuggestBuiltinPolicy(current, *whole_trace_kernels);
  // Per-name totals are all a coverage needs; ListKernels' exact medians would hold a
  // duration per launch of the whole trace.
  ASSIGN_OR_RETURN(std::vector<KernelDetails> kernels, ListKernelTotals(inputs, current));
  return SuggestBuiltinPolicy(current, kernels);
}

}  // namespace stepstat
