// The integers of a step summary (spec/step-stats.md), measured on generated rows with the
// shared interval toolkit, and the values of the reference GB10 step they must reproduce.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "synth/kernel_catalog.h"
#include "synth/step_plan.h"
#include "synth/step_timeline.h"

namespace stepstat::synth {

struct StepFigures {
  int64_t span_ns = 0;
  int64_t op_count = 0;
  int64_t kernel_count = 0;
  int64_t kernel_time_ns = 0;
  int64_t gap_count = 0;
  int64_t gap_total_ns = 0;
  int64_t gap_max_ns = 0;
  int64_t api_union_ns = 0;
  int64_t api_overlap_ns = 0;  ///< launch-API union ∩ kernel union
  std::array<int64_t, kComponentCount> component_ns{};
  std::array<int64_t, kComponentCount> component_launches{};
  friend bool operator==(const StepFigures&, const StepFigures&) = default;
};

/// Measures one step's rows as the analyzer would (component = the kind's intended one).
StepFigures MeasureStep(const StepPlan& plan, const StepRows& rows);

/// The integers of /work/shared/spec/gb10-post-fc2-warmed-step-stats.json.
StepFigures ReferenceFigures();

/// "field: got X, want Y" for every field that differs; empty when equal.
std::string DescribeDifferences(const StepFigures& got, const StepFigures& want);

}  // namespace stepstat::synth
