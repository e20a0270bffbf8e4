// The built-in `llm-inference` policy against real LLM kernel names: nsys kernel summaries of
// DeepSeek-OCR on an RTX 5090 (PyTorch) and Qwen3.5 on an RTX A6000 (kiln, on candle), and the
// labeled names of llama.cpp, vLLM, SGLang, FlashInfer, TensorRT-LLM and NCCL kernels in
// tests/fixtures/policy/llm-kernels.tsv.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stepstat/policy.h"

namespace stepstat {
namespace {

/// Splits one CSV record (RFC 4180 quoting; these files hold no newline inside a field).
std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

struct KernelTime {
  std::string name;
  double ns;
};

/// (name, total ns) rows of an nsys kernel summary: `Total Time (ns)`, or `KAvg (ns)` x
/// `Count` in cuda_kern_exec_sum. Empty when the file is absent.
std::vector<KernelTime> ReadKernelSummary(const std::string& file) {
  std::ifstream in(std::string(STEPSTAT_SHARED_DIR "/data/real/") + file, std::ios::binary);
  std::vector<KernelTime> rows;
  std::string line;
  if (!std::getline(in, line)) return rows;
  std::map<std::string, size_t> column;
  std::vector<std::string> header = SplitCsv(line);
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  const size_t name = column.count("Name") ? column["Name"] : column.at("Kernel Name");
  while (std::getline(in, line)) {
    std::vector<std::string> fields = SplitCsv(line);
    if (fields.size() != header.size()) continue;
    double ns = column.count("Total Time (ns)") ? std::stod(fields[column["Total Time (ns)"]])
                                                : std::stod(fields[column.at("KAvg (ns)")]) *
                                                      std::stod(fields[column.at("Count")]);
    rows.push_back({fields[name], ns});
  }
  return rows;
}

const std::vector<std::string> kRealFiles = {
    "llmperfopt_dsocr_rtx5090_allstage_cuda_gpu_kern_sum.csv",
    "llmperfopt_dsocr_rtx5090_prefill_cuda_gpu_kern_sum.csv",
    "kiln_qwen35_4b_a6000_c52_cuda_kern_exec_sum.csv",
    "kiln_qwen35_4b_a6000_mtp_decode_nvtx_kern_sum.csv",
    "kiln_qwen35_tier2_cuda_gpu_kern_sum.csv",
};

class LlmInferencePolicy : public testing::Test {
 protected:
  void SetUp() override {
    Result<Policy> policy = BuiltinPolicy("llm-inference");
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    policy_ = *policy;
    Result<Classifier> classifier = Classifier::Create(policy_);
    ASSERT_TRUE(classifier.ok()) << classifier.status().message();
    classifier_ = std::make_unique<Classifier>(std::move(classifier).value());
  }
  std::string ComponentOf(std::string_view kernel) const {
    const int index = classifier_->Classify(kernel);
    return index == classifier_->other_index() ? "other" : policy_.components[index].name;
  }

