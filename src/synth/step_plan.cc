#include "synth/step_plan.h"

#include <initializer_list>

namespace stepstat::synth {
namespace {

using K = Kind;

void Add(StepPlan& plan, std::initializer_list<Kind> kinds, int side_stream = 0) {
  for (Kind kind : kinds) plan.kernels.push_back({kind, 1, side_stream});
}

// Per NVFP4 linear layer: absmax of the activation, amax clamp, global scale, zero-fill of the
// block-scale buffer, FP4 quantization, the epilogue's alpha, then the block-scaled GEMM.
void AddNvfp4Linear(StepPlan& plan, Kind gemm, int64_t input_factor) {
  plan.kernels.push_back({K::kAbs, input_factor, 1});
  plan.kernels.push_back({K::kAmax, input_factor, 1});
  plan.kernels.push_back({K::kClampAmax, 1, 1});
  plan.kernels.push_back({K::kGlobalScaleDiv, 1, 1});
  plan.kernels.push_back({K::kFillScaleFactors, input_factor, 1});
  plan.kernels.push_back({K::kCvtFp4, input_factor, 1});
  plan.kernels.push_back({K::kAlphaMul, 1, 0});
  plan.kernels.push_back({gemm, 1, 0});
}

void AddEmbeddings(StepPlan& plan) {
  // Sinusoidal timestep embedding, its MLP and the time projection.
  Add(plan, {K::kArange, K::kScalarMul, K::kExp, K::kScalarMul, K::kCos, K::kSin, K::kCat,
             K::kBf16Cast, K::kDenseGemm, K::kSilu, K::kDenseGemm, K::kSilu, K::kDenseGemm});
  // Patch embedding (3-D convolution), bias, flatten.
  Add(plan, {K::kPatchConv, K::kModulationAdd, K::kDirectCopy, K::kDirectCopy});
  // Text-context projection.
  Add(plan, {K::kDenseGemm, K::kGelu, K::kDenseGemm, K::kRmsNorm});
  // RoPE tables for this resolution.
  Add(plan, {K::kArange, K::kScalarMul, K::kCos, K::kSin, K::kCat, K::kBf16Cast, K::kDirectCopy,
             K::kDirectCopy, K::kFillFloat});
}

void AddBlock(StepPlan& plan) {
  Add(plan, {K::kLayerNorm, K::kModulationAdd, K::kDirectCopy, K::kDirectCopy});
  AddNvfp4Linear(plan, K::kGemmQkv, 1);
  Add(plan, {K::kQkNormRope, K::kDirectCopy});
  Add(plan, {K::kKeyMean, K::kQuantQ, K::kQuantK, K::kTransposePadPermuteV, K::kMeanScaleV}, 2);
  Add(plan, {K::kSageAttention, K::kDirectCopy});
  AddNvfp4Linear(plan, K::kGemmOut, 1);
  Add(plan, {K::kGateAddAttention, K::kLayerNorm, K::kFillFloat});
  AddNvfp4Linear(plan, K::kGemmFfnUp, 1);
  Add(plan, {K::kBf16Cast});
  AddNvfp4Linear(plan, K::kGemmFfnDown, 4);
  Add(plan, {K::kFillFloat, K::kGateAddFfn, K::kCat, K::kDirectCopy, K::kBf16Cast});
}

void AddHead(StepPlan& plan) {
  // Final norm and modulation, output projection, unpatchify, then the scheduler update.
  Add(plan, {K::kLayerNorm, K::kModulationAdd, K::kScalarMul, K::kModulationAdd, K::kDenseGemm,
             K::kDirectCopy, K::kDirectCopy, K::kBf16Cast, K::kSub, K::kScalarMul,
             K::kModulationAdd, K::kDirectCopy, K::kBf16Cast, K::kFillFloat});
}

void AddMemops(StepPlan& plan) {
  using M = MemopKind;
  auto add = [&plan](MemopPhase phase, M kind, int64_t bytes) {
    plan.memops.push_back({kind, phase, bytes});
  };
  // Latents, timestep, guidance and RoPE positions go up; output buffers are zeroed.
  constexpr MemopPhase kBefore = MemopPhase::kBeforeKernels;
  add(kBefore, M::kHostToDevice, 4'193'280);
  add(kBefore, M::kHostToDevice, 8);
  add(kBefore, M::kHostToDevice, 4);
  add(kBefore, M::kMemset, 2'097'152);
  add(kBefore, M::kHostToDevice, 245'760);
  add(kBefore, M::kMemset, 65'536);
  add(kBefore, M::kDeviceToDevice, 2'096'640);
  add(kBefore, M::kHostToDevice, 8);
  add(kBefore, M::kMemset, 16'384);
  // While the host prepares block 0 it resets per-block scratch buffers.
  for (int i = 0; i < 23; ++i) {
    add(MemopPhase::kHostPause, M::kMemset, 1'048'576);
    add(MemopPhase::kHostPause, M::kDeviceToDevice, 524'288);
  }
  // The updated latents are copied out and a progress flag is read back.
  constexpr MemopPhase kAfter = MemopPhase::kAfterKernels;
  add(kAfter, M::kDeviceToDevice, 2'096'640);
  add(kAfter, M::kMemset, 16'384);
  add(kAfter, M::kDeviceToHost, 4);
  add(kAfter, M::kDeviceToHost, 1'048'576);
}

}  // namespace

StepPlan BuildDitStepPlan() {
  StepPlan plan;
  AddEmbeddings(plan);
  plan.host_pause_kernel = plan.kernels.size();
  for (int block = 0; block < kBlocksPerStep; ++block) {
    size_t first = plan.kernels.size();
    AddBlock(plan);
    for (size_t i = first; i < plan.kernels.size(); ++i) plan.kernels[i].block = block;
  }
  AddHead(plan);
  AddMemops(plan);
  return plan;
}

std::string_view MemopName(MemopKind kind) {
  switch (kind) {
    case MemopKind::kHostToDevice: return "[CUDA memcpy Host-to-Device]";
    case MemopKind::kDeviceToDevice: return "[CUDA memcpy Device-to-Device]";
    case MemopKind::kDeviceToHost: return "[CUDA memcpy Device-to-Host]";
    case MemopKind::kMemset: return "[CUDA memset]";
  }
  return "[CUDA memset]";
}

std::string_view MemopSourceKind(MemopKind kind) {
  return kind == MemopKind::kHostToDevice ? "Pageable" : "Device";
}

std::string_view MemopDestinationKind(MemopKind kind) {
  switch (kind) {
    case MemopKind::kHostToDevice:
    case MemopKind::kDeviceToDevice: return "Device";
    case MemopKind::kDeviceToHost: return "Pageable";
    case MemopKind::kMemset: return "";
  }
  return "";
}

}  // namespace stepstat::synth
