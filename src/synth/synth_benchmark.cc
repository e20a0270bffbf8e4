// How fast `stepstat synth` makes and formats steps, apart from the disk: rows go to
// /dev/null. Reports bytes/s of CSV for one step per iteration.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "synth/prng.h"
#include "synth/step_plan.h"
#include "synth/step_timeline.h"
#include "synth/trace_writer.h"

namespace stepstat::synth {
namespace {

void BM_SimulateAndWriteStep(benchmark::State& state) {
  std::FILE* sink = std::fopen("/dev/null", "wb");
  if (sink == nullptr) {
    state.SkipWithError("no /dev/null");
    return;
  }
  const StepPlan plan = BuildDitStepPlan();
  TraceWriter writer(plan);
  TextOut gpu(sink, "gpu");
  TextOut exec(sink, "exec");
  Prng prng(7);
  StepRows rows;
  TimelineParams params;
  params.streams = static_cast<int>(state.range(0));
  params.gpu_origin_ns = 1'000'000'000;
  for (auto _ : state) {
    StepDraw draw = DrawStep(plan, prng, 1000);
    if (!SimulateStep(plan, draw, params, rows).ok()) state.SkipWithError("simulate failed");
    if (!writer.AppendGpuTrace(rows, gpu).ok() || !writer.AppendKernExec(rows, exec).ok()) {
      state.SkipWithError("write failed");
    }
    params.gpu_origin_ns = rows.end_ns + 2'000'000;
  }
  (void)gpu.Flush();
  (void)exec.Flush();
  state.SetBytesProcessed(gpu.bytes_written() + exec.bytes_written());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(plan.kernels.size()));
  std::fclose(sink);
}
BENCHMARK(BM_SimulateAndWriteStep)->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace stepstat::synth
