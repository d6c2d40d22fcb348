// harness_platform_test.cc — the runtime on a platform other than simtvp's SystemC one: the C
// harness of tests/gpuctl (model cores advanced synchronously) with the functional SIMT side,
// installed with cucore_set_platform_opener. It also gives pinned memory a host view of system
// memory (cu_platform.sysmem_ptr), so cudaMallocHost memory is the very memory the copy engine
// reads and writes by DMA — the zero-copy path the SystemC platform takes once it offers
// simtvp_host_sysmem_ptr. One platform per process: each test of this binary runs alone.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cu_core.h"
#include "cudart_api.h"
#include "gpu_harness.h"
#include "gpu_simt_func.h"
#include "host_kernels_fatbin.h"

namespace {

struct HarnessPlatform {
  devmem *mem = nullptr;
  gpu_simt_func *simt = nullptr;
  gpu_harness *h = nullptr;
  drv *d = nullptr;
  int calls = 0;
  bool closed = false;
};
HarnessPlatform g;

simtvp_status harness_call(void *ctx, void (*fn)(void *), void *arg, simtvp_diag *) {
  static_cast<HarnessPlatform *>(ctx)->calls++;
  fn(arg);  // the harness advances the GPU inside the bus calls themselves
  return SIMTVP_OK;
}
void *harness_sysmem(void *ctx, uint64_t bus, uint64_t) { return gh_sys_ptr(static_cast<HarnessPlatform *>(ctx)->h, bus); }
void harness_close(void *ctx) {
  HarnessPlatform *p = static_cast<HarnessPlatform *>(ctx);
  drv_close(p->d);
  gh_destroy(p->h);
  gpu_simt_func_destroy(p->simt);
  devmem_destroy(p->mem);
  p->closed = true;
}

simtvp_status open_harness(cu_platform *out, simtvp_diag *diag) {
  gpuctl_config c;
  gh_default_config(&c);
  g.mem = devmem_create();
  if (devmem_map(g.mem, c.caps.devmem_base, c.caps.devmem_bytes, diag) != SIMTVP_OK) return diag->status;
  func_config fc{};
  fc.n_sms = c.caps.clusters * c.caps.cores_per_cluster;
  gpu_simt_func_ports sp{};
  sp.cta_done.ctx = &g;
  sp.cta_done.done = [](void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r) {
    gpu_harness *h = static_cast<HarnessPlatform *>(ctx)->h;
    gpuctl_cta_done(h->g, sm, slot, r, h->now);
  };
  g.simt = gpu_simt_func_create(&fc, nullptr, g.mem, nullptr, sp, diag);
  if (!g.simt) return diag->status;
  gpu_mem_port dp = gpu_simt_func_devmem_port(g.simt);
  gpu_simt_port port = gpu_simt_func_port(g.simt);
  g.h = gh_create_with_pages(&c, &dp, &port, g.mem, [](void *ctx, uint64_t pa) {
    return devmem_page(static_cast<devmem *>(ctx), pa >> DEVMEM_PAGE_BITS);
  });
  simtvp_status st = drv_open(&g.h->bus, nullptr, &g.d, diag);
  if (st != SIMTVP_OK) return st;
  std::memset(out, 0, sizeof *out);
  out->ctx = &g;
  out->bus = &g.h->bus;
  out->driver = g.d;
  out->call = harness_call;
  out->sysmem_ptr = harness_sysmem;
  out->close = harness_close;
  out->name = "C harness";
  return SIMTVP_OK;
}

struct Registered {
  struct {
    int magic, version;
    const unsigned long long *data;
    void *unused;
  } wrapper = {0x466243B1, 1, host_kernels_fatbin, nullptr};
  char stub = 0;
  Registered() {
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, &stub, const_cast<char *>("saxpy"), "saxpy", -1, nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFatBinaryEnd(h);
  }
};

}  // namespace

TEST(CudaHarnessPlatform, PinnedMemoryIsSystemMemoryTheCopyEngineReadsAndWrites) {
  ASSERT_TRUE(cucore_set_platform_opener(open_harness));
  static Registered reg;
  const int n = 1000;
  float *x = nullptr, *y = nullptr, *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void **>(&x), n * 4), cudaSuccess);
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void **>(&y), n * 4, 0), cudaSuccess);
  // The host view is the harness's system memory itself: the allocation has a bus address.
  cu_mem_info info;
  cucore_mem_classify(reinterpret_cast<uint64_t>(x), &info);
  EXPECT_EQ(info.type, CU_MEM_PINNED);
  EXPECT_NE(info.bus, 0u);
  EXPECT_EQ(gh_sys_ptr(g.h, info.bus), reinterpret_cast<uint8_t *>(x));
  for (int i = 0; i < n; i++) {
    x[i] = (float)(i % 9);
    y[i] = 0.5f * (float)(i % 4);
  }
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&dx), n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&dy), n * 4), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(dx, x, n * 4, cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(dy, y, n * 4, cudaMemcpyHostToDevice, s), cudaSuccess);
  int nn = n;
  float a = 2.0f;
  void *args[] = {&nn, &a, &dx, &dy};
  ASSERT_EQ(cudaLaunchKernel(&reg.stub, dim3{(n + 127) / 128, 1, 1}, dim3{128, 1, 1}, args, 0, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(y, dy, n * 4, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  for (int i = 0; i < n; i++) ASSERT_EQ(y[i], 2.0f * (float)(i % 9) + 0.5f * (float)(i % 4)) << i;
  EXPECT_GT(g.calls, 0);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  ASSERT_EQ(cudaFreeHost(x), cudaSuccess);
  ASSERT_EQ(cudaFreeHost(y), cudaSuccess);
  cudaFree(dx);
  cudaFree(dy);
  EXPECT_FALSE(cucore_set_platform_opener(open_harness));  // too late: the platform is open
}
