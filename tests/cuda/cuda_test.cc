// cuda_test.cc — libcuda.so.1 (the driver API) on the simtvp platform: initialisation, devices,
// contexts, modules from PTX text, fatbins and files, functions and globals, launches with
// kernelParams and packed buffers, memory, streams, events, callbacks, limits, error names, the
// not-supported entry points and the exported symbol set; the error of each misuse.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cu_core.h"
#include "cuda_api.h"

namespace {

struct Environment {
  Environment() {
    setenv("SIMTVP_CONFIG", SIMTVP_SOURCE_DIR "/configs/SM75_RTX2060.config", 0);
    setenv("SIMTVP_QUIET", "1", 0);
  }
} environment;

std::string fixture(const std::string &name) { return SIMTVP_SOURCE_DIR "/tests/cudart/fixtures/" + name; }

std::vector<char> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> v((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  v.push_back(0);
  return v;
}

template <class F>
std::string stderr_of(F f) {
  testing::internal::CaptureStderr();
  f();
  return testing::internal::GetCapturedStderr();
}

// A context and the test fixtures' PTX module, made current for each test.
class Cuda : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    ptx = read_file(fixture("cudart_test_kernels.ptx"));
    ASSERT_EQ(cuModuleLoadData(&mod, ptx.data()), CUDA_SUCCESS) << cucore_last_message();
  }
  void TearDown() override {
    if (mod) cuModuleUnload(mod);
    if (ctx) cuCtxDestroy_v2(ctx);
  }
  CUfunction function(const char *name) {
    CUfunction f = nullptr;
    EXPECT_EQ(cuModuleGetFunction(&f, mod, name), CUDA_SUCCESS);
    return f;
  }
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  std::vector<char> ptx;
};

}  // namespace

