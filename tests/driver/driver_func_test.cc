// Real launches end to end: PTX → driver (module loader, copies, launch packets) → firmware →
// CTA dispatcher → models/func through gpu_simt_func → results read back through the copy engine.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "driver.h"
#include "drv_kernel.h"
#include "gpu_harness.h"
#include "gpu_simt_func.h"

namespace {

const char kPtx[] = R"(
.version 7.0
.target sm_75
.address_size 64

.global .align 4 .f32 scale = 0f40000000;

.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<11>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd4, %rd7;
  add.s64 %rd9, %rd5, %rd7;
  add.s64 %rd10, %rd6, %rd7;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd9];
  ld.global.f32 %f4, [scale];
  fma.rn.f32 %f3, %f2, %f4, %f1;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}

.visible .entry bsum(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 sdata[256];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r5, [%rd4];
  mov.u32 %r6, sdata;
  shl.b32 %r7, %r1, 2;
  add.s32 %r8, %r6, %r7;
  st.shared.u32 [%r8], %r5;
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
  mov.u32 %r5, 0;
  mov.u32 %r7, 0;
LOOP:
  shl.b32 %r8, %r7, 2;
  add.s32 %r8, %r6, %r8;
  ld.shared.u32 %r9, [%r8];
  add.s32 %r5, %r5, %r9;
  add.s32 %r7, %r7, 1;
  setp.lt.u32 %p2, %r7, %r3;
  @%p2 bra LOOP;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r5;
END:
  ret;
}

.visible .entry bad(.param .u64 p)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  mov.u64 %rd1, 16;
  mov.u32 %r1, 7;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

// Warps that wait on each other (sm_80): `late_exit` — threads >= stay spin 3000 iterations and
// exit after the others reached bar.sync, so the last exit completes the barrier; `mbar_wait` —
// warp 0 spins on an mbarrier phase that only warp 1's 32 arrivals complete (warp 1 arrives after
// a delay loop), then every thread writes 1.
const char kWaitPtx[] = R"(
.version 7.0
.target sm_80
.address_size 64

.visible .entry late_exit(.param .u64 out, .param .u32 stay)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 s[1024];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [stay];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra LATE;
  mov.u32 %r3, s;
  shl.b32 %r4, %r2, 2;
  add.u32 %r5, %r3, %r4;
  add.u32 %r6, %r2, 1;
  st.shared.u32 [%r5], %r6;
  bar.sync 0;
  xor.b32 %r7, %r4, 4;
  add.u32 %r8, %r3, %r7;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  ret;
LATE:
  mov.u32 %r10, 0;
SPIN:
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p2, %r10, 3000;
  @%p2 bra SPIN;
  ret;
}

