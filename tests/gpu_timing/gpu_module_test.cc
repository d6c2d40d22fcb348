// The timing GPU inside the GPU module alone (tlm/gpu gpu_top in a plain SystemC testbench, as a
// SoC integrator uses it, no platform): its assembly (clusters, memory system, clock domains,
// local-memory regions) and a hardware reset while a memory-bound kernel runs on it.
// One simulation per process: CTest runs every case alone.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "driver.h"
#include "drv_kernel.h"
#include "gpu_config.h"
#include "gpu_testbench.h"
#include "gpu_top.h"
#include "simt_timing.h"

int sc_main(int, char *[]) { return 0; }

namespace {

using sc_core::SC_NS;
using test_support::gpu_testbench;

constexpr uint64_t kMemBytes = 64u << 20;  // the testbench's memory

gpu_config g_cfg;

simtvp::gpu_top *make_gpu(std::vector<const char *> args) {
  simtvp_diag diag;
  EXPECT_EQ(test_support::load_default_config(&g_cfg, args, &diag), SIMTVP_OK) << diag.message;
  simtvp::gpu_top_options o;
  simtvp::gpu_top *gpu = simtvp::gpu_top::create("gpu", g_cfg, o, &diag);
  EXPECT_NE(gpu, nullptr) << diag.message;
  return gpu;
}

// Local memory: one region per core, max_threads x 64 KiB, above device memory and the malloc
// heap, below the generic-address windows, none overlapping.
TEST(GpuTimingAssembly, ClustersMemorySystemAndLocalMemoryRegionsAreInPlace) {
  simtvp::gpu_top *gpu = make_gpu({"-simt_model", "ca", "-device_memory_mb", "64", "-gpgpu_heap_size_limit", "8388608"});
  ASSERT_NE(gpu, nullptr);
  EXPECT_STREQ(gpu->simt_model(), "timing");
  auto *t = dynamic_cast<simtvp::simt_timing *>(&gpu->simt_side());
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->cluster_count(), g_cfg.core.n_clusters);
  EXPECT_EQ(t->memory().channels(), g_cfg.mem.n_channels);
  EXPECT_EQ(t->local_region_bytes(), uint64_t{g_cfg.derived.max_threads_per_core} * (64u << 10));
  const gpu_params &p = gpu->params();
  uint64_t devmem_end = p.ctl.caps.devmem_base + p.ctl.caps.devmem_bytes;
  EXPECT_GE(t->local_base(0), devmem_end);
  EXPECT_GE(t->local_base(0), p.heap_base + p.heap_bytes);
  for (uint32_t sm = 1; sm < g_cfg.derived.n_cores; sm++)
    EXPECT_EQ(t->local_base(sm), t->local_base(sm - 1) + t->local_region_bytes());
  EXPECT_LE(t->local_base(g_cfg.derived.n_cores - 1) + t->local_region_bytes(), 0x00007ff000000000ull);
  // The core clock domain drives the clusters and the supervisor; the memory system its own three.
  EXPECT_EQ(t->core_driver().blocks(), g_cfg.core.n_clusters + 1u);
  EXPECT_NEAR(t->memory().dram_driver().domain().period().to_seconds(), 1.0 / (g_cfg.derived.dram_mhz * 1e6), 1e-12);
  delete gpu;
}

const char kStreamPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry stream(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x;
  mul.lo.s32 %r6, %r6, %r3;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r7, %r5;
LOOP:
  setp.ge.u32 %p1, %r7, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f2, [%rd4];
  add.f32 %f1, %f1, %f2;
  add.s32 %r7, %r7, %r6;
  bra LOOP;
DONE:
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd5, %rd2, %rd5;
  st.global.f32 [%rd5], %f1;
  ret;
}
)";

// Runs `stream` over n floats equal to 1 with grid x 128 threads; returns the per-thread sums.
std::vector<float> run_stream(drv *d, uint32_t n, uint32_t grid, bool wait, simtvp_status *st) {
  uint64_t in = 0, out = 0;
  std::vector<float> ones(n, 1.0f), sums(grid * 128, -1.0f);
  test_support::upload(d, ones, &in, nullptr);
  drv_mem_alloc(d, grid * 128 * 4ull, &out, nullptr);
  simtvp_diag diag;
  *st = test_support::load_and_launch(d, kStreamPtx, "stream.ptx", "stream", grid, 128, {&in, &out, &n}, &diag);
  if (*st != SIMTVP_OK || !wait) return sums;
  test_support::download(d, out, &sums, nullptr);
  *st = drv_sync(d, &diag);
  return sums;
}

// A reset while a memory-bound kernel has requests all over the memory system: the kernel is
// dropped, the cluster cores start over (replies to the old requests are discarded when they
// come back), and a new driver runs a kernel to the right result.
TEST(GpuTimingAssembly, ResetDuringAMemoryBoundKernelDropsItAndTheNextKernelRunsRight) {
  simtvp::gpu_top *gpu = make_gpu({"-simt_model", "ca", "-device_memory_mb", "64"});
  ASSERT_NE(gpu, nullptr);
  auto *tb = new gpu_testbench("tb", kMemBytes, sc_core::SC_ZERO_TIME);
  bool checked = false;
  tb->body = [&](gpu_testbench &t) {
    drv *d = nullptr;
    simtvp_diag diag;
    ASSERT_EQ(drv_open(&t.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
    simtvp_status st;
    run_stream(d, 4u << 20, 64, false, &st);  // 16 MiB of reads: long
    ASSERT_EQ(st, SIMTVP_OK);
    sc_core::wait(60, sc_core::SC_US);
    auto *side = dynamic_cast<simtvp::simt_timing *>(&t.gpu->simt_side());
    ASSERT_NE(side, nullptr);
    EXPECT_FALSE(side->idle()) << "the kernel still runs";
    EXPECT_FALSE(side->memory().idle()) << "requests are in the memory system";
    t.rst.write(true);
    sc_core::wait(10, SC_NS);
    t.rst.write(false);
    sc_core::wait(10, SC_NS);
    EXPECT_TRUE(side->idle());
    drv *d2 = nullptr;  // the GPU forgot the old driver's rings: start over (the old one is abandoned)
    t.next_free = (t.next_free + (1u << 20)) & ~uint64_t{0xFFFFF};
    ASSERT_EQ(drv_open(&t.bus, nullptr, &d2, &diag), SIMTVP_OK) << diag.message;
    std::vector<float> sums = run_stream(d2, 100000, 8, true, &st);
    ASSERT_EQ(st, SIMTVP_OK);
    double total = 0;
    for (float v : sums) total += v;
    EXPECT_EQ(total, 100000.0);
    checked = true;
  };
  tb->attach(gpu, true);
  sc_core::sc_start();
  EXPECT_TRUE(checked);
}

}  // namespace
