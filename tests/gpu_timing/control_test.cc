// The timing GPU through the platform: GPU cycles and determinism, GPU-level statistics, DRAM
// bandwidth of a streaming kernel against the configured peak, simulation control
// (-gpgpu_max_cycle, -gpgpu_max_insn, -gpgpu_max_cta, deadlock detection with its dump), faults
// inside CA cores reaching the driver, configuration errors naming the option.
// Every platform run happens in a forked child (timing_harness.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "driver.h"
#include "drv_kernel.h"
#include "ptx_fixtures.h"
#include "test_files.h"
#include "timing_harness.h"

extern "C" {
#include "config.h"
#include "gpu_config.h"
}

namespace {

// ---- helpers --------------------------------------------------------------------------------------

using test_support::kBarrierDeadlockPtx;
using test_support::kernel_run;

// Loads ptx (as control.ptx, the name the fault reports give), launches `kernel`, waits.
kernel_run launch_ptx(drv *d, const char *ptx, const char *kernel, std::vector<void *> args, uint32_t grid,
                      uint32_t block) {
  return test_support::run_kernel(d, ptx, "control.ptx", kernel, grid, block, args);
}

gt::options opts(std::vector<std::string> extra = {}) {
  gt::options o;
  o.overrides = {"-device_memory_mb", "512", "-simt_model", "ca"};
  o.overrides.insert(o.overrides.end(), extra.begin(), extra.end());
  return o;
}

// A grid-stride loop of `iters` dependent integer adds per thread, then one store.
const char kLoopPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
LOOP:
  add.s32 %r4, %r4, %r2;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r1;
  @%p1 bra LOOP;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

// Follows a chain of pointers: every load depends on the previous one.
const char kChasePtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry chase(.param .u64 p, .param .u32 steps, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [steps];
  ld.param.u64 %rd3, [out];
  mov.u32 %r2, 0;
LOOP:
  ld.global.u64 %rd1, [%rd1];
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  st.global.u64 [%rd3], %rd1;
  ret;
}
)";

// A store to device address 16: nothing is mapped there.
const char kFaultPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry bad(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b64 %rd<3>;
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  mov.u64 %rd1, 16;
  mov.u32 %r2, 7;
  setp.eq.u32 %p1, %r1, 5;
  @%p1 st.global.u32 [%rd1], %r2;
  ret;
}
)";

// Reads n4 float4 values in a grid-stride loop (two loads in flight per thread), one store per
// thread: a streaming read.
const char kStreamPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry stream(.param .u64 in, .param .u64 out, .param .u32 n4)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n4];
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
  mul.wide.u32 %rd3, %r7, 16;
  add.s64 %rd4, %rd1, %rd3;
  mul.wide.u32 %rd5, %r6, 16;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.v4.f32 {%f2, %f3, %f4, %f5}, [%rd4];
  add.s32 %r7, %r7, %r6;
  setp.ge.u32 %p2, %r7, %r1;
  @%p2 bra ONE;
  ld.global.v4.f32 {%f6, %f7, %f8, %f9}, [%rd6];
  add.s32 %r7, %r7, %r6;
  add.f32 %f1, %f1, %f6;
ONE:
  add.f32 %f1, %f1, %f2;
  bra LOOP;
DONE:
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd7, %rd2, %rd7;
  st.global.f32 [%rd7], %f1;
  ret;
}
)";

// ---- GPU cycles, statistics, determinism ----------------------------------------------------------

gt::scenario sgemm_scenario() {
  gt::scenario s;
  s.ptx = "sgemm.ptx";
  const uint32_t m = 64, n = 48, k = 80;
  gt::buffer a, b, c;
  a.bytes = m * k * 4;
  a.how = gt::fill::float_dyadic;
  b = a;
  b.bytes = k * n * 4;
  c = a;
  c.bytes = m * n * 4;
  s.buffers = {a, b, c};
  gt::launch l;
  l.kernel = "_Z11sgemm_tilediiifPKfS0_fPf";
  l.grid[0] = 3;
  l.grid[1] = 4;
  l.block[0] = l.block[1] = 16;
  l.args = {gt::U(m), gt::U(n), gt::U(k), gt::F(2.0f), gt::B(0), gt::B(1), gt::F(0.5f), gt::B(2)};
  s.launches = {l, l};
  return s;
}