.visible .entry mbar_wait(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .shared .align 8 .b64 mb;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra READY;
  mbarrier.init.shared.b64 [mb], 32;
READY:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra WAIT;
  mov.u32 %r2, 0;
DELAY:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p3, %r2, 100;
  @%p3 bra DELAY;
  mbarrier.arrive.shared.b64 _, [mb];
  bra.uni DONE;
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p3, [mb], 0;
  @!%p3 bra WAIT;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r3, 1;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

struct Glue {
  gpu_harness *h = nullptr;
};

class DriverFunc : public ::testing::Test {
 protected:
  void SetUp() override {
    gpuctl_config c;
    gh_default_config(&c);
    mem = devmem_create();
    ASSERT_EQ(devmem_map(mem, c.caps.devmem_base, c.caps.devmem_bytes, nullptr), SIMTVP_OK);
    func_config fc{};
    fc.n_sms = c.caps.clusters * c.caps.cores_per_cluster;
    gpu_simt_func_ports sp{};
    sp.cta_done.ctx = &glue;
    sp.cta_done.done = [](void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r) {
      auto *g = static_cast<Glue *>(ctx);
      gpuctl_cta_done(g->h->g, sm, slot, r, g->h->now);
    };
    simtvp_diag_clear(&diag);
    simt = gpu_simt_func_create(&fc, nullptr, mem, nullptr, sp, &diag);
    ASSERT_NE(simt, nullptr) << diag.message;
    gpu_mem_port dp = gpu_simt_func_devmem_port(simt);
    gpu_simt_port port = gpu_simt_func_port(simt);
    h = gh_create_with(&c, &dp, &port);
    glue.h = h;
    ASSERT_EQ(drv_open(&h->bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
    ASSERT_EQ(drv_module_load_ptx(d, kPtx, sizeof kPtx - 1, "kernels.ptx", &mod, &diag), SIMTVP_OK)
        << diag.message;
  }
  void TearDown() override {
    drv_close(d);
    gh_destroy(h);
    gpu_simt_func_destroy(simt);
    devmem_destroy(mem);
  }

  Glue glue;
  devmem *mem = nullptr;
  gpu_simt_func *simt = nullptr;
  gpu_harness *h = nullptr;
  drv *d = nullptr;
  drv_module *mod = nullptr;
  simtvp_diag diag;
};

TEST_F(DriverFunc, VectorAddComputesOnTheFunctionalEngine) {
  const uint32_t n = 1000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (uint32_t i = 0; i < n; i++) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i + 1.0f;
  }
  uint64_t da, db, dc;
  ASSERT_EQ(test_support::upload(d, a, &da, &diag), SIMTVP_OK);
  ASSERT_EQ(test_support::upload(d, b, &db, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_mem_alloc(d, n * 4, &dc, &diag), SIMTVP_OK);
  // cudaMemcpyToSymbol: scale = 3.0 instead of its initial 2.0.
  uint64_t sym, sym_bytes;
  ASSERT_EQ(drv_module_global(mod, "scale", &sym, &sym_bytes, &diag), SIMTVP_OK);
  float three = 3.0f;
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(sym), drv_host_ptr(&three), 4, &diag), SIMTVP_OK);
  drv_function *f = drv_module_function(mod, "vadd");
  ASSERT_NE(f, nullptr);
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, f, (n + 127) / 128, 128, {&da, &db, &dc, &nn}, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(test_support::download(d, dc, &c, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t i = 0; i < n; i++) ASSERT_EQ(c[i], a[i] + 3.0f * b[i]) << "element " << i;
}

TEST_F(DriverFunc, SharedMemoryAndBarrierKernelRunsPerCta) {
  const uint32_t ctas = 8, threads = 256;
  std::vector<uint32_t> in(ctas * threads), out(ctas, 0);
  for (uint32_t i = 0; i < in.size(); i++) in[i] = i % 97;
  uint64_t din, dout;
  ASSERT_EQ(test_support::upload(d, in, &din, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_mem_alloc(d, ctas * 4, &dout, &diag), SIMTVP_OK);
  drv_function *f = drv_module_function(mod, "bsum");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(test_support::launch(d, f, ctas, threads, {&din, &dout}, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(test_support::download(d, dout, &out, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t c = 0; c < ctas; c++) {
    uint32_t want = 0;
    for (uint32_t t = 0; t < threads; t++) want += in[c * threads + t];
    EXPECT_EQ(out[c], want) << "CTA " << c;
  }
}

// The functional SIMT side runs a CTA's warps in turn: the exit of the last warps a barrier waits
// for completes it and releases the others (threads 64-255 exit after warps 0-1 reached bar.sync).
TEST_F(DriverFunc, BarrierCompletedByTheLastWarpsExitReleasesTheOthers) {
  drv_module *wm = nullptr;
  ASSERT_EQ(drv_module_load_ptx(d, kWaitPtx, sizeof kWaitPtx - 1, "wait.ptx", &wm, &diag), SIMTVP_OK)
      << diag.message;
  drv_function *f = drv_module_function(wm, "late_exit");
  ASSERT_NE(f, nullptr);
  std::vector<uint32_t> out(256, 0);
  uint64_t dout;
  ASSERT_EQ(test_support::upload(d, out, &dout, &diag), SIMTVP_OK);
  uint32_t stay = 64;
  ASSERT_EQ(test_support::launch(d, f, 4, 256, {&dout, &stay}, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(test_support::download(d, dout, &out, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t t = 0; t < 256; t++) EXPECT_EQ(out[t], t < 64 ? (t ^ 1) + 1 : 0u) << t;
}

// A warp spinning on an mbarrier lets the other warps run (it yields when its wait fails), so
// the arrivals it waits for happen.
TEST_F(DriverFunc, WarpSpinningOnAnMbarrierLetsTheOthersArrive) {
  drv_module *wm = nullptr;
  ASSERT_EQ(drv_module_load_ptx(d, kWaitPtx, sizeof kWaitPtx - 1, "wait.ptx", &wm, &diag), SIMTVP_OK)
      << diag.message;
  drv_function *f = drv_module_function(wm, "mbar_wait");
  ASSERT_NE(f, nullptr);
  std::vector<uint32_t> out(64, 0);
  uint64_t dout;
  ASSERT_EQ(test_support::upload(d, out, &dout, &diag), SIMTVP_OK);
  ASSERT_EQ(test_support::launch(d, f, 2, 64, {&dout}, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(test_support::download(d, dout, &out, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t t = 0; t < 64; t++) EXPECT_EQ(out[t], 1u) << t;
}

TEST_F(DriverFunc, KernelFaultIsReportedThroughTheGpuErrorPath) {
  drv_function *f = drv_module_function(mod, "bad");
  ASSERT_NE(f, nullptr);
  uint64_t p = 0;
  ASSERT_EQ(test_support::launch(d, f, 1, 32, {&p}, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_sync(d, &diag), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(diag.message).find("KERNEL_FAULT"), std::string::npos) << diag.message;
  EXPECT_EQ(diag.address, 16u);
  EXPECT_EQ(gpu_simt_func_last_fault(simt)->status, SIMTVP_ERR_FAULT);
  drv_clear_error(d);
}

}  // namespace
