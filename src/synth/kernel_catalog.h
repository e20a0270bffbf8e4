// The kernels of the modelled DiT step: full demangled names as nsys prints them, the
// component each must land in under the default `dit-nvfp4` policy, launch geometry and a
// typical duration on a GB10 (before the step model scales durations to its targets).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace stepstat::synth {

/// The default policy's components, in policy order; kOther is the unmatched rest.
enum class Component : uint8_t {
  kSage2,
  kNvfp4Gemms,
  kNvfp4Packing,
  kNormAndRope,
  kRemainingGateAdd,
  kOther,
};
inline constexpr int kComponentCount = 6;

/// The component's name in the policy ("sage2", ..., "other").
std::string_view ComponentName(Component component);

// clang-format off
enum class Kind : uint8_t {
  // SageAttention2 on sm120: one call = these five.
  kQuantQ, kQuantK, kTransposePadPermuteV, kMeanScaleV, kSageAttention,
  // NVFP4 block-scaled GEMMs (cuBLASLt CUTLASS 3.x kernels).
  kGemmQkv, kGemmOut, kGemmFfnUp, kGemmFfnDown,
  // Per-GEMM activation packing.
  kAbs, kAmax, kFillScaleFactors, kCvtFp4,
  // Norms, RoPE and the k.mean() of SageAttention's smoothing.
  kLayerNorm, kQkNormRope, kKeyMean, kRmsNorm,
  // Gated residuals.
  kGateAddAttention, kGateAddFfn,
  // Everything small that no component claims.
  kModulationAdd, kDirectCopy, kClampAmax, kGlobalScaleDiv, kAlphaMul, kFillFloat, kCat,
  kBf16Cast, kArange, kExp, kCos, kSin, kScalarMul, kSilu, kGelu, kDenseGemm, kPatchConv,
  kSub,
};
// clang-format on
inline constexpr int kKindCount = static_cast<int>(Kind::kSub) + 1;

struct KernelKind {
  std::string_view name;  ///< as in the nsys `Name` column (unquoted)
  Component component;    ///< where the default policy must put it
  int64_t typical_ns;     ///< typical duration on GB10
  int64_t spread_permille;
  std::array<uint32_t, 3> grid;
  std::array<uint32_t, 3> block;
  uint32_t registers_per_thread;
  uint32_t static_shared_bytes;
  uint32_t dynamic_shared_bytes;
  std::string_view api_function;  ///< the launching CUDA API call
};

/// The description of `kind`; valid for the program's lifetime.
const KernelKind& KindInfo(Kind kind);

/// Every kind, in enum order.
std::span<const KernelKind> AllKinds();

}  // namespace stepstat::synth
