// The measured fields of one StepStats (span through components), shared by the summary
// and by each step of `stepstat steps`, so the two cannot drift apart.
#pragma once

#include "report/json_writer.h"
#include "stepstat/metrics.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// A registry figure's value: an integer, a Python float, or null when absent.
void WriteMetricValue(JsonWriter& json, const MetricValue& value);

/// Writes gpu_span_ns … kernel_busy_percent_of_span, launch_gaps, cpu_gpu_overlap and
/// components as fields of the open object. `overlap_scope`: whether cpu_gpu_overlap names
/// its scope (the reference does; per-step rows leave it out).
void WriteStepStatsMeasures(JsonWriter& json, const StepStats& stats, bool overlap_scope);

/// Writes every key of StepStatsToJson's object, in order, as fields of the open object (for
/// an object that adds keys before them, as each rank of `stepstat ranks`).
void WriteStepStatsFields(JsonWriter& json, const StepStats& stats);

}  // namespace stepstat
