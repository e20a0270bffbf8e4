#include "synth/step_timeline.h"

#include <algorithm>
#include <string>

namespace stepstat::synth {
namespace {

int64_t DrawCall(Prng& prng, std::string_view api_function) {
  if (api_function == "cuLaunchKernelEx") return prng.Uniform(3'800, 7'600);
  if (api_function == "cuLaunchKernel") return prng.Uniform(3'000, 6'000);
  return prng.Uniform(2'400, 5'200);
}

// Copy engines: pageable host copies are staged (~14 GB/s up, ~12 GB/s down), device copies
// run near LPDDR5X bandwidth, memsets a bit faster; each pays a fixed setup cost.
int64_t MemopNs(const PlannedMemop& memop) {
  switch (memop.kind) {
    case MemopKind::kHostToDevice: return 1'500 + memop.bytes / 14;
    case MemopKind::kDeviceToDevice: return 1'800 + memop.bytes / 110;
    case MemopKind::kDeviceToHost: return 1'600 + memop.bytes / 12;
    case MemopKind::kMemset: return 1'200 + memop.bytes / 220;
  }
  return 1'000;
}

}  // namespace

StepDraw DrawStep(const StepPlan& plan, Prng& prng, int64_t pace_permille) {
  StepDraw draw;
  const size_t n = plan.kernels.size();
  draw.kernel_ns.resize(n);
  draw.gap_ns.resize(n);
  draw.host_ns.resize(n);
  draw.call_ns.resize(n);
  draw.wake_ns.resize(n);
  draw.queue_latency_ns.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const KernelKind& kind = KindInfo(plan.kernels[i].kind);
    int64_t typical = kind.typical_ns * plan.kernels[i].size_factor * pace_permille / 1000;
    draw.kernel_ns[i] =
        RoundToTick(std::max<int64_t>(1'504, prng.Around(typical, kind.spread_permille)));
    // Back-to-back launches leave the SMs idle ~1.2-2.6 us; now and then a few us more.
    int64_t gap = prng.Uniform(1'200, 2'600);
    if (prng.Uniform(0, 9) == 0) gap += prng.Uniform(0, 4'000);
    draw.gap_ns[i] = RoundToTick(gap);
    // The Python host loop between launches: tight in the embeddings, slower in the blocks.
    bool in_blocks = i >= plan.host_pause_kernel;
    int64_t host = in_blocks ? prng.Uniform(20'000, 60'000) : prng.Uniform(5'000, 9'000);
    if (in_blocks && prng.Uniform(0, 19) == 0) host += prng.Uniform(20'000, 80'000);
    draw.host_ns[i] = host;
    draw.call_ns[i] = DrawCall(prng, kind.api_function);
    draw.wake_ns[i] = prng.Uniform(1'500, 5'000);
    draw.queue_latency_ns[i] = prng.Uniform(2'800, 5'200);
  }
  if (n > 0) draw.gap_ns[0] = RoundToTick(prng.Uniform(3'000, 6'000));
  if (plan.host_pause_kernel < n) {
    draw.gap_ns[plan.host_pause_kernel] = RoundToTick(prng.Uniform(4'400'000, 5'200'000));
  }

  draw.memop_ns.resize(plan.memops.size());
  draw.memop_gap_ns.resize(plan.memops.size());
  for (size_t m = 0; m < plan.memops.size(); ++m) {
    const PlannedMemop& memop = plan.memops[m];
    draw.memop_ns[m] = RoundToTick(prng.Around(MemopNs(memop), 50));
    bool first_of_phase = m == 0 || plan.memops[m - 1].phase != memop.phase;
    int64_t gap = 0;
    switch (memop.phase) {
      case MemopPhase::kBeforeKernels: gap = m == 0 ? 0 : prng.Uniform(3'000, 12'000); break;
      case MemopPhase::kHostPause:
        gap = first_of_phase ? prng.Uniform(900'000, 1'400'000) : prng.Uniform(12'000, 30'000);
        break;
      case MemopPhase::kAfterKernels:
        gap = first_of_phase ? prng.Uniform(2'000, 6'000) : prng.Uniform(3'000, 9'000);
        break;
    }
    draw.memop_gap_ns[m] = RoundToTick(gap);
  }
  draw.first_launch_offset_ns = prng.Uniform(15'000, 30'000);
  draw.extra_correlation_ids = static_cast<int64_t>(prng.Next() >> 1);
  return draw;
}

Status SimulateStep(const StepPlan& plan, const StepDraw& draw, const TimelineParams& params,
                    StepRows& rows) {
  const size_t n = plan.kernels.size();
  rows.kernels.resize(n);
  rows.memops.resize(plan.memops.size());
  rows.gpu_waits_for_cpu = 0;
  const int streams = std::max(1, params.streams);
  int64_t correlation_id = params.first_correlation_id;

  size_t m = 0;
  int64_t cursor = params.gpu_origin_ns;
  auto place_memops = [&](MemopPhase phase) {
    for (; m < plan.memops.size() && plan.memops[m].phase == phase; ++m) {
      MemopRow& row = rows.memops[m];
      row.start = cursor + draw.memop_gap_ns[m];
      row.duration = draw.memop_ns[m];
      row.correlation_id = correlation_id++;
      row.plan_index = static_cast<uint32_t>(m);
      row.stream = 0;
      cursor = row.start + row.duration;
    }
  };
  place_memops(MemopPhase::kBeforeKernels);

  std::vector<int64_t> stream_free(streams, cursor);
  auto last_kernel_end = [&] { return *std::max_element(stream_free.begin(), stream_free.end()); };
  int64_t previous_api_end = 0;
  int64_t previous_start = cursor;
  for (size_t i = 0; i < n; ++i) {
    const PlannedKernel& planned = plan.kernels[i];
    // Side work rotates over the extra streams block by block, so every stream gets used.
    int stream =
        planned.side_stream == 0 || streams == 1
            ? 0
            : 1 + (planned.side_stream - 1 + 2 * std::max(0, planned.block)) % (streams - 1);
    int64_t ready = std::max(stream_free[stream] + draw.gap_ns[i], previous_start);
    int64_t api_start = 0;
    int64_t api_end = 0;
    int64_t start = 0;
    if (i == plan.host_pause_kernel) {
      // The host was busy: the GPU drains, runs the pause's memory operations, then idles
      // until this launch arrives exactly one pause gap after the last kernel.
      int64_t drained = last_kernel_end();
      ready = drained + draw.gap_ns[i];
      cursor = drained;
      place_memops(MemopPhase::kHostPause);
      if (cursor > ready) {
        return Status::Error("synth: the host-pause memory operations outlast the pause gap");
      }
      start = ready;
      api_end = ready - draw.queue_latency_ns[i];
      api_start = api_end - draw.call_ns[i];
      if (i > 0 && api_start < previous_api_end + draw.host_ns[i]) {
        return Status::Error("synth: the host pause is shorter than the launches before it");
      }
    } else {
      int64_t host = i > plan.host_pause_kernel ? draw.host_ns[i] * params.host_pace_permille / 1000
                                                : draw.host_ns[i];
      api_start =
          i == 0 ? params.gpu_origin_ns + draw.first_launch_offset_ns : previous_api_end + host;
      api_end = api_start + draw.call_ns[i];
      if (static_cast<int64_t>(i) >= params.queue_depth) {
        const KernelRow& freed = rows.kernels[i - params.queue_depth];
        api_end = std::max(api_end, freed.start + freed.duration + draw.wake_ns[i]);
      }
      int64_t arrival = RoundToTick(api_end + draw.queue_latency_ns[i]);
      if (arrival > ready) ++rows.gpu_waits_for_cpu;
      start = std::max(ready, arrival);
    }
    KernelRow& row = rows.kernels[i];
    row.start = start;
    row.duration = draw.kernel_ns[i];
    row.api_start = api_start;
    row.api_duration = api_end - api_start;
    // Other API calls (cudaGetDevice, event records) take correlation ids now and then.
    uint64_t mix = static_cast<uint64_t>(draw.extra_correlation_ids) ^ (i * 0x9e3779b97f4a7c15ull);
    correlation_id += (mix >> 59) == 0 ? 3 : 1;
    row.correlation_id = correlation_id;
    row.plan_index = static_cast<uint32_t>(i);
    row.stream = static_cast<uint32_t>(stream);
    stream_free[stream] = start + row.duration;
    previous_start = start;
    previous_api_end = api_end;
  }
  ++correlation_id;

  cursor = last_kernel_end();
  place_memops(MemopPhase::kAfterKernels);
  rows.end_ns = cursor;
  rows.next_correlation_id = correlation_id;
  return Status::Ok();
}

}  // namespace stepstat::synth