TEST(GpuTiming, KernelsTakeCoreCyclesAndTwoRunsWriteIdenticalStatisticsJson) {
  gt::scenario s = sgemm_scenario();
  std::string dir1 = test_support::scratch_dir("tests/gpu_timing", "det1"), dir2 = test_support::scratch_dir("tests/gpu_timing", "det2");
  gt::options o1 = opts(), o2 = opts();
  o1.out_dir = dir1;
  o2.out_dir = dir2;
  o1.stats = {"gpu_sim_cycle", "gpu_sim_insn"};
  o1.kernel_stats = {"gpu_sim_cycle", "gpu_sim_insn"};
  o1.ratios = {"gpu_occupancy", "gpu_ipc"};
  gt::result r1 = gt::run(s, o1), r2 = gt::run(s, o2);
  ASSERT_EQ(r1.exit_code, 0) << r1.error << r1.messages;
  ASSERT_EQ(r2.exit_code, 0) << r2.error << r2.messages;
  EXPECT_EQ(gt::compare(s, r1, r2), "");
  std::string j1 = test_support::read_file(dir1 + "/stats.json"), j2 = test_support::read_file(dir2 + "/stats.json");
  ASSERT_FALSE(j1.empty());
  EXPECT_EQ(j1, j2) << "two runs of the same program must give the same statistics, bit for bit";
  EXPECT_NE(j1.find("\"timing\""), std::string::npos);  // the SIMT side in the run information
  // Two kernels; each has its own cycles, and the totals are their sums.
  ASSERT_EQ(r1.kernel_stats.size(), 2u);
  uint64_t c0 = r1.kernel_stats[0][0], c1 = r1.kernel_stats[1][0];
  EXPECT_GT(c0, 0u);
  EXPECT_GT(c1, 0u);
  EXPECT_EQ(r1.stats[0], c0 + c1);
  EXPECT_EQ(r1.kernel_stats[0][1], r1.kernel_stats[1][1]);  // the same launch twice: same insn
  // 64x48 outputs, k = 80: each thread runs the tile loop 5 times; IPC and occupancy are sane.
  ASSERT_EQ(r1.ratios.size(), 2u);
  EXPECT_GT(r1.ratios[0], 0.0);
  EXPECT_LE(r1.ratios[0], 1.0);
  EXPECT_GT(r1.ratios[1], 1.0);
}

TEST(GpuTiming, KernelEndPrintsGpgpuSimStatisticsWithCyclesAndOccupancy) {
  setenv("SIMTVP_STATS", "full", 1);  // GPGPU-Sim's text (the default is the short summary)
  gt::scenario s = sgemm_scenario();
  s.launches.resize(1);
  gt::options o = opts();
  o.quiet = false;
  gt::result r = gt::run(s, o);
  ASSERT_EQ(r.exit_code, 0) << r.error;
  for (const char *name : {"kernel_name = _Z11sgemm_tilediiifPKfS0_fPf", "gpu_sim_cycle = ", "gpu_sim_insn = ",
                           "gpu_ipc = ", "gpu_occupancy = ", "gpu_tot_sim_cycle = ", "gpu_tot_occupancy = ",
                           "L2_cache_bank[", "simt_core[0].cycles"})
    EXPECT_NE(r.messages.find(name), std::string::npos) << name << "\n" << r.messages.substr(0, 2000);
  EXPECT_EQ(r.messages.find("gpu_sim_cycle = 0\n"), std::string::npos);
}

