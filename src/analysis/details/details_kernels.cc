// ListKernels: per-name totals of one GPU trace, for `stepstat classify`. Order does not
// matter here, so one streaming pass serves sorted and unsorted input alike.
#include <algorithm>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "analysis/details/details_values.h"
#include "analysis/details/duration_set.h"
#include "analysis/details/kernel_spreads.h"
#include "readers/input_traits.h"
#include "readers/kernel_summary.h"
#include "stepstat/details.h"

namespace stepstat {

// Named (not in the anonymous namespace): KernelSpreadsSink holds one (kernel_spreads.h).
class KernelNameSink : public TraceSink {
 public:
  /// With `launches_are_kernels` (a kern-exec trace read on its own), each launch row's
  /// kernel side counts as a kernel.
  /// Without `keep_durations` only counts and totals are kept (min and median stay 0), so
  /// memory grows with the distinct names, not with the launches.
  /// With `only` (not null), names outside it are skipped: nothing is kept of them.
  KernelNameSink(bool launches_are_kernels, bool keep_durations,
                 const std::unordered_set<std::string_view>* only = nullptr)
      : launches_are_kernels_(launches_are_kernels), keep_durations_(keep_durations), only_(only) {}

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    for (const GpuOp& op : ops) {
      if (op.kind == OpKind::kKernel) Add(op.name, op.duration_ns, names);
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    if (!launches_are_kernels_) return Status::Ok();
    for (const LaunchCall& call : calls) {
      if (call.kernel_duration_ns >= 0) Add(call.kernel_name, call.kernel_duration_ns, names);
    }
    return Status::Ok();
  }
  const std::vector<NameTotals>& totals() const { return totals_; }
  /// Same order as totals().
  std::vector<DurationSet>& durations() { return durations_; }

 private:
  void Add(NameId name, int64_t duration_ns, const StringPool& names) {
    if (name >= index_.size()) index_.resize(std::max<size_t>(names.size(), name + 1), -1);
    int32_t& index = index_[name];
    if (index == kSkipped) return;
    if (index < 0 && only_ != nullptr && !only_->contains(names.Get(name))) {
      index = kSkipped;
      return;
    }
    if (index < 0) {
      index = static_cast<int32_t>(totals_.size());
      totals_.emplace_back().name = std::string(names.Get(name));
      if (keep_durations_) durations_.emplace_back();
    }
    if (keep_durations_) durations_[static_cast<size_t>(index)].Add(duration_ns);
    NameTotals& t = totals_[static_cast<size_t>(index)];
    ++t.launches;
    // Durations are non-negative and each fits int64; a name's total saturates rather
    // than wraps (GpuTotalsSink reports the overflow of the grand total as an error).
    t.total_ns = duration_ns > INT64_MAX - t.total_ns ? INT64_MAX : t.total_ns + duration_ns;
    t.max_ns = std::max(t.max_ns, duration_ns);
  }

  static constexpr int32_t kSkipped = -2;
  bool launches_are_kernels_;
  bool keep_durations_;
  const std::unordered_set<std::string_view>* only_;
  std::vector<int32_t> index_;
  std::vector<NameTotals> totals_;
  std::vector<DurationSet> durations_;
};

KernelSpreadsSink::KernelSpreadsSink(std::vector<std::string> names, bool launches_are_kernels)
    : names_(std::move(names)),
      only_(names_.begin(), names_.end()),
      kept_(std::make_unique<KernelNameSink>(launches_are_kernels, /*keep_durations=*/true,
                                             &only_)) {}

KernelSpreadsSink::~KernelSpreadsSink() = default;

Status KernelSpreadsSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  return kept_->OnGpuOps(ops, names);
}

Status KernelSpreadsSink::OnLaunchCalls(std::span<const LaunchCall> calls,
                                        const StringPool& names) {
  return kept_->OnLaunchCalls(calls, names);
}

std::vector<KernelSpread> KernelSpreadsSink::Take() {
  std::vector<KernelSpread> spreads;
  for (size_t i = 0; i < kept_->totals().size(); ++i) {
    DurationSet& durations = kept_->durations()[i];
    spreads.push_back(
        {kept_->totals()[i].name, durations.Min(), durations.Median(), durations.SampleStdDev()});
  }
  return spreads;
}

