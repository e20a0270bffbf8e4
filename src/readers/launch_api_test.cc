#include "readers/launch_api.h"

#include <gtest/gtest.h>

namespace stepstat {
namespace {

TEST(LaunchApi, StripsNsysVersionAndPerThreadSuffixes) {
  EXPECT_EQ(StripCudaApiSuffixes("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripCudaApiSuffixes("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripCudaApiSuffixes("cudaGraphLaunch_v10000_ptsz"), "cudaGraphLaunch");
  EXPECT_EQ(StripCudaApiSuffixes("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(StripCudaApiSuffixes("_v12"), "_v12");  // nothing left before the suffix
  EXPECT_EQ(CudaApiDisplayName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(CudaApiDisplayName("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel_ptsz");
  EXPECT_EQ(CudaApiDisplayName("cudaMemcpy_vx"), "cudaMemcpy_vx");
}

TEST(LaunchApi, RecognisesKernelAndGraphLaunchesOnly) {
  for (const char* name :
       {"cudaLaunchKernel", "cudaLaunchKernel_v7000", "cudaLaunchKernelExC_v11060",
        "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchCooperativeKernel_v9000",
        "cudaLaunchCooperativeKernelMultiDevice", "cuLaunchCooperativeKernel",
        "cudaGraphLaunch_v10000", "cudaGraphLaunch_ptsz_v10000", "cuGraphLaunch"}) {
    EXPECT_TRUE(IsKernelLaunchApi(name)) << name;
  }
  for (const char* name :
       {"cudaMemcpyAsync_v3020", "cudaLaunchHostFunc_v10000", "cudaStreamSynchronize",
        "cuLaunchHostFunc", "cudaGraphInstantiate", "LaunchKernel", ""}) {
    EXPECT_FALSE(IsKernelLaunchApi(name)) << name;
  }
}

}  // namespace
}  // namespace stepstat