// -gpgpu_flush_l2_cache 1: the second of two identical kernels misses in the L2 as the first did;
// without it, the second finds the first's lines.
TEST(GpuTiming, L2FlushAtKernelEndMakesTheNextKernelMissAgain) {
  gt::scenario s = sgemm_scenario();
  gt::options keep = opts({"-gpgpu_flush_l2_cache", "0"}), flush = opts({"-gpgpu_flush_l2_cache", "1"});
  keep.kernel_stats = flush.kernel_stats = {"L2_total_cache_misses"};
  gt::result k = gt::run(s, keep), f = gt::run(s, flush);
  ASSERT_EQ(k.exit_code, 0) << k.error;
  ASSERT_EQ(f.exit_code, 0) << f.error;
  ASSERT_EQ(k.kernel_stats.size(), 2u);
  ASSERT_EQ(f.kernel_stats.size(), 2u);
  EXPECT_LT(k.kernel_stats[1][0], k.kernel_stats[0][0] / 2) << "the L2 keeps the inputs";
  EXPECT_GE(f.kernel_stats[1][0], f.kernel_stats[0][0] * 9 / 10) << "the flushed L2 misses again";
}

// -gpgpu_flush_l1_cache 1: every L1D is written back and invalidated at a kernel's end, so the
// second of two identical kernels misses in the L1Ds as often as the first; without the flush it
// finds the lines the first left. (8 CTAs on the 8 SMs: the dispatcher's round robin puts CTA i
// of both launches on the same SM.)
TEST(GpuTiming, L1FlushAtKernelEndMakesTheNextKernelMissAgain) {
  gt::scenario s;
  s.ptx = "vector_add.ptx";
  const uint32_t n = 8 * 128;
  gt::buffer in;
  in.bytes = n * 4;
  in.how = gt::fill::float_dyadic;
  gt::buffer out = in;
  out.how = gt::fill::zero;
  s.buffers = {in, in, out};
  gt::launch l;
  l.kernel = "_Z10vector_addPKfS0_Pfi";
  l.grid[0] = 8;
  l.block[0] = 128;
  l.args = {gt::B(0), gt::B(1), gt::B(2), gt::U(n)};
  s.launches = {l, l};
  gt::options keep = opts({"-gpgpu_flush_l1_cache", "0"}), flush = opts({"-gpgpu_flush_l1_cache", "1"});
  keep.kernel_stats = flush.kernel_stats = {"L1D_total_cache_misses", "L1D_total_cache_accesses"};
  gt::result k = gt::run(s, keep), f = gt::run(s, flush);
  ASSERT_EQ(k.exit_code, 0) << k.error;
  ASSERT_EQ(f.exit_code, 0) << f.error;
  ASSERT_EQ(k.kernel_stats.size(), 2u);
  ASSERT_EQ(f.kernel_stats.size(), 2u);
  std::printf("L1D misses/accesses: keep %llu/%llu then %llu/%llu; flush %llu/%llu then %llu/%llu\n",
              (unsigned long long)k.kernel_stats[0][0], (unsigned long long)k.kernel_stats[0][1],
              (unsigned long long)k.kernel_stats[1][0], (unsigned long long)k.kernel_stats[1][1],
              (unsigned long long)f.kernel_stats[0][0], (unsigned long long)f.kernel_stats[0][1],
              (unsigned long long)f.kernel_stats[1][0], (unsigned long long)f.kernel_stats[1][1]);
  EXPECT_GT(k.kernel_stats[0][1], 0u);
  EXPECT_LT(k.kernel_stats[1][0], k.kernel_stats[0][0] / 2) << "the L1Ds keep lines of the first kernel";
  EXPECT_EQ(f.kernel_stats[1][0], f.kernel_stats[0][0]) << "the flushed L1Ds miss again";
}

// ---- DRAM bandwidth ---------------------------------------------------------------------------------

