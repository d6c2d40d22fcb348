// launch_test.cc — registration by hand (as nvcc's host code does it), both launch paths,
// parameter packing, launch-configuration errors, kernel attributes and occupancy, and fatbins of
// every kind (zstd, uncompressed, newer PTX, SASS only, corrupt), loaded lazily.
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "cudart_test_util.h"

using namespace cudart_test;

namespace {

// n ints on the device, initialised to 0..n-1.
int *device_iota(int n) {
  std::vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = i;
  int *d = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), n * sizeof(int)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

std::vector<int> to_host(const int *d, int n) {
  std::vector<int> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

}  // namespace

TEST(CudartLaunch, Cuda13LaunchPathRunsTheRegisteredKernel) {
  // nvcc 13's stub: __cudaGetKernel once, then pop the <<<>>> configuration and __cudaLaunchKernel.
  const void *stub = kernels().kernel("add_one");
  cudaKernel_t k = nullptr;
  ASSERT_EQ(__cudaGetKernel(&k, stub), cudaSuccess);
  int n = 300, *d = device_iota(n);
  ASSERT_EQ(__cudaPushCallConfiguration(d3(3), d3(128), 0, nullptr), 0u);
  dim3 g, b;
  size_t smem = 1;
  cudaStream_t s = reinterpret_cast<cudaStream_t>(0x1234);
  ASSERT_EQ(__cudaPopCallConfiguration(&g, &b, &smem, &s), cudaSuccess);
  EXPECT_EQ(g.x, 3u);
  EXPECT_EQ(b.x, 128u);
  EXPECT_EQ(smem, 0u);
  EXPECT_EQ(s, nullptr);
  void *args[] = {&d, &n};
  ASSERT_EQ(__cudaLaunchKernel(k, g, b, args, smem, s), cudaSuccess);
  std::vector<int> h = to_host(d, n);
  for (int i = 0; i < n; i++) ASSERT_EQ(h[i], i + 1) << i;
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST(CudartLaunch, LegacyLaunchPathRunsThroughCudaLaunchKernel) {
  int n = 100, *d = device_iota(n);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(128), 0, nullptr, d, n), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(128), 0, nullptr, d, n), cudaSuccess);
  std::vector<int> h = to_host(d, n);
  for (int i = 0; i < n; i++) ASSERT_EQ(h[i], i + 2) << i;
  cudaFree(d);
}

TEST(CudartLaunch, ParametersOfEverySizeArePackedByThePtxLayout) {
  struct pair16 {
    int a;
    double b;
  };
  long long *out = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&out), 8 * sizeof(long long)), cudaSuccess);
  char c = -5;
  short s = 1234;
  int i = -70000;
  long long l = 1ll << 40;
  float f = 2.25f;
  double d = 0.375;
  pair16 p = {77, 4.5};
  ASSERT_EQ(launch(kernels().kernel("many_params"), d3(1), d3(1), 0, nullptr, c, s, i, l, f, d, p, out), cudaSuccess);
  long long h[8];
  ASSERT_EQ(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[0], -5);
  EXPECT_EQ(h[1], 1234);
  EXPECT_EQ(h[2], -70000);
  EXPECT_EQ(h[3], 1ll << 40);
  EXPECT_EQ(h[4], 9);  // 2.25 * 4
  EXPECT_EQ(h[5], 3);  // 0.375 * 8
  EXPECT_EQ(h[6], 77);
  EXPECT_EQ(h[7], 9);  // 4.5 * 2
  cudaFree(out);
}

TEST(CudartLaunch, DynamicSharedMemoryIsSizedByTheLaunch) {
  int n = 256, *d = device_iota(n);
  ASSERT_EQ(launch(kernels().kernel("dyn_reverse"), d3(2), d3(128), 128 * sizeof(int), nullptr, d), cudaSuccess);
  std::vector<int> h = to_host(d, n);
  EXPECT_EQ(h[0], 127);
  EXPECT_EQ(h[127], 0);
  EXPECT_EQ(h[128], 255);
  cudaFree(d);
}

