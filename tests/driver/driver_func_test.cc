// Real launches end to end: PTX → driver (module loader, copies, launch packets) → firmware →
// CTA dispatcher → models/func through gpu_simt_func → results read back through the copy engine.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "driver.h"
#include "drv_kernel.h"
#include "gpu_harness.h"
#include "gpu_simt_func.h"
#include "mmu.h"

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
  uint64_t cycle = 0;              // what the SIMT side's cycle port reads
  std::vector<uint64_t> resumes;   // the cycles its resume port asked for
};

class DriverFunc : public ::testing::Test {
 protected:
  virtual void configure(gpuctl_config *) {}
  void SetUp() override {
    gpuctl_config c;
    gh_default_config(&c);
    configure(&c);
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
    sp.cycle.ctx = &glue;
    sp.cycle.now = [](void *ctx) { return static_cast<Glue *>(ctx)->cycle; };
    sp.resume.ctx = &glue;
    sp.resume.at = [](void *ctx, uint64_t cycle) { static_cast<Glue *>(ctx)->resumes.push_back(cycle); };
    simtvp_diag_clear(&diag);
    simt = gpu_simt_func_create(&fc, nullptr, mem, nullptr, sp, &diag);
    ASSERT_NE(simt, nullptr) << diag.message;
    gpu_mem_port dp = gpu_simt_func_devmem_port(simt);
    gpu_simt_port port = gpu_simt_func_port(simt);
    h = gh_create_with_pages(&c, &dp, &port, mem, [](void *ctx, uint64_t pa) {
    return devmem_page(static_cast<devmem *>(ctx), pa >> DEVMEM_PAGE_BITS);
  });
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

// One thread counts to n: 3 + 3 n + 2 warp instructions (two ld.param and the mov; add, setp and
// bra per iteration; st and ret).
const char kCountPtx[] = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry count_to(.param .u64 out, .param .u32 n)
{
  .reg .pred %p1;
  .reg .b32 %r<3>;
  .reg .b64 %rd1;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [n];
  mov.u32 %r1, 0;
LOOP:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, %r2;
  @%p1 bra LOOP;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

class DriverFuncStep : public DriverFunc {
 protected:
  // Launches count_to(n) on one thread; the CTA runs inside the launch as far as it goes.
  void launch_count(uint32_t n) {
    drv_module *cm = nullptr;
    ASSERT_EQ(drv_module_load_ptx(d, kCountPtx, sizeof kCountPtx - 1, "count.ptx", &cm, &diag), SIMTVP_OK)
        << diag.message;
    drv_function *f = drv_module_function(cm, "count_to");
    ASSERT_NE(f, nullptr);
    std::vector<uint32_t> zero(1, 0);
    ASSERT_EQ(test_support::upload(d, zero, &dout, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
    ASSERT_EQ(test_support::launch(d, f, 1, 1, {&dout, &n}, &diag), SIMTVP_OK) << diag.message;
    gh_run(h, 1000000);  // the GPU dispatches the CTA (no interrupt to wait for while it yields)
  }
  uint32_t result() {
    std::vector<uint32_t> out(1, 0);
    EXPECT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
    EXPECT_EQ(test_support::download(d, dout, &out, &diag), SIMTVP_OK);
    EXPECT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
    return out[0];
  }
  // Host memory mapped into the GPU (what makes a kernel possibly wait for the host).
  void map_host_page() {
    host_page = static_cast<uint8_t *>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(host_page, MAP_FAILED);
    ASSERT_EQ(devmem_map_external(mem, 0x7f0000000000ull, 4096, host_page, 0x100000000ull, DEVMEM_APERTURE_SYSMEM,
                                  &diag), SIMTVP_OK)
        << diag.message;
  }
  void TearDown() override {
    DriverFunc::TearDown();
    if (host_page) munmap(host_page, 4096);
  }
  uint64_t dout = 0;
  uint8_t *host_page = nullptr;
};

// count_to(3000) runs 3 + 3 × 3000 + 2 = 9005 warp instructions. With a step of 1 warp instruction
// the CTA yields after its first turn (its warp's time slice: 4096 warp instructions) and asks to
// resume 4096 cycles later (one warp instruction per cycle): at 0 + 4096. Resumed at cycle 4096, it
// runs another 4096 (8192 in all) and asks for 4096 + 4096 = 8192; resumed then, it runs the last
// 813 and ends. The result is the same as in one step.
TEST_F(DriverFuncStep, CtaYieldsAfterItsStepWhileHostMemoryIsMappedAndResumesThatManyCyclesLater) {
  map_host_page();
  gpu_simt_func_set_step(simt, 1);
  launch_count(3000);
  ASSERT_EQ(glue.resumes, std::vector<uint64_t>({4096}));
  EXPECT_TRUE(gpu_simt_func_busy(simt));
  glue.cycle = 4096;
  gpu_simt_func_resume(simt, 4095);  // not due yet: nothing runs, the same cycle is asked for
  ASSERT_EQ(glue.resumes, std::vector<uint64_t>({4096, 4096}));
  gpu_simt_func_resume(simt, 4096);
  ASSERT_EQ(glue.resumes, std::vector<uint64_t>({4096, 4096, 8192}));
  glue.cycle = 8192;
  gpu_simt_func_resume(simt, 8192);
  EXPECT_EQ(glue.resumes.size(), 3u);
  EXPECT_FALSE(gpu_simt_func_busy(simt));
  EXPECT_EQ(result(), 3000u);
}

// Without host memory mapped into the GPU a CTA cannot be waiting for the host: it runs to its
// end at once whatever the step (functional statistics of such programs stay as they were).
TEST_F(DriverFuncStep, CtaRunsToItsEndAtOnceWithoutHostMemoryMapped) {
  gpu_simt_func_set_step(simt, 1);
  launch_count(3000);
  EXPECT_TRUE(glue.resumes.empty());
  EXPECT_FALSE(gpu_simt_func_busy(simt));
  EXPECT_EQ(result(), 3000u);
}

// Step 0 (the default): every CTA runs to its end at once, host memory or not.
TEST_F(DriverFuncStep, StepZeroRunsEveryCtaToItsEnd) {
  map_host_page();
  launch_count(3000);
  EXPECT_TRUE(glue.resumes.empty());
  EXPECT_EQ(result(), 3000u);
}

// A register read before any write reads zero through the driver's program image too (the image
// carries the blocks' successor lists, which the engine's "definitely written" analysis walks):
// even CTAs write %r5 on one path, odd CTAs read it on the other, in frames the even ones left.
const char kUnwrittenPtx[] = R"(
.version 7.0
.target sm_75
.address_size 64

.visible .entry unwritten(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mad.lo.u32 %r3, %r1, 32, %r2;
  and.b32 %r4, %r1, 1;
  setp.eq.u32 %p1, %r4, 0;
  @%p1 bra EVEN;
  bra.uni ODD;
EVEN:
  add.u32 %r5, %r3, 12345;
  bra.uni OUT;
ODD:
  add.u32 %r5, %r5, 0;
OUT:
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

TEST_F(DriverFunc, ARegisterReadBeforeAnyWriteReadsZeroInAReusedFrame) {
  const uint32_t ctas = 64, n = ctas * 32;
  std::vector<uint32_t> out(n, 0xdeadbeef);
  uint64_t dout;
  ASSERT_EQ(test_support::upload(d, out, &dout, &diag), SIMTVP_OK);
  ASSERT_EQ(test_support::load_and_launch(d, std::string(kUnwrittenPtx), "unwritten.ptx", "unwritten", ctas, 32,
                                          {&dout}, &diag),
            SIMTVP_OK)
      << diag.message;
  ASSERT_EQ(test_support::download(d, dout, &out, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t i = 0; i < n; i++)
    ASSERT_EQ(out[i], (i / 32) % 2 == 0 ? i + 12345 : 0u) << "thread " << i << " of CTA " << i / 32;
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

// GPU virtual memory (docs/vm.md): a kernel translates its global addresses through the address
// space of its channel. Space v maps the first 32 MiB of device memory at their own addresses
// (module image and buffers), plus virtual page 0x200000000000 onto the page that holds `out`.
class DriverFuncVm : public DriverFunc {
 protected:
  static constexpr uint64_t kVa = 0x200000000000ull;
  void make_space(uint32_t out_flags) {
    ASSERT_EQ(drv_mem_alloc(d, 2 * 4096, &dout, &diag), SIMTVP_OK);
    out_page = (dout + 4095) & ~4095ull;
    ASSERT_EQ(drv_vas_create(d, &v, &diag), SIMTVP_OK) << diag.message;
    ASSERT_EQ(drv_vas_map(d, v, 0x100000000000ull, 0x100000000000ull, 32ull << 20, 0, &diag), SIMTVP_OK)
        << diag.message;
    ASSERT_EQ(drv_vas_map(d, v, kVa, out_page, 4096, out_flags, &diag), SIMTVP_OK) << diag.message;
    ASSERT_EQ(drv_stream_set_vas(d, nullptr, v, &diag), SIMTVP_OK) << diag.message;
  }
  void TearDown() override {
    if (v) {
      drv_clear_error(d);
      EXPECT_EQ(drv_stream_set_vas(d, nullptr, nullptr, &diag), SIMTVP_OK) << diag.message;
      EXPECT_EQ(drv_vas_destroy(d, v, &diag), SIMTVP_OK) << diag.message;
    }
    DriverFunc::TearDown();
  }
  drv_vas *v = nullptr;
  uint64_t dout = 0, out_page = 0;
};

TEST_F(DriverFuncVm, KernelStoresLandWhereItsChannelsAddressSpaceMapsThem) {
  make_space(0);
  const uint32_t ctas = 4, threads = 64;
  std::vector<uint32_t> in(ctas * threads), out(ctas, 0);
  for (uint32_t i = 0; i < in.size(); i++) in[i] = i;
  uint64_t din;
  ASSERT_EQ(test_support::upload(d, in, &din, &diag), SIMTVP_OK);
  drv_function *f = drv_module_function(mod, "bsum");
  uint64_t va = kVa;  // the kernel writes out[c] at kVa + 4c: physically out_page + 4c
  ASSERT_EQ(test_support::launch(d, f, ctas, threads, {&din, &va}, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_stream_set_vas(d, nullptr, nullptr, &diag), SIMTVP_OK);  // back to identity
  ASSERT_EQ(test_support::download(d, out_page, &out, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t c = 0; c < ctas; c++) {
    uint32_t want = 0;  // sum of c*64 .. c*64+63
    for (uint32_t t = 0; t < threads; t++) want += c * threads + t;
    EXPECT_EQ(out[c], want) << "CTA " << c;
  }
}

TEST_F(DriverFuncVm, StoreToAReadOnlyPageIsAProtectionFaultNamingKernelCtaThreadAndPc) {
  make_space(DRV_MAP_RO);
  std::vector<uint32_t> in(64, 1);
  uint64_t din;
  ASSERT_EQ(test_support::upload(d, in, &din, &diag), SIMTVP_OK);
  drv_function *f = drv_module_function(mod, "bsum");
  uint64_t va = kVa + 8;
  const uint32_t ctas = 3;  // CTA 2's thread 0 stores at kVa + 8 + 8 = kVa + 16 (like the others)
  ASSERT_EQ(test_support::launch(d, f, ctas, 64, {&din, &va}, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(drv_sync(d, &diag), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(diag.message).find("KERNEL_FAULT"), std::string::npos) << diag.message;
  const simtvp_diag *k = gpu_simt_func_last_fault(simt);
  std::string m = k->message;
  EXPECT_EQ(k->status, SIMTVP_ERR_FAULT);
  EXPECT_NE(m.find("GPU page fault (protection)"), std::string::npos) << m;
  EXPECT_NE(m.find("in kernel bsum, CTA ("), std::string::npos) << m;
  EXPECT_NE(m.find("thread (0,0,0)"), std::string::npos) << m;
  EXPECT_NE(m.find(", pc "), std::string::npos) << m;
  EXPECT_NE(m.find("st.global.u32"), std::string::npos) << m;
  // The faulting address is the virtual one, one of kVa + 8 + 4c.
  EXPECT_GE(k->address, kVa + 8);
  EXPECT_LE(k->address, kVa + 16);
  EXPECT_EQ((k->address - kVa) % 4, 0u);
  // Nothing was written: the page still holds what the allocation held (reads are allowed).
  std::vector<uint32_t> out(4, 0xFFFFFFFFu);
  drv_clear_error(d);
  ASSERT_EQ(drv_stream_set_vas(d, nullptr, nullptr, &diag), SIMTVP_OK);
  ASSERT_EQ(test_support::download(d, out_page, &out, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t w : out) EXPECT_NE(w, 64u) << "no CTA's sum reached the read-only page";
}

}  // namespace

// Unified memory at the driver level (sw/driver drv_um.c, docs/vm.md "Unified memory"): the GPU
// reports replayable faults (caps.replayable, the functional SIMT side parks the waiting CTAs),
// the driver services the fault buffer in batches. The host mirror is this process's memory at
// the managed address (mapped here; a host port that records the driver's protection changes
// stands in for mprotect, and host faults are drv_um_host_access calls).
class DriverFuncUm : public DriverFunc {
 protected:
  void configure(gpuctl_config *c) override {
    c->caps.replayable = true;
    // The managed addresses follow device memory; the platform's default base, not 0x1000_0000_0000,
    // which lies in AddressSanitizer's shadow gap, where the host mirror cannot be mapped.
    c->caps.devmem_base = 0x500000000000ull;
  }
  uint64_t managed(uint64_t bytes) {
    uint64_t va = 0;
    simtvp_status st = drv_managed_alloc(d, bytes, &va, &diag);
    EXPECT_EQ(st, SIMTVP_OK) << diag.message;
    if (st != SIMTVP_OK) return 0;
    uint64_t len = (bytes + 4095) & ~4095ull;
    void *m = mmap(reinterpret_cast<void *>(va), len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    EXPECT_EQ(m, reinterpret_cast<void *>(va));
    mirrors.push_back({va, len});
    return va;
  }
  void SetUp() override {
    DriverFunc::SetUp();
    drv_um_host_port hp{this, [](void *ctx, uint64_t va, uint64_t bytes, int access) {
                          for (uint64_t p = va; p < va + bytes; p += 4096) static_cast<DriverFuncUm *>(ctx)->prot[p] = access;
                        },
                        nullptr, nullptr};
    drv_um_set_host_port(d, &hp);
  }
  void TearDown() override {
    DriverFunc::TearDown();
    for (auto &m : mirrors) munmap(reinterpret_cast<void *>(m.first), m.second);
  }
  gpu_mmu_counters mmu() { return gpu_mmu_get_counters(gpuctl_mmu(h->g)); }
  drv_um_stats um() {
    drv_um_stats s;
    drv_um_get_stats(d, &s);
    return s;
  }
  std::map<uint64_t, int> prot;
  std::vector<std::pair<uint64_t, uint64_t>> mirrors;
};

// vadd(a, b, c = a, n): a is 3 host pages of managed memory (3072 floats), b plain device memory
// of ones: the kernel's 24 CTAs of 128 threads all start before the driver runs, every warp waits
// on one of 3 pages: 3 fault-buffer entries, 1 batch (one MMU_REPLAY), 3 pages = 12288 bytes
// host -> GPU, the host mirror of each closed. c[i] = a[i] + 2 x 1.
TEST_F(DriverFuncUm, FaultBatchMigratesTheHostPagesMapsThemAndReplays) {
  ASSERT_TRUE(drv_um_on_demand(d));
  const uint32_t n = 3 * 1024;
  uint64_t a = managed(n * 4);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(a % 4096, 0u);
  EXPECT_EQ(drv_um_where(d, a), DRV_UM_NOWHERE);
  for (uint32_t p = 0; p < 3; p++) ASSERT_EQ(drv_um_host_access(d, a + p * 4096, true, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(prot[a + 4096], DRV_UM_HOST_RW);
  float *ha = reinterpret_cast<float *>(a);
  for (uint32_t i = 0; i < n; i++) ha[i] = (float)i;
  std::vector<float> ones(n, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  gpu_mmu_counters m0 = mmu();
  drv_um_stats s0 = um();
  drv_function *f = drv_module_function(mod, "vadd");
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, f, n / 128, 128, {&a, &db, &a, &nn}, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  gpu_mmu_counters m1 = mmu();
  drv_um_stats s1 = um();
  EXPECT_EQ(m1.entries - m0.entries, 3u);
  EXPECT_EQ(m1.replays - m0.replays, 1u);
  EXPECT_EQ(m1.cancels - m0.cancels, 0u);
  EXPECT_EQ(s1.faults - s0.faults, 3u);
  EXPECT_EQ(s1.batches - s0.batches, 1u);
  EXPECT_EQ(s1.pages_to_gpu - s0.pages_to_gpu, 3u);
  EXPECT_EQ(s1.bytes_to_gpu - s0.bytes_to_gpu, 12288u);
  for (uint32_t p = 0; p < 3; p++) {
    EXPECT_EQ(drv_um_where(d, a + p * 4096), DRV_UM_GPU) << p;
    EXPECT_EQ(prot[a + p * 4096], DRV_UM_HOST_NONE) << p;
  }
  // The GPU page table maps them now (4 KiB, at their own address).
  uint64_t e;
  uint32_t bits;
  ASSERT_TRUE(drv_vas_lookup(drv_default_vas(d), a + 4096, &e, &bits));
  EXPECT_EQ(bits, 12u);
  EXPECT_EQ(mmu_pte_addr(e), a + 4096);
  // A host access to page 1 brings exactly that page back, with the kernel's results.
  ASSERT_EQ(drv_um_host_access(d, a + 4096 + 8, false, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.pages_to_host - s1.pages_to_host, 1u);
  EXPECT_EQ(s2.bytes_to_host - s1.bytes_to_host, 4096u);
  EXPECT_EQ(prot[a + 4096], DRV_UM_HOST_RW);
  EXPECT_EQ(drv_um_where(d, a + 4096), DRV_UM_HOST);
  EXPECT_EQ(drv_um_where(d, a), DRV_UM_GPU);
  for (uint32_t i = 1024; i < 2048; i++) ASSERT_EQ(ha[i], (float)i + 2.0f) << i;
  EXPECT_FALSE(drv_vas_lookup(drv_default_vas(d), a + 4096, &e, &bits));
  EXPECT_EQ(e, MMU_PTE_REPLAY);  // not present, replayable
  EXPECT_EQ(drv_mem_free(d, a, &diag), SIMTVP_OK) << diag.message;
  EXPECT_FALSE(drv_managed_lookup(d, a, nullptr, nullptr));
}

// Pages nobody touched: the GPU's first touch places them without a copy (the device copy
// starts zeroed): 2 faults, 0 bytes moved, out[i] = 0 + 2 x 1.
TEST_F(DriverFuncUm, GpuFirstTouchNeedsNoCopy) {
  const uint32_t n = 2 * 1024;
  uint64_t a = managed(n * 4);
  std::vector<float> ones(n, 1.0f), out(n, -1.0f);
  uint64_t db, dc;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_mem_alloc(d, n * 4, &dc, &diag), SIMTVP_OK);
  drv_um_stats s0 = um();
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &dc, &nn}, &diag),
            SIMTVP_OK);
  ASSERT_EQ(test_support::download(d, dc, &out, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.faults - s0.faults, 2u);
  EXPECT_EQ(s1.first_touch_gpu - s0.first_touch_gpu, 2u);
  EXPECT_EQ(s1.bytes_to_gpu - s0.bytes_to_gpu, 0u);
  for (uint32_t i = 0; i < n; i++) ASSERT_EQ(out[i], 2.0f) << i;
}

// With the fault buffer in use, an unmapped page (an entry without REPLAY) is still a fatal
// fault: the kernel stops, nothing waits.
TEST_F(DriverFuncUm, UnmappedPageStaysFatalWithTheFaultBufferOn) {
  ASSERT_NE(managed(4096), 0u);  // sets up the fault buffer
  uint64_t dc;
  ASSERT_EQ(drv_mem_alloc(d, 8192, &dc, &diag), SIMTVP_OK);
  uint64_t page = (dc + 4095) & ~4095ull;
  ASSERT_EQ(drv_vas_unmap(d, drv_default_vas(d), page, 4096, &diag), SIMTVP_OK) << diag.message;
  gpu_mmu_counters m0 = mmu();
  std::vector<float> ones(1024, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  uint32_t nn = 1024;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), 8, 128, {&db, &db, &page, &nn}, &diag),
            SIMTVP_OK);
  EXPECT_EQ(drv_sync(d, &diag), SIMTVP_ERR_FAULT);
  EXPECT_EQ(mmu().entries - m0.entries, 0u);
}

// A prefetch to the GPU returns with its work queued: 3 host pages' copies and the table writes on
// the paging channel, and a semaphore wait plus a fence on the stream, so the stream is busy right
// after the call and idle after a sync; then the pages are the GPU's (mapped, mirrors closed) and
// vadd over them on that stream faults 0 times (12288 bytes up, all prefetched).
TEST_F(DriverFuncUm, PrefetchToTheGpuIsQueuedAndTheStreamWaitsForIt) {
  const uint32_t n = 3 * 1024;
  uint64_t a = managed(n * 4);
  for (uint32_t p = 0; p < 3; p++) ASSERT_EQ(drv_um_host_access(d, a + p * 4096, true, &diag), SIMTVP_OK);
  float *ha = reinterpret_cast<float *>(a);
  for (uint32_t i = 0; i < n; i++) ha[i] = (float)i;
  std::vector<float> ones(n, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  drv_stream *s = nullptr;
  ASSERT_EQ(drv_stream_create(d, 0, 0, &s, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s0 = um();
  ASSERT_EQ(drv_um_prefetch(d, s, a, n * 4, DRV_UM_GPU, false, &diag), SIMTVP_OK) << diag.message;
  bool idle = true;
  ASSERT_EQ(drv_stream_query(d, s, &idle, &diag), SIMTVP_OK);
  EXPECT_FALSE(idle);  // the copies are on their way
  EXPECT_EQ(prot[a + 4096], DRV_UM_HOST_NONE);  // closed at once: the host data was staged
  ASSERT_EQ(drv_stream_sync(d, s, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_stream_query(d, s, &idle, &diag), SIMTVP_OK);
  EXPECT_TRUE(idle);
  uint64_t e;
  uint32_t bits;
  EXPECT_TRUE(drv_vas_lookup(drv_default_vas(d), a + 8192, &e, &bits));
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.bytes_to_gpu - s0.bytes_to_gpu, 12288u);
  EXPECT_EQ(s1.prefetched_pages - s0.prefetched_pages, 3u);
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag, 0, s),
            SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(um().faults - s1.faults, 0u);
  ASSERT_EQ(drv_um_host_access(d, a + 8, false, &diag), SIMTVP_OK);
  EXPECT_EQ(ha[5], 5.0f + 2.0f);
  EXPECT_EQ(drv_stream_destroy(d, s, &diag), SIMTVP_OK);
}

// A prefetch to the host is stream-ordered and returns at once: after vadd on stream s (3 pages
// the GPU holds, a[i] = i + 2 x 1), the call leaves the pages where they are (the kernel may still
// use them: GPU, mirrors closed) with the stream stopped at the driver's semaphore, so a query
// finds it busy; the sync lets the driver migrate them once vadd is done and release the stream:
// 3 pages, 12288 bytes down, 3 prefetched, 0 host faults, mirrors open, values i + 2.
TEST_F(DriverFuncUm, PrefetchToTheHostReturnsAtOnceAndMigratesAfterTheStreamsEarlierWork) {
  const uint32_t n = 3 * 1024;
  uint64_t a = managed(n * 4);
  for (uint32_t p = 0; p < 3; p++) ASSERT_EQ(drv_um_host_access(d, a + p * 4096, true, &diag), SIMTVP_OK);
  float *ha = reinterpret_cast<float *>(a);
  for (uint32_t i = 0; i < n; i++) ha[i] = (float)i;
  std::vector<float> ones(n, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  drv_stream *s = nullptr;
  ASSERT_EQ(drv_stream_create(d, 0, 0, &s, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_um_prefetch(d, s, a, n * 4, DRV_UM_GPU, true, &diag), SIMTVP_OK) << diag.message;
  uint32_t nn = n;
  uint64_t c = a;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &c, &nn}, &diag, 0, s),
            SIMTVP_OK) << diag.message;
  drv_um_stats s0 = um();
  ASSERT_EQ(drv_um_prefetch(d, s, a, n * 4, DRV_UM_HOST, false, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t p = 0; p < 3; p++) EXPECT_EQ(drv_um_where(d, a + p * 4096), DRV_UM_GPU) << p;
  EXPECT_EQ(prot[a + 4096], DRV_UM_HOST_NONE);
  bool idle = true;
  ASSERT_EQ(drv_stream_query(d, s, &idle, &diag), SIMTVP_OK);
  EXPECT_FALSE(idle);
  ASSERT_EQ(drv_stream_sync(d, s, &diag), SIMTVP_OK) << diag.message;
  for (uint32_t p = 0; p < 3; p++) EXPECT_EQ(drv_um_where(d, a + p * 4096), DRV_UM_HOST) << p;
  EXPECT_EQ(prot[a + 8192], DRV_UM_HOST_RW);
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.pages_to_host - s0.pages_to_host, 3u);
  EXPECT_EQ(s1.bytes_to_host - s0.bytes_to_host, 12288u);
  EXPECT_EQ(s1.prefetched_pages - s0.prefetched_pages, 3u);
  EXPECT_EQ(s1.host_faults - s0.host_faults, 0u);
  for (uint32_t i = 0; i < n; i++) ASSERT_EQ(ha[i], (float)i + 2.0f) << i;
  EXPECT_EQ(drv_stream_destroy(d, s, &diag), SIMTVP_OK);
}

// Stream order across directions: a prefetch to the host still waiting for its stream (behind a
// kernel) and then one to the GPU of the same pages end with the pages on the GPU — the second
// call waits for the first (2 pages down, then 2 up) — and a range freed with a prefetch to the
// host pending releases its stream (the sync returns).
TEST_F(DriverFuncUm, PrefetchesKeepTheirStreamOrderAndAFreeReleasesAPendingOne) {
  const uint32_t n = 2 * 1024;
  uint64_t a = managed(n * 4);
  std::vector<float> ones(n, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  drv_stream *s = nullptr;
  ASSERT_EQ(drv_stream_create(d, 0, 0, &s, &diag), SIMTVP_OK) << diag.message;
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag, 0, s),
            SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_stream_sync(d, s, &diag), SIMTVP_OK) << diag.message;  // 2 GPU first touches
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag, 0, s),
            SIMTVP_OK) << diag.message;
  drv_um_stats s0 = um();
  ASSERT_EQ(drv_um_prefetch(d, s, a, n * 4, DRV_UM_HOST, false, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_um_prefetch(d, s, a, n * 4, DRV_UM_GPU, false, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_stream_sync(d, s, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.pages_to_host - s0.pages_to_host, 2u);
  EXPECT_EQ(s1.pages_to_gpu - s0.pages_to_gpu, 2u);
  for (uint32_t p = 0; p < 2; p++) EXPECT_EQ(drv_um_where(d, a + p * 4096), DRV_UM_GPU) << p;
  ASSERT_EQ(drv_um_host_access(d, a, false, &diag), SIMTVP_OK);
  EXPECT_EQ(reinterpret_cast<float *>(a)[7], 4.0f);  // two vadds: 0 + 2 + 2
  // freed while pending: the free waits for the GPU (drv_sync), which runs the prefetch first
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag, 0, s),
            SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_um_prefetch(d, s, a, n * 4, DRV_UM_HOST, false, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(drv_mem_free(d, a, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(drv_stream_sync(d, s, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(drv_stream_destroy(d, s, &diag), SIMTVP_OK);
}

// Remote mappings. The test's host port plays the platform: expose gives the mirror page a bus
// address and, as gpu_top does on the MAP_SYSMEM the driver then queues, maps the window onto
// the mirror in the store; unexpose takes it away.
class DriverFuncUmRemote : public DriverFuncUm {
 protected:
  void SetUp() override {
    DriverFuncUm::SetUp();
    drv_um_host_port hp{this,
                        [](void *ctx, uint64_t va, uint64_t bytes, int access) {
                          for (uint64_t p = va; p < va + bytes; p += 4096)
                            static_cast<DriverFuncUmRemote *>(ctx)->prot[p] = access;
                        },
                        [](void *ctx, uint64_t va, uint64_t bytes, uint64_t *bus) {
                          auto *t = static_cast<DriverFuncUmRemote *>(ctx);
                          *bus = kBus + va;
                          t->exposed++;
                          return devmem_map_external(t->mem, t->window(va), bytes, reinterpret_cast<uint8_t *>(va),
                                                     *bus, DEVMEM_APERTURE_SYSMEM, nullptr) == SIMTVP_OK;
                        },
                        [](void *ctx, uint64_t va, uint64_t bytes) {
                          auto *t = static_cast<DriverFuncUmRemote *>(ctx);
                          t->exposed--;
                          devmem_unmap(t->mem, t->window(va), bytes);
                        }};
    drv_um_set_host_port(d, &hp);
  }
  uint64_t window(uint64_t va) const { return DRV_UM_WINDOW_BASE + (va - 0x500000000000ull); }
  static constexpr uint64_t kBus = 1ull << 60;
  int exposed = 0;
};

// Preferred location host: vadd over 3 host pages (c = a + 2 x 1 into a) faults once per page
// (3 entries, 1 batch) and each fault maps the host page remotely instead of migrating it: 0
// bytes up, 3 remote maps, 3 MAP_SYSMEM windows at DRV_UM_WINDOW_BASE + the page's offset, the
// entries VALID VIDMEM VOL naming them; the kernel's stores land in the host mirror, which stays
// open (no host fault). A second vadd faults 0 times. A prefetch to the GPU then migrates them
// (3 remote unmaps, windows closed, unexposed; 12288 bytes up).
TEST_F(DriverFuncUmRemote, PreferredLocationHostMapsFaultingPagesRemotely) {
  const uint32_t n = 3 * 1024;
  uint64_t a = managed(n * 4);
  for (uint32_t p = 0; p < 3; p++) ASSERT_EQ(drv_um_host_access(d, a + p * 4096, true, &diag), SIMTVP_OK);
  float *ha = reinterpret_cast<float *>(a);
  for (uint32_t i = 0; i < n; i++) ha[i] = (float)i;
  ASSERT_EQ(drv_um_advise(d, a, n * 4, DRV_UM_ADVISE_PREFER_HOST, &diag), SIMTVP_OK);
  std::vector<float> ones(n, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  drv_um_stats s0 = um();
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag),
            SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.faults - s0.faults, 3u);
  EXPECT_EQ(s1.batches - s0.batches, 1u);
  EXPECT_EQ(s1.bytes_to_gpu - s0.bytes_to_gpu, 0u);
  EXPECT_EQ(s1.remote_maps - s0.remote_maps, 3u);
  EXPECT_EQ(exposed, 3);
  ASSERT_EQ(h->n_sysmaps, 3u);
  for (uint32_t p = 0; p < 3; p++) {
    uint64_t va = a + p * 4096, e = 0;
    uint32_t bits = 0;
    EXPECT_EQ(drv_um_where(d, va), DRV_UM_HOST);
    EXPECT_TRUE(drv_um_remote(d, va));
    EXPECT_EQ(prot[va], DRV_UM_HOST_RW);
    ASSERT_TRUE(drv_vas_lookup(drv_default_vas(d), va, &e, &bits));
    EXPECT_EQ(mmu_pte_addr(e), window(va));
    EXPECT_EQ(mmu_pte_aperture(e), (uint32_t)MMU_APERTURE_VIDMEM);
    EXPECT_NE(e & MMU_PTE_VOL, 0u);
  }
  for (uint32_t i = 0; i < n; i++) ASSERT_EQ(ha[i], (float)i + 2.0f) << i;  // in place, no copy
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag),
            SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.faults - s1.faults, 0u);
  EXPECT_EQ(s2.host_faults - s0.host_faults, 0u);
  EXPECT_EQ(ha[9], 9.0f + 4.0f);
  ASSERT_EQ(drv_um_prefetch(d, nullptr, a, n * 4, DRV_UM_GPU, false, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s3 = um();
  EXPECT_EQ(s3.remote_unmaps - s2.remote_unmaps, 3u);
  EXPECT_EQ(s3.bytes_to_gpu - s2.bytes_to_gpu, 12288u);
  EXPECT_EQ(exposed, 0);
  EXPECT_EQ(h->n_sysmaps, 0u);
  EXPECT_EQ(drv_um_where(d, a), DRV_UM_GPU);
  EXPECT_FALSE(drv_um_remote(d, a));
}

// Preferred location host on pages never touched: the GPU's first touch places them on the host
// (2 first touches there, mirrors opened) and maps them remotely: 2 faults, 0 bytes moved.
TEST_F(DriverFuncUmRemote, PreferredHostFirstTouchByTheGpuPlacesThePageOnTheHost) {
  const uint32_t n = 2 * 1024;
  uint64_t a = managed(n * 4);
  ASSERT_EQ(drv_um_advise(d, a, n * 4, DRV_UM_ADVISE_PREFER_HOST, &diag), SIMTVP_OK);
  std::vector<float> ones(n, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  drv_um_stats s0 = um();
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag),
            SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.faults - s0.faults, 2u);
  EXPECT_EQ(s1.first_touch_host - s0.first_touch_host, 2u);
  EXPECT_EQ(s1.first_touch_gpu - s0.first_touch_gpu, 0u);
  EXPECT_EQ(s1.remote_maps - s0.remote_maps, 2u);
  EXPECT_EQ(prot[a + 4096], DRV_UM_HOST_RW);
  EXPECT_EQ(reinterpret_cast<float *>(a)[1025], 2.0f);  // page 1, written in place
}

// Accessed-by the GPU: the advice maps the 2 pages the host holds at once (2 remote maps, no
// fault when vadd then runs over them, 0 bytes moved); a page that comes back to the host later
// (a host access after a prefetch to the GPU) is mapped remotely again (1 more remote map).
TEST_F(DriverFuncUmRemote, AccessedByTheGpuKeepsHostPagesMapped) {
  const uint32_t n = 2 * 1024;
  uint64_t a = managed(n * 4);
  for (uint32_t p = 0; p < 2; p++) ASSERT_EQ(drv_um_host_access(d, a + p * 4096, true, &diag), SIMTVP_OK);
  drv_um_stats s0 = um();
  ASSERT_EQ(drv_um_advise(d, a, n * 4, DRV_UM_ADVISE_ACCESSED_BY_GPU, &diag), SIMTVP_OK);
  EXPECT_EQ(um().remote_maps - s0.remote_maps, 2u);
  EXPECT_EQ(h->n_sysmaps, 2u);
  std::vector<float> ones(n, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag),
            SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.faults - s0.faults, 0u);
  EXPECT_EQ(s1.bytes_to_gpu - s0.bytes_to_gpu, 0u);
  EXPECT_EQ(reinterpret_cast<float *>(a)[5], 2.0f);
  ASSERT_EQ(drv_um_prefetch(d, nullptr, a, 4096, DRV_UM_GPU, false, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  EXPECT_FALSE(drv_um_remote(d, a));
  ASSERT_EQ(drv_um_host_access(d, a, false, &diag), SIMTVP_OK);
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.remote_maps - s1.remote_maps, 1u);
  EXPECT_EQ(s2.remote_unmaps - s1.remote_unmaps, 1u);
  EXPECT_TRUE(drv_um_remote(d, a));
  EXPECT_EQ(h->n_sysmaps, 2u);
  EXPECT_EQ(drv_mem_free(d, a, &diag), SIMTVP_OK);  // the free closes both windows
  EXPECT_EQ(h->n_sysmaps, 0u);
  EXPECT_EQ(exposed, 0);
}

// Two channels: the second is the paging channel (streams share channel 0), so managed memory
// still migrates on demand: vadd over 2 GPU-first-touched pages, 2 faults, 1 batch. One channel
// cannot (a kernel waiting on a fault would hold up the copies behind it on the only ring):
// drv_managed_alloc says so.
class DriverFuncUmTwoChannels : public DriverFuncUm {
 protected:
  void configure(gpuctl_config *c) override {
    DriverFuncUm::configure(c);
    c->caps.n_channels = 2;
  }
};

TEST_F(DriverFuncUmTwoChannels, TheSecondChannelPagesWhileStreamsShareTheFirst) {
  ASSERT_TRUE(drv_um_on_demand(d));
  drv_stream *s = nullptr;
  ASSERT_EQ(drv_stream_create(d, 0, 0, &s, &diag), SIMTVP_OK) << diag.message;
  const uint32_t n = 2 * 1024;
  uint64_t a = managed(n * 4);
  std::vector<float> ones(n, 1.0f);
  uint64_t db;
  ASSERT_EQ(test_support::upload(d, ones, &db, &diag), SIMTVP_OK);
  drv_um_stats s0 = um();
  uint32_t nn = n;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mod, "vadd"), n / 128, 128, {&a, &db, &a, &nn}, &diag),
            SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.faults - s0.faults, 2u);
  EXPECT_EQ(s1.batches - s0.batches, 1u);
  EXPECT_EQ(drv_stream_set_vas(d, s, nullptr, &diag), SIMTVP_OK) << diag.message;  // not the paging channel
  EXPECT_EQ(drv_stream_destroy(d, s, &diag), SIMTVP_OK);
}

class DriverFuncUmOneChannel : public DriverFuncUm {
 protected:
  void configure(gpuctl_config *c) override {
    DriverFuncUm::configure(c);
    c->caps.n_channels = 1;
  }
};

TEST_F(DriverFuncUmOneChannel, ManagedAllocationIsRefusedNamingTheReason) {
  EXPECT_FALSE(drv_um_on_demand(d));
  uint64_t va = 0;
  EXPECT_EQ(drv_managed_alloc(d, 4096, &va, &diag), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(diag.message).find("one channel only"), std::string::npos) << diag.message;
}

TEST_F(DriverFuncUm, BadPrefetchAndAdviceNameTheAddress) {
  uint64_t a = managed(4096);
  EXPECT_EQ(drv_um_prefetch(d, nullptr, a, 8192, DRV_UM_GPU, false, &diag), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(diag.message).find("is not inside one managed allocation"), std::string::npos) << diag.message;
  EXPECT_EQ(drv_um_prefetch(d, nullptr, a, 4096, DRV_UM_BOTH, false, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(drv_um_advise(d, a + 8192, 4, DRV_UM_ADVISE_READ_MOSTLY, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(drv_um_advise(d, a, 4, static_cast<drv_um_advice>(99), &diag), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(diag.message).find("unknown advice 99"), std::string::npos) << diag.message;
  EXPECT_EQ(drv_um_host_access(d, 0x1234000, false, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(drv_managed_alloc(d, 0, &a, &diag), SIMTVP_ERR_ARG);
}

// __managed__ variables (.global .attribute(.managed)): the loader lays each on pages of its own
// after the ordinary globals and makes each a managed range. m1 has an initialiser (the loader
// wrote it: on the GPU), m2 none (nowhere). mk's 64 threads read m1 and plain and store
// m2[i] = 5 + 3 + i into m2's first page: 1 fault (m2's page 0, a first touch: 0 bytes moved),
// 1 batch; m1's page needs none. A host read of m2[10] brings page 0 back (4096 bytes). After the
// unload nothing of the module is managed any more.
TEST_F(DriverFuncUm, ManagedModuleVariablesGetPagesOfTheirOwnAndFaultLikeManagedMemory) {
  static const char kManagedPtx[] = R"(.version 7.0
.target sm_75
.address_size 64
.global .align 4 .u32 plain = 3;
.global .attribute(.managed) .align 4 .u32 m1 = 5;
.global .attribute(.managed) .align 4 .u32 m2[2048];
.visible .entry mk(.param .u32 n) {
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [n];
  setp.ge.u32 %p, %r1, %r2;
  @%p bra DONE;
  ld.global.u32 %r3, [m1];
  ld.global.u32 %r4, [plain];
  add.u32 %r3, %r3, %r4;
  add.u32 %r3, %r3, %r1;
  mov.u64 %rd1, m2;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r3;
DONE:
  ret;
}
)";
  drv_module *mm = nullptr;
  ASSERT_EQ(drv_module_load_ptx(d, kManagedPtx, sizeof kManagedPtx - 1, "managed.ptx", &mm, &diag), SIMTVP_OK)
      << diag.message;
  uint64_t plain = 0, m1 = 0, m2 = 0, bytes = 0, base = 0;
  ASSERT_EQ(drv_module_global(mm, "plain", &plain, nullptr, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_module_global(mm, "m1", &m1, nullptr, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_module_global(mm, "m2", &m2, &bytes, &diag), SIMTVP_OK);
  EXPECT_EQ(m1 % 4096, 0u);
  EXPECT_EQ(m2, m1 + 4096);
  EXPECT_NE(plain / 4096, m1 / 4096);
  EXPECT_FALSE(drv_managed_lookup(d, plain, nullptr, nullptr));
  ASSERT_TRUE(drv_managed_lookup(d, m2 + 4100, &base, &bytes));
  EXPECT_EQ(base, m2);
  EXPECT_EQ(bytes, 8192u);
  EXPECT_EQ(drv_um_where(d, m1), DRV_UM_GPU);
  EXPECT_EQ(drv_um_where(d, m2), DRV_UM_NOWHERE);
  void *mirror = mmap(reinterpret_cast<void *>(m1), 3 * 4096, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  ASSERT_EQ(mirror, reinterpret_cast<void *>(m1));
  mirrors.push_back({m1, 3 * 4096});
  drv_um_stats s0 = um();
  uint32_t n = 64;
  ASSERT_EQ(test_support::launch(d, drv_module_function(mm, "mk"), 1, 64, {&n}, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s1 = um();
  EXPECT_EQ(s1.faults - s0.faults, 1u);
  EXPECT_EQ(s1.batches - s0.batches, 1u);
  EXPECT_EQ(s1.first_touch_gpu - s0.first_touch_gpu, 1u);
  EXPECT_EQ(s1.bytes_to_gpu - s0.bytes_to_gpu, 0u);
  EXPECT_EQ(drv_um_where(d, m2), DRV_UM_GPU);
  EXPECT_EQ(drv_um_where(d, m2 + 4096), DRV_UM_NOWHERE);
  ASSERT_EQ(drv_um_host_access(d, m2 + 40, false, &diag), SIMTVP_OK) << diag.message;
  drv_um_stats s2 = um();
  EXPECT_EQ(s2.bytes_to_host - s1.bytes_to_host, 4096u);
  EXPECT_EQ(reinterpret_cast<const uint32_t *>(m2)[10], 5u + 3u + 10u);
  EXPECT_EQ(drv_mem_free(d, m1, &diag), SIMTVP_ERR_ARG);  // the module owns it
  ASSERT_EQ(drv_module_unload(d, mm, &diag), SIMTVP_OK) << diag.message;
  EXPECT_FALSE(drv_managed_lookup(d, m1, nullptr, nullptr));
  EXPECT_FALSE(drv_managed_lookup(d, m2, nullptr, nullptr));
}

// scatter(a, out, n): thread i reads the first word of page i of a, so a warp's one load needs 32
// pages.
const char kScatterPtx[] = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry scatter(.param .u64 a, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4096;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r6, [%rd4];
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r6;
DONE:
  ret;
}
)";

class DriverFuncUmScatter : public DriverFuncUm {
 protected:
  // pages host pages (page p holds p + 100 in its first word), scattered over by `threads`
  // threads in CTAs of 128 (or one CTA of `threads` when fewer); returns out.
  std::vector<uint32_t> run(uint32_t pages) {
    uint64_t a = managed(pages * 4096ull);
    for (uint32_t p = 0; p < pages; p++) {
      EXPECT_EQ(drv_um_host_access(d, a + p * 4096ull, true, &diag), SIMTVP_OK) << diag.message;
      *reinterpret_cast<uint32_t *>(a + p * 4096ull) = p + 100;
    }
    drv_module *m = nullptr;
    EXPECT_EQ(drv_module_load_ptx(d, kScatterPtx, sizeof kScatterPtx - 1, "scatter.ptx", &m, &diag), SIMTVP_OK)
        << diag.message;
    std::vector<uint32_t> out(pages, 0);
    uint64_t dout;
    EXPECT_EQ(drv_mem_alloc(d, pages * 4, &dout, &diag), SIMTVP_OK);
    m0 = mmu();
    s0 = um();
    uint32_t block = pages < 128 ? pages : 128, n = pages;
    EXPECT_EQ(test_support::launch(d, drv_module_function(m, "scatter"), pages / block, block, {&a, &dout, &n}, &diag),
              SIMTVP_OK)
        << diag.message;
    EXPECT_EQ(test_support::download(d, dout, &out, &diag), SIMTVP_OK);
    EXPECT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
    return out;
  }
  gpu_mmu_counters m0{};
  drv_um_stats s0{};
};

// One warp, one load, 32 pages: the warp reports all 32 pages at once, so 32 fault-buffer
// entries, 1 batch, 1 replay, 32 x 4096 = 131072 bytes up.
TEST_F(DriverFuncUmScatter, OneWarpLoadOverThirtyTwoPagesIsOneBatch) {
  std::vector<uint32_t> out = run(32);
  for (uint32_t i = 0; i < 32; i++) EXPECT_EQ(out[i], i + 100) << i;
  drv_um_stats s1 = um();
  gpu_mmu_counters m1 = mmu();
  EXPECT_EQ(m1.entries - m0.entries, 32u);
  EXPECT_EQ(m1.replays - m0.replays, 1u);
  EXPECT_EQ(s1.faults - s0.faults, 32u);
  EXPECT_EQ(s1.batches - s0.batches, 1u);
  EXPECT_EQ(s1.bytes_to_gpu - s0.bytes_to_gpu, 131072u);
}

// 640 pages by 5 CTAs of 128 threads (20 warps of 32 pages), all placed before the driver runs.
// The fault buffer has 512 entries, one kept free: pages 0..510 are written, pages 511..639 find
// it full (129 overflows, FAULT_STATUS.OVERFLOW). Batch 1 migrates 511 pages and replays; the
// waiting warps retry: page 511 and pages 512..639 fault again (129 entries), batch 2. In all
// 640 entries, 2 batches, 640 pages up.
TEST_F(DriverFuncUmScatter, FaultBufferOverflowIsServicedInASecondBatch) {
  std::vector<uint32_t> out = run(640);
  for (uint32_t i = 0; i < 640; i++) ASSERT_EQ(out[i], i + 100) << i;
  drv_um_stats s1 = um();
  gpu_mmu_counters m1 = mmu();
  EXPECT_EQ(m1.overflows - m0.overflows, 129u);
  EXPECT_EQ(m1.entries - m0.entries, 640u);
  EXPECT_EQ(m1.replays - m0.replays, 2u);
  EXPECT_EQ(s1.batches - s0.batches, 2u);
  EXPECT_EQ(s1.pages_to_gpu - s0.pages_to_gpu, 640u);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_STATUS), 0u);  // the driver acknowledged the overflow
}

// Without replayable faults (the default caps: a timing GPU's) managed ranges are refused with a
// reason; the CUDA runtime then keeps its launch-and-sync scheme.
TEST_F(DriverFunc, ManagedAllocWithoutReplayableFaultsIsUnsupported) {
  EXPECT_FALSE(drv_um_on_demand(d));
  uint64_t a = 0;
  EXPECT_EQ(drv_managed_alloc(d, 4096, &a, &diag), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(diag.message).find("MMU_CAPS.REPLAYABLE is 0"), std::string::npos) << diag.message;
}