// Peak DRAM bandwidth of a configuration: channels x chips per channel x bus width (bytes) x data
// transfers per command clock x DRAM command clock.
double peak_gbs(const std::string &file, double *core_mhz) {
  gpu_config g;
  config_registry *r = config_registry_create(nullptr);
  simtvp_diag d;
  const char *files[] = {file.c_str()};
  EXPECT_EQ(gpu_config_load(&g, r, files, 1, &d), SIMTVP_OK) << d.message;
  config_registry_destroy(r);
  *core_mhz = g.derived.core_mhz;
  return g.mem.n_channels * g.mem.chips_per_channel * static_cast<double>(g.dram.bus_width) *
         g.dram.data_command_freq_ratio * g.derived.dram_mhz * 1e6 / 1e9;
}

// The default configuration (8 RTX2060-class SMs, 3 GDDR6 channels): peak = 3 channels x 1 chip x
// 2 bytes x 8 transfers per command clock x 3500 MHz... as the configuration says; the test
// computes it from the file and prints it. A streaming read of 12 MiB must reach at least 85%
// of it over the whole kernel (start-up and tail included).
TEST(GpuTiming, StreamingKernelReachesAtLeast85PercentOfPeakDramBandwidthInCaMode) {
  double core_mhz = 0;
  double peak = peak_gbs(test_support::source_path("configs/default.config"), &core_mhz);
  const uint32_t bytes = 12u << 20, n4 = bytes / 16;
  gt::options o = opts({"-dram_model", "ca"});
  o.kernel_stats = {"gpu_sim_cycle"};
  gt::result r = gt::run_body(o, [&](void *dv, std::string &out) {
    drv *d = static_cast<drv *>(dv);
    uint64_t in = 0, res = 0;
    const uint32_t grid = 32, block = 256;  // 4 CTAs of 256 threads fill each of the 8 SMs
    drv_mem_alloc(d, bytes, &in, nullptr);
    drv_mem_alloc(d, grid * block * 4, &res, nullptr);
    uint32_t n = n4;
    kernel_run k = launch_ptx(d, kStreamPtx, "stream", {&in, &res, &n}, grid, block);
    if (k.load || k.launch || k.sync) {
      out = k.diag.message;
      return 1;
    }
    return 0;
  });
  ASSERT_EQ(r.exit_code, 0) << r.error << r.messages;
  ASSERT_EQ(r.kernel_stats.size(), 1u);
  double seconds = r.kernel_stats[0][0] / (core_mhz * 1e6);
  double achieved = bytes / seconds / 1e9;
  std::printf("streaming read of %u bytes: %llu core cycles at %.1f MHz = %.3f us, %.1f GB/s of %.1f GB/s peak (%.1f%%)\n",
              bytes, static_cast<unsigned long long>(r.kernel_stats[0][0]), core_mhz, seconds * 1e6, achieved, peak,
              100.0 * achieved / peak);
  EXPECT_GE(achieved, 0.85 * peak);
}

// ---- simulation control ------------------------------------------------------------------------------

TEST(GpuTiming, MaxCycleStopsTheKernelCleanlyAndLaterKernelsAreRefused) {
  gt::options o = opts({"-gpgpu_max_cycle", "3000"});
  o.stats = {"gpu_sim_cycle"};
  gt::result r = gt::run_body(o, [](void *dv, std::string &out) {
    drv *d = static_cast<drv *>(dv);
    uint64_t res = 0;
    drv_mem_alloc(d, 4096, &res, nullptr);
    uint32_t iters = 1000000;
    kernel_run k = launch_ptx(d, kLoopPtx, "spin", {&res, &iters}, 64, 256);
    out = std::string(simtvp_status_name(k.sync)) + ": " + k.diag.message;
    drv_clear_error(d);
    kernel_run k2 = launch_ptx(d, kLoopPtx, "spin", {&res, &iters}, 1, 32);
    out += std::string("\nsecond: ") + simtvp_status_name(k2.sync);
    drv_clear_error(d);
    return k.sync != SIMTVP_OK && k2.sync != SIMTVP_OK ? 0 : 1;
  });
  ASSERT_EQ(r.exit_code, 0) << r.error << r.messages;
  EXPECT_NE(r.fault.find("-gpgpu_max_cycle"), std::string::npos) << r.fault;
  EXPECT_NE(r.messages.find("-gpgpu_max_cycle 3000 reached"), std::string::npos) << r.messages;
  ASSERT_EQ(r.stats.size(), 1u);
  // Stopped at the limit (plus the edge the stop takes and the dispatcher's wind-down).
  EXPECT_GE(r.stats[0], 3000u);
  EXPECT_LE(r.stats[0], 3100u);
  std::printf("%s", r.messages.c_str());
}