TEST(CudartLaunch, UnregisteredFunctionIsInvalidDeviceFunction) {
  static char not_a_kernel;
  std::string err = stderr_of([] {
    EXPECT_EQ(launch(&not_a_kernel, d3(1), d3(1), 0, nullptr, 0), cudaErrorInvalidDeviceFunction);
  });
  EXPECT_NE(err.find("cudaLaunchKernel"), std::string::npos) << err;
  EXPECT_NE(err.find("not a registered kernel"), std::string::npos) << err;
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaLaunchKernel(nullptr, d3(1), d3(1), nullptr, 0, nullptr), cudaErrorInvalidDeviceFunction);
  cudaKernel_t k;
  EXPECT_EQ(__cudaGetKernel(&k, &not_a_kernel), cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
}

TEST(CudartLaunch, BadGridAndBlockSizesAreInvalidConfiguration) {
  int *d = device_iota(4), n = 4;
  const void *k = kernels().kernel("add_one");
  EXPECT_EQ(launch(k, d3(0), d3(32), 0, nullptr, d, n), cudaErrorInvalidConfiguration);
  EXPECT_EQ(launch(k, d3(1), d3(0), 0, nullptr, d, n), cudaErrorInvalidConfiguration);
  EXPECT_EQ(launch(k, d3(1), d3(2048), 0, nullptr, d, n), cudaErrorInvalidConfiguration);  // > 1024 threads
  EXPECT_EQ(launch(k, d3(1), d3(32, 32, 2), 0, nullptr, d, n), cudaErrorInvalidConfiguration);
  EXPECT_EQ(launch(k, d3(1, 70000), d3(1), 0, nullptr, d, n), cudaErrorInvalidConfiguration);  // grid y > 65535
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // a launch error is not sticky
  EXPECT_EQ(launch(k, d3(1), d3(4), 0, nullptr, d, n), cudaSuccess);
  cudaFree(d);
}

TEST(CudartLaunch, TooMuchDynamicSharedMemoryIsInvalidConfigurationUntilRaised) {
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int *d = device_iota(128);
  const void *k = kernels().kernel("dyn_reverse");
  size_t too_much = prop.sharedMemPerBlock + 1024;
  std::string err = stderr_of([&] { EXPECT_EQ(launch(k, d3(1), d3(128), too_much, nullptr, d), cudaErrorInvalidConfiguration); });
  EXPECT_NE(err.find("dynamic shared memory"), std::string::npos) << err;
  if (prop.sharedMemPerBlockOptin >= too_much) {
    // cudaFuncSetAttribute(MaxDynamicSharedMemorySize) opts in to more than 48 KiB.
    ASSERT_EQ(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)too_much), cudaSuccess);
    EXPECT_EQ(launch(k, d3(1), d3(128), too_much, nullptr, d), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  EXPECT_EQ(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)prop.sharedMemPerBlockOptin + 1),
            cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartLaunch, LaunchBoundsExceededIsLaunchOutOfResources) {
  int *d = device_iota(128);
  EXPECT_EQ(launch(kernels().kernel("bounded64"), d3(1), d3(128), 0, nullptr, d), cudaErrorLaunchOutOfResources);
  EXPECT_EQ(launch(kernels().kernel("bounded64"), d3(1), d3(64), 0, nullptr, d), cudaSuccess);
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartLaunch, NullArgumentsForAKernelWithParametersIsInvalidValue) {
  EXPECT_EQ(cudaLaunchKernel(kernels().kernel("add_one"), d3(1), d3(1), nullptr, 0, nullptr), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartLaunch, LaunchOnADestroyedStreamIsInvalidResourceHandle) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  int *d = device_iota(4), n = 4;
  EXPECT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, s, d, n), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartLaunch, PopWithoutPushIsMissingConfiguration) {
  dim3 g, b;
  size_t smem;
  cudaStream_t s;
  EXPECT_EQ(__cudaPopCallConfiguration(&g, &b, &smem, &s), cudaErrorMissingConfiguration);
  cudaGetLastError();
}

