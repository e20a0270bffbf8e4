// Which CUDA API calls launch GPU work, by name, shared by the nsys SQLite and Kineto readers.
#pragma once

#include <string_view>

namespace stepstat {

/// `name` without nsys's version and per-thread-stream suffixes: "cudaLaunchKernel_ptsz_v7000"
/// → "cudaLaunchKernel". The view points into `name`.
std::string_view StripCudaApiSuffixes(std::string_view name);

/// `name` without a trailing "_v<digits>" only, as nsys's "API Function" column prints it
/// ("cudaLaunchKernel_v7000" → "cudaLaunchKernel"). The view points into `name`.
std::string_view CudaApiDisplayName(std::string_view name);

/// True for kernel and graph launch calls (cudaLaunchKernel*, cuLaunchKernel*,
/// cudaLaunchCooperativeKernel*, cuLaunchCooperativeKernel*, cudaGraphLaunch*, cuGraphLaunch*),
/// with or without suffixes.
bool IsKernelLaunchApi(std::string_view name);

}  // namespace stepstat
