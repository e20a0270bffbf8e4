#include "analysis/steps/steps_source.h"

#include <algorithm>
#include <cctype>

namespace stepstat {

std::string BlankDigits(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      out += text[i];
      continue;
    }
    out += kDigitRun;
    while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0) ++i;
  }
  return out;
}

namespace {

// RE2's QuoteMeta escapes spaces too; this pattern is shown to users, so only the
// metacharacters are escaped.
void AppendQuoted(std::string_view text, std::string& out) {
  for (char c : text) {
    if (std::string_view(R"(\.^$|?*+()[]{})").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
}

// The pattern matching exactly the texts whose blanked form is `blanked`.
std::string PatternOf(const std::string& blanked) {
  std::string pattern = "^";
  for (char c : blanked) {
    if (c == kDigitRun) {
      pattern += R"(\d+)";
    } else {
      AppendQuoted(std::string_view(&c, 1), pattern);
    }
  }
  return pattern + "$";
}

}  // namespace

Status AnnotationStats::OnGpuOps(std::span<const GpuOp> ops, const StringPool&) {
  if (!measures_gpu_span_) return Status::Ok();
  for (const GpuOp& op : ops) {
    gpu_first_start_ = gpu_ops_ == 0 ? op.start_ns : std::min(gpu_first_start_, op.start_ns);
    gpu_last_end_ = gpu_ops_ == 0 ? op.end_ns() : std::max(gpu_last_end_, op.end_ns());
    ++gpu_ops_;
  }
  return Status::Ok();
}

void AnnotationStats::SetGpuSpan(int64_t first_start, int64_t last_end, int64_t ops) {
  gpu_first_start_ = first_start;
  gpu_last_end_ = last_end;
  gpu_ops_ = ops;
}

Status AnnotationStats::OnRanges(std::span<const CpuRange> ranges, const StringPool& names) {
  if (pool_ != &names) {  // a new reader: its ids mean other names
    pool_ = &names;
    by_name_.clear();
  }
  for (const CpuRange& range : ranges) {
    range_first_start_ =
        ranges_ == 0 ? range.start_ns : std::min(range_first_start_, range.start_ns);
    range_last_end_ = ranges_ == 0 ? range.end_ns : std::max(range_last_end_, range.end_ns);
    ++ranges_;
    Group*& group = by_name_[range.name];
    if (group == nullptr) {
      std::string_view text = names.Get(range.name);
      Group& g = groups_[BlankDigits(text)];
      if (g.count == 0) g.example = std::string(text);
      group = &g;
    }
    // Nested or overlapping ranges of one group (recursion, threads) count once in time.
    int64_t start =
        std::max(range.start_ns, group->count == 0 ? range.start_ns : group->frontier_ns);
    if (range.end_ns > start) group->covered_ns += range.end_ns - start;
    group->frontier_ns =
        group->count == 0 ? range.end_ns : std::max(group->frontier_ns, range.end_ns);
    ++group->count;
  }
  return Status::Ok();
}

std::optional<AnnotationChoice> AnnotationStats::Pick(int64_t gpu_span_ns,
                                                      double min_coverage) const {
  std::optional<AnnotationChoice> best;
  if (gpu_span_ns <= 0) return best;
  for (const auto& [blanked, g] : groups_) {
    if (g.count < kMinAnnotatedSteps) continue;
    double coverage = static_cast<double>(g.covered_ns) / static_cast<double>(gpu_span_ns);
    if (coverage < min_coverage) continue;
    // Within 5 points of coverage the longer unit wins: a step over the layers inside it.
    bool better = !best || coverage > best->coverage + 0.05 ||
                  (coverage >= best->coverage - 0.05 && g.count < best->count);
    if (better) best = AnnotationChoice{PatternOf(blanked), g.example, g.count, coverage};
  }
  return best;
}

std::optional<AnnotationChoice> AnnotationStats::Best(int64_t gpu_span_ns) const {
  return Pick(gpu_span_ns, kMinAnnotationCoverage);
}

std::optional<AnnotationChoice> AnnotationStats::Closest(int64_t gpu_span_ns) const {
  return Pick(gpu_span_ns, 0.0);
}

bool AnnotationStats::AnyRepeats() const {
  return std::any_of(groups_.begin(), groups_.end(),
                     [](const auto& entry) { return entry.second.count >= kMinAnnotatedSteps; });
}

}  // namespace stepstat
