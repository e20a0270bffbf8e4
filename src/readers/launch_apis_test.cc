#include "readers/launch_apis.h"

#include <gtest/gtest.h>

namespace stepstat {
namespace {

TEST(LaunchApisTest, Normalize) {
  EXPECT_EQ(NormalizeCudaApiName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(NormalizeCudaApiName("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(NormalizeCudaApiName("cuLaunchKernel_ptsz"), "cuLaunchKernel");
  EXPECT_EQ(NormalizeCudaApiName("cuMemcpy_ptds"), "cuMemcpy");
  EXPECT_EQ(NormalizeCudaApiName("cuda_v"), "cuda_v");  // no digits: not a version
  EXPECT_EQ(NormalizeCudaApiName("cudaMalloc"), "cudaMalloc");
}

TEST(LaunchApisTest, LaunchList) {
  for (const char* name : {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel",
                           "cudaLaunchCooperativeKernelMultiDevice", "cuLaunchKernel",
                           "cuLaunchKernelEx", "cuLaunchCooperativeKernel", "cuLaunchGrid",
                           "cuLaunchGridAsync", "cudaGraphLaunch", "cuGraphLaunch"}) {
    EXPECT_TRUE(IsKernelLaunchApi(name)) << name;
  }
  for (const char* name : {"cudaMemcpy", "cudaLaunchHostFunc", "cudaDeviceSynchronize", ""}) {
    EXPECT_FALSE(IsKernelLaunchApi(name)) << name;
  }
}

}  // namespace
}  // namespace stepstat
