// Writers: summary structs in, text out (JSON, Markdown, terminal tables). They read
// nothing but the structs, so every face (the CLI, bindings) prints the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/policy_coverage.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// Byte-for-byte what Python's json.dumps(summary, indent=2) prints, plus a final newline.
/// Strings (paths, names) are read as UTF-8; each invalid byte sequence is written as U+FFFD.
std::string StepStatsToJson(const StepStats& stats);

/// StepStatsToJson(stats) byte for byte, with `"details": {...}` added as the last key.
std::string StepStatsWithDetailsToJson(const StepStats& stats, const Details& details);

struct ChosenStep;  // steps.h
/// Either of the two above with `"step": {"index", "name", "source"}` added as the last key
/// (`summarize --step`); the keys before it unchanged.
std::string WithChosenStep(std::string summary_json, const ChosenStep& step);

/// Markdown for a pull request: the summary and components tables and, when `details` is
/// not null, one table per details section; `union_busy_percent` as for StepStatsToTable.
std::string StepStatsToMarkdown(const StepStats& stats, const Details* details,
                                std::optional<double> union_busy_percent = std::nullopt);

// Terminal tables.
struct TextStyle {
  bool unicode = true;  ///< block-character bars and "…"; ASCII otherwise
  size_t width = 0;     ///< columns of the terminal tables must fit; 0: no limit
  std::string_view ellipsis() const { return unicode ? "…" : "..."; }
};

/// The summary, plus the details sections when `details` is not null.
/// `union_busy_percent`, when known, is shown beside the summed busy % so that a sum over
/// concurrent streams past 100 % is not misread.
std::string StepStatsToTable(const StepStats& stats, const Details* details, const TextStyle& style,
                             std::optional<double> union_busy_percent = std::nullopt);

/// The details sections alone.
std::string DetailsToTable(const Details& details, const TextStyle& style);

// The policy tools.
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

/// What `policies --check` prints: each built-in policy's coverage of one trace.
struct PolicyCoverageReport {
  std::string source;
  int64_t distinct_names = 0;
  std::vector<PolicyCoverage> policies;  ///< every one over the same kernel time
};

/// The policy that classifies the most kernel time (the first of equals); "" without policies.
/// Not necessarily the fittest: generic components (elementwise, memory_copy) cover much.
std::string MostClassifyingPolicy(const PolicyCoverageReport& report);

std::string PolicyCoverageToTable(const PolicyCoverageReport& report, const TextStyle& style);
std::string PolicyCoverageToMarkdown(const PolicyCoverageReport& report);
/// JSON with "schema": kPolicyCoverageSchema.
std::string PolicyCoverageToJson(const PolicyCoverageReport& report);

inline constexpr std::string_view kPolicyCoverageSchema = "stepstat.policy-coverage/1";

}  // namespace stepstat
