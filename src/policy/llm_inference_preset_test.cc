// The built-in `llm-inference` policy against real LLM kernel names: nsys kernel summaries of
// DeepSeek-OCR on an RTX 5090 (PyTorch) and Qwen3.5 on an RTX A6000 (kiln, on candle).
#include <gtest/gtest.h>

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
  EXPECT_EQ(names, (std::vector<std::string>{"attention", "gemm", "moe", "norm", "activation",
                                             "communication", "memory_copy"}));
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
      {"kiln_conv1d_prefill_k4_kernel", "other"},  // "prefill" is not a fill
      {"gatherTopK", "other"},                     // torch.topk selects, it does not copy
      {"CUDAFunctor_add<", "other"},               // residual adds: plain arithmetic
      {"bmul_f32", "other"},
      {"arange_cuda_out", "other"},
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
       "other"},
      {"small_reduce_kernel", "other"},  // "all_reduce" inside a word is no collective
  };
  for (const auto& [kernel, component] : cases) {
    EXPECT_EQ(ComponentOf(kernel), component) << kernel;
  }
}

// What stays in `other` is plain elementwise arithmetic (residual adds, scaling multiplies),
// sorts and sampling: no component of the policy describes those.
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
    EXPECT_LT(other / total, 0.20) << file << ": " << 100 * other / total << " % in other";
  }
  if (files == 0) GTEST_SKIP() << "real LLM kernel summaries not found under " STEPSTAT_SHARED_DIR;
}

}  // namespace
}  // namespace stepstat
