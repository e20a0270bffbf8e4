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
/// JSON with "schema": kClassifySchema; per name: launches, total, mean, median, min, max ns.
std::string KernelListingToJson(const KernelListing& listing);
/// One row per name, for spreadsheets: nsys kern_sum's columns plus the component.
std::string KernelListingToCsv(const KernelListing& listing);

/// Bumped whenever a field is renamed or removed (adding one keeps the version).
inline constexpr std::string_view kClassifySchema = "stepstat.classify/1";

std::string PoliciesToTable(const std::vector<Policy>& policies, const TextStyle& style);
std::string PoliciesToMarkdown(const std::vector<Policy>& policies);
std::string PoliciesToJson(const std::vector<Policy>& policies);

}  // namespace stepstat
