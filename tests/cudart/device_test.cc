// device_test.cc — devices (count, selection, properties from the configuration, attributes,
// limits, versions, reset), errors (codes, names, strings, last error, sticky device faults,
// messages), the CUDA 13 structure layouts and the exported symbol set.
#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <string>

#include "cudart_test_util.h"

using namespace cudart_test;

TEST(CudartDevice, OneDeviceAndItIsCurrent) {
  int count = 0, dev = -1;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  std::string err = stderr_of([] { EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice); });
  EXPECT_NE(err.find("one GPU"), std::string::npos) << err;
  EXPECT_EQ(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaInitDevice(0, 0, 0), cudaSuccess);
  int chosen = -1;
  cudaDeviceProp want;
  std::memset(&want, 0, sizeof want);
  ASSERT_EQ(cudaChooseDevice(&chosen, &want), cudaSuccess);
  EXPECT_EQ(chosen, 0);
  cudaGetLastError();
}

TEST(CudartDevice, PropertiesComeFromTheConfiguration) {
  // configs/SM75_RTX2060.config: compute capability 7.5, 30 SMs of one core each, 64 KiB shared
  // memory and 64K registers per SM, 1024 threads per SM.
  cudaDeviceProp p;
  ASSERT_EQ(cudaGetDeviceProperties(&p, 0), cudaSuccess);
  EXPECT_EQ(p.major, 7);
  EXPECT_EQ(p.minor, 5);
  EXPECT_EQ(p.multiProcessorCount, 30);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_EQ(p.sharedMemPerMultiprocessor, 65536u);
  EXPECT_EQ(p.sharedMemPerBlock, 49152u);
  EXPECT_EQ(p.regsPerMultiprocessor, 65536);
  EXPECT_EQ(p.maxThreadsPerMultiProcessor, 1024);
  EXPECT_EQ(p.maxThreadsPerBlock, 1024);
  EXPECT_GT(p.totalGlobalMem, 0u);
  EXPECT_GT(std::strlen(p.name), 0u);
  EXPECT_EQ(p.unifiedAddressing, 1);
  EXPECT_EQ(p.managedMemory, 1);
  EXPECT_EQ(p.concurrentManagedAccess, 0);
  EXPECT_EQ(p.canMapHostMemory, 1);  // zero-copy (docs/system-modes.md)
  // Every property read through cudaDeviceGetAttribute agrees.
  int v = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, 16, 0), cudaSuccess);  // cudaDevAttrMultiProcessorCount
  EXPECT_EQ(v, p.multiProcessorCount);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, 75, 0), cudaSuccess);  // cudaDevAttrComputeCapabilityMajor
  EXPECT_EQ(v, 7);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, 97, 0), cudaSuccess);  // cudaDevAttrMaxSharedMemoryPerBlockOptin
  EXPECT_EQ((size_t)v, p.sharedMemPerBlockOptin);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, 38, 0), cudaSuccess);  // cudaDevAttrL2CacheSize
  EXPECT_EQ(v, p.l2CacheSize);
  EXPECT_EQ(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartDevice, UnknownAttributeIsInvalidValue) {
  int v;
  EXPECT_EQ(cudaDeviceGetAttribute(&v, 44, 0), cudaErrorInvalidValue);  // a hole in the numbering
  EXPECT_EQ(cudaDeviceGetAttribute(&v, 9999, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetAttribute(&v, 1, 3), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetAttribute(nullptr, 1, 0), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartDevice, VersionsAreCuda13) {
  int rt = 0, drv = 0;
  ASSERT_EQ(cudaRuntimeGetVersion(&rt), cudaSuccess);
  ASSERT_EQ(cudaDriverGetVersion(&drv), cudaSuccess);
  EXPECT_EQ(rt, 13000);
  EXPECT_EQ(drv, 13000);
  EXPECT_EQ(cudaRuntimeGetVersion(nullptr), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartDevice, LimitsRoundTripAndDeviceRuntimeLimitsAreUnsupported) {
  size_t v = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitStackSize), cudaSuccess);
  EXPECT_EQ(v, 1024u);
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitStackSize, 4096), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetLimit(&v, cudaLimitStackSize), cudaSuccess);
  EXPECT_EQ(v, 4096u);
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 24), cudaSuccess);
  EXPECT_EQ(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4), cudaErrorUnsupportedLimit);
  EXPECT_EQ(cudaDeviceSetLimit((cudaLimit)42, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetLimit(nullptr, cudaLimitStackSize), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartDevice, CacheAndSharedMemoryPreferencesAreRecorded) {
  ASSERT_EQ(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared), cudaSuccess);
  cudaFuncCache c;
  ASSERT_EQ(cudaDeviceGetCacheConfig(&c), cudaSuccess);
  EXPECT_EQ(c, cudaFuncCachePreferShared);
  EXPECT_EQ(cudaFuncSetCacheConfig(kernels().kernel("add_one"), cudaFuncCachePreferL1), cudaSuccess);
  EXPECT_EQ(cudaDeviceSetCacheConfig((cudaFuncCache)9), cudaErrorInvalidValue);
  char bus[32];
  ASSERT_EQ(cudaDeviceGetPCIBusId(bus, sizeof bus, 0), cudaSuccess);
  int dev = -1;
  ASSERT_EQ(cudaDeviceGetByPCIBusId(&dev, bus), cudaSuccess);
  EXPECT_EQ(dev, 0);
  int can = 1;
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 0, 0), cudaSuccess);
  EXPECT_EQ(can, 0);
  cudaGetLastError();
}

