#include "synth/trace_rows.h"

#include <algorithm>

namespace stepstat::synth {

void OrderGpuOpsByStart(const StepRows& rows, std::vector<std::pair<int64_t, uint32_t>>& order) {
  const uint32_t kernel_count = static_cast<uint32_t>(rows.kernels.size());
  order.clear();
  for (uint32_t i = 0; i < kernel_count; ++i) order.emplace_back(rows.kernels[i].start, i);
  for (uint32_t m = 0; m < rows.memops.size(); ++m) {
    order.emplace_back(rows.memops[m].start, kernel_count + m);
  }
  std::sort(order.begin(), order.end());
}

}  // namespace stepstat::synth
