// ParsePolicy on arbitrary TOML, then the Classifier on a few names. Checks: a parse error
// follows the message rules; a parsed policy builds a classifier; every name gets an index
// in [0, other_index()], and the same index again (classification is a pure function).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "stepstat/policy.h"

namespace {

constexpr std::string_view kName = "fuzz.toml";

constexpr std::string_view kNames[] = {
    "",
    "void "
    "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(T1::"
    "Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T2, "
    "T3)",
    "[CUDA memcpy HtoD]",
    "flash_fwd_kernel\n\x1b[31mred\xff\xfe",
    "ampere_sgemm_128x64_nn",
    "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NTN",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  stepstat::Result<stepstat::Policy> policy = stepstat::ParsePolicy(text, kName);
  if (!policy.ok()) {
    stepstat::fuzz::CheckErrorMessage(policy.status(), kName);
    return 0;
  }
  for (const stepstat::ComponentRule& rule : policy->components) FUZZ_CHECK(rule.name != "other");
  // A small memory budget also drives the one-pattern-at-a-time fallback.
  stepstat::ClassifierOptions options;
  options.regex_max_mem_bytes = (size % 2 == 0) ? (int64_t{8} << 20) : (int64_t{1} << 12);
  stepstat::Result<stepstat::Classifier> classifier =
      stepstat::Classifier::Create(policy.value(), options);
  if (!classifier.ok()) {
    // Only the starved memory budgets above get here (ParsePolicy compiles every pattern
    // with the default budget the CLI's classifier uses); a Classifier has no file to name.
    stepstat::fuzz::CheckOneLineMessage(classifier.status());
    return 0;
  }
  const int other = classifier->other_index();
  FUZZ_CHECK(other == static_cast<int>(policy->components.size()));
  for (std::string_view name : kNames) {
    int index = classifier->Classify(name);
    FUZZ_CHECK(index >= 0 && index <= other);
    FUZZ_CHECK(classifier->Classify(name) == index);
  }
  // The policy text itself as a kernel name: names are arbitrary bytes.
  int index = classifier->Classify(text.substr(0, 256));
  FUZZ_CHECK(index >= 0 && index <= other);
  return 0;
}