// ---- errors ------------------------------------------------------------------------------------

TEST(CudartError, NamesAndStringsOfCodes) {
  EXPECT_STREQ(cudaGetErrorName(cudaSuccess), "cudaSuccess");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
  EXPECT_STREQ(cudaGetErrorName(cudaErrorNotSupported), "cudaErrorNotSupported");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
  EXPECT_STREQ(cudaGetErrorName((cudaError_t)12345), "cudaErrorUnknown");
  EXPECT_STREQ(cudaGetErrorString((cudaError_t)12345), "unrecognized error code");
  // The numbering is CUDA 13's.
  EXPECT_EQ((int)cudaErrorInvalidConfiguration, 9);
  EXPECT_EQ((int)cudaErrorInvalidDeviceFunction, 98);
  EXPECT_EQ((int)cudaErrorNoKernelImageForDevice, 209);
  EXPECT_EQ((int)cudaErrorInvalidResourceHandle, 400);
  EXPECT_EQ((int)cudaErrorNotReady, 600);
  EXPECT_EQ((int)cudaErrorLaunchFailure, 719);
}

TEST(CudartError, PeekKeepsTheLastErrorAndGetClearsIt) {
  cudaGetLastError();
  EXPECT_EQ(cudaMalloc(nullptr, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // cudaErrorNotReady is a state, not an error: it is not recorded.
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  int *d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 256), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("busy"), d3(1), d3(64), 0, s, d, 100), cudaSuccess);
  cudaError_t q = cudaStreamQuery(s);
  EXPECT_TRUE(q == cudaSuccess || q == cudaErrorNotReady);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudaStreamDestroy(s);
  cudaFree(d);
}

TEST(CudartError, KernelFaultIsStickyIllegalAddressUntilReset) {
  int *d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 64), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("fault"), d3(1), d3(1), 0, nullptr, d), cudaSuccess);  // asynchronous
  std::string err = stderr_of([] { EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress); });
  EXPECT_NE(err.find("cudaDeviceSynchronize"), std::string::npos) << err;
  EXPECT_NE(err.find("fault"), std::string::npos) << err;  // names the kernel
  // Sticky: every later call that uses the device reports it, and cudaGetLastError keeps it.
  void *p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaMemcpy(&p, d, 8, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
  // Reset clears it; the device works again (modules load anew).
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int n = 4;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 16), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, 16), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, nullptr, d, n), cudaSuccess);
  int h[4];
  ASSERT_EQ(cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[3], 1);
  cudaFree(d);
}

TEST(CudartError, TrapIsStickyLaunchFailure) {
  int *d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 64), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("trap_kernel"), d3(1), d3(32), 0, nullptr, d), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaErrorLaunchFailure);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(CudartError, FailedDeviceAssertIsStickyAssert) {
  int *d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 64), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("assert_kernel"), d3(1), d3(1), 0, nullptr, d), cudaSuccess);
  std::string err = stderr_of([] { EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorAssert); });
  EXPECT_NE(err.find("cudart_test_kernels.cu"), std::string::npos) << err;  // the assert's file
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST(CudartError, UnsupportedApiReturnsNotSupportedAndNamesItselfOnce) {
  // Declared here as the CUDA headers do; simtvp implements it as a reporting entry point.
  typedef cudaError_t (*pool_create_fn)(void **, const void *);
  void *lib = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  auto create = reinterpret_cast<pool_create_fn>(dlsym(lib, "cudaMemPoolCreate"));
  ASSERT_NE(create, nullptr);
  void *pool = nullptr;
  char props[88] = {};
  std::string err = stderr_of([&] { EXPECT_EQ(create(&pool, props), cudaErrorNotSupported); });
  EXPECT_NE(err.find("cudaMemPoolCreate is not supported by simtvp"), std::string::npos) << err;
  err = stderr_of([&] { EXPECT_EQ(create(&pool, props), cudaErrorNotSupported); });
  EXPECT_EQ(err, "");  // said once
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
  dlclose(lib);
}

TEST(CudartError, EveryCuda13RuntimeExportExistsWithItsVersion) {
  // The committed list is the export table of NVIDIA's libcudart.so.13 (CUDA 13.0): a program
  // calling any of them must load, so each must resolve under the version node libcudart.so.13.
  std::ifstream names(SIMTVP_SOURCE_DIR "/sw/cudart/cudart_api_names.txt");
  void *lib = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  std::string name;
  int n = 0;
  while (names >> name) {
    EXPECT_NE(dlvsym(lib, name.c_str(), "libcudart.so.13"), nullptr) << name;
    n++;
  }
  EXPECT_GT(n, 400);
  dlclose(lib);
}