TEST(CudartLaunch, CooperativeLaunchChecksThatAllBlocksFit) {
  int *d = device_iota(64), n = 64;
  void *args[] = {&d, &n};
  const void *k = kernels().kernel("add_one");
  EXPECT_EQ(cudaLaunchCooperativeKernel(k, d3(2), d3(32), args, 0, nullptr), cudaSuccess);
  int per_sm = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 32, 0), cudaSuccess);
  cudaDeviceProp prop;
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  unsigned too_many = (unsigned)(per_sm * prop.multiProcessorCount + 1);
  EXPECT_EQ(cudaLaunchCooperativeKernel(k, d3(too_many), d3(32), args, 0, nullptr), cudaErrorCooperativeLaunchTooLarge);
  cudaGetLastError();
  std::vector<int> h = to_host(d, n);
  EXPECT_EQ(h[63], 64);
  cudaFree(d);
}

TEST(CudartLaunch, LaunchKernelExRunsAndRefusesClusters) {
  int *d = device_iota(32), n = 32;
  void *args[] = {&d, &n};
  cudaLaunchAttribute attr;
  std::memset(&attr, 0, sizeof attr);
  attr.id = cudaLaunchAttributeCooperative;
  attr.val.cooperative = 1;
  cudaLaunchConfig_t cfg = {d3(1), d3(32), 0, nullptr, &attr, 1};
  EXPECT_EQ(cudaLaunchKernelExC(&cfg, kernels().kernel("add_one"), args), cudaSuccess);
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  // clusters need compute capability 9.0; the default GPU is 7.5 (tests/kernels/hopper.cu runs them)
  EXPECT_EQ(cudaLaunchKernelExC(&cfg, kernels().kernel("add_one"), args), cudaErrorInvalidClusterSize);
  EXPECT_EQ(cudaLaunchKernelExC(nullptr, kernels().kernel("add_one"), args), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(to_host(d, n)[5], 6);
  cudaFree(d);
}

TEST(CudartKernel, FuncGetAttributesReportsTheKernelsResources) {
  cudaFuncAttributes a;
  ASSERT_EQ(cudaFuncGetAttributes(&a, kernels().kernel("big_static_smem")), cudaSuccess);
  EXPECT_EQ(a.sharedSizeBytes, 40960u);  // __shared__ int buf[10240]
  EXPECT_GT(a.numRegs, 0);
  EXPECT_EQ(a.ptxVersion, 75);
  EXPECT_EQ(a.binaryVersion, 75);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 49152 - 40960);
  ASSERT_EQ(cudaFuncGetAttributes(&a, kernels().kernel("bounded64")), cudaSuccess);
  EXPECT_EQ(a.maxThreadsPerBlock, 64);  // __launch_bounds__(64)
  ASSERT_EQ(cudaFuncGetAttributes(&a, kernels().kernel("use_symbols")), cudaSuccess);
  EXPECT_EQ(a.constSizeBytes, 64u);  // const_table
  EXPECT_EQ(cudaFuncGetAttributes(nullptr, kernels().kernel("add_one")), cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST(CudartKernel, OccupancyFollowsSharedMemory) {
  // 40 KiB of static shared memory per block, 64 KiB per SM on the sm_75 configuration: one block.
  int n = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernels().kernel("big_static_smem"), 128, 0), cudaSuccess);
  EXPECT_EQ(n, 1);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernels().kernel("add_one"), 1024, 0), cudaSuccess);
  EXPECT_EQ(n, 1);  // 1024 threads per SM on sm_75
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernels().kernel("add_one"), 0, 0), cudaErrorInvalidValue);
  size_t dyn = 0;
  ASSERT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, kernels().kernel("dyn_reverse"), 2, 128), cudaSuccess);
  EXPECT_EQ(dyn, 32768u);  // two blocks share the 64 KiB
  cudaGetLastError();
}

