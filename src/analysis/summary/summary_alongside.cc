#include "analysis/summary/summary_alongside.h"

#include <optional>
#include <utility>

#include "analysis/details/details_sink.h"
#include "analysis/details/details_values.h"
#include "analysis/details/kernel_spreads.h"
#include "analysis/details/launch_key_matcher.h"
#include "analysis/pipeline/tee_sink.h"
#include "analysis/summary/summary_sinks.h"
#include "analysis/summary/summary_values.h"
#include "core/overlap_meter.h"
#include "readers/input_traits.h"

namespace stepstat {

namespace {

// Hands batches to `inner` until it fails once; then takes every batch without looking, so
// the pass it rides on goes on as if it were not there. `failed()` tells the owner.
class ContainedSink : public TraceSink {
 public:
  explicit ContainedSink(TraceSink& inner) : inner_(inner) {}
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    return Contain(inner_.OnGpuOps(ops, names));
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    return Contain(inner_.OnLaunchCalls(calls, names));
  }
  Status OnFinish() override { return Contain(inner_.OnFinish()); }
  bool failed() const { return failed_; }

 private:
  Status Contain(const Status& status) {
    if (!status.ok()) failed_ = true;
    return Status::Ok();
  }
  TraceSink& inner_;
  bool failed_ = false;
};

}  // namespace

// What summarize.cc's RunPass builds for a pair read on two threads (ReadSide, each side's
// sinks), here built once and fed by another pass's readers.
struct SummaryAlongside::Sides {
  Sides(const SummaryInputs& in, const Policy& p, Classifier c)
      : inputs(in),
        policy(p),
        classifier(std::move(c)),
        gpu(inputs.gpu.display_name, classifier, meter.TakeProducer(OverlapMeter::kA),
            /*assume_sorted=*/true),
        launch(meter.TakeProducer(OverlapMeter::kB), /*assume_sorted=*/true),
        gpu_details(inputs.gpu.display_name, /*assume_sorted=*/true, &matcher),
        launch_details(LaunchFile(inputs).display_name, /*assume_sorted=*/true, &matcher) {}

  // Where the launch calls are: a file of their own, or the one trace (a kept parse).
  static const TraceInput& LaunchFile(const SummaryInputs& inputs) {
    return inputs.launches ? *inputs.launches : inputs.gpu;
  }

  const SummaryInputs inputs;
  const Policy& policy;
  const Classifier classifier;
  OverlapMeter meter;  // unbounded: neither reader ever waits on it
  LaunchKeyMatcher matcher{/*rows_join_their_kernels=*/false};
  GpuTotalsSink gpu;
  LaunchTotalsSink launch;
  DetailsSink gpu_details;
  DetailsSink launch_details;
  TeeSink gpu_tee{&gpu, &gpu_details};
  TeeSink launch_tee{&launch, &launch_details};
  ContainedSink gpu_side{gpu_tee};
  ContainedSink launch_side{launch_tee};

  std::optional<ReadReport> gpu_read, launch_read;  // set by Completed
  std::optional<Details> details;
  std::unique_ptr<KernelSpreadsSink> spreads;
};

bool SummaryAlongside::Fits(const SummaryInputs& inputs) {
  if (!inputs.device.empty()) return false;
  if (!inputs.launches) return ParsedOnceAndReplayed(inputs.gpu.kind);
  return IsGpuOperationsCsv(inputs.gpu.kind) && IsLaunchCsv(inputs.launches->kind);
}

Result<std::unique_ptr<SummaryAlongside>> SummaryAlongside::Create(const SummaryInputs& inputs,
                                                                   const Policy& policy) {
  if (!Fits(inputs)) return Status::Error("internal error: a summary alongside of other inputs");
  ASSIGN_OR_RETURN(Classifier classifier, Classifier::Create(policy));
  return std::unique_ptr<SummaryAlongside>(
      new SummaryAlongside(std::make_unique<Sides>(inputs, policy, std::move(classifier))));
}

