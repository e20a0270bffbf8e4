// Output of the policy tools: `stepstat classify` (kernel names with their component) and
// `stepstat policies` (the built-in policies), as text table, Markdown or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/table.h"
#include "stepstat/details.h"
#include "stepstat/policy.h"

namespace stepstat {

/// What `classify` lists: `kernels` (possibly filtered), percentages of `kernel_time_ns`,
/// the summed time of every kernel in the trace.
struct KernelListing {
  std::string source;
  std::string policy;
  int64_t kernel_time_ns = 0;
  int64_t distinct_names = 0;  ///< before any filter
  bool unmatched_only = false;
  std::vector<KernelDetails> kernels;
};

std::string KernelListingToTable(const KernelListing& listing, const TextStyle& style);
std::string KernelListingToMarkdown(const KernelListing& listing);
std::string KernelListingToJson(const KernelListing& listing);

std::string PoliciesToTable(const std::vector<Policy>& policies, const TextStyle& style);
std::string PoliciesToMarkdown(const std::vector<Policy>& policies);
std::string PoliciesToJson(const std::vector<Policy>& policies);

}  // namespace stepstat
