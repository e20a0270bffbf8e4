// Which CUDA API calls launch GPU work: the one list, used by every reader of API traces.
#pragma once

#include <string_view>

namespace stepstat {

/// Strips version and per-thread-stream suffixes: "cudaLaunchKernel_ptsz_v7000" →
/// "cudaLaunchKernel", "cuLaunchKernel_ptsz" → "cuLaunchKernel".
std::string_view NormalizeCudaApiName(std::string_view name);

/// True for a normalized kernel-launch API name (cudaLaunchKernel, cuLaunchKernelEx,
/// cudaGraphLaunch, cuLaunchGrid*...).
bool IsKernelLaunchApi(std::string_view normalized_name);

/// True for a normalized API name that issues a copy or memset on the GPU (cudaMemcpy*,
/// cudaMemset*, cuMemcpy*, cuMemset*): what a GpuOp of kind memcpy or memset correlates to.
bool IsCopyApi(std::string_view normalized_name);

}  // namespace stepstat
