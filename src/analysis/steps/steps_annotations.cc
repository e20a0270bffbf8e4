#include "analysis/steps/steps_annotations.h"

#include <cmath>
#include <memory>

#include "analysis/pipeline/start_order.h"

namespace stepstat {

namespace {

std::string PercentOf(double share) { return std::to_string(std::lround(share * 100)) + " %"; }

}  // namespace

std::string AnnotatedReason(const AnnotationChoice& choice, size_t ranges) {
  return "steps: " + std::to_string(ranges) + " annotations like '" + choice.example +
         "' covering " + PercentOf(choice.coverage) +
         " of the GPU span, taken before the kernel period (--steps REGEX picks others)";
}

Result<std::optional<std::vector<StepRange>>> RangesOf(const AnnotationChoice& choice,
                                                       const TraceInput& range_file,
                                                       StepsPasses& passes) {
  Result<std::unique_ptr<RangeCollector>> created = RangeCollector::Create(choice.pattern);
  if (!created.ok()) return std::optional<std::vector<StepRange>>();
  std::unique_ptr<RangeCollector> collector = std::move(created.value());
  RETURN_IF_ERROR(passes.reads.Whole(range_file, *collector).status());
  return std::optional(collector->TakeSteps());
}

Result<std::optional<AnnotatedSteps>> AnnotatedStepsOf(const StepsInputs& inputs,
                                                       const TraceInput& range_file,
                                                       StepsPasses& passes,
                                                       AnnotationStats& annotations) {
  // Without a group that repeats, no span makes one qualify: nothing to read for it.
  if (!annotations.AnyRepeats()) return std::optional<AnnotatedSteps>();
  if (!annotations.has_gpu_span()) {  // not measured by the ranges' read: a pass for it
    annotations.MeasureGpuSpan();
    // Any order will do for the span; the stage watches so that later passes learn it.
    StartOrderSink watched(annotations, inputs.trace.gpu.display_name, passes.order.hold(),
                           /*stop_at_break=*/false);
    RETURN_IF_ERROR(passes.reads.GpuSide(inputs.trace.gpu, watched).status());
    passes.order.Learn(watched.broke());
  }
  const int64_t span = annotations.gpu_span_ns();
  AnnotatedSteps out;
  std::optional<AnnotationChoice> choice = annotations.Best(span);
  if (!choice) {
    std::optional<AnnotationChoice> closest = annotations.Closest(span);
    if (!closest) return std::optional<AnnotatedSteps>();
    out.reason = "steps: no annotation repeats over most of the GPU span (closest: '" +
                 closest->example + "', " + std::to_string(closest->count) + " ranges, " +
                 PercentOf(closest->coverage) + ")";
    return std::optional<AnnotatedSteps>(std::move(out));
  }
  ASSIGN_OR_RETURN(std::optional<std::vector<StepRange>> ranges,
                   RangesOf(*choice, range_file, passes));
  if (!ranges) return std::optional<AnnotatedSteps>();
  out.ranges = std::move(*ranges);
  out.pattern = choice->pattern;
  out.reason = AnnotatedReason(*choice, out.ranges.size());
  return std::optional<AnnotatedSteps>(std::move(out));
}

}  // namespace stepstat