namespace {

// The listing of what a sink that kept durations saw.
std::vector<KernelDetails> ListingOf(KernelNameSink& sink, const Policy& policy,
                                     const Classifier& classifier) {
  std::vector<KernelDetails> kernels = KernelsByTime(sink.totals(), policy, classifier);
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < sink.totals().size(); ++i) index.emplace(sink.totals()[i].name, i);
  for (KernelDetails& k : kernels) {
    DurationSet& durations = sink.durations()[index.at(k.name)];
    k.min_ns = durations.Min();
    k.median_ns = durations.Median();
    k.duration_runs = durations.TakeRuns();
  }
  return kernels;
}

}  // namespace

Result<std::vector<KernelDetails>> ListKernels(const SummaryInputs& inputs, const Policy& policy) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  KernelNameSink sink(OpsAreItsLaunchRows(inputs.gpu.kind),
                      /*keep_durations=*/true);
  RETURN_IF_ERROR(ReadInput(inputs.gpu, sink).status());
  return ListingOf(sink, policy, classifier);
}

Result<std::unique_ptr<KernelsAlongside>> KernelsAlongside::Create(const Policy& policy) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  return std::unique_ptr<KernelsAlongside>(new KernelsAlongside(policy, std::move(classifier)));
}

KernelsAlongside::KernelsAlongside(const Policy& policy, Classifier classifier)
    : policy_(policy), classifier_(std::move(classifier)) {}
KernelsAlongside::~KernelsAlongside() = default;

TraceSink& KernelsAlongside::Fresh() {
  sink_ = std::make_unique<KernelNameSink>(/*launches_are_kernels=*/false,
                                           /*keep_durations=*/true);
  return *sink_;
}

std::optional<std::vector<KernelDetails>> KernelsAlongside::Take() {
  if (sink_ == nullptr) return std::nullopt;
  std::vector<KernelDetails> kernels = ListingOf(*sink_, policy_, classifier_);
  sink_.reset();
  return kernels;
}

Result<std::vector<KernelSpread>> KernelSpreadsOf(const SummaryInputs& inputs,
                                                  const std::vector<std::string>& names) {
  KernelSpreadsSink sink(names, OpsAreItsLaunchRows(inputs.gpu.kind));
  RETURN_IF_ERROR(ReadInput(inputs.gpu, sink).status());
  return sink.Take();
}

Result<std::vector<KernelDetails>> ListKernelTotals(const SummaryInputs& inputs,
                                                    const Policy& policy) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  KernelNameSink sink(OpsAreItsLaunchRows(inputs.gpu.kind),
                      /*keep_durations=*/false);
  RETURN_IF_ERROR(ReadInput(inputs.gpu, sink).status());
  return KernelsByTime(sink.totals(), policy, classifier);
}

Result<std::vector<KernelDetails>> ListKernelsOfSummary(const TraceInput& input,
                                                        const Policy& policy) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  ASSIGN_OR_RETURN(std::vector<KernelSumRow> rows, ReadKernelSummary(input));
  std::vector<KernelDetails> kernels;
  kernels.reserve(rows.size());
  for (KernelSumRow& row : rows) {
    KernelDetails k;
    auto component = static_cast<size_t>(classifier.Classify(row.name));
    k.component = component < policy.components.size() ? policy.components[component].name
                                                       : std::string("other");
    k.name = std::move(row.name);
    k.launches = row.instances;
    k.total_ns = row.total_ns;
    // The report's own average and median: the total it prints is rounded the same way.
    k.mean_ns = row.mean_ns;
    k.max_ns = row.max_ns;
    k.min_ns = row.min_ns;
    k.median_ns = row.median_ns;
    kernels.push_back(std::move(k));
  }
  // As KernelsByTime orders a trace's names.
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelDetails& a, const KernelDetails& b) {
                     return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
                   });
  return kernels;
}

}  // namespace stepstat
