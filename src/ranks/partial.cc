// Partials: made from a summary, merged exactly. Merging is a sum of integers plus a union
// of sorted rank lists, so it is associative and commutative; Partial{} adds nothing.
#include "stepstat/partial.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "ranks/partial_internal.h"
#include "stepstat/ranks.h"

namespace stepstat {

namespace {

class Fnv1a64 {
 public:
  /// Each field ends in a NUL so that ("ab", "c") and ("a", "bc") hash apart.
  void Field(std::string_view text) {
    for (unsigned char c : text) Byte(c);
    Byte(0);
  }
  void List(const std::vector<std::string>& items) {
    Field(std::to_string(items.size()));
    for (const std::string& item : items) Field(item);
  }
  std::string Hex() const { return fmt::format("{:016x}", hash_); }

 private:
  void Byte(unsigned char c) {
    hash_ ^= c;
    hash_ *= 0x100000001b3ULL;
  }
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

/// Natural order, then bytewise: a total order.
bool TextBefore(std::string_view a, std::string_view b) {
  if (NaturalLess(a, b)) return true;
  if (NaturalLess(b, a)) return false;
  return a < b;
}

/// No device (a whole trace) before any device, devices in natural order.
bool DeviceBefore(const std::optional<std::string>& a, const std::optional<std::string>& b) {
  if (a.has_value() != b.has_value()) return !a.has_value();
  return a && TextBefore(*a, *b);
}

/// The canonical order: numbered ranks by number, then the unnumbered by natural path order;
/// within a rank (a trace), its devices in natural order.
bool RankBefore(const RankPartial& a, const RankPartial& b) {
  if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
  if (a.rank && *a.rank != *b.rank) return *a.rank < *b.rank;
  if (a.source_gpu_trace != b.source_gpu_trace) {
    return TextBefore(a.source_gpu_trace, b.source_gpu_trace);
  }
  return DeviceBefore(a.device, b.device);
}

struct Adder {
  std::string_view a_origin, b_origin;
  Status status;
  /// a += b, or an error naming both origins once a sum passes int64.
  void Add(int64_t& a, int64_t b, std::string_view what) {
    if (!status.ok()) return;
    if (__builtin_add_overflow(a, b, &a)) {
      status = Status::Error(
          fmt::format("{} and {}: the sum of {} passes 2^63 ns", a_origin, b_origin, what));
    }
  }
};

}  // namespace

std::string PolicyHash(const Policy& policy) {
  Fnv1a64 hash;
  hash.Field(policy.name);
  hash.Field(policy.description);
  hash.Field(policy.case_sensitive ? "case_sensitive" : "case_insensitive");
  hash.Field(std::to_string(policy.components.size()));
  for (const ComponentRule& component : policy.components) {
    hash.Field(component.name);
    hash.Field(component.description);
    hash.List(component.patterns);
    hash.List(component.exclude);
  }
  hash.Field(policy.other_description);
  return hash.Hex();
}

Partial PartialOfRank(PartialPolicy policy, RankPartial r, std::string origin) {
  Partial partial;
  partial.policy = std::move(policy);
  partial.origin = std::move(origin);
  PartialTotals& t = partial.totals;
  t.rank_count = 1;
  t.gpu_span_ns = r.gpu_span_ns;
  t.gpu_operation_count = r.gpu_operation_count;
  t.kernel_count = r.kernel_count;
  t.kernel_time_ns = r.kernel_time_ns;
  t.gap_count = r.gap_count;
  t.gap_total_ns = r.gap_total_ns;
  t.gap_max_ns = r.gap_max_ns;
  t.launch_ranks = r.has_launches ? 1 : 0;
  t.launch_union_ns = r.launch_union_ns;
  t.launch_overlap_ns = r.launch_overlap_ns;
  t.component_ns = r.component_ns;
  t.component_launches = r.component_launches;
  partial.ranks.push_back(std::move(r));
  return partial;
}

Partial MakePartial(const StepStats& stats, const Policy& policy, std::optional<int64_t> rank,
                    std::string_view rank_source) {
  Partial partial;
  partial.origin = stats.source_gpu_trace;
  partial.policy.name = policy.name;
  partial.policy.hash = PolicyHash(policy);
  RankPartial r;
  r.rank = rank;
  if (rank) r.rank_source = std::string(rank_source);
  r.source_gpu_trace = stats.source_gpu_trace;
  r.source_kernel_exec_trace = stats.source_kernel_exec_trace;
  r.gpu_span_ns = stats.gpu_span_ns;
  r.gpu_operation_count = stats.gpu_operation_count;
  r.kernel_count = stats.kernel_count;
  r.kernel_time_ns = stats.kernel_time_ns;
  r.gap_count = stats.launch_gaps.positive_gap_count;
  r.gap_total_ns = stats.launch_gaps.total_ns;
  r.gap_max_ns = stats.launch_gaps.maximum_ns;
  if (stats.cpu_gpu_overlap) {
    r.has_launches = true;
    r.launch_union_ns = stats.cpu_gpu_overlap->launch_api_union_ns;
    r.launch_overlap_ns = stats.cpu_gpu_overlap->launch_api_gpu_overlap_ns;
  }
  for (const ComponentStats& component : stats.components) {
    partial.policy.components.emplace_back(component.name, component.description);
    r.component_ns.push_back(component.time_ns);
    r.component_launches.push_back(component.launches);
  }
  return PartialOfRank(std::move(partial.policy), std::move(r), std::move(partial.origin));
}

Result<Partial> MergePartials(Partial a, Partial b) {
  if (b.IsIdentity()) return a;
  if (a.IsIdentity()) return b;
  if (a.policy.hash != b.policy.hash || a.policy.name != b.policy.name ||
      a.policy.components != b.policy.components) {
    return Status::Error(fmt::format(
        "{} was summarized under policy {} ({}) and {} under policy {} ({}): partials merge only "
        "under one policy",
        a.origin, a.policy.name, a.policy.hash, b.origin, b.policy.name, b.policy.hash));
  }
  // Which partial is "first" must not show in the result (commutativity): merge in a
  // canonical order of the two, which also picks the origin messages keep.
  if (!b.ranks.empty() && (a.ranks.empty() || RankBefore(b.ranks.front(), a.ranks.front()))) {
    std::swap(a, b);
  }
  Adder adder{a.origin, b.origin, Status::Ok()};
  PartialTotals& t = a.totals;
  const PartialTotals& u = b.totals;
  adder.Add(t.rank_count, u.rank_count, "ranks");
  adder.Add(t.gpu_span_ns, u.gpu_span_ns, "GPU spans");
  adder.Add(t.gpu_operation_count, u.gpu_operation_count, "GPU operations");
  adder.Add(t.kernel_count, u.kernel_count, "kernels");
  adder.Add(t.kernel_time_ns, u.kernel_time_ns, "kernel times");
  adder.Add(t.gap_count, u.gap_count, "gaps");
  adder.Add(t.gap_total_ns, u.gap_total_ns, "gap times");
  t.gap_max_ns = std::max(t.gap_max_ns, u.gap_max_ns);
  adder.Add(t.launch_ranks, u.launch_ranks, "ranks with launches");
  adder.Add(t.launch_union_ns, u.launch_union_ns, "launch unions");
  adder.Add(t.launch_overlap_ns, u.launch_overlap_ns, "launch overlaps");
  for (size_t i = 0; i < t.component_ns.size() && i < u.component_ns.size(); ++i) {
    adder.Add(t.component_ns[i], u.component_ns[i], "component times");
    adder.Add(t.component_launches[i], u.component_launches[i], "component launches");
  }
  RETURN_IF_ERROR(adder.status);

  std::vector<RankPartial> ranks;
  ranks.reserve(a.ranks.size() + b.ranks.size());
  std::merge(std::make_move_iterator(a.ranks.begin()), std::make_move_iterator(a.ranks.end()),
             std::make_move_iterator(b.ranks.begin()), std::make_move_iterator(b.ranks.end()),
             std::back_inserter(ranks), RankBefore);
  // The same trace twice (by path) would count twice in every sum.
  std::vector<const RankPartial*> by_path;
  by_path.reserve(ranks.size());
  for (const RankPartial& r : ranks) by_path.push_back(&r);
  // So would one device of it twice, or the whole trace beside one of its devices.
  std::sort(by_path.begin(), by_path.end(), [](const RankPartial* x, const RankPartial* y) {
    if (x->source_gpu_trace != y->source_gpu_trace) {
      return x->source_gpu_trace < y->source_gpu_trace;
    }
    return DeviceBefore(x->device, y->device);
  });
  for (size_t i = 1; i < by_path.size(); ++i) {
    const RankPartial& x = *by_path[i - 1];
    const RankPartial& y = *by_path[i];
    if (x.source_gpu_trace == y.source_gpu_trace &&
        (!x.device || !y.device || *x.device == *y.device)) {
      std::string what = x.device && y.device ? " device " + *y.device : std::string();
      return Status::Error(fmt::format("{}{}: summarized twice (in {} and in {})",
                                       y.source_gpu_trace, what, a.origin, b.origin));
    }
  }
  // The devices of one trace share its rank; two traces never do.
  for (size_t i = 1; i < ranks.size(); ++i) {
    const RankPartial& x = ranks[i - 1];
    const RankPartial& y = ranks[i];
    if (x.rank && y.rank && *x.rank == *y.rank && x.source_gpu_trace != y.source_gpu_trace) {
      return Status::Error(fmt::format("{} and {} are both rank {}", x.source_gpu_trace,
                                       y.source_gpu_trace, *x.rank));
    }
  }
  a.ranks = std::move(ranks);
  return a;
}

}  // namespace stepstat
