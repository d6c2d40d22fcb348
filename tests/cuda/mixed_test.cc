// mixed_test.cc — one process using the runtime (libcudart.so.13) and the driver API
// (libcuda.so.1): one device, one platform, handles that work across both.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cu_core.h"
#include "cuda_api.h"
#include "cudart_api.h"

namespace {
struct Environment {
  Environment() {
    setenv("SIMTVP_CONFIG", SIMTVP_SOURCE_DIR "/configs/SM75_RTX2060.config", 0);
    setenv("SIMTVP_QUIET", "1", 0);
  }
} environment;
}  // namespace

TEST(CudaMixed, RuntimeAndDriverShareOneDeviceAndItsHandles) {
  // The runtime initialises the device; the driver API then sees it and its primary context.
  int *d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 64), cudaSuccess);
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext cur = nullptr, primary = nullptr;
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
  EXPECT_EQ(cur, primary);
  // Memory from one API is device memory to the other.
  int h[16];
  for (int i = 0; i < 16; i++) h[i] = i * 5;
  ASSERT_EQ(cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(d), h, sizeof h), CUDA_SUCCESS);
  int back[16] = {};
  ASSERT_EQ(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[15], 75);
  CUdeviceptr e;
  ASSERT_EQ(cuMemAlloc_v2(&e, 64), CUDA_SUCCESS);
  ASSERT_EQ(cudaMemcpy(reinterpret_cast<void *>(e), d, 64, cudaMemcpyDeviceToDevice), cudaSuccess);
  // Streams and events are the same objects.
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cuMemsetD32Async(e, 9, 16, reinterpret_cast<CUstream>(s)), CUDA_SUCCESS);
  CUevent ev;
  ASSERT_EQ(cuEventCreate(&ev, 0), CUDA_SUCCESS);
  ASSERT_EQ(cudaEventRecord(reinterpret_cast<cudaEvent_t>(ev), s), cudaSuccess);
  ASSERT_EQ(cuEventSynchronize(ev), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(back, e, 64), CUDA_SUCCESS);
  EXPECT_EQ(back[3], 9);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cuEventDestroy_v2(ev), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(e), CUDA_SUCCESS);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}
