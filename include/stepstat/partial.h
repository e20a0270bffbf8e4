// Exact partial summaries: what one trace adds to a job of many ranks, kept as integers so
// that partials computed anywhere (threads, machines, Dask workers) merge into the same
// bytes in any order. Floats (percentages, averages, milliseconds) are computed once, from
// the merged integers, by FinishRanks (ranks.h).
//
// A rank's span, gaps and launch union are its own (each rank has its own clock): a job's
// totals sum them and never bridge two files, so the job's busy % is Σ kernel time / Σ span.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepstat/policy.h"
#include "stepstat/status.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// Bumped whenever a field is renamed, removed or changes meaning.
inline constexpr std::string_view kPartialSchema = "stepstat.partial/1";

/// Where a rank's number came from.
inline constexpr std::string_view kRankFromRegex = "regex";      ///< --rank-regex on the path
inline constexpr std::string_view kRankFromContent = "content";  ///< the trace says (Kineto)
inline constexpr std::string_view kRankFromOrder = "order";      ///< natural order of the paths

/// One trace's summary without its floats. Component vectors are in policy order, `other`
/// last, as long as the policy's component list.
struct RankPartial {
  /// Unset: numbered by FinishRanks, in the natural order of source_gpu_trace, with the
  /// smallest numbers no other rank took (rank_source then becomes kRankFromOrder).
  std::optional<int64_t> rank;
  std::string rank_source;  ///< kRankFromRegex or kRankFromContent; empty while unnumbered
  /// Set when the trace was split by device (`ranks --per-device`): the device as the trace
  /// names it ("NVIDIA GB10 (1)"; empty when the trace names none). The row then holds that
  /// device's figures alone, and a rank is identified by (rank, device): the devices of one
  /// trace share its rank.
  std::optional<std::string> device;
  std::string source_gpu_trace;
  std::optional<std::string> source_kernel_exec_trace;
  int64_t gpu_span_ns = 0;
  int64_t gpu_operation_count = 0;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  int64_t gap_count = 0;
  int64_t gap_total_ns = 0;
  int64_t gap_max_ns = 0;
  bool has_launches = false;  ///< false: cpu_gpu_overlap is null (no launch source)
  int64_t launch_union_ns = 0;
  int64_t launch_overlap_ns = 0;
  std::vector<int64_t> component_ns;
  std::vector<int64_t> component_launches;
};

/// Sums over every rank (gap_max_ns: the largest); launch figures over the ranks that have
/// a launch source (`launch_ranks` of them).
struct PartialTotals {
  int64_t rank_count = 0;
  int64_t gpu_span_ns = 0;
  int64_t gpu_operation_count = 0;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  int64_t gap_count = 0;
  int64_t gap_total_ns = 0;
  int64_t gap_max_ns = 0;
  int64_t launch_ranks = 0;
  int64_t launch_union_ns = 0;
  int64_t launch_overlap_ns = 0;
  std::vector<int64_t> component_ns;
  std::vector<int64_t> component_launches;
};

/// The policy as far as partials need it: what the summary prints, and a hash of all of it
/// (patterns included) so that two partials classified differently never merge.
struct PartialPolicy {
  std::string name;
  std::string hash;  ///< PolicyHash; empty only in the identity partial
  std::vector<std::pair<std::string, std::string>> components;  ///< name, description; `other` last
};

/// A set of ranks summarized under one policy. Partial{} is the identity of MergePartials.
struct Partial {
  PartialPolicy policy;
  PartialTotals totals;
  /// Canonical order: numbered by rank, then the others by path; a trace's devices in natural
  /// order after that.
  std::vector<RankPartial> ranks;
  /// How messages name this partial (the trace it was made from, or the partial file it was
  /// read from). Not written to JSON: it says where a partial is, not what it holds.
  std::string origin;

  bool IsIdentity() const { return policy.hash.empty() && ranks.empty(); }
};

/// FNV-1a 64 over every field of the policy (name, descriptions, case sensitivity, patterns,
/// excludes), as 16 lower-case hex digits.
std::string PolicyHash(const Policy& policy);

/// The partial of one summary computed under `policy`.
Partial MakePartial(const StepStats& stats, const Policy& policy, std::optional<int64_t> rank = {},
                    std::string_view rank_source = {});

/// Associative and commutative, with Partial{} as identity. Errors, naming both partials'
/// origins: different policies (or the same name with another hash), one rank in two traces,
/// the same trace (or the same device of it) twice, a trace both whole and split by device,
/// and a sum past int64.
Result<Partial> MergePartials(Partial a, Partial b);

/// The partial as JSON ("schema": kPartialSchema, integers only, Python json.dumps layout).
std::string PartialToJson(const Partial& partial);

/// Reads PartialToJson's output. `origin` names the file in messages. The text is not
/// trusted: a missing or mistyped field, another schema, counts that disagree (a component
/// list of another length, totals that are not the sum of the ranks) are errors.
Result<Partial> PartialFromJson(std::string_view json, std::string_view origin);

}  // namespace stepstat