  Policy policy_;
  std::unique_ptr<Classifier> classifier_;
};

TEST_F(LlmInferencePolicy, HasTheAgreedComponents) {
  std::vector<std::string> names;
  for (const ComponentRule& rule : policy_.components) names.push_back(rule.name);
  EXPECT_EQ(names, (std::vector<std::string>{"communication", "moe", "sampling", "rope",
                                             "attention", "gemm", "quantization", "norm",
                                             "activation", "memory_copy", "elementwise"}));
}

// Every real name holding `marker` lands in `component` (and there is at least one).
TEST_F(LlmInferencePolicy, NotableRealKernelsLandWhereTheyBelong) {
  std::vector<KernelTime> all;
  for (const std::string& file : kRealFiles) {
    std::vector<KernelTime> rows = ReadKernelSummary(file);
    all.insert(all.end(), rows.begin(), rows.end());
  }
  if (all.empty()) GTEST_SKIP() << "real LLM kernel summaries not found under " STEPSTAT_SHARED_DIR;
  const std::vector<std::pair<std::string, std::string>> expectations = {
      {"internal::gemvx::kernel<", "gemm"},  // cuBLAS GEMV: decode's largest kernel
      {"ampere_bf16_s16816gemm", "gemm"},
      {"cutlass_80_tensorop_bf16_s16816gemm_relu", "gemm"},  // GEMM with fused ReLU: still GEMM
      {"void Marlin<", "gemm"},                              // int4 weight-only GEMM
      {"splitKreduce_kernel", "gemm"},
      {"fprop_implicit_gemm", "gemm"},
      {"s16816fprop_optimized", "gemm"},
      {"flash_fwd_splitkv_kernel", "attention"},
      {"flash_fwd_splitkv_combine_kernel", "attention"},
      {"fmha_cutlassF", "attention"},
      {"gdn_chunk_scan_kernel", "attention"},  // gated delta net (linear attention)
      {"recurrent_gdn_fwd_kernel", "attention"},
      {"softmax_warp_forward", "attention"},
      {"fused_rmsnorm_kernel", "norm"},
      {"vectorized_layer_norm_kernel", "norm"},
      {"rsqrt_kernel_cuda", "norm"},
      {"MeanOps<", "norm"},
      {"silu_kernel", "activation"},
      {"GeluCUDAKernelImpl", "activation"},
      {"sigmoid_kernel_cuda", "activation"},
      {"ucopy_bf16", "memory_copy"},
      {"copy2d_", "memory_copy"},
      {"cast_bf16_f32", "memory_copy"},
      {"direct_copy_kernel_cuda", "memory_copy"},
      {"CatArrayBatchedCopy", "memory_copy"},
      {"nchwToNhwcKernel", "memory_copy"},
      {"FillFunctor<", "memory_copy"},
      {"indexSelectSmallIndex", "memory_copy"},
      // The gated delta net's short convolution; and "prefill" is not a fill.
      {"kiln_conv1d_prefill_k4_kernel", "attention"},
      {"gatherTopK", "sampling"},  // torch.topk selects, it does not copy
      {"fast_argmax_f32", "sampling"},
      {"bitonicSortKVInPlace", "sampling"},
      {"CUDAFunctor_add<", "elementwise"},  // residual adds
      {"bmul_f32", "elementwise"},          // candle's binary and unary kernels
      {"uneg_f32", "elementwise"},
      {"affine_f32", "elementwise"},
      {"is_u32_bf16", "memory_copy"},  // candle's index_select
      {"arange_cuda_out", "elementwise"},
  };
  for (const auto& [marker, component] : expectations) {
    int found = 0;
    for (const KernelTime& row : all) {
      if (row.name.find(marker) == std::string::npos) continue;
      ++found;
      EXPECT_EQ(ComponentOf(row.name), component) << row.name;
    }
    EXPECT_GT(found, 0) << "no real kernel name holds " << marker;
  }
}

// Kinds of kernel the real files lack, in the spelling their libraries use.
TEST_F(LlmInferencePolicy, MoeCommunicationAndLookalikes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"fused_moe_kernel", "moe"},
      {"void vllm::moe::topkGatingSoftmax<8, 64, 4, 16, int>(float const*, bool const*, float*, "
       "int, int*, int*, int, int, int)",
       "moe"},
      {"void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, "
       "int, int, unsigned long, int*)",
       "moe"},
      {"void cutlass::Kernel<cutlass::gemm::kernel::MoeFCGemm<...>>(...)", "moe"},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       "communication"},
      {"ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)", "communication"},
      {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, "
       "vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
       "communication"},
      {"void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, "
       "c10::BFloat16 const*, float, int, int)",
       "norm"},
      {"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, "
       "true>(c10::BFloat16*, c10::BFloat16 const*, int)",
       "activation"},
      {"void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128, "
       "(vllm::Fp8KVCacheDataType)0, false, 512>(...)",
       "attention"},
      {"void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024u, "
       "(cub::BlockScanAlgorithm)2, (cub::BlockReduceAlgorithm)2, 1u, false, int>(...)",
       "sampling"},
      {"small_reduce_kernel", "other"},  // "all_reduce" inside a word is no collective
  };
  for (const auto& [kernel, component] : cases) {
    EXPECT_EQ(ComponentOf(kernel), component) << kernel;
  }
}

// Issue 18's bar: under 5 % of each real LLM trace's kernel time is left in `other`.
TEST_F(LlmInferencePolicy, LittleTimeIsLeftInOther) {
  int files = 0;
  for (const std::string& file : kRealFiles) {
    std::vector<KernelTime> rows = ReadKernelSummary(file);
    if (rows.empty()) continue;
    ++files;
    double total = 0, other = 0;
    for (const KernelTime& row : rows) {
      total += row.ns;
      if (ComponentOf(row.name) == "other") other += row.ns;
    }
    ASSERT_GT(total, 0) << file;
    EXPECT_LT(other / total, 0.05) << file << ": " << 100 * other / total << " % in other";
  }
  if (files == 0) GTEST_SKIP() << "real LLM kernel summaries not found under " STEPSTAT_SHARED_DIR;
}

struct LabeledKernel {
  int line;
  std::string component;
  std::string name;
  std::string source;
};

