// What one denoising step of the modelled DiT launches, in launch order: a few embedding
// kernels, 50 transformer blocks of 54 kernels, the output head; plus the memory operations
// before the first kernel, during the host pause before block 0, and after the last kernel.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "synth/kernel_catalog.h"

namespace stepstat::synth {

inline constexpr int kBlocksPerStep = 50;

struct PlannedKernel {
  Kind kind;
  int64_t size_factor =
      1;                ///< work relative to the kind's typical launch (the FFN-down input is 4x)
  int side_stream = 0;  ///< 0: the main stream; 1, 2: work that may run beside it
  int block = -1;       ///< transformer block, -1 for the embeddings and the head
};

enum class MemopKind : uint8_t { kHostToDevice, kDeviceToDevice, kDeviceToHost, kMemset };
enum class MemopPhase : uint8_t { kBeforeKernels, kHostPause, kAfterKernels };

struct PlannedMemop {
  MemopKind kind;
  MemopPhase phase;
  int64_t bytes;
};

struct StepPlan {
  std::vector<PlannedKernel> kernels;
  size_t host_pause_kernel = 0;      ///< the first kernel of block 0: the GPU idles before it
  std::vector<PlannedMemop> memops;  ///< in issue order; phases are contiguous
};

/// The plan of one DiT step (the same for every step).
StepPlan BuildDitStepPlan();

/// The nsys `Name` of a memory operation ("[CUDA memcpy Host-to-Device]", "[CUDA memset]").
std::string_view MemopName(MemopKind kind);
/// The nsys SrcMemKd and DstMemKd columns of a memory operation (DstMemKd empty for memset).
std::string_view MemopSourceKind(MemopKind kind);
std::string_view MemopDestinationKind(MemopKind kind);

}  // namespace stepstat::synth