SummaryAlongside::SummaryAlongside(std::unique_ptr<Sides> sides) : sides_(std::move(sides)) {}
SummaryAlongside::~SummaryAlongside() = default;

bool SummaryAlongside::Wants(const SummaryInputs& trace) const {
  const SummaryInputs& mine = sides_->inputs;
  auto same = [](const TraceInput& a, const TraceInput& b) {
    // Bytes in memory are the same when they are the same memory (no need to compare them).
    const bool same_bytes =
        a.bytes.has_value() == b.bytes.has_value() &&
        (!a.bytes || (a.bytes->data() == b.bytes->data() && a.bytes->size() == b.bytes->size()));
    return a.kind == b.kind && a.path == b.path && a.display_name == b.display_name && same_bytes;
  };
  return !fed_ && trace.device.empty() && same(trace.gpu, mine.gpu) &&
         trace.launches.has_value() == mine.launches.has_value() &&
         (!trace.launches || same(*trace.launches, *mine.launches));
}

TraceSink& SummaryAlongside::gpu_side() {
  fed_ = true;
  return sides_->gpu_side;
}

TraceSink& SummaryAlongside::launch_side() {
  fed_ = true;
  return sides_->launch_side;
}

void SummaryAlongside::Completed(const ReadReport& gpu, const ReadReport& launches) {
  sides_->gpu_read = gpu;
  sides_->launch_read = launches;
}

const Details* SummaryAlongside::DetailsOnce() {
  Sides& s = *sides_;
  if (!s.gpu_read || s.gpu_side.failed() || s.launch_side.failed()) return nullptr;
  if (!s.details) {
    // One file is one input, as summarize.cc's RunPass lists it.
    std::vector<InputDetails> read = {InputDetailsOf(s.inputs.gpu, *s.gpu_read)};
    if (s.inputs.launches) read.push_back(InputDetailsOf(*s.inputs.launches, *s.launch_read));
    s.details = MakeDetails(s.gpu_details.totals(), &s.launch_details.totals(), &s.matcher,
                            s.policy, s.classifier, std::move(read));
  }
  return &*s.details;
}

TraceSink* SummaryAlongside::SpreadsSink() {
  const Details* details = DetailsOnce();
  if (details == nullptr) return nullptr;
  // The names the page's tables list, as engine_report.cc's own summary asks for them.
  std::vector<std::string> names;
  for (const KernelDetails& kernel : details->top_kernels) names.push_back(kernel.name);
  for (const KernelDetails& kernel : details->coverage.top_other) names.push_back(kernel.name);
  sides_->spreads = std::make_unique<KernelSpreadsSink>(std::move(names),
                                                        /*launches_are_kernels=*/false);
  return sides_->spreads.get();
}

std::optional<SummaryAlongside::Summary> SummaryAlongside::Take() {
  Sides& s = *sides_;
  const Details* details = DetailsOnce();
  // No operation at all is the summary's own error to say.
  if (details == nullptr || !s.spreads || s.gpu.totals().operation_count == 0) {
    return std::nullopt;
  }
  StepStatsSources sources;
  sources.gpu_trace = s.inputs.gpu.display_name;
  // As summarize.cc's RunPass: one trace is its own launch source when it has calls.
  if (s.inputs.launches) {
    sources.kernel_exec_trace = s.inputs.launches->display_name;
  } else if (s.launch.totals().call_count > 0) {
    sources.kernel_exec_trace = s.inputs.gpu.display_name;
  }
  std::optional<LaunchOverlapTotals> overlap;
  if (sources.kernel_exec_trace) {
    overlap = LaunchOverlapTotals{s.launch.totals().union_ns, s.meter.overlap()};
  }
  Summary out;
  out.stats = MakeStepStats(s.policy, s.gpu.totals(), overlap, sources);
  out.details = std::move(*s.details);
  s.details.reset();
  out.spreads = s.spreads->Take();
  out.kernel_totals = KernelTotalsOf(s.gpu.totals());
  return out;
}

}  // namespace stepstat