TEST(CudaInit, CallsBeforeCuInitAreNotInitialized) {
  if (cucore_props()) GTEST_SKIP() << "the device was opened by an earlier test of this process";
  int n = -1;
  EXPECT_EQ(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
  CUdeviceptr p;
  EXPECT_EQ(cuMemAlloc_v2(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(cuInit(1), CUDA_ERROR_INVALID_VALUE);  // flags must be 0
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
  EXPECT_EQ(n, 1);
}

TEST(CudaInit, VersionAndErrorNames) {
  int v = 0;
  ASSERT_EQ(cuDriverGetVersion(&v), CUDA_SUCCESS);
  EXPECT_EQ(v, 13000);
  const char *s = nullptr;
  ASSERT_EQ(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "CUDA_ERROR_INVALID_VALUE");
  ASSERT_EQ(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "CUDA_ERROR_ILLEGAL_ADDRESS");
  ASSERT_EQ(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "out of memory");
  EXPECT_EQ(cuGetErrorName(12345, &s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(cuGetErrorString(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST(CudaDevice, QueriesReportTheConfiguredGpu) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUdevice dev = -1;
  ASSERT_EQ(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
  char name[64];
  ASSERT_EQ(cuDeviceGetName(name, sizeof name, 0), CUDA_SUCCESS);
  EXPECT_GT(std::strlen(name), 0u);
  int major = 0, minor = 0, sms = 0;
  ASSERT_EQ(cuDeviceComputeCapability(&major, &minor, 0), CUDA_SUCCESS);
  EXPECT_EQ(major, 7);
  EXPECT_EQ(minor, 5);
  ASSERT_EQ(cuDeviceGetAttribute(&sms, 16, 0), CUDA_SUCCESS);  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  EXPECT_EQ(sms, 30);
  EXPECT_EQ(cuDeviceGetAttribute(&sms, 44, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetAttribute(&sms, 16, 2), CUDA_ERROR_INVALID_DEVICE);
  size_t total = 0;
  ASSERT_EQ(cuDeviceTotalMem_v2(&total, 0), CUDA_SUCCESS);
  EXPECT_GT(total, 0u);
}

TEST(CudaContext, CreateMakesItCurrentAndDestroyFreesItsResources) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext a = nullptr, cur = nullptr;
  ASSERT_EQ(cuCtxCreate_v2(&a, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  EXPECT_EQ(cur, a);
  CUdevice dev = -1;
  ASSERT_EQ(cuCtxGetDevice(&dev), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0);
  unsigned version = 0;
  ASSERT_EQ(cuCtxGetApiVersion(a, &version), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  ASSERT_EQ(cuMemAlloc_v2(&p, 4096), CUDA_SUCCESS);
  CUstream s;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(a), CUDA_SUCCESS);
  // Its memory and stream went with it.
  CUcontext b;
  ASSERT_EQ(cuCtxCreate_v2(&b, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuCtxDestroy_v2(a), CUDA_ERROR_INVALID_CONTEXT);  // destroyed twice
  ASSERT_EQ(cuCtxDestroy_v2(b), CUDA_SUCCESS);
}

TEST(CudaContext, PushPopAndSetCurrent) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext a, b, cur, popped;
  ASSERT_EQ(cuCtxCreate_v2(&a, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxCreate_v2(&b, 0, 0), CUDA_SUCCESS);  // pushed on top of a
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  EXPECT_EQ(cur, b);
  ASSERT_EQ(cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, b);
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  EXPECT_EQ(cur, a);
  ASSERT_EQ(cuCtxPushCurrent_v2(b), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(a), CUDA_SUCCESS);  // replaces the top
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  EXPECT_EQ(cur, a);
  EXPECT_EQ(cuCtxPushCurrent_v2(reinterpret_cast<CUcontext>(0x1234)), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuCtxSetCurrent(reinterpret_cast<CUcontext>(0x1234)), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuCtxDestroy_v2(b), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(a), CUDA_SUCCESS);
}

TEST(CudaContext, CallsWithoutAContextAreInvalidContext) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  if (cucore_primary_peek()) GTEST_SKIP() << "the primary context exists in this process";
  CUdeviceptr p;
  std::string err = stderr_of([&] { EXPECT_EQ(cuMemAlloc_v2(&p, 16), CUDA_ERROR_INVALID_CONTEXT); });
  EXPECT_NE(err.find("no current context"), std::string::npos) << err;
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
  // The primary context: retained, then made current.
  CUcontext primary;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
  unsigned flags;
  int active = 0;
  ASSERT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 1);
  ASSERT_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(p), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDestroy_v2(primary), CUDA_ERROR_INVALID_CONTEXT);  // released, not destroyed
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
}

TEST_F(Cuda, ModulesLoadFromPtxTextFatbinsAndFiles) {
  CUmodule fat = nullptr, from_file = nullptr, fatbin_file = nullptr, fat2 = nullptr;
  std::vector<char> fb = read_file(fixture("cudart_test_kernels.fatbin"));
  std::vector<unsigned long long> words((fb.size() + 7) / 8);
  std::memcpy(words.data(), fb.data(), fb.size());
  ASSERT_EQ(cuModuleLoadData(&fat, words.data()), CUDA_SUCCESS) << cucore_last_message();
  ASSERT_EQ(cuModuleLoadFatBinary(&fat2, words.data()), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleLoad(&from_file, fixture("cudart_test_kernels.ptx").c_str()), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleLoad(&fatbin_file, fixture("cudart_test_kernels.no_compress.fatbin").c_str()), CUDA_SUCCESS);
  CUfunction f;
  for (CUmodule m : {mod, fat, fat2, from_file, fatbin_file}) EXPECT_EQ(cuModuleGetFunction(&f, m, "add_one"), CUDA_SUCCESS);
  const char *name = nullptr;
  ASSERT_EQ(cuFuncGetName(&name, f), CUDA_SUCCESS);
  EXPECT_STREQ(name, "add_one");
  CUmodule owner = nullptr;
  ASSERT_EQ(cuFuncGetModule(&owner, f), CUDA_SUCCESS);
  EXPECT_EQ(owner, fatbin_file);
  for (CUmodule m : {fat, fat2, from_file, fatbin_file}) EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(Cuda, BadModulesAreRefusedWithTheirReason) {
  CUmodule m;
  std::string err = stderr_of([&] { EXPECT_EQ(cuModuleLoad(&m, "/no/such/file.ptx"), CUDA_ERROR_FILE_NOT_FOUND); });
  EXPECT_NE(err.find("/no/such/file.ptx"), std::string::npos) << err;
  const char bad_ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n  frobnicate;\n}\n";
  err = stderr_of([&] { EXPECT_EQ(cuModuleLoadData(&m, bad_ptx), CUDA_ERROR_INVALID_PTX); });
  EXPECT_NE(err.find(":6:"), std::string::npos) << err;  // names the line
  const char cubin[64] = "\x7f" "ELF\x02\x01\x01";
  err = stderr_of([&] { EXPECT_EQ(cuModuleLoadData(&m, cubin), CUDA_ERROR_NOT_SUPPORTED); });
  EXPECT_NE(err.find("cubin"), std::string::npos) << err;
  const unsigned char binary[16] = {1, 2, 3, 4, 0, 0, 9, 9};
  EXPECT_EQ(cuModuleLoadData(&m, binary), CUDA_ERROR_INVALID_IMAGE);
  std::vector<char> sass = read_file(fixture("cudart_test_kernels.sass_only.fatbin"));
  std::vector<unsigned long long> words((sass.size() + 7) / 8);
  std::memcpy(words.data(), sass.data(), sass.size());
  EXPECT_EQ(cuModuleLoadData(&m, words.data()), CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(cuModuleLoadData(nullptr, bad_ptx), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Cuda, FunctionsAndGlobalsByName) {
  CUfunction f;
  std::string err = stderr_of([&] { EXPECT_EQ(cuModuleGetFunction(&f, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND); });
  EXPECT_NE(err.find("no_such_kernel"), std::string::npos) << err;
  CUdeviceptr p = 0;
  size_t bytes = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&p, &bytes, mod, "init_table"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 16u);
  int h[4];
  ASSERT_EQ(cuMemcpyDtoH_v2(h, p, 16), CUDA_SUCCESS);
  EXPECT_EQ(h[2], 30);
  ASSERT_EQ(cuModuleGetGlobal_v2(&p, &bytes, mod, "const_table"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 64u);
  EXPECT_EQ(cuModuleGetGlobal_v2(&p, &bytes, mod, "nothing"), CUDA_ERROR_NOT_FOUND);
  // A function of an unloaded module is gone too.
  ASSERT_EQ(cuModuleGetFunction(&f, mod, "add_one"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(mod), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuModuleGetFunction(&f, mod, "add_one"), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_HANDLE);
  mod = nullptr;
}

TEST_F(Cuda, LoadDataExAcceptsJitOptions) {
  CUmodule m;
  char log[64] = "stale";
  int options[2] = {5, 6};  // CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
  void *values[2] = {log, reinterpret_cast<void *>(sizeof log)};
  ASSERT_EQ(cuModuleLoadDataEx(&m, ptx.data(), 2, options, values), CUDA_SUCCESS);
  EXPECT_STREQ(log, "");
  EXPECT_EQ(cuModuleLoadDataEx(&m, ptx.data(), 2, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(Cuda, KernelParamsAndAPackedBufferLaunchAlike) {
  const int n = 300;
  std::vector<int> h(n);
  for (int i = 0; i < n; i++) h[i] = i;
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc_v2(&d, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(d, h.data(), n * 4), CUDA_SUCCESS);
  CUfunction f = function("add_one");
  int nn = n;
  void *params[] = {&d, &nn};
  ASSERT_EQ(cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  struct {
    CUdeviceptr p;
    int n;
  } packed = {d, n};
  size_t size = sizeof packed;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  ASSERT_EQ(cuLaunchKernel(f, 3, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(h.data(), d, n * 4), CUDA_SUCCESS);
  for (int i = 0; i < n; i++) ASSERT_EQ(h[i], i + 2) << i;
  ASSERT_EQ(cuLaunchCooperativeKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(d), CUDA_SUCCESS);
}

TEST_F(Cuda, BadLaunchesAreRefused) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc_v2(&d, 1024), CUDA_SUCCESS);
  CUfunction f = function("add_one");
  int n = 4;
  void *params[] = {&d, &n};
  struct {
    CUdeviceptr p;
    int n;
  } packed = {d, 4};
  size_t size = 8;  // the kernel's parameters take 12 bytes
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  void *no_size[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_END};
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, nullptr, params, extra), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, nullptr, nullptr, no_size), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, nullptr, nullptr, extra), CUDA_ERROR_INVALID_VALUE);  // 8 < 12
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 0, 1, 1, 4, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 1 << 20, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchKernel(function("bounded64"), 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr),
            CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, reinterpret_cast<CUstream>(0x777), params, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(0x999), 1, 1, 1, 4, 1, 1, 0, nullptr, params, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuMemFree_v2(d), CUDA_SUCCESS);
}

TEST_F(Cuda, FunctionAttributesAndOccupancy) {
  int v = 0;
  CUfunction big = function("big_static_smem");
  ASSERT_EQ(cuFuncGetAttribute(&v, 1, big), CUDA_SUCCESS);  // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
  EXPECT_EQ(v, 40960);
  ASSERT_EQ(cuFuncGetAttribute(&v, 0, function("bounded64")), CUDA_SUCCESS);  // MAX_THREADS_PER_BLOCK
  EXPECT_EQ(v, 64);
  ASSERT_EQ(cuFuncGetAttribute(&v, 4, big), CUDA_SUCCESS);  // NUM_REGS
  EXPECT_GT(v, 0);
  EXPECT_EQ(cuFuncGetAttribute(&v, 99, big), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, big, 128, 0), CUDA_SUCCESS);
  EXPECT_EQ(v, 1);
  CUfunction dyn = function("dyn_reverse");
  ASSERT_EQ(cuFuncSetAttribute(dyn, 8, 60000), CUDA_SUCCESS);  // MAX_DYNAMIC_SHARED_SIZE_BYTES (opt-in)
  ASSERT_EQ(cuFuncGetAttribute(&v, 8, dyn), CUDA_SUCCESS);
  EXPECT_EQ(v, 60000);
  EXPECT_EQ(cuFuncSetAttribute(dyn, 8, 1 << 20), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncSetAttribute(dyn, 11, 2), CUDA_ERROR_NOT_SUPPORTED);  // cluster width
  EXPECT_EQ(cuFuncSetCacheConfig(dyn, 1), CUDA_SUCCESS);
}

TEST_F(Cuda, CopiesAndMemsetsOfEveryWidth) {
  const int n = 64;
  CUdeviceptr a, b;
  ASSERT_EQ(cuMemAlloc_v2(&a, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&b, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(a, 0x01020304u, n), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD16_v2(a + 8, 0xabcd, 2), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8_v2(a + 12, 0xee, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoD_v2(b, a, n * 4), CUDA_SUCCESS);
  unsigned h[n];
  ASSERT_EQ(cuMemcpyDtoH_v2(h, b, n * 4), CUDA_SUCCESS);
  EXPECT_EQ(h[0], 0x01020304u);
  EXPECT_EQ(h[2], 0xabcdabcdu);
  EXPECT_EQ(h[3], 0x010203eeu);
  ASSERT_EQ(cuMemsetD2D32_v2(a, 16, 7, 2, 4), CUDA_SUCCESS);  // 4 rows of 2 words, 16 bytes apart
  ASSERT_EQ(cuMemcpyDtoH_v2(h, a, n * 4), CUDA_SUCCESS);
  EXPECT_EQ(h[0], 7u);
  EXPECT_EQ(h[1], 7u);
  EXPECT_EQ(h[2], 0xabcdabcdu);
  EXPECT_EQ(h[12], 7u);
  // Asynchronous forms and cuMemcpy with unified addresses.
  CUstream s;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  unsigned src[n];
  for (int i = 0; i < n; i++) src[i] = i * i;
  ASSERT_EQ(cuMemcpyHtoDAsync_v2(a, src, n * 4, s), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8Async(b, 0, n * 4, s), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoDAsync_v2(b, a, 8, s), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(h, b, n * 4, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(h[1], 1u);
  EXPECT_EQ(h[2], 0u);
  ASSERT_EQ(cuMemcpy(reinterpret_cast<CUdeviceptr>(h), a, n * 4), CUDA_SUCCESS);
  EXPECT_EQ(h[63], 63u * 63u);
  ASSERT_EQ(cuStreamDestroy_v2(s), CUDA_SUCCESS);
  cuMemFree_v2(a);
  cuMemFree_v2(b);
}

TEST_F(Cuda, BadAddressesAreInvalidValue) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc_v2(&d, 64), CUDA_SUCCESS);
  int h[32];
  std::string err = stderr_of([&] {
    EXPECT_EQ(cuMemcpyDtoH_v2(h, reinterpret_cast<CUdeviceptr>(h), 16), CUDA_ERROR_INVALID_VALUE);
  });
  EXPECT_NE(err.find("is not device memory"), std::string::npos) << err;
  EXPECT_EQ(cuMemcpyHtoD_v2(d + 32, h, 64), CUDA_ERROR_INVALID_VALUE);  // past the allocation
  EXPECT_EQ(cuMemsetD32_v2(d + 2, 0, 4), CUDA_ERROR_INVALID_VALUE);     // misaligned
  EXPECT_EQ(cuMemAlloc_v2(&d, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFree_v2(d), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(d), CUDA_ERROR_INVALID_VALUE);
  size_t pitch = 0;
  ASSERT_EQ(cuMemAllocPitch_v2(&d, &pitch, 100, 4, 4), CUDA_SUCCESS);
  EXPECT_GE(pitch, 100u);
  CUdeviceptr base = 0;
  size_t size = 0;
  ASSERT_EQ(cuMemGetAddressRange_v2(&base, &size, d + 10), CUDA_SUCCESS);
  EXPECT_EQ(base, d);
  EXPECT_EQ(size, pitch * 4);
  EXPECT_EQ(cuMemGetAddressRange_v2(&base, &size, 12), CUDA_ERROR_NOT_FOUND);
  cuMemFree_v2(d);
}

TEST_F(Cuda, PinnedAndManagedMemory) {
  void *pinned = nullptr;
  ASSERT_EQ(cuMemAllocHost_v2(&pinned, 4096), CUDA_SUCCESS);
  unsigned type = 0;
  ASSERT_EQ(cuPointerGetAttribute(&type, 2, reinterpret_cast<CUdeviceptr>(pinned)), CUDA_SUCCESS);
  EXPECT_EQ(type, 1u);  // CU_MEMORYTYPE_HOST
  CUdeviceptr m;
  ASSERT_EQ(cuMemAllocManaged(&m, 256, 1), CUDA_SUCCESS);
  int *mh = reinterpret_cast<int *>(m);
  for (int i = 0; i < 64; i++) mh[i] = i;
  int n = 64;
  void *params[] = {&m, &n};
  ASSERT_EQ(cuLaunchKernel(function("add_one"), 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(mh[63], 64);
  int managed = 0;
  ASSERT_EQ(cuPointerGetAttribute(&managed, 8, m), CUDA_SUCCESS);  // CU_POINTER_ATTRIBUTE_IS_MANAGED
  EXPECT_EQ(managed, 1);
  int local;
  EXPECT_EQ(cuPointerGetAttribute(&type, 2, reinterpret_cast<CUdeviceptr>(&local)), CUDA_ERROR_INVALID_VALUE);
  void *p2;
  ASSERT_EQ(cuMemHostAlloc(&p2, 100, 1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(p2), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(p2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFreeHost(pinned), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(m), CUDA_SUCCESS);
}

namespace {
struct Probe {
  int host_fn = 0, callback = 0;
  CUstream stream = nullptr;
  CUresult status = -1;
};
void host_fn(void *p) { static_cast<Probe *>(p)->host_fn++; }
void stream_callback(CUstream s, CUresult status, void *p) {
  Probe *pr = static_cast<Probe *>(p);
  pr->callback++;
  pr->stream = s;
  pr->status = status;
}
}  // namespace

TEST_F(Cuda, StreamsEventsAndCallbacks) {
  CUstream s;
  CUevent a, b;
  ASSERT_EQ(cuStreamCreateWithPriority(&s, 1, -2), CUDA_SUCCESS);
  unsigned flags = 0;
  int prio = 0;
  ASSERT_EQ(cuStreamGetFlags(s, &flags), CUDA_SUCCESS);
  EXPECT_EQ(flags, 1u);
  ASSERT_EQ(cuStreamGetPriority(s, &prio), CUDA_SUCCESS);
  EXPECT_EQ(prio, -2);
  CUcontext c;
  ASSERT_EQ(cuStreamGetCtx(s, &c), CUDA_SUCCESS);
  EXPECT_EQ(c, ctx);
  ASSERT_EQ(cuEventCreate(&a, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&b, 0), CUDA_SUCCESS);
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc_v2(&d, 1 << 16), CUDA_SUCCESS);
  Probe probe;
  ASSERT_EQ(cuEventRecord(a, s), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async(d, 1, 1 << 14, s), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchHostFunc(s, host_fn, &probe), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamAddCallback(s, stream_callback, &probe, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecordWithFlags(b, s, 0), CUDA_SUCCESS);
  CUstream other;
  ASSERT_EQ(cuStreamCreate(&other, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(other, b, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(other), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(b), CUDA_SUCCESS);
  EXPECT_EQ(cuEventQuery(b), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(s), CUDA_SUCCESS);
  EXPECT_EQ(probe.host_fn, 1);
  EXPECT_EQ(probe.callback, 1);
  EXPECT_EQ(probe.stream, s);
  EXPECT_EQ(probe.status, CUDA_SUCCESS);
  float ms = -1;
  ASSERT_EQ(cuEventElapsedTime_v2(&ms, a, b), CUDA_SUCCESS);
  EXPECT_GT(ms, 0.0f);
  ASSERT_EQ(cuEventDestroy_v2(a), CUDA_SUCCESS);
  EXPECT_EQ(cuEventDestroy_v2(a), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventElapsedTime_v2(&ms, a, b), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuStreamDestroy_v2(s), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamAddCallback(other, stream_callback, &probe, 3), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamCreate(&s, 0x10), CUDA_ERROR_INVALID_VALUE);
  cuEventDestroy_v2(b);
  cuStreamDestroy_v2(other);
  cuMemFree_v2(d);
}

TEST_F(Cuda, KernelFaultIsStickyUntilTheContextGoes) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc_v2(&d, 64), CUDA_SUCCESS);
  void *params[] = {&d};
  ASSERT_EQ(cuLaunchKernel(function("fault"), 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  CUdeviceptr e;
  EXPECT_EQ(cuMemAlloc_v2(&e, 64), CUDA_ERROR_ILLEGAL_ADDRESS);
  cuModuleUnload(mod);
  mod = nullptr;
  ASSERT_EQ(cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
  ctx = nullptr;
  CUcontext fresh;
  ASSERT_EQ(cuCtxCreate_v2(&fresh, 0, 0), CUDA_SUCCESS);
  if (!cucore_primary_peek()) {  // the error went with the last context
    EXPECT_EQ(cuMemAlloc_v2(&e, 64), CUDA_SUCCESS);
    cuMemFree_v2(e);
  } else {  // the primary context (retained by another test) holds it until reset
    EXPECT_EQ(cuMemAlloc_v2(&e, 64), CUDA_ERROR_ILLEGAL_ADDRESS);
    ASSERT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
  }
  cuCtxDestroy_v2(fresh);
}

// Regression (issue 14, bug 1): nvcc's exit handler unloads modules after the runtime's own
// exit handler has closed the platform, so that unload fails; its message used to be stored in a
// thread_local std::string that the C++ runtime destroys before any atexit handler runs — a
// use-after-free at every exit of a program that had hit a CUDA error (seen by ASan; the
// ASan+UBSan stage of .ci/run runs this test).
static CUmodule exit_module = nullptr;

static void unload_at_exit() {
  CUresult r = cuModuleUnload(exit_module);
  bool named = std::strstr(cucore_last_message(), "shutting down") != nullptr;
  std::_Exit(r == CUDA_ERROR_DEINITIALIZED && named ? 0 : 3);
}

TEST(CudaExit, ModuleUnloadAfterShutdownFailsWithItsMessage) {
  EXPECT_EXIT(
      {
        std::atexit(unload_at_exit);  // registered first, so it runs after the runtime's handler
        CUcontext c;
        if (cuInit(0) != CUDA_SUCCESS || cuCtxCreate_v2(&c, 0, 0) != CUDA_SUCCESS) std::_Exit(4);
        std::vector<char> text = read_file(fixture("cudart_test_kernels.ptx"));
        if (cuModuleLoadData(&exit_module, text.data()) != CUDA_SUCCESS) std::_Exit(5);
        CUdeviceptr p;
        cuMemAlloc_v2(&p, 1ull << 60);  // an error first: the message buffer is in use
        std::exit(0);
      },
      testing::ExitedWithCode(0), "");
}

// CUDA's own error codes for the ends of a kernel that are not an illegal address (issue 14):
// a misaligned access is CUDA_ERROR_MISALIGNED_ADDRESS (716), a kernel stopped by the
// instruction limit CUDA_ERROR_LAUNCH_TIMEOUT (702), on the functional and the timing GPU. Each
// test opens the platform with its own options (ctest runs every case in a process of its own).
const char kEndsPtx[] = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry misaligned(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1+2];
  st.global.u32 [%rd1], %r1;
  ret;
}
.visible .entry spin(.param .u64 p)
{
$top:
  bra.uni $top;
}
)";

static CUresult run_ends_kernel(const char *options, const char *kernel) {
  if (cucore_props()) return CUDA_ERROR_NOT_INITIALIZED;  // options apply to a platform not yet open
  setenv("SIMTVP_OPTIONS", options, 1);
  CUcontext c;
  CUmodule m;
  CUfunction f;
  CUdeviceptr d;
  EXPECT_EQ(cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxCreate_v2(&c, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleLoadData(&m, kEndsPtx), CUDA_SUCCESS) << cucore_last_message();
  EXPECT_EQ(cuModuleGetFunction(&f, m, kernel), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAlloc_v2(&d, 256), CUDA_SUCCESS);
  void *params[] = {&d};
  EXPECT_EQ(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  return cuCtxSynchronize();
}

TEST(CudaKernelEnd, MisalignedAccessIsMisalignedAddressOnTheTimingGpu) {
  CUresult r = run_ends_kernel("", "misaligned");
  if (r == CUDA_ERROR_NOT_INITIALIZED) GTEST_SKIP() << "the device was opened by an earlier test";
  EXPECT_EQ(r, CUDA_ERROR_MISALIGNED_ADDRESS) << cucore_last_message();
  EXPECT_NE(std::strstr(cucore_last_message(), "misaligned"), nullptr) << cucore_last_message();
}

TEST(CudaKernelEnd, MisalignedAccessIsMisalignedAddressOnTheFunctionalGpu) {
  CUresult r = run_ends_kernel("-simt_model func", "misaligned");
  if (r == CUDA_ERROR_NOT_INITIALIZED) GTEST_SKIP() << "the device was opened by an earlier test";
  EXPECT_EQ(r, CUDA_ERROR_MISALIGNED_ADDRESS) << cucore_last_message();
}

TEST(CudaKernelEnd, InstructionLimitIsLaunchTimeoutOnTheTimingGpu) {
  CUresult r = run_ends_kernel("-gpgpu_max_insn 100000", "spin");
  if (r == CUDA_ERROR_NOT_INITIALIZED) GTEST_SKIP() << "the device was opened by an earlier test";
  EXPECT_EQ(r, CUDA_ERROR_LAUNCH_TIMEOUT) << cucore_last_message();
}

TEST(CudaKernelEnd, InstructionLimitIsLaunchTimeoutOnTheFunctionalGpu) {
  CUresult r = run_ends_kernel("-simt_model func -gpgpu_max_insn 100000", "spin");
  if (r == CUDA_ERROR_NOT_INITIALIZED) GTEST_SKIP() << "the device was opened by an earlier test";
  EXPECT_EQ(r, CUDA_ERROR_LAUNCH_TIMEOUT) << cucore_last_message();
  EXPECT_NE(std::strstr(cucore_last_message(), "instruction limit"), nullptr) << cucore_last_message();
}

TEST_F(Cuda, LimitsRoundTrip) {
  size_t v = 0;
  ASSERT_EQ(cuCtxSetLimit(2, 1 << 22), CUDA_SUCCESS);  // CU_LIMIT_MALLOC_HEAP_SIZE
  ASSERT_EQ(cuCtxGetLimit(&v, 2), CUDA_SUCCESS);
  EXPECT_EQ(v, (size_t)1 << 22);
  EXPECT_EQ(cuCtxSetLimit(4, 10), CUDA_ERROR_UNSUPPORTED_LIMIT);
  EXPECT_EQ(cuCtxSetLimit(7, 10), CUDA_ERROR_INVALID_VALUE);
}

TEST(CudaExports, UnimplementedEntryPointsReturnNotSupported) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  typedef CUresult (*pool_create_fn)(void **, const void *);
  auto create = reinterpret_cast<pool_create_fn>(dlsym(lib, "cuMemPoolCreate"));
  ASSERT_NE(create, nullptr);
  void *pool;
  char props[88] = {};
  std::string err = stderr_of([&] { EXPECT_EQ(create(&pool, props), CUDA_ERROR_NOT_SUPPORTED); });
  EXPECT_NE(err.find("cuMemPoolCreate is not supported by simtvp"), std::string::npos) << err;
  dlclose(lib);
}

TEST(CudaExports, EveryCuda13DriverExportExists) {
  std::ifstream names(SIMTVP_SOURCE_DIR "/sw/cuda/cuda_api_names.txt");
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  std::string name;
  int n = 0;
  while (names >> name) {
    EXPECT_NE(dlsym(lib, name.c_str()), nullptr) << name;
    n++;
  }
  EXPECT_GT(n, 600);
  dlclose(lib);
}
