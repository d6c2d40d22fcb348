// static_runtime_test.cc — what libcuda.so.1 offers NVIDIA's statically linked runtime (nvcc's
// default): cuGetProcAddress by name, version and stream flags; the private tables of
// cuGetExportTable (cudart interface, context-local storage, context checks, the HMAC-MD2
// integrity check, the stop on an unknown slot); libraries and kernels (cuLibrary*, cuKernel*);
// arrays, 2-D/3-D copies and texture objects of the driver API; the CUDA 13 context queries.
// The programs themselves (tests/kernels/bin_static) run in Kernels.static.*.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "cu_core.h"
#include "cuda_api.h"
#include "hmac_md2.h"

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

// A fatbin fixture as the 8-byte aligned words nvcc embeds.
std::vector<unsigned long long> fatbin_words(const std::string &name) {
  std::vector<char> fb = read_file(fixture(name));
  std::vector<unsigned long long> words((fb.size() + 7) / 8);
  std::memcpy(words.data(), fb.data(), fb.size() - 1);
  return words;
}

template <class F>
std::string stderr_of(F f) {
  testing::internal::CaptureStderr();
  f();
  return testing::internal::GetCapturedStderr();
}

void *self_symbol(const char *name) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  void *p = lib ? dlsym(lib, name) : nullptr;
  if (lib) dlclose(lib);
  return p;
}

const void *export_table(const unsigned char uuid[16]) {
  const void *table = nullptr;
  EXPECT_EQ(cuGetExportTable(&table, uuid), CUDA_SUCCESS);
  return table;
}

const unsigned char kCudartInterface[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                            0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
const unsigned char kContextStorage[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                           0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
const unsigned char kContextChecks[16] = {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43,
                                          0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e};
const unsigned char kIntegrity[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                      0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};

template <class Fn>
Fn slot(const void *table, int i) {
  return reinterpret_cast<Fn>(const_cast<void *>(static_cast<const void *const *>(table)[i]));
}

std::string hex(const uint8_t *d, size_t n) {
  std::string s;
  char b[3];
  for (size_t i = 0; i < n; i++) {
    std::snprintf(b, sizeof b, "%02x", d[i]);
    s += b;
  }
  return s;
}

// A context for the tests that need one.
class CudaStatic : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override {
    if (ctx) cuCtxDestroy_v2(ctx);
  }
  CUcontext ctx = nullptr;
};

}  // namespace

// ---- cuGetProcAddress --------------------------------------------------------------------------------