TEST(GpuTiming, MaxInsnStopsTheKernelCleanly) {
  gt::options o = opts({"-gpgpu_max_insn", "100000"});
  o.stats = {"gpu_sim_insn"};
  gt::result r = gt::run_body(o, [](void *dv, std::string &out) {
    drv *d = static_cast<drv *>(dv);
    uint64_t res = 0;
    drv_mem_alloc(d, 4096, &res, nullptr);
    uint32_t iters = 1000000;
    kernel_run k = launch_ptx(d, kLoopPtx, "spin", {&res, &iters}, 16, 128);
    out = k.diag.message;
    return k.sync != SIMTVP_OK ? 0 : 1;
  });
  ASSERT_EQ(r.exit_code, 0) << r.error << r.messages;
  EXPECT_NE(r.fault.find("-gpgpu_max_insn 100000 reached"), std::string::npos) << r.fault;
  ASSERT_EQ(r.stats.size(), 1u);
  // Checked after every cluster tick: at most one cycle of the whole GPU's issue beyond the limit
  // (8 cores x 4 schedulers x 32 threads).
  EXPECT_GE(r.stats[0], 100000u);
  EXPECT_LE(r.stats[0], 100000u + 8 * 4 * 32);
}

TEST(GpuTiming, MaxCtaRunsOnlyThatManyCtasAndEndsTheKernelWithALimitError) {
  gt::options o = opts({"-gpgpu_max_cta", "3"});
  o.stats = {"cta_disp.ctas_issued", "simt_core[0].ctas"};
  std::vector<uint32_t> out(16 * 32, 0);
  gt::result r = gt::run_body(o, [&](void *dv, std::string &text) {
    drv *d = static_cast<drv *>(dv);
    uint64_t res = 0;
    drv_mem_alloc(d, out.size() * 4, &res, nullptr);
    drv_memset(d, nullptr, drv_device_ptr(res), 0xFFFFFFFFu, 4, out.size(), nullptr);
    uint32_t iters = 10;
    kernel_run k = launch_ptx(d, kLoopPtx, "spin", {&res, &iters}, 16, 32);
    text = k.diag.message;
    return k.sync != SIMTVP_OK ? 0 : 1;
  });
  ASSERT_EQ(r.exit_code, 0) << r.error << r.messages;
  EXPECT_NE(r.fault.find("-gpgpu_max_cta"), std::string::npos) << r.fault;
  EXPECT_NE(r.messages.find("3 CTAs have started, the limit"), std::string::npos) << r.messages;
}

