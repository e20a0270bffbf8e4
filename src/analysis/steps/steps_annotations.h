// Steps from the annotations the trace carries (steps_source.h), when no --steps names them:
// the group that repeats and covers most of the GPU span (docs/steps.md, rule 3), read again
// as ranges; and what the report says of the choice.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/steps/steps_accumulate.h"
#include "analysis/steps/steps_ranges.h"
#include "analysis/steps/steps_source.h"
#include "stepstat/steps.h"

namespace stepstat {

struct AnnotatedSteps {
  std::vector<StepRange> ranges;  ///< empty: none qualified (`reason` says why)
  std::string pattern;
  std::string reason;
};

/// The report's source_reason for `ranges` steps of the group `choice`.
std::string AnnotatedReason(const AnnotationChoice& choice, size_t ranges);

/// The ranges of the group `choice` names, read from `range_file`; nullopt when RE2 cannot
/// take its pattern (a text of bytes that are not UTF-8: no steps here).
Result<std::optional<std::vector<StepRange>>> RangesOf(const AnnotationChoice& choice,
                                                       const TraceInput& range_file,
                                                       StepsPasses& passes);

/// The group that qualifies against the exact GPU span (measured by a pass of its own when
/// the ranges' read did not see it); nullopt when no group repeats, or with only `reason`
/// when none qualifies.
Result<std::optional<AnnotatedSteps>> AnnotatedStepsOf(const StepsInputs& inputs,
                                                       const TraceInput& range_file,
                                                       StepsPasses& passes,
                                                       AnnotationStats& annotations);

}  // namespace stepstat