// ---- the CUDA 13 layouts --------------------------------------------------------------------------

TEST(CudartLayout, StructuresMatchCuda13) {
  // Offsets and sizes from CUDA 13.0's driver_types.h / texture_types.h (gcc, x86-64).
  EXPECT_EQ(sizeof(cudaDeviceProp), 1008u);
  EXPECT_EQ(offsetof(cudaDeviceProp, uuid), 256u);
  EXPECT_EQ(offsetof(cudaDeviceProp, totalGlobalMem), 288u);
  EXPECT_EQ(offsetof(cudaDeviceProp, warpSize), 308u);
  EXPECT_EQ(offsetof(cudaDeviceProp, maxThreadsPerBlock), 320u);
  EXPECT_EQ(offsetof(cudaDeviceProp, major), 360u);
  EXPECT_EQ(offsetof(cudaDeviceProp, multiProcessorCount), 384u);
  EXPECT_EQ(offsetof(cudaDeviceProp, surfaceAlignment), 552u);
  EXPECT_EQ(offsetof(cudaDeviceProp, l2CacheSize), 596u);
  EXPECT_EQ(offsetof(cudaDeviceProp, maxThreadsPerMultiProcessor), 604u);
  EXPECT_EQ(offsetof(cudaDeviceProp, sharedMemPerMultiprocessor), 624u);
  EXPECT_EQ(offsetof(cudaDeviceProp, sharedMemPerBlockOptin), 672u);
  EXPECT_EQ(offsetof(cudaDeviceProp, maxBlocksPerMultiProcessor), 688u);
  EXPECT_EQ(offsetof(cudaDeviceProp, reservedSharedMemPerBlock), 696u);
  EXPECT_EQ(offsetof(cudaDeviceProp, hostNumaMultinodeIpcSupported), 780u);
  EXPECT_EQ(offsetof(cudaDeviceProp, reserved), 784u);
  EXPECT_EQ(sizeof(cudaFuncAttributes), 144u);
  EXPECT_EQ(offsetof(cudaFuncAttributes, numRegs), 28u);
  EXPECT_EQ(offsetof(cudaFuncAttributes, maxDynamicSharedSizeBytes), 44u);
  EXPECT_EQ(sizeof(cudaPointerAttributes), 88u);
  EXPECT_EQ(offsetof(cudaPointerAttributes, hostPointer), 16u);
  EXPECT_EQ(sizeof(cudaChannelFormatDesc), 20u);
  EXPECT_EQ(sizeof(cudaResourceDesc), 144u);
  EXPECT_EQ(offsetof(cudaResourceDesc, res.linear.sizeInBytes), 40u);
  EXPECT_EQ(offsetof(cudaResourceDesc, res.pitch2D.pitchInBytes), 56u);
  EXPECT_EQ(offsetof(cudaResourceDesc, flags), 136u);
  EXPECT_EQ(sizeof(cudaKernelNodeParams), 56u);
  EXPECT_EQ(offsetof(cudaKernelNodeParams, extra), 48u);
  EXPECT_EQ(sizeof(cudaMemsetParams), 40u);
  EXPECT_EQ(sizeof(cudaHostNodeParams), 16u);
  EXPECT_EQ(sizeof(cudaMemcpy3DParms), 160u);
  EXPECT_EQ(sizeof(cudaGraphNodeParams), 256u);
  EXPECT_EQ(offsetof(cudaGraphNodeParams, kernel), 16u);
  EXPECT_EQ(offsetof(cudaGraphNodeParams, memcpy.copyParams), 32u);
  EXPECT_EQ(offsetof(cudaGraphNodeParams, reserved2), 248u);
  EXPECT_EQ(sizeof(cudaGraphInstantiateParams), 32u);
  EXPECT_EQ(offsetof(cudaGraphInstantiateParams, result_out), 24u);
  EXPECT_EQ(sizeof(cudaGraphExecUpdateResultInfo), 24u);
  EXPECT_EQ(sizeof(cudaGraphEdgeData), 8u);
  EXPECT_EQ(sizeof(cudaTextureDesc), 72u);
  EXPECT_EQ(offsetof(cudaTextureDesc, borderColor), 24u);
  EXPECT_EQ(offsetof(cudaTextureDesc, normalizedCoords), 40u);
  EXPECT_EQ(sizeof(cudaResourceViewDesc), 112u);
  EXPECT_EQ(sizeof(cudaMemcpy3DParms), 160u);
  EXPECT_EQ(offsetof(cudaMemcpy3DParms, extent), 128u);
  EXPECT_EQ(sizeof(cudaLaunchConfig_t), 56u);
  EXPECT_EQ(sizeof(cudaLaunchAttribute), 72u);
}
