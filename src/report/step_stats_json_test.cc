#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "stepstat/report.h"

namespace stepstat {
namespace {

ComponentStats Component(std::string name, std::string description, double milliseconds,
                         double percent, int64_t launches) {
  ComponentStats component;
  component.name = std::move(name);
  component.description = std::move(description);
  component.milliseconds = milliseconds;
  component.percent_of_kernel_time = percent;
  component.launches = launches;
  return component;
}

/// The values of ../shared/spec/gb10-post-fc2-warmed-step-stats.json.
StepStats ReferenceStats() {
  StepStats stats;
  stats.source_gpu_trace = "benchmarks\\gb10-post-fc2-warmed-step-stats_cuda_gpu_trace.csv";
  stats.source_kernel_exec_trace =
      "benchmarks\\gb10-post-fc2-warmed-step-stats_cuda_kern_exec_trace.csv";
  stats.gpu_span_ns = 20907172640;
  stats.gpu_operation_count = 2803;
  stats.kernel_count = 2744;
  stats.kernel_time_ns = 20895065376;
  stats.kernel_busy_percent_of_span = 99.94209038109325;
  stats.launch_gaps = {2743, 11518912, 4199.384615384615, 4797728};
  stats.cpu_gpu_overlap = CpuGpuOverlap{13065552528, 13062771136, 99.97871202160002};
  stats.components = {
      Component("sage2", "mainloop plus MeanScale/TransposePadPermute/QuantInt8 preparation",
                13029.23856, 62.355576905566124, 250),
      Component("nvfp4_gemms", "SM120 block-scaled CUTLASS GEMMs", 4167.855808, 19.946603339117498,
                200),
      Component("nvfp4_packing", "absmax, final-scale, zero-fill and NVFP4 quantization kernels",
                2026.853664, 9.700154689767265, 800),
      Component("norm_and_rope", "layer norm, mean reduction and fused RMS/RoPE kernels", 1084.3856,
                5.1896731619970025, 202),
      Component("remaining_gate_add", "fused residual gate/add kernels", 549.298592,
                2.6288436150619683, 100),
      Component("other", "all unmatched kernels", 37.433152, 0.17914828849014078, 1192),
  };
  return stats;
}

TEST(StepStatsToJson, ReproducesTheReferenceOutputByteForByte) {
  const std::string path = STEPSTAT_SHARED_DIR "/spec/gb10-post-fc2-warmed-step-stats.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) GTEST_SKIP() << "reference output not found: " << path;
  std::ostringstream reference;
  reference << in.rdbuf();
  // The reference file is json.dumps' text saved without a final newline; we print one.
  EXPECT_EQ(StepStatsToJson(ReferenceStats()), reference.str() + "\n");
}

// Expected text: Python 3's json.dumps(summary, indent=2) of the same dict, plus "\n".
TEST(StepStatsToJson, AbsentParts) {
  StepStats stats;
  stats.source_gpu_trace = "run\xc3\xa9.csv";
  stats.components = {Component("other", "all unmatched kernels", 0.0, 0.0, 0)};
  EXPECT_EQ(StepStatsToJson(stats), R"({
  "source_gpu_trace": "run\u00e9.csv",
  "source_kernel_exec_trace": null,
  "gpu_span_ns": 0,
  "gpu_operation_count": 0,
  "kernel_count": 0,
  "kernel_time_ns": 0,
  "kernel_busy_percent_of_span": 0.0,
  "launch_gaps": {
    "positive_gap_count": 0,
    "total_ns": 0,
    "average_ns": 0.0,
    "maximum_ns": 0
  },
  "cpu_gpu_overlap": null,
  "components": {
    "other": {
      "milliseconds": 0.0,
      "percent_of_kernel_time": 0.0,
      "launches": 0
    }
  },
  "classification_policy": {
    "other": "all unmatched kernels"
  }
}
)");
}

}  // namespace
}  // namespace stepstat