TEST(CudartKernel, FunctionHandlesAndNames) {
  cudaFunction_t f = nullptr;
  ASSERT_EQ(cudaGetFuncBySymbol(&f, kernels().kernel("add_one")), cudaSuccess);
  EXPECT_NE(f, nullptr);
  const char *name = nullptr;
  ASSERT_EQ(cudaFuncGetName(&name, kernels().kernel("add_one")), cudaSuccess);
  EXPECT_STREQ(name, "add_one");
  cudaKernel_t k = nullptr;
  ASSERT_EQ(cudaGetKernel(&k, kernels().kernel("add_one")), cudaSuccess);
  // A cudaKernel_t launches like its host stub.
  int *d = device_iota(8), n = 8;
  EXPECT_EQ(launch(k, d3(1), d3(8), 0, nullptr, d, n), cudaSuccess);
  EXPECT_EQ(to_host(d, n)[7], 8);
  cudaFree(d);
}

// ---- fatbins --------------------------------------------------------------------------------------

TEST(CudartFatbin, UncompressedFatbinRunsLikeTheZstdOne) {
  static Registration r("cudart_test_kernels.no_compress.fatbin", {"add_one"});
  int *d = device_iota(16), n = 16;
  ASSERT_EQ(launch(r.kernel("add_one"), d3(1), d3(16), 0, nullptr, d, n), cudaSuccess);
  EXPECT_EQ(to_host(d, n)[15], 16);
  cudaFree(d);
}

TEST(CudartFatbin, PtxNewerThanTheDeviceRunsWithAWarning) {
  static Registration r("cudart_test_kernels.compute_86.fatbin", {"add_one"});
  int *d = device_iota(16), n = 16;
  std::string err = stderr_of([&] { EXPECT_EQ(launch(r.kernel("add_one"), d3(1), d3(16), 0, nullptr, d, n), cudaSuccess); });
  EXPECT_NE(err.find("compute_86"), std::string::npos) << err;
  EXPECT_NE(err.find("newer than the configured GPU"), std::string::npos) << err;
  EXPECT_EQ(to_host(d, n)[0], 1);
  cudaFree(d);
}