// -deadlock_cycles 40: waiting for memory (the kernel parameters, then a chain of dependent
// loads) leaves the only warp without an instruction to issue for longer than that, which the
// watchdog reports as a deadlock (GPGPU-Sim's definition: no progress for that many cycles) with
// the dump of every busy cluster's warps and requests in flight and of the memory system, and the
// driver gets an error; the platform stays usable.
TEST(GpuTiming, DeadlockDetectionDumpsWarpsAndRequestsAndReturnsAnError) {
  gt::options o = opts({"-gpgpu_deadlock_detect", "1", "-deadlock_cycles", "40"});
  gt::result r = gt::run_body(o, [](void *dv, std::string &out) {
    drv *d = static_cast<drv *>(dv);
    uint64_t node = 0, res = 0;
    drv_mem_alloc(d, 4096, &node, nullptr);
    drv_mem_alloc(d, 8, &res, nullptr);
    drv_memcpy(d, nullptr, drv_device_ptr(node), drv_host_ptr(&node), 8, nullptr);  // points at itself
    uint32_t steps = 50;
    kernel_run k = launch_ptx(d, kChasePtx, "chase", {&node, &steps, &res}, 1, 32);
    out = std::string(simtvp_status_name(k.sync)) + " " + k.diag.message;
    drv_clear_error(d);
    // Still usable: a copy works afterwards (host destinations are filled at the next sync).
    uint64_t back = 0;
    simtvp_status c = drv_memcpy(d, nullptr, drv_host_ptr(&back), drv_device_ptr(node), 8, nullptr);
    if (c == SIMTVP_OK) c = drv_sync(d, nullptr);
    out += std::string("; copy ") + simtvp_status_name(c) + " " + std::to_string(back) + " " + std::to_string(node);
    return k.sync != SIMTVP_OK && c == SIMTVP_OK && back == node ? 0 : 1;
  });
  ASSERT_EQ(r.exit_code, 0) << r.error << r.messages;
  EXPECT_NE(r.fault.find("deadlock at core cycle"), std::string::npos) << r.fault;
  EXPECT_NE(r.fault.find("-deadlock_cycles 40"), std::string::npos) << r.fault;
  // The dump: the cluster with its requests in flight, the warp's state, the memory system.
  EXPECT_NE(r.messages.find("requests wait for replies"), std::string::npos) << r.messages;
  EXPECT_NE(r.messages.find("_ACC_R 0x"), std::string::npos) << r.messages;  // a load's request
  EXPECT_NE(r.messages.find("warp 0 (slot"), std::string::npos) << r.messages;
  EXPECT_NE(r.messages.find("memory system at interconnect cycle"), std::string::npos) << r.messages;
  std::printf("%s", r.messages.c_str());  // the dump, for the test log
}

// A store to an unmapped address inside a CA core: the driver gets SIMTVP_ERR_FAULT with the
// address, the platform's fault report names kernel, CTA, thread, PC and PTX line.
TEST(GpuTiming, FaultInsideACaCoreReachesTheDriverWithKernelCtaThreadPcAndAddress) {
  gt::options o = opts();
  gt::result r = gt::run_body(o, [&](void *dv, std::string &out) {
    drv *d = static_cast<drv *>(dv);
    uint64_t p = 0;
    kernel_run k = launch_ptx(d, kFaultPtx, "bad", {&p}, 2, 64);
    // (this runs in the child: the driver's diag travels back as text)
    out = "where-address=" + std::to_string((k.diag.where & SIMTVP_WHERE_ADDRESS) != 0) +
          " address=" + std::to_string(k.diag.address) + " " + k.diag.message;
    return k.sync == SIMTVP_ERR_FAULT ? 0 : 1;
  });
  ASSERT_EQ(r.exit_code, 0) << r.error << r.messages;
  EXPECT_EQ(r.error.find("where-address=1 address=16 "), 0u) << r.error;
  // The SIMT side's report: kernel bad, CTA (0,0,0) (the first to fault), thread (5,0,0), the
  // store's pc and PTX line, and the address.
  EXPECT_NE(r.fault.find("kernel bad"), std::string::npos) << r.fault;
  EXPECT_NE(r.fault.find("CTA (0,0,0), thread (5,0,0)"), std::string::npos) << r.fault;
  EXPECT_NE(r.fault.find("pc 4"), std::string::npos) << r.fault;
  EXPECT_NE(r.fault.find("address 0x10"), std::string::npos) << r.fault;
  EXPECT_NE(r.fault.find("control.ptx:14"), std::string::npos) << r.fault;
  EXPECT_NE(r.messages.find("SIMT core"), std::string::npos) << r.messages;
  // The same as structured fields, which come from the core's report (simt_core_ports.fault),
  // not from its text: pc 4 is the store on line 14 (the raw string starts with a newline).
  EXPECT_EQ(r.fault_place, "kernel fault: kernel bad CTA (0,0,0) thread (5,0,0) pc 4 control.ptx:14 address 0x10");
}

