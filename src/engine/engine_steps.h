// RunSteps with the timelines of its median and slowest steps: for RunReport, which draws
// them (engine_report.cc). Internal to the engine.
#pragma once

#include <vector>

#include "stepstat/engine.h"
#include "stepstat/timeline.h"

namespace stepstat {

/// RunSteps; with `timelines` not null, also the median and slowest steps' timelines
/// (AnalyzeStepsWithTimelines), from one more read of the inputs.
Result<StepsResult> RunStepsDrawing(const RunOptions& options,
                                    std::vector<StepTimeline>* timelines);

}  // namespace stepstat