TEST(CudartFatbin, StrictArchRefusesPtxNewerThanTheDevice) {
  setenv("SIMTVP_CUDA_STRICT_ARCH", "1", 1);
  static Registration r("cudart_test_kernels.compute_86.fatbin", {"add_one"});
  int *d = device_iota(16), n = 16;
  std::string err = stderr_of([&] {
    EXPECT_EQ(launch(r.kernel("add_one"), d3(1), d3(16), 0, nullptr, d, n), cudaErrorNoKernelImageForDevice);
  });
  unsetenv("SIMTVP_CUDA_STRICT_ARCH");
  EXPECT_NE(err.find("compute_86"), std::string::npos) << err;
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartFatbin, SassOnlyFatbinIsNoKernelImageNamingWhatItHolds) {
  static Registration r("cudart_test_kernels.sass_only.fatbin", {"add_one"});
  int *d = device_iota(4), n = 4;
  std::string err = stderr_of([&] {
    EXPECT_EQ(launch(r.kernel("add_one"), d3(1), d3(4), 0, nullptr, d, n), cudaErrorNoKernelImageForDevice);
  });
  EXPECT_NE(err.find("sm_75"), std::string::npos) << err;
  EXPECT_NE(err.find("simtvp runs PTX"), std::string::npos) << err;
  // The failure is remembered, not retried on every launch, and other modules are unaffected.
  EXPECT_EQ(launch(r.kernel("add_one"), d3(1), d3(4), 0, nullptr, d, n), cudaErrorNoKernelImageForDevice);
  EXPECT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, nullptr, d, n), cudaSuccess);
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartFatbin, CorruptFatbinFailsAtFirstUseNotAtRegistration) {
  // A wrapper whose container has a bad magic: registration (a static constructor in a real
  // program) must not touch it; the first launch reports it.
  static unsigned long long words[8] = {0x1122334455667788ull};
  static struct {
    int magic, version;
    const unsigned long long *data;
    void *unused;
  } wrapper = {0x466243B1, 1, words, nullptr};
  static char stub;
  void **h = __cudaRegisterFatBinary(&wrapper);
  __cudaRegisterFunction(h, &stub, const_cast<char *>("add_one"), "add_one", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFatBinaryEnd(h);
  std::string err = stderr_of([&] { EXPECT_EQ(launch(&stub, d3(1), d3(1), 0, nullptr, 0, 0), cudaErrorInvalidKernelImage); });
  EXPECT_NE(err.find("not a readable fatbin"), std::string::npos) << err;
  cudaGetLastError();
}

TEST(CudartFatbin, RegistrationDoesNotOpenThePlatform) {
  if (cucore_props()) GTEST_SKIP() << "another test of this process opened the device already";
  (void)kernels();  // registers a fatbin with kernels and variables
  EXPECT_EQ(cucore_props(), nullptr);
  int *d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), 4), cudaSuccess);  // first use opens it
  EXPECT_NE(cucore_props(), nullptr);
  cudaFree(d);
}

TEST(CudartFatbin, ModulesLoadAgainAfterDeviceReset) {
  int *d = device_iota(8), n = 8;
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(8), 0, nullptr, d, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  // The old allocation went with the context; the kernel's module is loaded again on use.
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);
  d = device_iota(8);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(8), 0, nullptr, d, n), cudaSuccess);
  EXPECT_EQ(to_host(d, n)[3], 4);
  cudaFree(d);
  cudaGetLastError();
}

TEST(CudartFatbin, UnregisteredFatbinsKernelsAreInvalidDeviceFunction) {
  Registration *r = new Registration("cudart_test_kernels.fatbin", {"add_one"});
  int *d = device_iota(4), n = 4;
  ASSERT_EQ(launch(r->kernel("add_one"), d3(1), d3(4), 0, nullptr, d, n), cudaSuccess);
  __cudaUnregisterFatBinary(r->handle());
  EXPECT_EQ(launch(r->kernel("add_one"), d3(1), d3(4), 0, nullptr, d, n), cudaErrorInvalidDeviceFunction);
  __cudaUnregisterFatBinary(r->handle());  // twice: ignored
  cudaGetLastError();
  cudaFree(d);
}

TEST(CudartFatbin, RelocatableDeviceCodeIsRefusedNamingRdc) {
  // nvcc -rdc=true registers the device-linked image (SASS only) through a version-2 wrapper.
  static std::vector<unsigned long long> words;
  {
    std::ifstream in(fixture_path("cudart_test_kernels.sass_only.fatbin"), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    words.resize((bytes.size() + 7) / 8);
    std::memcpy(words.data(), bytes.data(), bytes.size());
  }
  static struct {
    int magic, version;
    const unsigned long long *data;
    void *prelinked;
  } wrapper = {0x466243B1, 2, words.data(), nullptr};
  static char stub;
  void **h = __cudaRegisterFatBinary(&wrapper);
  __cudaRegisterFunction(h, &stub, const_cast<char *>("add_one"), "add_one", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  std::string err = stderr_of([&] { EXPECT_EQ(launch(&stub, d3(1), d3(1), 0, nullptr, 0, 0), cudaErrorNoKernelImageForDevice); });
  EXPECT_NE(err.find("-rdc"), std::string::npos) << err;
  cudaGetLastError();
}