TEST(GpuTiming, FaultInsideAnAtCoreReachesTheDriverWithItsStructuredPlace) {
  gt::options o = opts({"-simt_model", "at"});
  gt::result r = gt::run_body(o, [&](void *dv, std::string &out) {
    drv *d = static_cast<drv *>(dv);
    uint64_t p = 0;
    kernel_run k = launch_ptx(d, kFaultPtx, "bad", {&p}, 2, 64);
    out = "address=" + std::to_string(k.diag.address) + " " + k.diag.message;
    return k.sync == SIMTVP_ERR_FAULT ? 0 : 1;
  });
  ASSERT_EQ(r.exit_code, 0) << r.error << r.messages;
  EXPECT_EQ(r.error.find("address=16 "), 0u) << r.error;
  EXPECT_EQ(r.fault_place, "kernel fault: kernel bad CTA (0,0,0) thread (5,0,0) pc 4 control.ptx:14 address 0x10");
  EXPECT_NE(r.fault.find("SIMT core"), std::string::npos) << r.fault;
}

TEST(GpuTiming, BarrierDeadlockInACaCoreComesBackAsAnError) {
  gt::result r = gt::run_body(opts(), [](void *dv, std::string &out) {
    drv *d = static_cast<drv *>(dv);
    kernel_run k = launch_ptx(d, kBarrierDeadlockPtx, "stuck", {}, 1, 64);
    out = k.diag.message;
    return k.sync != SIMTVP_OK ? 0 : 1;
  });
  ASSERT_EQ(r.exit_code, 0) << r.error << r.messages;
  EXPECT_NE(r.messages.find("barrier deadlock"), std::string::npos) << r.messages;
  // The structured report: kernel, CTA and the barrier warp 0 waits at (`bar.sync 1, 64`, pc 5
  // on line 15 of the raw string).
  EXPECT_EQ(r.fault_place, "deadlock: kernel stuck CTA (0,0,0) thread (0,0,0) pc 5 control.ptx:15");
  EXPECT_NE(r.fault.find("barrier deadlock"), std::string::npos) << r.fault;
}

// ---- configuration ------------------------------------------------------------------------------------

TEST(GpuTiming, BadMemorySystemOptionIsAConfigurationErrorNamingIt) {
  gt::options o = opts({"-icnt_flit_size", "0"});
  gt::result r = gt::run_body(o, [](void *, std::string &) { return 0; });
  ASSERT_EQ(r.error.find("open: "), 0u) << r.error;
  EXPECT_NE(r.error.find("-icnt_flit_size"), std::string::npos) << r.error;
}

// Every core AT: the kernel runs on the timing side (a build without models/simt/at warns and
// runs the cores cycle-accurate instead).
TEST(GpuTiming, ApproximatelyTimedCoresRunAKernelOnTheTimingSide) {
  gt::options o = opts({"-simt_model", "at"});
  o.kernel_stats = {"gpu_sim_cycle"};
  gt::result r = gt::run_body(o, [](void *dv, std::string &out) {
    drv *d = static_cast<drv *>(dv);
    uint64_t res = 0;
    drv_mem_alloc(d, 4096, &res, nullptr);
    uint32_t iters = 4;
    kernel_run k = launch_ptx(d, kLoopPtx, "spin", {&res, &iters}, 1, 32);
    out = k.diag.message;
    return k.sync;
  });
  EXPECT_EQ(r.messages.find("-simt_model at"), std::string::npos) << r.messages;
  EXPECT_EQ(r.exit_code, 0) << r.error << r.messages;
  ASSERT_EQ(r.kernel_stats.size(), 1u);
  EXPECT_GT(r.kernel_stats[0][0], 0u);  // simulated time: not the functional side
}

}  // namespace
