#include "synth/kernel_catalog.h"

namespace stepstat::synth {
namespace {

using C = Component;

constexpr std::string_view kLaunch = "cudaLaunchKernel";
constexpr std::string_view kLaunchEx = "cuLaunchKernelEx";
constexpr std::string_view kDriverLaunch = "cuLaunchKernel";

// nsys spells template values `(unsigned int)128`, `(bool)0`, anonymous namespaces
// `<unnamed>` and lambdas `[lambda() (instance 1)]`. Order must follow enum Kind; one kernel
// per entry reads better than one field per line.
// clang-format off
constexpr KernelKind kKinds[] = {
    {"void QuantInt8Kernel<(unsigned int)128, (unsigned int)32, (unsigned int)1, (bool)0, "
     "(bool)0, __nv_bfloat16>(T6 *, T6 *, signed char *, float *, float, unsigned int, unsigned "
     "int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, "
     "unsigned int, unsigned int, unsigned int)",
     C::kSage2, 2'000'000, 60, {147, 24, 1}, {128, 1, 1}, 40, 0, 0, kLaunch},
    {"void QuantInt8Kernel<(unsigned int)64, (unsigned int)32, (unsigned int)1, (bool)1, "
     "(bool)0, __nv_bfloat16>(T6 *, T6 *, signed char *, float *, float, unsigned int, unsigned "
     "int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, "
     "unsigned int, unsigned int, unsigned int)",
     C::kSage2, 2'100'000, 60, {294, 24, 1}, {128, 1, 1}, 40, 0, 0, kLaunch},
    {"void TransposePadPermuteKernel<(unsigned int)64, (unsigned int)128, (bool)1, "
     "__nv_bfloat16>(T4 *, T4 *, unsigned int, unsigned int, unsigned int, unsigned int, "
     "unsigned int, unsigned int, unsigned int)",
     C::kSage2, 1'600'000, 60, {294, 24, 1}, {128, 1, 1}, 32, 16'384, 0, kLaunch},
    {"void MeanScaleKernel<(unsigned int)64, (bool)0, __nv_bfloat16>(T3 *, signed char *, float "
     "*, float *, float, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, "
     "unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int)",
     C::kSage2, 1'900'000, 60, {128, 24, 1}, {256, 1, 1}, 38, 2'048, 0, kLaunch},
    {"void qk_int_sv_f8_attn_kernel<(unsigned int)128, (unsigned int)64, (unsigned int)32, "
     "(unsigned int)64, (unsigned int)128, (DataType)1, (QuantGranularity)2, "
     "(QuantGranularity)2, float, (bool)1, __nv_bfloat16, (ComputeUnit)1, (MaskMode)0, (bool)0, "
     "(bool)1, (bool)0, (bool)1>(signed char *, signed char *, signed char *, T11 *, float *, "
     "float *, float *, float *, float *, unsigned int, unsigned int, unsigned int, unsigned "
     "int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, "
     "unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, float)",
     C::kSage2, 253'000'000, 15, {147, 24, 1}, {128, 1, 1}, 168, 0, 65'536, kLaunch},

    {"void cutlass::device_kernel<cutlass3x_sm120_bstensorop_s16864gemm_block_scaled_ue4m3xe2m1_"
     "ue4m3xe2m1_f32_bf16_bf16_128x128x256_1x1x1_0_tnn_align32_o_vs16_bias_bf16>(T1::Params)",
     C::kNvfp4Gemms, 20'800'000, 20, {48, 1, 1}, {384, 1, 1}, 168, 0, 90'112, kLaunchEx},
    {"void cutlass::device_kernel<cutlass3x_sm120_bstensorop_s16864gemm_block_scaled_ue4m3xe2m1_"
     "ue4m3xe2m1_f32_bf16_bf16_128x128x256_1x1x1_0_tnn_align32_o_vs16_bias_bf16_stream_k>(T1::"
     "Params)",
     C::kNvfp4Gemms, 6'950'000, 20, {48, 1, 1}, {384, 1, 1}, 168, 0, 90'112, kLaunchEx},
    {"void cutlass::device_kernel<cutlass3x_sm120_bstensorop_s16864gemm_block_scaled_ue4m3xe2m1_"
     "ue4m3xe2m1_f32_bf16_bf16_128x128x256_1x1x1_0_tnn_align32_o_vs16_bias_bf16_gelu>(T1::Params)",
     C::kNvfp4Gemms, 27'800'000, 20, {48, 1, 1}, {384, 1, 1}, 168, 0, 90'112, kLaunchEx},
    {"void cutlass::device_kernel<cutlass3x_sm120_bstensorop_s16864gemm_block_scaled_ue4m3xe2m1_"
     "ue4m3xe2m1_f32_bf16_bf16_256x128x256_1x1x1_0_tnn_align32_o_vs16_bias_bf16>(T1::Params)",
     C::kNvfp4Gemms, 27'800'000, 20, {48, 1, 1}, {384, 1, 1}, 168, 0, 98'304, kLaunchEx},

    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::AbsFunctor<c10::BFloat16>, std::array<char *, (unsigned long)2>>(int, T2, T3)",
     C::kNvfp4Packing, 1'600'000, 40, {11'520, 1, 1}, {128, 1, 1}, 28, 0, 0, kLaunch},
    {"void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<c10::BFloat16, "
     "at::native::func_wrapper_t<c10::BFloat16, at::native::MaxNanFunctor<c10::BFloat16>>, "
     "unsigned int, c10::BFloat16, (int)4, (int)4>>(T3)",
     C::kNvfp4Packing, 1'200'000, 40, {48, 1, 1}, {32, 16, 1}, 32, 0, 16, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<unsigned "
     "char>, std::array<char *, (unsigned long)1>>(int, T2, T3)",
     C::kNvfp4Packing, 40'000, 80, {720, 1, 1}, {128, 1, 1}, 16, 0, 0, kLaunch},
    {"void vllm::cvt_fp16_to_fp4<__nv_bfloat16, (bool)0, (bool)0>(int, int, int, int, const T1 "
     "*, const float *, unsigned int *, unsigned int *)",
     C::kNvfp4Packing, 2'200'000, 40, {96, 1, 1}, {512, 1, 1}, 40, 0, 0, kLaunch},

    {"void at::native::<unnamed>::vectorized_layer_norm_kernel<c10::BFloat16, float, "
     "(bool)0>(int, T2, const T1 *, const T1 *, const T1 *, T2 *, T2 *, T1 *)",
     C::kNormAndRope, 6'000'000, 40, {23'040, 1, 1}, {128, 1, 1}, 30, 0, 0, kLaunch},
    {"void tensorrt_llm::kernels::fusedQKNormRopeKernel<__nv_bfloat16, (int)128, (bool)1>(T1 *, "
     "int, int, int, float, const T1 *, const T1 *, float, const int *, int, float, float, "
     "float, float, int)",
     C::kNormAndRope, 8'000'000, 40, {5'760, 1, 1}, {256, 1, 1}, 48, 0, 0, kLaunch},
    {"void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<c10::BFloat16, "
     "at::native::MeanOps<c10::BFloat16, float, float, c10::BFloat16>, unsigned int, "
     "c10::BFloat16, (int)4, (int)4>>(T3)",
     C::kNormAndRope, 1'500'000, 40, {24, 8, 1}, {32, 16, 1}, 32, 0, 16, kLaunch},
    {"void vllm::rms_norm_kernel<c10::BFloat16, (int)8, (int)4>(T1 *, const T1 *, long, long, "
     "const T1 *, float, int, int)",
     C::kNormAndRope, 300'000, 60, {512, 1, 1}, {512, 1, 1}, 26, 0, 128, kLaunch},

    {"triton_poi_fused__to_copy__unsafe_view_add_mul_split_7", C::kRemainingGateAdd, 5'500'000, 40,
     {46'080, 1, 1}, {256, 1, 1}, 22, 0, 0, kDriverLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::addcmul_cuda_kernel(at::TensorIteratorBase &, const c10::Scalar &)::[lambda() "
     "(instance 1)]::operator ()() const::[lambda() (instance 4)]::operator ()() "
     "const::[lambda(c10::BFloat16, c10::BFloat16, c10::BFloat16) (instance 1)], std::array<char "
     "*, (unsigned long)4>>(int, T2, T3)",
     C::kRemainingGateAdd, 5'500'000, 40, {11'520, 1, 1}, {128, 1, 1}, 30, 0, 0, kLaunch},

    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char *, (unsigned long)3>>(int, T2, "
     "T3)",
     C::kOther, 9'000, 150, {30, 1, 1}, {128, 1, 1}, 24, 0, 0, kLaunch},
    {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
     "TensorIteratorBase "
     "&)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance 12)]::operator ()() "
     "const::[lambda(c10::BFloat16) (instance 1)], std::array<char *, (unsigned long)2>, (int)4, "
     "TrivialOffsetCalculator<(int)1, unsigned int>, TrivialOffsetCalculator<(int)1, unsigned "
     "int>, at::native::memory::LoadWithCast<(int)1>, "
     "at::native::memory::StoreWithCast<(int)1>>(int, T1, T2, T4, T5, T6, T7)",
     C::kOther, 60'000, 200, {2'048, 1, 1}, {128, 1, 1}, 26, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::<unnamed>::launch_clamp_scalar(at::TensorIteratorBase &, c10::Scalar, "
     "c10::Scalar, at::native::detail::ClampLimits)::[lambda() (instance 1)]::operator ()() "
     "const::[lambda() (instance 7)]::operator ()() const::[lambda(float) (instance 1)], "
     "std::array<char *, (unsigned long)2>>(int, T2, T3)",
     C::kOther, 3'500, 150, {1, 1, 1}, {128, 1, 1}, 20, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::BinaryFunctor<float, "
     "float, float, at::native::binary_internal::DivFunctor<float>>, std::array<char *, "
     "(unsigned long)3>>(int, T2, T3)",
     C::kOther, 3'500, 150, {1, 1, 1}, {128, 1, 1}, 20, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::BinaryFunctor<float, "
     "float, float, at::native::binary_internal::MulFunctor<float>>, std::array<char *, "
     "(unsigned long)3>>(int, T2, T3)",
     C::kOther, 3'500, 150, {1, 1, 1}, {128, 1, 1}, 20, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, "
     "std::array<char *, (unsigned long)1>>(int, T2, T3)",
     C::kOther, 5'000, 150, {4, 1, 1}, {128, 1, 1}, 16, 0, 0, kLaunch},
    {"void at::native::<unnamed>::CatArrayBatchedCopy<at::native::<unnamed>::OpaqueType<(unsigned "
     "int)2>, unsigned int, (int)3, (int)64, (int)64>(T1 *, "
     "at::native::<unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, "
     "at::native::<unnamed>::TensorSizeStride<T2, (unsigned int)4>, int, T2)",
     C::kOther, 14'000, 150, {96, 2, 1}, {512, 1, 1}, 32, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance "
     "1)], std::array<char *, (unsigned long)2>>(int, T2, T3)",
     C::kOther, 45'000, 200, {1'440, 1, 1}, {128, 1, 1}, 22, 0, 0, kLaunch},
    {"void at::native::elementwise_kernel_with_index<int, at::native::arange_cuda_out(const "
     "c10::Scalar &, const c10::Scalar &, const c10::Scalar &, at::Tensor &)::[lambda() "
     "(instance 1)]::operator ()() const::[lambda() (instance 2)]::operator ()() "
     "const::[lambda(long) (instance 1)]>(T1, T2, function_traits<T2>::result_type *)",
     C::kOther, 3'000, 150, {1, 1, 1}, {128, 1, 1}, 16, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::exp_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]::operator "
     "()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], "
     "std::array<char *, (unsigned long)2>>(int, T2, T3)",
     C::kOther, 3'000, 150, {1, 1, 1}, {128, 1, 1}, 18, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::cos_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]::operator "
     "()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], "
     "std::array<char *, (unsigned long)2>>(int, T2, T3)",
     C::kOther, 3'500, 150, {2, 1, 1}, {128, 1, 1}, 22, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::sin_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]::operator "
     "()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], "
     "std::array<char *, (unsigned long)2>>(int, T2, T3)",
     C::kOther, 3'500, 150, {2, 1, 1}, {128, 1, 1}, 22, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::AUnaryFunctor<float, "
     "float, float, at::native::binary_internal::MulFunctor<float>>, std::array<char *, "
     "(unsigned long)2>>(int, T2, T3)",
     C::kOther, 3'500, 150, {1, 1, 1}, {128, 1, 1}, 20, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::<unnamed>::silu_kernel(at::TensorIteratorBase &)::[lambda() (instance "
     "1)]::operator ()() const::[lambda() (instance 4)]::operator ()() "
     "const::[lambda(c10::BFloat16) (instance 1)], std::array<char *, (unsigned long)2>>(int, "
     "T2, T3)",
     C::kOther, 3'500, 150, {3, 1, 1}, {128, 1, 1}, 22, 0, 0, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, "
     "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase &, at::native::GeluType)::[lambda() "
     "(instance 2)]::operator ()() const::[lambda() (instance 4)]::operator ()() "
     "const::[lambda(c10::BFloat16) (instance 1)], std::array<char *, (unsigned long)2>>(int, "
     "T2, T3)",
     C::kOther, 90'000, 150, {8'192, 1, 1}, {128, 1, 1}, 26, 0, 0, kLaunch},
    {"nvjet_sm121_tst_mma_192x144x64_2_48x72x64_tmaAB_alignCD4_bz_TNNN", C::kOther, 900'000, 100,
     {48, 1, 1}, {384, 1, 1}, 168, 0, 213'024, kLaunchEx},
    {"sm121_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_ndhwc_kndhwc_tilesize128x128x64_stage4_"
     "warpsize2x2x1_g1_tensor16x8x16_kernel_cudnn",
     C::kOther, 3'200'000, 60, {288, 1, 1}, {128, 1, 1}, 232, 0, 81'920, kLaunch},
    {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_sub<float>, "
     "std::array<char *, (unsigned long)3>>(int, T2, T3)",
     C::kOther, 12'000, 150, {64, 1, 1}, {128, 1, 1}, 24, 0, 0, kLaunch},
};
// clang-format on
static_assert(std::size(kKinds) == kKindCount, "one entry per Kind, in enum order");

}  // namespace

std::string_view ComponentName(Component component) {
  switch (component) {
    case Component::kSage2: return "sage2";
    case Component::kNvfp4Gemms: return "nvfp4_gemms";
    case Component::kNvfp4Packing: return "nvfp4_packing";
    case Component::kNormAndRope: return "norm_and_rope";
    case Component::kRemainingGateAdd: return "remaining_gate_add";
    case Component::kOther: return "other";
  }
  return "other";
}

const KernelKind& KindInfo(Kind kind) { return kKinds[static_cast<int>(kind)]; }

std::span<const KernelKind> AllKinds() { return kKinds; }

}  // namespace stepstat::synth