TEST(CudaProcAddress, ResolvesTheAbiVariantOfTheRequestedVersion) {
  void *fn = nullptr;
  int status = -1;
  ASSERT_EQ(cuGetProcAddress_v2("cuMemAlloc", &fn, 3020, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(fn, self_symbol("cuMemAlloc_v2"));
  ASSERT_EQ(cuGetProcAddress_v2("cuMemAlloc", &fn, 2000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(fn, self_symbol("cuMemAlloc"));  // the 32-bit original (not supported, but it is the variant)
  ASSERT_EQ(cuGetProcAddress_v2("cuCtxCreate", &fn, 3020, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(fn, self_symbol("cuCtxCreate_v2"));
  ASSERT_EQ(cuGetProcAddress_v2("cuCtxCreate", &fn, 13000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(fn, self_symbol("cuCtxCreate_v4"));
  ASSERT_EQ(cuGetProcAddress_v2("cuCtxGetDevice", &fn, 12000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(fn, self_symbol("cuCtxGetDevice"));
  ASSERT_EQ(cuGetProcAddress("cuCtxGetDevice", &fn, 13000, 0), CUDA_SUCCESS);  // the CUDA 11.3 form
  EXPECT_EQ(fn, self_symbol("cuCtxGetDevice_v2"));
}

TEST(CudaProcAddress, PerThreadFlagPicksThePerThreadForm) {
  void *fn = nullptr;
  ASSERT_EQ(cuGetProcAddress_v2("cuLaunchKernel", &fn, 13000, 2, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(fn, self_symbol("cuLaunchKernel_ptsz"));
  ASSERT_EQ(cuGetProcAddress_v2("cuLaunchKernel", &fn, 13000, 1, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(fn, self_symbol("cuLaunchKernel"));
  ASSERT_EQ(cuGetProcAddress_v2("cuMemcpyHtoD", &fn, 13000, 2, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(fn, self_symbol("cuMemcpyHtoD_v2_ptds"));
  // No per-thread form: the legacy one.
  ASSERT_EQ(cuGetProcAddress_v2("cuMemAlloc", &fn, 13000, 2, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(fn, self_symbol("cuMemAlloc_v2"));
}

TEST(CudaProcAddress, UnknownOrTooOldIsNullWithItsStatus) {
  void *fn = reinterpret_cast<void *>(1);
  int status = -1;
  ASSERT_EQ(cuGetProcAddress_v2("cuNoSuchFunction", &fn, 13000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(fn, nullptr);
  EXPECT_EQ(status, 1);  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
  ASSERT_EQ(cuGetProcAddress_v2("cuGraphInstantiateWithParams", &fn, 11000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(fn, nullptr);
  EXPECT_EQ(status, 2);  // CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: introduced in 12.0
  std::string err = stderr_of([&] {
    EXPECT_EQ(cuGetProcAddress_v2("cuMemAlloc", &fn, 14000, 0, &status), CUDA_ERROR_INVALID_VALUE);
  });
  EXPECT_NE(err.find("newer than the driver"), std::string::npos) << err;
  EXPECT_EQ(cuGetProcAddress_v2(nullptr, &fn, 13000, 0, &status), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetProcAddress_v2("cuMemAlloc", nullptr, 13000, 0, &status), CUDA_ERROR_INVALID_VALUE);
}

// Every (name, version) row of the generated table resolves to the symbol it names.
TEST(CudaProcAddress, EveryVariantOfTheTableIsExported) {
  std::ifstream in(SIMTVP_SOURCE_DIR "/sw/cuda/cuda_proc_table.inc");
  std::regex row(R"re(^\{"(\w+)", (\d+), "(\w+)"\},$)re");
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    void *fn = nullptr;
    int status = -1;
    ASSERT_EQ(cuGetProcAddress_v2(m[1].str().c_str(), &fn, std::stoi(m[2].str()), 1, &status), CUDA_SUCCESS);
    void *want = self_symbol(m[3].str().c_str());
    ASSERT_NE(want, nullptr) << m[3];
    EXPECT_EQ(status, 0) << line;
    EXPECT_EQ(fn, want) << line;
    rows++;
  }
  EXPECT_GT(rows, 500);
}

TEST(CudaProcAddress, TheRuntimeFindsTheDriverThroughCudaGetDriverEntryPoint) {
  void *lib = dlopen("libcudart.so.13", RTLD_NOW);
  ASSERT_NE(lib, nullptr) << dlerror();
  typedef int (*by_version_fn)(const char *, void **, unsigned, unsigned long long, int *);
  auto by_version = reinterpret_cast<by_version_fn>(dlsym(lib, "cudaGetDriverEntryPointByVersion"));
  ASSERT_NE(by_version, nullptr);
  void *fn = nullptr;
  int status = -1;
  EXPECT_EQ(by_version("cuMemAlloc", &fn, 13000, 0, &status), 0);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(fn, self_symbol("cuMemAlloc_v2"));
  EXPECT_EQ(by_version("cuLaunchKernel", &fn, 13000, 2, &status), 0);
  EXPECT_EQ(fn, self_symbol("cuLaunchKernel_ptsz"));
  EXPECT_EQ(by_version("cuNoSuchFunction", &fn, 13000, 0, &status), 0);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(fn, nullptr);
  dlclose(lib);
}

// ---- cuGetExportTable ------------------------------------------------------------------------------

TEST(CudaExportTable, UnknownTablesAreRefused) {
  const unsigned char unknown[16] = {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e,
                                     0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9};
  const void *table = reinterpret_cast<void *>(1);
  EXPECT_EQ(cuGetExportTable(&table, unknown), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(table, nullptr);
  EXPECT_EQ(cuGetExportTable(nullptr, unknown), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGetExportTable(&table, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST(CudaExportTable, CudartInterfaceGivesThePrimaryContextAndLoadsFatbins) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  const void *t = export_table(kCudartInterface);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(static_cast<const void *const *>(t)[0]), 13 * sizeof(void *));
  CUcontext primary = nullptr, retained = nullptr;
  ASSERT_EQ(slot<CUresult (*)(CUcontext *, CUdevice)>(t, 2)(&primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&retained, 0), CUDA_SUCCESS);
  EXPECT_EQ(primary, retained);
  EXPECT_EQ(slot<CUresult (*)(CUcontext *, CUdevice)>(t, 2)(&primary, 1), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS);

  // Slot 8: a module from a fatbin container; slot 1: from a wrapper around one.
  std::vector<unsigned long long> words = fatbin_words("cudart_test_kernels.fatbin");
  CUmodule m = nullptr, m2 = nullptr;
  typedef CUresult (*from_fatbin_fn)(const void *, CUmodule *, void *, void *, unsigned);
  ASSERT_EQ(slot<from_fatbin_fn>(t, 8)(words.data(), &m, nullptr, nullptr, 0), CUDA_SUCCESS) << cucore_last_message();
  CUfunction f = nullptr;
  EXPECT_EQ(cuModuleGetFunction(&f, m, "add_one"), CUDA_SUCCESS);
  struct {
    int magic, version;
    const void *data, *filename;
  } wrapper = {0x466243b1, 1, words.data(), nullptr};
  ASSERT_EQ(slot<CUresult (*)(CUmodule *, const void *)>(t, 1)(&m2, &wrapper), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetFunction(&f, m2, "add_one"), CUDA_SUCCESS);
  // Options the runtime never passes for an ordinary program are refused by name.
  int dummy = 0;
  std::string err = stderr_of([&] {
    EXPECT_EQ(slot<from_fatbin_fn>(t, 8)(words.data(), &m, &dummy, nullptr, 0), CUDA_ERROR_NOT_SUPPORTED);
  });
  EXPECT_NE(err.find("-cudart shared"), std::string::npos) << err;
  EXPECT_EQ(slot<CUresult (*)()>(t, 12)(), CUDA_SUCCESS);  // load compilers: none needed
  cuModuleUnload(m);
  cuModuleUnload(m2);
}

TEST(CudaExportTable, ContextStorageIsPerContextAndDestroyedWithIt) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  const void *t = export_table(kContextStorage);
  typedef void (*dtor_fn)(CUcontext, void *, void *);
  auto put = slot<CUresult (*)(CUcontext, void *, void *, dtor_fn)>(t, 0);
  auto del = slot<CUresult (*)(CUcontext, void *)>(t, 1);
  auto get = slot<CUresult (*)(void **, CUcontext, void *)>(t, 2);
  CUcontext a = nullptr, b = nullptr;
  ASSERT_EQ(cuCtxCreate_v2(&a, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxCreate_v2(&b, 0, 0), CUDA_SUCCESS);  // current: b
  static int key, value_a, value_b;
  static std::vector<void *> destroyed;
  dtor_fn dtor = [](CUcontext, void *k, void *v) {
    EXPECT_EQ(k, &key);
    destroyed.push_back(v);
  };
  void *v = nullptr;
  EXPECT_EQ(get(&v, a, &key), CUDA_ERROR_INVALID_HANDLE);  // nothing stored yet
  ASSERT_EQ(put(a, &key, &value_a, dtor), CUDA_SUCCESS);
  ASSERT_EQ(put(nullptr, &key, &value_b, dtor), CUDA_SUCCESS);  // NULL: the current context
  ASSERT_EQ(get(&v, a, &key), CUDA_SUCCESS);
  EXPECT_EQ(v, &value_a);
  ASSERT_EQ(get(&v, b, &key), CUDA_SUCCESS);
  EXPECT_EQ(v, &value_b);
  ASSERT_EQ(cuCtxDestroy_v2(a), CUDA_SUCCESS);  // runs a's destructor only
  ASSERT_EQ(destroyed.size(), 1u);
  EXPECT_EQ(destroyed[0], &value_a);
  EXPECT_EQ(get(&v, a, &key), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(del(b, &key), CUDA_SUCCESS);  // deleted: no destructor call
  EXPECT_EQ(get(&v, b, &key), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuCtxDestroy_v2(b), CUDA_SUCCESS);
  EXPECT_EQ(destroyed.size(), 1u);
}

TEST(CudaExportTable, PrimaryContextResetRunsTheStorageDestructors) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  const void *t = export_table(kContextStorage);
  typedef void (*dtor_fn)(CUcontext, void *, void *);
  auto put = slot<CUresult (*)(CUcontext, void *, void *, dtor_fn)>(t, 0);
  auto get = slot<CUresult (*)(void **, CUcontext, void *)>(t, 2);
  CUcontext primary = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
  static int key, value, calls;
  ASSERT_EQ(put(primary, &key, &value, [](CUcontext, void *, void *) { calls++; }), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
  EXPECT_EQ(calls, 1);
  void *v = nullptr;
  EXPECT_EQ(get(&v, primary, &key), CUDA_ERROR_INVALID_HANDLE);
}

TEST(CudaExportTable, ContextChecksReportNothingUnusual) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  const void *t = export_table(kContextChecks);
  uint32_t result = 7;
  const void *detail = nullptr;
  EXPECT_EQ((slot<CUresult (*)(CUcontext, uint32_t *, const void **)>(t, 2)(nullptr, &result, &detail)), CUDA_SUCCESS);
  EXPECT_EQ(result, 0u);
  EXPECT_EQ(slot<uint32_t (*)()>(t, 3)(), 0u);
}

// RFC 1319's test suite for MD2.
TEST(CudaExportTable, Md2MatchesRfc1319) {
  const char *in[] = {"", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz",
                      "12345678901234567890123456789012345678901234567890123456789012345678901234567890"};
  const char *want[] = {"8350e5a3e24c153df2275c9f80692773", "32ec01ec4a6dac72c0ab96fb34c0b5d1",
                        "da853b0d3f88d99b30283a69e6ded6bb", "ab4f496bfb2a530b219ff33031fe06b0",
                        "4e8ddff3650292ab5a4108c3aa47940b", "d5976f79d83d3a0dc9806c3c66f3efd8"};
  for (int i = 0; i < 6; i++) {
    uint8_t d[16];
    cuentry::md2(in[i], std::strlen(in[i]), d);
    EXPECT_EQ(hex(d, 16), want[i]) << '"' << in[i] << '"';
  }
}

// The integrity check answers HMAC-MD2 (RFC 2104 over MD2) of the process record and the devices;
// check versions ending in 0 and 1 expect fixed answers.
TEST(CudaExportTable, IntegrityCheckIsTheHmacOfTheProcessRecord) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  const void *t = export_table(kIntegrity);
  const void *cudart = export_table(kCudartInterface);
  auto check = slot<CUresult (*)(uint32_t, uint64_t, uint64_t *)>(t, 1);
  uint64_t r[2];
  ASSERT_EQ(check(13000, 1700000000, r), CUDA_SUCCESS);
  EXPECT_EQ(r[0], 0x3341181C03CB675Cull);
  EXPECT_EQ(r[1], 0x8ED383AA1F4CD1E8ull);
  ASSERT_EQ(check(13001, 1700000000, r), CUDA_SUCCESS);
  EXPECT_EQ(r[0], 0x1841181C03CB675Cull);
  ASSERT_EQ(check(13002, 1700000000, r), CUDA_SUCCESS);

  // The HMAC by hand: key, inner MD2 over (key ^ 0x36, record, devices), outer over (key ^ 0x5c,
  // inner digest).
  const uint8_t key[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52, 0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};
  struct {
    uint32_t driver, version, pid, tid;
    uint64_t cudart, integrity, fn, seconds;
  } record = {13000, 13002, (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(),
              (uint64_t)(uintptr_t)cudart, (uint64_t)(uintptr_t)t,
              (uint64_t)(uintptr_t)static_cast<const void *const *>(t)[1], 1700000000};
  struct {
    uint8_t uuid[16];
    int32_t domain, bus, device;
  } dev;
  ASSERT_EQ(cuDeviceGetUuid_v2(dev.uuid, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&dev.domain, 50, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&dev.bus, 33, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&dev.device, 34, 0), CUDA_SUCCESS);
  std::vector<uint8_t> inner_msg(16);
  for (int i = 0; i < 16; i++) inner_msg[i] = key[i] ^ 0x36;
  inner_msg.insert(inner_msg.end(), reinterpret_cast<uint8_t *>(&record), reinterpret_cast<uint8_t *>(&record) + 48);
  inner_msg.insert(inner_msg.end(), reinterpret_cast<uint8_t *>(&dev), reinterpret_cast<uint8_t *>(&dev) + 28);
  uint8_t inner[16], outer[16];
  cuentry::md2(inner_msg.data(), inner_msg.size(), inner);
  uint8_t outer_msg[32];
  for (int i = 0; i < 16; i++) outer_msg[i] = key[i] ^ 0x5c;
  std::memcpy(outer_msg + 16, inner, 16);
  cuentry::md2(outer_msg, 32, outer);
  EXPECT_EQ(hex(reinterpret_cast<uint8_t *>(r), 16), hex(outer, 16));
  EXPECT_EQ(check(13002, 1700000000, nullptr), CUDA_ERROR_INVALID_VALUE);
}

// A private function whose contract simtvp does not know stops the program with the way out.
TEST(CudaExportTableDeathTest, UnknownSlotStopsWithARebuildHint) {
  const void *t = export_table(kCudartInterface);
  EXPECT_EXIT(slot<int (*)()>(t, 3)(), testing::ExitedWithCode(1),
              "private driver function 3 of the cudart interface table.*\n.*`nvcc -cudart shared`");
}

// ---- libraries and kernels --------------------------------------------------------------------------

TEST_F(CudaStatic, LibraryKernelsLaunchLikeFunctions) {
  std::vector<char> ptx = read_file(fixture("cudart_test_kernels.ptx"));
  CUlibrary lib = nullptr;
  ASSERT_EQ(cuLibraryLoadData(&lib, ptx.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel k = nullptr;
  ASSERT_EQ(cuLibraryGetKernel(&k, lib, "add_one"), CUDA_SUCCESS) << cucore_last_message();
  CUfunction f = nullptr;
  ASSERT_EQ(cuKernelGetFunction(&f, k), CUDA_SUCCESS);
  EXPECT_EQ(reinterpret_cast<void *>(f), reinterpret_cast<void *>(k));
  const int n = 100;
  std::vector<int> h(n, 5);
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemAlloc_v2(&d, n * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(d, h.data(), n * sizeof(int)), CUDA_SUCCESS);
  int nn = n;
  void *args[] = {&d, &nn};
  ASSERT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(k), 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(h.data(), d, n * sizeof(int)), CUDA_SUCCESS);
  EXPECT_EQ(h[0], 6);
  EXPECT_EQ(h[n - 1], 6);

  const char *name = nullptr;
  ASSERT_EQ(cuKernelGetName(&name, k), CUDA_SUCCESS);
  EXPECT_STREQ(name, "add_one");
  size_t off = 1, size = 0;
  ASSERT_EQ(cuKernelGetParamInfo(k, 1, &off, &size), CUDA_SUCCESS);
  EXPECT_EQ(off, 8u);
  EXPECT_EQ(size, 4u);
  EXPECT_EQ(cuKernelGetParamInfo(k, 2, &off, &size), CUDA_ERROR_INVALID_VALUE);
  int regs = 0;
  EXPECT_EQ(cuKernelGetAttribute(&regs, 4, k, 0), CUDA_SUCCESS);  // CU_FUNC_ATTRIBUTE_NUM_REGS
  EXPECT_GT(regs, 0);
  CUlibrary owner = nullptr;
  ASSERT_EQ(cuKernelGetLibrary(&owner, k), CUDA_SUCCESS);
  EXPECT_EQ(owner, lib);
  unsigned count = 0;
  ASSERT_EQ(cuLibraryGetKernelCount(&count, lib), CUDA_SUCCESS);
  EXPECT_EQ(count, 14u);  // the .entry functions of cudart_test_kernels.cu
  std::vector<CUkernel> all(count);
  ASSERT_EQ(cuLibraryEnumerateKernels(all.data(), count, lib), CUDA_SUCCESS);
  EXPECT_NE(std::find(all.begin(), all.end(), k), all.end());
  CUdeviceptr g = 0;
  ASSERT_EQ(cuLibraryGetGlobal(&g, &size, lib, "init_table"), CUDA_SUCCESS);
  EXPECT_EQ(size, 16u);
  CUmodule m = nullptr;
  ASSERT_EQ(cuLibraryGetModule(&m, lib), CUDA_SUCCESS);
  CUfunction via_module = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&via_module, m, "add_one"), CUDA_SUCCESS);
  EXPECT_EQ(reinterpret_cast<void *>(via_module), reinterpret_cast<void *>(k));

  ASSERT_EQ(cuLibraryUnload(lib), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLibraryGetKernel(&k, lib, "add_one"), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuKernelGetName(&name, k), CUDA_ERROR_INVALID_HANDLE);
  cuMemFree_v2(d);
}

// Libraries load at first use (CUDA's lazy loading): a bad image is reported there, every time.
TEST_F(CudaStatic, BadLibraryImageIsReportedAtFirstUse) {
  const char bad_ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n  frobnicate;\n}\n";
  CUlibrary lib = nullptr;
  ASSERT_EQ(cuLibraryLoadData(&lib, bad_ptx, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel k = nullptr;
  std::string err = stderr_of([&] { EXPECT_EQ(cuLibraryGetKernel(&k, lib, "k"), CUDA_ERROR_INVALID_PTX); });
  EXPECT_NE(err.find(":6:"), std::string::npos) << err;
  EXPECT_EQ(cuLibraryGetKernel(&k, lib, "k"), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(cuLibraryUnload(lib), CUDA_SUCCESS);
  const char cubin[64] = "\x7f" "ELF\x02\x01\x01";
  err = stderr_of([&] {
    EXPECT_EQ(cuLibraryLoadData(&lib, cubin, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_ERROR_NOT_SUPPORTED);
  });
  EXPECT_NE(err.find("cubin"), std::string::npos) << err;
  EXPECT_EQ(cuLibraryLoadFromFile(&lib, "/no/such/library.fatbin", nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_ERROR_FILE_NOT_FOUND);
}

// A library belongs to no context: it outlives the context that was current and a primary reset.
TEST_F(CudaStatic, LibrariesOutliveContexts) {
  CUlibrary lib = nullptr;
  ASSERT_EQ(cuLibraryLoadFromFile(&lib, fixture("cudart_test_kernels.fatbin").c_str(), nullptr, nullptr, 0, nullptr,
                                  nullptr, 0),
            CUDA_SUCCESS);
  CUkernel k = nullptr;
  ASSERT_EQ(cuLibraryGetKernel(&k, lib, "add_one"), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
  ctx = nullptr;
  CUcontext primary = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS);
  const char *name = nullptr;
  ASSERT_EQ(cuKernelGetName(&name, k), CUDA_SUCCESS);
  EXPECT_STREQ(name, "add_one");
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemAlloc_v2(&d, 64 * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(d, 1, 64), CUDA_SUCCESS);
  int n = 64;
  void *args[] = {&d, &n};
  ASSERT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(k), 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  int h[64];
  ASSERT_EQ(cuMemcpyDtoH_v2(h, d, sizeof h), CUDA_SUCCESS);
  EXPECT_EQ(h[63], 2);
  EXPECT_EQ(cuLibraryUnload(lib), CUDA_SUCCESS);
}

// ---- arrays, copies, texture objects ----------------------------------------------------------------

TEST_F(CudaStatic, ArraysCopiesAndTextureObjects) {
  std::vector<char> ptx = read_file(fixture("cudart_test_kernels.ptx"));
  CUmodule mod = nullptr;
  ASSERT_EQ(cuModuleLoadData(&mod, ptx.data()), CUDA_SUCCESS);
  const int w = 16, h = 8;
  struct {
    size_t Width, Height, Depth;
    int Format;
    unsigned NumChannels, Flags;
  } desc = {w, h, 0, 0x20 /* FLOAT */, 1, 0};
  CUarray a = nullptr;
  ASSERT_EQ(cuArray3DCreate_v2(&a, &desc), CUDA_SUCCESS);
  std::vector<float> img(w * h), back(w * h, -1.0f);
  for (int i = 0; i < w * h; i++) img[i] = (float)i;
  struct Memcpy2d {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
  } c2;
  std::memset(&c2, 0, sizeof c2);
  c2.srcMemoryType = 1;  // host
  c2.srcHost = img.data();
  c2.srcPitch = w * 4;
  c2.dstMemoryType = 3;  // array
  c2.dstArray = a;
  c2.WidthInBytes = w * 4;
  c2.Height = h;
  ASSERT_EQ(cuMemcpy2D_v2(&c2), CUDA_SUCCESS) << cucore_last_message();

  struct {
    int resType;
    union {
      CUarray hArray;
      int reserved[32];
    } res;
    unsigned flags;
  } res;
  std::memset(&res, 0, sizeof res);
  res.res.hArray = a;
  struct {
    int addressMode[3], filterMode;
    unsigned flags, maxAnisotropy;
    int mipmapFilterMode;
    float bias, minClamp, maxClamp, border[4];
    int reserved[12];
  } td;
  std::memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = 1;  // clamp
  unsigned long long tex = 0;
  ASSERT_EQ(cuTexObjectCreate(&tex, &res, &td, nullptr), CUDA_SUCCESS) << cucore_last_message();
  CUdeviceptr out = 0;
  ASSERT_EQ(cuMemAlloc_v2(&out, w * h * 4), CUDA_SUCCESS);
  CUfunction f = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&f, mod, "tex_2d"), CUDA_SUCCESS);
  int ww = w, hh = h;
  void *args[] = {&tex, &out, &ww, &hh};
  ASSERT_EQ(cuLaunchKernel(f, h, 1, 1, w, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(back.data(), out, w * h * 4), CUDA_SUCCESS);
  EXPECT_EQ(back[3 * w + 5], img[3 * w + 5]);
  EXPECT_EQ(back[w * h - 1], img[w * h - 1]);

  // The array back to the host through cuMemcpy3D, rows 2..4 only.
  struct Memcpy3d {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
  } c3;
  std::memset(&c3, 0, sizeof c3);
  std::vector<float> rows(3 * w, -1.0f);
  c3.srcMemoryType = 3;
  c3.srcArray = a;
  c3.srcY = 2;
  c3.dstMemoryType = 1;
  c3.dstHost = rows.data();
  c3.dstPitch = w * 4;
  c3.WidthInBytes = w * 4;
  c3.Height = 3;
  c3.Depth = 1;
  ASSERT_EQ(cuMemcpy3D_v2(&c3), CUDA_SUCCESS) << cucore_last_message();
  EXPECT_EQ(rows[0], img[2 * w]);
  EXPECT_EQ(rows[3 * w - 1], img[5 * w - 1]);
  c3.srcY = 6;  // rows 6..8 of an 8-row array
  std::string err = stderr_of([&] { EXPECT_EQ(cuMemcpy3D_v2(&c3), CUDA_ERROR_INVALID_VALUE); });
  EXPECT_NE(err.find("exceeds the array"), std::string::npos) << err;

  decltype(desc) got;
  ASSERT_EQ(cuArray3DGetDescriptor_v2(&got, a), CUDA_SUCCESS);
  EXPECT_EQ(got.Width, (size_t)w);
  EXPECT_EQ(got.Height, (size_t)h);
  EXPECT_EQ(got.Format, 0x20);
  decltype(res) res_back;
  ASSERT_EQ(cuTexObjectGetResourceDesc(&res_back, tex), CUDA_SUCCESS);
  EXPECT_EQ(res_back.res.hArray, a);

  EXPECT_EQ(cuTexObjectDestroy(tex), CUDA_SUCCESS);
  EXPECT_EQ(cuTexObjectDestroy(tex), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayDestroy(a), CUDA_SUCCESS);
  desc.Format = 0x50;  // a format the texture unit does not read
  err = stderr_of([&] { EXPECT_EQ(cuArray3DCreate_v2(&a, &desc), CUDA_ERROR_INVALID_VALUE); });
  EXPECT_NE(err.find("format 0x50"), std::string::npos) << err;
  cuMemFree_v2(out);
  cuModuleUnload(mod);
}

// ---- CUDA 13 context and memory queries the runtime uses ----------------------------------------------

TEST_F(CudaStatic, ContextQueriesNameTheirContext) {
  CUdevice dev = -1;
  ASSERT_EQ(cuCtxGetDevice_v2(&dev, ctx), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0);
  ASSERT_EQ(cuCtxGetDevice_v2(&dev, nullptr), CUDA_SUCCESS);  // NULL: the current context
  EXPECT_EQ(cuCtxSynchronize_v2(ctx), CUDA_SUCCESS);
  unsigned long long id = 0, id2 = 0;
  ASSERT_EQ(cuCtxGetId(ctx, &id), CUDA_SUCCESS);
  CUcontext other = nullptr;
  ASSERT_EQ(cuCtxCreate_v2(&other, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetId(other, &id2), CUDA_SUCCESS);
  EXPECT_NE(id, id2);
  ASSERT_EQ(cuCtxDestroy_v2(other), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxGetDevice_v2(&dev, other), CUDA_ERROR_INVALID_CONTEXT);
  int least = 1, greatest = 1;
  ASSERT_EQ(cuCtxGetStreamPriorityRange(&least, &greatest), CUDA_SUCCESS);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(greatest, 0);
  char bus[32];
  ASSERT_EQ(cuDeviceGetPCIBusId(bus, sizeof bus, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetByPCIBusId(&dev, bus), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&dev, "0000:02:00.0"), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(CudaStatic, StreamOrderedAllocationAndPointerAttributes) {
  CUstream s = nullptr;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemAllocAsync(&d, 4096, s), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8Async(d, 0x5a, 4096, s), CUDA_SUCCESS);
  unsigned type = 0;
  CUdeviceptr base = 0;
  size_t size = 0;
  int attrs[3] = {2, 11, 12};  // MEMORY_TYPE, RANGE_START_ADDR, RANGE_SIZE
  void *data[3] = {&type, &base, &size};
  ASSERT_EQ(cuPointerGetAttributes(3, attrs, data, d + 100), CUDA_SUCCESS);
  EXPECT_EQ(type, 2u);
  EXPECT_EQ(base, d);
  EXPECT_EQ(size, 4096u);
  int on_stack = 0;
  ASSERT_EQ(cuPointerGetAttributes(3, attrs, data, reinterpret_cast<CUdeviceptr>(&on_stack)), CUDA_SUCCESS);
  EXPECT_EQ(type, 0u);  // unregistered host memory is not an error here
  unsigned char h[16];
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(h, d + 4000, sizeof h, s), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(d, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(h[15], 0x5a);
  EXPECT_EQ(cuMemFree_v2(d), CUDA_ERROR_INVALID_VALUE);  // already freed
  ASSERT_EQ(cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

// The per-thread forms order work on this thread's default stream.
TEST_F(CudaStatic, PerThreadFormsUseThePerThreadStream) {
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemAlloc_v2(&d, 256), CUDA_SUCCESS);
  int h[64];
  for (int i = 0; i < 64; i++) h[i] = i;
  ASSERT_EQ(cuMemcpyHtoD_v2_ptds(d, h, sizeof h), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async_ptsz(d, 9, 8, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize_ptsz(nullptr), CUDA_SUCCESS);
  int back[64];
  ASSERT_EQ(cuMemcpyDtoH_v2_ptds(back, d, sizeof back), CUDA_SUCCESS);
  EXPECT_EQ(back[7], 9);
  EXPECT_EQ(back[8], 8);
  unsigned long long id = 1;
  ASSERT_EQ(cuStreamGetId_ptsz(nullptr, &id), CUDA_SUCCESS);
  EXPECT_EQ(id, 2u);  // CU_STREAM_PER_THREAD
  cuMemFree_v2(d);
}
