#include "stepstat/synth.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "synth/format_writer.h"
#include "synth/kernel_catalog.h"
#include "synth/prng.h"
#include "synth/reference_fit.h"
#include "synth/step_plan.h"
#include "synth/step_timeline.h"

namespace stepstat::synth {
namespace {

constexpr int64_t kMaxSteps = 1'000'000;
constexpr int kMaxStreams = 64;
// How long before its first GPU operation a step's NVTX range opens (--nvtx).
constexpr int64_t kNvtxLeadNs = 20'000;

Result<std::unique_ptr<FormatWriter>> OpenWriter(const StepPlan& plan,
                                                 const SynthOptions& options) {
  switch (options.format) {
    case SynthFormat::kCsv: return OpenCsvWriter(plan, options);
    case SynthFormat::kSqlite: return OpenSqliteWriter(plan, options);
    case SynthFormat::kKineto: return OpenKinetoWriter(plan, options);
  }
  return Status::Error("synth: unknown output format");
}

// --slower: stretches the drawn kernels of one component (later work shifts when the step is
// laid out from the draw).
struct Stretch {
  std::vector<bool> kernel;  // per planned kernel: stretched or not
  int64_t percent = 0;

  void Apply(StepDraw& draw) const {
    if (percent == 0) return;
    for (size_t i = 0; i < kernel.size(); ++i) {
      if (kernel[i]) draw.kernel_ns[i] = RoundToTick(draw.kernel_ns[i] * (100 + percent) / 100);
    }
  }
};

Result<Stretch> StretchOf(const StepPlan& plan, const SynthOptions& options) {
  Stretch stretch;
  if (options.slower_component.empty()) return stretch;
  if (options.slower_percent < -90 || options.slower_percent > 1000) {
    return Status::Error("--slower: the percentage must be between -90 and 1000");
  }
  bool known = false;
  for (const PlannedKernel& k : plan.kernels) {
    bool match = ComponentName(KindInfo(k.kind).component) == options.slower_component;
    stretch.kernel.push_back(match);
    known = known || match;
  }
  if (!known) {
    return Status::Error("--slower: no synth kernel is in component '" + options.slower_component +
                         "' (sage2, nvfp4_gemms, nvfp4_packing, norm_and_rope, "
                         "remaining_gate_add, other)");
  }
  stretch.percent = options.slower_percent;
  return stretch;
}

}  // namespace

std::optional<SynthFormat> ParseSynthFormat(std::string_view name) {
  if (name == "csv") return SynthFormat::kCsv;
  if (name == "sqlite") return SynthFormat::kSqlite;
  if (name == "kineto") return SynthFormat::kKineto;
  return std::nullopt;
}

bool FitsReference(const SynthOptions& options) {
  return options.streams == 1 && options.seed == kDefaultSeed;
}

Result<SynthResult> WriteSynthTraces(const SynthOptions& options) {
  if (options.out_base.empty()) return Status::Error("synth needs an output base (--out)");
  if (options.steps < 1 || options.steps > kMaxSteps) {
    return Status::Error("--steps must be between 1 and " + std::to_string(kMaxSteps));
  }
  if (options.streams < 1 || options.streams > kMaxStreams) {
    return Status::Error("--streams must be between 1 and " + std::to_string(kMaxStreams));
  }
  const StepPlan plan = BuildDitStepPlan();
  ASSIGN_OR_RETURN(const Stretch stretch, StretchOf(plan, options));
  ASSIGN_OR_RETURN(std::unique_ptr<FormatWriter> writer, OpenWriter(plan, options));
  SynthResult result;
  // The previous step's range: it ends at the host's sync, or where the next step's first
  // launch starts if that comes sooner.
  int64_t range_start = -1, range_end = -1;

  Prng prng(options.seed);
  StepRows rows;
  TimelineParams params;
  params.streams = options.streams;
  params.gpu_origin_ns = kFirstStepOriginNs;
  for (int64_t step = 0; step < options.steps; ++step) {
    // Steps differ a little in pace (clocks, thermals); the fitted first step runs at 1000.
    int64_t pace = step == 0 ? 1000 : prng.Uniform(985, 1015);
    StepDraw draw = DrawStep(plan, prng, pace);
    if (step == 0 && FitsReference(options)) {
      RETURN_IF_ERROR(FitReferenceStep(plan, draw, params, rows));
      if (stretch.percent != 0) {  // the fitted draw, stretched, laid out again
        stretch.Apply(draw);
        RETURN_IF_ERROR(SimulateStep(plan, draw, params, rows));
      }
    } else {
      params.queue_depth = 1024;
      params.host_pace_permille = prng.Uniform(1400, 1800);
      stretch.Apply(draw);
      RETURN_IF_ERROR(SimulateStep(plan, draw, params, rows));
    }
    RETURN_IF_ERROR(writer->AppendStep(rows));
    if (options.nvtx && !rows.kernels.empty()) {
      // The host issues the step's first copies before they run: the range opens before
      // both its first launch and its first GPU operation.
      int64_t first_launch = rows.kernels.front().api_start;
      int64_t last_api_end = 0;
      for (const KernelRow& k : rows.kernels) {
        first_launch = std::min(first_launch, k.api_start);
        last_api_end = std::max(last_api_end, k.api_start + k.api_duration);
      }
      for (const MemopRow& m : rows.memops) first_launch = std::min(first_launch, m.start);
      first_launch -= kNvtxLeadNs;
      if (range_start >= 0) {
        RETURN_IF_ERROR(
            writer->AppendStepRange(step - 1, range_start, std::min(range_end, first_launch)));
      }
      range_start = first_launch;
      range_end = std::max(last_api_end, rows.end_ns);
    }
    result.gpu_rows += static_cast<int64_t>(rows.kernels.size() + rows.memops.size());
    result.kern_exec_rows += static_cast<int64_t>(rows.kernels.size());
    // The host synchronizes at the end of a step, then starts the next one.
    params.gpu_origin_ns = RoundToTick(rows.end_ns + prng.Uniform(1'500'000, 3'000'000));
    params.first_correlation_id = rows.next_correlation_id + prng.Uniform(2, 9);
  }
  if (options.nvtx && range_start >= 0) {
    RETURN_IF_ERROR(writer->AppendStepRange(options.steps - 1, range_start, range_end));
  }
  RETURN_IF_ERROR(writer->Commit(result));
  return result;
}

}  // namespace stepstat::synth