/// Rows of a `component<TAB>kernel_name<TAB>source` file; `#` lines and the header are skipped.
std::vector<LabeledKernel> ReadLabeled(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<LabeledKernel> rows;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#' || line.rfind("component\t", 0) == 0) continue;
    std::vector<std::string> fields(1);
    for (char c : line) {
      if (c == '\t') {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    rows.push_back({number, fields[0], fields.size() > 1 ? fields[1] : "",
                    fields.size() > 2 ? fields[2] : ""});
  }
  return rows;
}

// Every labeled name from public code (llama.cpp, vLLM, SGLang, FlashInfer, TensorRT-LLM,
// FlashAttention, FlashMLA, Marlin, NCCL) lands in its component, and each row says its source.
TEST_F(LlmInferencePolicy, LabeledPublicKernelNames) {
  const std::string path = STEPSTAT_SOURCE_DIR "/tests/fixtures/policy/llm-kernels.tsv";
  std::vector<LabeledKernel> rows = ReadLabeled(path);
  ASSERT_GE(rows.size(), 60u) << path;
  std::vector<std::string> components;
  for (const LabeledKernel& row : rows) {
    EXPECT_FALSE(row.source.empty()) << path << ":" << row.line << ": no source";
    EXPECT_EQ(ComponentOf(row.name), row.component) << path << ":" << row.line << ": " << row.name;
    components.push_back(row.component);
  }
  for (const ComponentRule& rule : policy_.components) {
    EXPECT_NE(std::find(components.begin(), components.end(), rule.name), components.end())
        << "no labeled kernel for " << rule.name;
  }
}

// Issue 18: `flash` matched inside a `flashinfer::` type in a quantize kernel's arguments and
// sent it to attention; a namespace or type named in the arguments says nothing of the kernel.
TEST_F(LlmInferencePolicy, ArgumentsDoNotNameTheKernel) {
  EXPECT_EQ(ComponentOf("void tensorrt_llm::kernels::quantize_with_block_size<(tensorrt_llm::"
                        "BlockScaleQuantizationType)0, __nv_bfloat16, (int)16, (bool)0>(int, int, "
                        "int, int, const T2 *, const float *, unsigned int *, unsigned int *, "
                        "flashinfer::QuantizationSFLayout)"),
            "quantization");
  // SageAttention's mainloop takes (QuantGranularity) template values: still attention.
  EXPECT_EQ(
      ComponentOf("void qk_int_sv_f8_attn_kernel<128u, 64u, 32u, 64u, 128u, (DataType)1, "
                  "(QuantGranularity)2, (QuantGranularity)2, float, true, __nv_bfloat16>(...)"),
      "attention");
  // FlashInfer's namespace holds more than attention.
  EXPECT_EQ(ComponentOf("void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(...)"), "norm");
  EXPECT_EQ(ComponentOf("void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, "
                        "&silu>(__nv_bfloat16*, __nv_bfloat16 const*, int)"),
            "activation");
  // The anonymous namespace as either tool spells it does not hide the kernel's own name.
  EXPECT_EQ(ComponentOf("void (anonymous namespace)::quantize_kernel<float>(float const*)"),
            "quantization");
  EXPECT_EQ(ComponentOf("void <unnamed>::quantize_kernel<float>(const float *)"), "quantization");
}

// Issue 18: llama.cpp's matmuls are mul_mat_*, which `matmul` never matched.
TEST_F(LlmInferencePolicy, LlamaCppMatmulsAreGemms) {
  EXPECT_EQ(ComponentOf("void mul_mat_q<(ggml_type)12, (int)128, (bool)0>(...)"), "gemm");
  EXPECT_EQ(ComponentOf("void mul_mat_vec_q<(ggml_type)12, (int)1, (bool)0>(...)"), "gemm");
  EXPECT_EQ(ComponentOf("void quantize_mmq_q8_1<(mmq_q8_1_ds_layout)1>(...)"), "quantization");
}

// Issue 18: expert GEMMs went to `gemm` while `moe` claimed them.
TEST_F(LlmInferencePolicy, ExpertGemmsAreMoe) {
  EXPECT_EQ(ComponentOf("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<"
                        "cutlass::gemm::GroupProblemShape<cute::tuple<int, int, int>>, ...>>(...)"),
            "moe");
  EXPECT_EQ(ComponentOf("bmm_E4m3_E4m3E4m3_Fp32_t128x8x128u2_s8_et64x8_m64x8x32_cga1x1x1_16dp256b_"
                        "TN_transOut_noShflA_dsFp8_schedS_bN_ldgsts_clmp_dynBatch_sm100a"),
            "moe");
  EXPECT_EQ(ComponentOf("void marlin_moe_wna16::Marlin<__nv_bfloat16, 4>(...)"), "moe");
}

}  // namespace
}  // namespace stepstat
