// The arithmetic a range of GPU operations adds up to, written once for the whole-trace
// summary (GpuTotals) and for every step (StepTotals): the span, the counts, the kernel time
// and its split by component, and the gaps. The two pipelines keep their own sinks (one
// step of the steps accumulators costs 3-4x the summary's sinks: bench/results/
// pipeline-2026-12-04.md) but share these figures' definitions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>

#include "core/intervals.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Adds `op` to `totals` (GpuTotals or StepTotals): its span and count, and for a kernel its
/// count, time and component (`component_of(op)`, called for kernels only). An error when
/// the summed kernel time would overflow; a component's time is part of the kernel time, so
/// that one check covers both.
template <typename Totals, typename ComponentOf>
Status AddGpuOp(Totals& totals, const GpuOp& op, std::string_view source_name,
                const ComponentOf& component_of) {
  const int64_t end = op.end_ns();
  if (totals.operation_count == 0) {
    totals.first_start_ns = op.start_ns;
    totals.last_end_ns = end;
  } else {
    totals.first_start_ns = std::min(totals.first_start_ns, op.start_ns);
    totals.last_end_ns = std::max(totals.last_end_ns, end);
  }
  ++totals.operation_count;
  if (op.kind != OpKind::kKernel) return Status::Ok();
  ++totals.kernel_count;
  // Both operands are non-negative (readers guarantee it).
  if (op.duration_ns > std::numeric_limits<int64_t>::max() - totals.kernel_time_ns) {
    return ErrorAt(source_name, op.line, "summed kernel time overflows 64-bit nanoseconds");
  }
  totals.kernel_time_ns += op.duration_ns;
  const auto component = static_cast<size_t>(component_of(op));
  totals.component_time_ns[component] += op.duration_ns;
  ++totals.component_launches[component];
  return Status::Ok();
}

/// The gaps between the kernel union's components, once the union is closed.
template <typename Totals>
void SetGaps(Totals& totals, const GapMeter& gaps) {
  totals.gap_count = gaps.count();
  totals.gap_total_ns = gaps.total();
  totals.gap_max_ns = gaps.maximum();
}

}  // namespace stepstat
