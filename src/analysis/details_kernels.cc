// ListKernels: per-name totals of one GPU trace, for `stepstat classify`. Order does not
// matter here, so one streaming pass serves sorted and unsorted input alike.
#include <algorithm>

#include "analysis/details_values.h"
#include "stepstat/details.h"

namespace stepstat {

namespace {

class KernelNameSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    for (const GpuOp& op : ops) {
      if (op.kind != OpKind::kKernel) continue;
      if (op.name >= index_.size()) index_.resize(std::max<size_t>(names.size(), op.name + 1), -1);
      int32_t& index = index_[op.name];
      if (index < 0) {
        index = static_cast<int32_t>(totals_.size());
        totals_.emplace_back().name = std::string(names.Get(op.name));
      }
      NameTotals& t = totals_[static_cast<size_t>(index)];
      ++t.launches;
      // Durations are non-negative and each fits int64; a name's total saturates rather
      // than wraps (StepStatsSink reports the overflow of the grand total as an error).
      t.total_ns =
          op.duration_ns > INT64_MAX - t.total_ns ? INT64_MAX : t.total_ns + op.duration_ns;
      t.max_ns = std::max(t.max_ns, op.duration_ns);
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  const std::vector<NameTotals>& totals() const { return totals_; }

 private:
  std::vector<int32_t> index_;
  std::vector<NameTotals> totals_;
};

}  // namespace

Result<std::vector<KernelDetails>> ListKernels(const SummaryInputs& inputs, const Policy& policy) {
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  KernelNameSink sink;
  RETURN_IF_ERROR(
      ReadInput(inputs.gpu.path, inputs.gpu.display_name, inputs.gpu.kind, sink).status());
  return KernelsByTime(sink.totals(), policy, classifier);
}

}  // namespace stepstat
