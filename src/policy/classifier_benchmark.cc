// Cost of one Classify call (the caller caches per distinct name, so this is paid once per
// distinct kernel name) and of building a classifier.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "stepstat/policy.h"

namespace stepstat {
namespace {

// Names shaped like nsys's demangled ones, a few hundred bytes each.
std::vector<std::string> KernelNames() {
  std::vector<std::string> names;
  const char* bases[] = {
      "void qk_int_sv_f8_attn_kernel<128u, 64u, 32u, 64u, 128u, (DataType)1, float, true>",
      "cutlass3x_sm120_bstensorop_s16864gemm_block_scaled_ue4m3xe2m1_ue4m3xe2m1_f32_bf16_bf16",
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<unsigned char>>",
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps>>",
      "void at::native::elementwise_kernel<128, 4, at::native::CUDAFunctor_add<c10::BFloat16>>",
      "std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, float>",
  };
  for (int i = 0; i < 600; ++i) {
    std::string name = bases[i % 6];
    name += "(float const*, __nv_bfloat16*, unsigned int, unsigned int, unsigned int, int) #";
    name += std::to_string(i);
    names.push_back(std::move(name));
  }
  return names;
}

void BM_Classify(benchmark::State& state, std::string_view policy_name) {
  Result<Policy> policy = BuiltinPolicy(policy_name);
  Result<Classifier> classifier = Classifier::Create(*policy);
  const std::vector<std::string> names = KernelNames();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(classifier->Classify(names[i]));
    if (++i == names.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_Classify, dit_nvfp4, "dit-nvfp4");
BENCHMARK_CAPTURE(BM_Classify, llm_inference, "llm-inference");

void BM_CreateClassifier(benchmark::State& state) {
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  for (auto _ : state) benchmark::DoNotOptimize(Classifier::Create(*policy).ok());
}
BENCHMARK(BM_CreateClassifier);

}  // namespace
}  // namespace stepstat
