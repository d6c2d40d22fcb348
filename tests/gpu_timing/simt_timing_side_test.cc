// The timing SIMT side's model core alone (models/gpuctl gpu_simt_timing, no SystemC): its C API
// driven by a test standing in for the dispatcher, the clusters and the supervisor, with fake
// ports that record what leaves it. CTA residency and kernel slots, the local-memory layout,
// simulation-control stops (-gpgpu_max_cycle, -gpgpu_max_insn, -gpgpu_max_cta, deadlock) and what
// they report, fault recording, flushes at kernel end, reset. Cycles are the core clock's.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "config.h"
#include "gpu_image.h"
#include "gpu_simt_timing.h"
#include "ptx.h"
}

namespace {

const char kPtx[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                    ".visible .entry spin(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r1, 1;\n  exit;\n}\n";
constexpr uint64_t kImage = 0x100000;  // where the test writes the program image (device memory)

struct launched {
  uint32_t cluster, sm;
  const simt_kernel *k;
  uint32_t cta[3];
};
struct done {
  uint32_t sm, slot;
  gpu_cta_result r;
};

class GpuSimtTiming : public ::testing::Test {
 protected:
  // The default configuration plus overrides, its parameters, a store with one program image,
  // and the model core with every port recorded.
  void make(std::vector<const char *> overrides = {}, bool expect_ok = true) {
    config_registry *reg = config_registry_create(nullptr);
    std::string file = std::string(SIMTVP_SOURCE_DIR) + "/configs/default.config";
    simtvp_status st = gpu_config_register(reg, &cfg, &diag);
    if (st == SIMTVP_OK) st = config_registry_load_file(reg, file.c_str(), &diag);
    if (st == SIMTVP_OK && !overrides.empty())
      st = config_registry_parse_args(reg, static_cast<int>(overrides.size()), overrides.data(), &diag);
    if (st == SIMTVP_OK) st = gpu_config_finalize(&cfg, reg, &diag);
    config_registry_destroy(reg);
    ASSERT_EQ(st, SIMTVP_OK) << diag.message;
    ASSERT_EQ(gpu_params_from_config(&cfg, &params, &diag), SIMTVP_OK) << diag.message;
    mem = devmem_create();
    write_image();
    st_ = stats_create();
    insn = stats_counter(st_, "gpu_sim_insn", "insn", "thread instructions executed");

    gpu_simt_timing_config tc{};
    tc.gpu = &cfg;
    tc.params = &params;
    tc.mem = mem;
    tc.st = st_;
    gpu_simt_timing_ports p{};
    p.ctx = this;
    p.now = [](void *ctx) { return self(ctx)->now; };
    p.cta_done = [](void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r) {
      self(ctx)->dones.push_back({sm, slot, *r});
    };
    p.abort_kernel = [](void *ctx, uint32_t slot, const gpu_cta_result *why) {
      self(ctx)->aborts.push_back({0, slot, *why});
    };
    p.launch_cta = [](void *ctx, uint32_t cluster, uint32_t sm, const simt_kernel *k, const uint32_t cta[3]) {
      self(ctx)->launches.push_back({cluster, sm, k, {cta[0], cta[1], cta[2]}});
    };
    p.rebuild_clusters = [](void *ctx) { self(ctx)->rebuilds++; };
    p.flush_l1 = [](void *ctx, uint64_t now) { self(ctx)->l1_flushes.push_back(now); };
    p.flush_l2 = [](void *ctx) { self(ctx)->l2_flushes++; };
    p.invalidate_l2 = [](void *ctx) { self(ctx)->l2_invalidations++; };
    p.wake = [](void *ctx, uint64_t cycle) { self(ctx)->wakes.push_back(cycle); };
    p.dump = [](void *ctx, simtvp_severity) { self(ctx)->dumps++; };
    p.messages.ctx = this;
    p.messages.emit = [](void *ctx, simtvp_severity sev, const char *text) {
      self(ctx)->messages.push_back(std::string(sev == SIMTVP_WARNING ? "warning: " : "error: ") + text);
    };
    t = gpu_simt_timing_create(&tc, p, &diag);
    if (!expect_ok) return;
    ASSERT_NE(t, nullptr) << diag.message;
    ASSERT_EQ(gpu_simt_timing_start(t, &diag), SIMTVP_OK) << diag.message;
    port = gpu_simt_timing_port(t);
  }
  void TearDown() override {
    gpu_simt_timing_destroy(t);
    ptx_module_destroy(m);
    devmem_destroy(mem);
    stats_destroy(st_);
  }
  static GpuSimtTiming *self(void *ctx) { return static_cast<GpuSimtTiming *>(ctx); }

  void write_image() {
    m = ptx_parse(kPtx, sizeof kPtx - 1, "spin.ptx", nullptr, &diag);
    ASSERT_NE(m, nullptr) << diag.message;
    std::vector<uint8_t> buf(gpu_image_size(m));
    ASSERT_EQ(gpu_image_build(m, 0, 0, buf.data(), buf.size(), &diag), SIMTVP_OK) << diag.message;
    gpu_image_set_load_id(buf.data(), 1);
    ASSERT_EQ(devmem_map(mem, kImage, buf.size(), &diag), SIMTVP_OK);
    ASSERT_EQ(devmem_write(mem, kImage, buf.data(), buf.size(), &diag), SIMTVP_OK);
  }
  gpu_kernel kernel(uint32_t slot, uint64_t uid, uint32_t threads = 64) {
    gpu_kernel k{};
    k.slot = slot;
    k.launch_uid = uid;
    k.n_ctas = 4;
    k.threads_per_cta = threads;
    k.desc.image_addr = kImage;
    k.desc.grid[0] = 4, k.desc.grid[1] = k.desc.grid[2] = 1;
    k.desc.block[0] = threads, k.desc.block[1] = k.desc.block[2] = 1;
    k.desc.params = param_bytes;
    k.desc.param_bytes = 8;
    return k;
  }
  bool begin(const gpu_kernel &k, gpu_kernel_result *why = nullptr) {
    gpu_kernel_result w{};
    return port.kernel_begin(port.ctx, &k, why ? why : &w);
  }
  void launch(const gpu_kernel &k, uint32_t sm, uint32_t x) {
    const uint32_t cta[3] = {x, 0, 0};
    port.launch_cta(port.ctx, &k, sm, cta);
  }
  bool said(const std::string &part) const {
    for (const std::string &s : messages)
      if (s.find(part) != std::string::npos) return true;
    return false;
  }

  gpu_config cfg;
  gpu_params params;
  simtvp_diag diag{};
  devmem *mem = nullptr;
  ptx_module *m = nullptr;
  stats *st_ = nullptr;
  uint64_t *insn = nullptr;
  gpu_simt_timing *t = nullptr;
  gpu_simt_port port{};
  uint8_t param_bytes[8] = {0};

  uint64_t now = 0;
  std::vector<launched> launches;
  std::vector<done> dones, aborts;
  std::vector<uint64_t> wakes, l1_flushes;
  int rebuilds = 0, l2_flushes = 0, l2_invalidations = 0, dumps = 0;
  std::vector<std::string> messages;
};

// ---- layout ---------------------------------------------------------------------------------------

// -device_memory_mb 64 and an 8 MiB heap: device memory [devmem_base, +64 MiB), the heap from the
// next page after a 64 KiB gap; local memory from the first 1 GiB boundary 64 KiB above the heap,
// one region of 1024 threads x 64 KiB = 64 MiB per core (default: 1024 threads per SM).
TEST_F(GpuSimtTiming, LocalMemoryRegionsFollowTheHeapFromAGiBBoundaryOnePerCore) {
  make({"-device_memory_mb", "64", "-gpgpu_heap_size_limit", "8388608"});
  const uint64_t region = 1024ull * (64u << 10);
  EXPECT_EQ(gpu_simt_timing_local_region_bytes(t), region);
  uint64_t above_heap = params.heap_base + params.heap_bytes + (64u << 10);
  uint64_t base = (above_heap + (1ull << 30) - 1) & ~((1ull << 30) - 1);
  const simt_core_config *cores = gpu_simt_timing_core_configs(t);
  for (uint32_t sm = 0; sm < gpu_simt_timing_cores(t); sm++) {
    EXPECT_EQ(gpu_simt_timing_local_base(t, sm), base + sm * region) << "core " << sm;
    EXPECT_EQ(cores[sm].ldst.local_base, base + sm * region) << "core " << sm;
    EXPECT_EQ(cores[sm].stats, st_);
  }
  EXPECT_EQ(gpu_simt_timing_cores(t), 8u);
  EXPECT_EQ(gpu_simt_timing_clusters(t), 8u);
  EXPECT_EQ(gpu_simt_timing_cores_per_cluster(t), 1u);
}

// From the default -device_memory_base 0x5000_0000_0000, 50,265,920 MiB (0x2ff0_0000_0000 bytes
// less 192 MiB) of device memory end 192 MiB below the generic-address windows at
// 0x7ff0_0000_0000: room for the 8 MiB heap, none for 8 x 64 MiB of local memory.
TEST_F(GpuSimtTiming, DeviceMemoryLeavingNoRoomForLocalMemoryIsRefusedNamingTheOption) {
  make({"-device_memory_mb", "50265920"}, false);
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(diag.status, SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-device_memory_mb");
  EXPECT_NE(std::string(diag.message).find("no room for the SIMT cores' local memory"), std::string::npos)
      << diag.message;
}

// A core per cluster by default; with 2 cores per cluster, core 5 belongs to cluster 2.
TEST_F(GpuSimtTiming, ACtaGoesToTheClusterOfItsCore) {
  make({"-gpgpu_n_clusters", "4", "-gpgpu_n_cores_per_cluster", "2"});
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  launch(k, 5, 0);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].cluster, 2u);
  EXPECT_EQ(launches[0].sm, 5u);
  EXPECT_STREQ(launches[0].k->name, "spin");
  EXPECT_EQ(launches[0].k->slot, 0u);
  EXPECT_NE(launches[0].k->launch, nullptr);
  EXPECT_NE(launches[0].k->program, nullptr);
}

// ---- residency ------------------------------------------------------------------------------------

TEST_F(GpuSimtTiming, ResidentCtasAreCountedPerCoreAndSlotUntilTheClusterReportsThem) {
  make({"-gpgpu_max_concurrent_kernel", "2"});
  gpu_kernel a = kernel(0, 1), b = kernel(1, 2);
  ASSERT_TRUE(begin(a));
  ASSERT_TRUE(begin(b));
  launch(a, 0, 0);
  launch(a, 0, 1);
  launch(b, 0, 0);
  launch(b, 3, 1);
  EXPECT_EQ(gpu_simt_timing_resident(t, 0, 0), 2u);
  EXPECT_EQ(gpu_simt_timing_resident(t, 0, 1), 1u);
  EXPECT_EQ(gpu_simt_timing_resident(t, 3, 1), 1u);
  EXPECT_FALSE(gpu_simt_timing_idle(t));
  gpu_cta_result ok{};
  gpu_simt_timing_cta_done(t, 0, 0, &ok, 50);
  gpu_simt_timing_cta_done(t, 3, 1, &ok, 60);
  EXPECT_EQ(gpu_simt_timing_resident(t, 0, 0), 1u);
  EXPECT_EQ(gpu_simt_timing_resident(t, 3, 1), 0u);
  ASSERT_EQ(dones.size(), 2u);  // passed on to the dispatcher
  EXPECT_EQ(dones[1].sm, 3u);
  EXPECT_EQ(dones[1].slot, 1u);
  EXPECT_EQ(dones[1].r.status, SIMTVP_OK);
  gpu_simt_timing_cta_done(t, 0, 0, &ok, 70);
  gpu_simt_timing_cta_done(t, 0, 1, &ok, 70);
  EXPECT_TRUE(gpu_simt_timing_idle(t));
  EXPECT_EQ(gpu_simt_timing_last_fault(t)->status, SIMTVP_OK);
}

TEST_F(GpuSimtTiming, ACtaOfAKernelThatDidNotBeginEndsAtOnceWithAStateError) {
  make();
  gpu_kernel k = kernel(0, 1);
  launch(k, 0, 0);  // no kernel_begin
  gpu_kernel far = kernel(0, 2);
  ASSERT_TRUE(begin(far));
  launch(far, 99, 0);  // no core 99
  EXPECT_TRUE(launches.empty());
  ASSERT_EQ(dones.size(), 2u);
  EXPECT_EQ(dones[0].r.status, SIMTVP_ERR_STATE);
  EXPECT_EQ(dones[1].r.status, SIMTVP_ERR_STATE);
  EXPECT_TRUE(gpu_simt_timing_idle(t));
}

TEST_F(GpuSimtTiming, AKernelSlotBeyondTheConcurrentKernelLimitIsRefusedNamingTheOption) {
  make({"-gpgpu_max_concurrent_kernel", "2"});
  gpu_kernel_result why{};
  EXPECT_FALSE(begin(kernel(2, 1), &why));
  EXPECT_EQ(why.status, SIMTVP_ERR_STATE);
  EXPECT_STREQ(gpu_simt_timing_last_fault(t)->option, "-gpgpu_max_concurrent_kernel");
  EXPECT_TRUE(said("kernel slot 2, but the timing GPU has 2"));
}

TEST_F(GpuSimtTiming, AnUnreadableProgramImageRefusesTheKernelWithTheLaunchersReport) {
  make();
  gpu_kernel k = kernel(0, 1);
  k.desc.image_addr = 0x40000000;  // nothing mapped there
  gpu_kernel_result why{};
  EXPECT_FALSE(begin(k, &why));
  EXPECT_NE(why.status, SIMTVP_OK);
  EXPECT_EQ(gpu_simt_timing_last_fault(t)->status, why.status);
  EXPECT_EQ(messages.size(), 1u);
}

// 64 KiB per thread slot: a 60 KiB frame plus a 8 KiB stack is 69,632 bytes, more: one warning.
TEST_F(GpuSimtTiming, LocalMemoryBeyondTheReservedRegionIsWarnedAboutOnce) {
  make({"-gpgpu_stack_size_limit", "8192", "-gpgpu_max_concurrent_kernel", "2"});
  gpu_kernel k = kernel(0, 1);
  k.desc.local_bytes = 60u << 10;
  ASSERT_TRUE(begin(k));
  gpu_kernel k2 = kernel(1, 2);
  k2.desc.local_bytes = 60u << 10;
  ASSERT_TRUE(begin(k2));
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("warning: kernel spin: 69632 bytes of local memory per thread"), std::string::npos)
      << messages[0];
}

// ---- kernel end -----------------------------------------------------------------------------------

TEST_F(GpuSimtTiming, KernelEndFlushesTheL1sAndL2sOnlyWhenTheOptionsAskForIt) {
  make({"-gpgpu_flush_l1_cache", "1", "-gpgpu_flush_l2_cache", "0"});
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  now = 123;
  port.kernel_end(port.ctx, &k);
  ASSERT_EQ(l1_flushes.size(), 1u);
  EXPECT_EQ(l1_flushes[0], 123u);
  EXPECT_EQ(l2_flushes, 0);
  // The slot is free: a CTA of the ended kernel is a state error.
  launch(k, 0, 0);
  EXPECT_EQ(dones.back().r.status, SIMTVP_ERR_STATE);
}

TEST_F(GpuSimtTiming, KernelEndFlushesTheL2sWhenAskedTo) {
  make({"-gpgpu_flush_l1_cache", "0", "-gpgpu_flush_l2_cache", "1"});
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  port.kernel_end(port.ctx, &k);
  EXPECT_TRUE(l1_flushes.empty());
  EXPECT_EQ(l2_flushes, 1);
}

// ---- faults -------------------------------------------------------------------------------------

TEST_F(GpuSimtTiming, TheFirstFailingCtaOfAKernelBecomesLastFaultWithTheCoresStructuredReport) {
  make();
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  launch(k, 0, 0);
  launch(k, 1, 1);
  simtvp_diag report;
  simtvp_diag_clear(&report);
  simtvp_diag_set(&report, SIMTVP_ERR_FAULT, "kernel spin: CTA (0,0,0) thread (3,0,0): bad address");
  simtvp_diag_at_pc(&report, 16);
  gpu_simt_timing_fault(t, 0, 0, &report);
  gpu_cta_result bad = {SIMTVP_ERR_FAULT, 0xdead0, 16};
  gpu_simt_timing_cta_done(t, 0, 0, &bad, 40);
  const simtvp_diag *f = gpu_simt_timing_last_fault(t);
  EXPECT_EQ(f->status, SIMTVP_ERR_FAULT);
  EXPECT_STREQ(f->message, report.message);
  EXPECT_TRUE(f->where & SIMTVP_WHERE_PC);
  EXPECT_TRUE(f->where & SIMTVP_WHERE_ADDRESS);  // from the CTA's result
  EXPECT_EQ(f->address, 0xdead0u);
  // A second failure of the same kernel does not replace it.
  gpu_cta_result trap = {SIMTVP_ERR_TRAP, 0, 32};
  gpu_simt_timing_cta_done(t, 1, 0, &trap, 50);
  EXPECT_EQ(gpu_simt_timing_last_fault(t)->status, SIMTVP_ERR_FAULT);
  EXPECT_EQ(dones.size(), 2u);
}

TEST_F(GpuSimtTiming, AFailingCtaWithoutAReportIsDescribedFromItsResult) {
  make();
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  launch(k, 2, 0);
  gpu_cta_result bad = {SIMTVP_ERR_FAULT, 0x1234, 48};
  gpu_simt_timing_cta_done(t, 2, 0, &bad, 40);
  const simtvp_diag *f = gpu_simt_timing_last_fault(t);
  EXPECT_EQ(f->status, SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(f->message).find("kernel spin: a CTA ended with"), std::string::npos) << f->message;
  EXPECT_EQ(f->pc, 48u);
  EXPECT_EQ(f->address, 0x1234u);
}

// ---- simulation control ----------------------------------------------------------------------------

// -gpgpu_max_cta 2: the third CTA is refused (once said), the running ones finish, later kernels
// begin (the CTA limit does not refuse kernels, only their CTAs).
TEST_F(GpuSimtTiming, TheCtaLimitRefusesFurtherCtasWithALimitErrorNamingTheOption) {
  make({"-gpgpu_max_cta", "2"});
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  launch(k, 0, 0);
  launch(k, 1, 1);
  launch(k, 2, 2);
  launch(k, 3, 3);
  EXPECT_EQ(launches.size(), 2u);
  ASSERT_EQ(dones.size(), 2u);
  EXPECT_EQ(dones[0].r.status, SIMTVP_ERR_LIMIT);
  EXPECT_EQ(dones[0].sm, 2u);
  EXPECT_EQ(messages.size(), 1u);
  EXPECT_TRUE(said("-gpgpu_max_cta: 2 CTAs have started, the limit; kernel spin: CTA (2,0,0) and the rest"));
  EXPECT_STREQ(gpu_simt_timing_last_fault(t)->option, "-gpgpu_max_cta");
  gpu_cta_result ok{};
  gpu_simt_timing_cta_done(t, 0, 0, &ok, 10);
  gpu_simt_timing_cta_done(t, 1, 0, &ok, 10);
  port.kernel_end(port.ctx, &k);
  EXPECT_TRUE(begin(kernel(0, 2)));
}

// -gpgpu_max_cycle 100, the kernel begins at cycle 1000: the supervisor is woken for 1100; there
// the two resident CTAs are dropped (reported with SIMTVP_ERR_LIMIT), the busy clusters rebuilt,
// the kernel aborted in the dispatcher; CTAs the dispatcher still hands over end at once, and
// the next kernel is refused.
TEST_F(GpuSimtTiming, TheCycleLimitStopsTheRunningKernelAndRefusesLaterOnes) {
  make({"-gpgpu_max_cycle", "100"});
  now = 1000;
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  ASSERT_FALSE(wakes.empty());
  EXPECT_EQ(wakes.back(), 1100u);
  EXPECT_EQ(gpu_simt_timing_next_check(t, 1000), 1100u);
  launch(k, 0, 0);
  launch(k, 4, 1);
  gpu_simt_timing_ticked(t, 1050);
  gpu_simt_timing_supervise(t, 1050);
  EXPECT_TRUE(dones.empty());
  now = 1100;
  gpu_simt_timing_supervise(t, 1100);
  EXPECT_EQ(rebuilds, 1);
  EXPECT_EQ(dumps, 0);
  ASSERT_EQ(dones.size(), 2u);
  EXPECT_EQ(dones[0].r.status, SIMTVP_ERR_LIMIT);
  EXPECT_EQ(dones[1].sm, 4u);
  ASSERT_EQ(aborts.size(), 1u);
  EXPECT_EQ(aborts[0].slot, 0u);
  EXPECT_EQ(aborts[0].r.status, SIMTVP_ERR_LIMIT);
  EXPECT_TRUE(gpu_simt_timing_idle(t));
  const simtvp_diag *f = gpu_simt_timing_last_fault(t);
  EXPECT_EQ(f->status, SIMTVP_ERR_LIMIT);
  EXPECT_STREQ(f->option, "-gpgpu_max_cycle");
  EXPECT_STREQ(f->message, "-gpgpu_max_cycle 100 reached at core cycle 1100 (100 cycles with a kernel running): "
                           "the timing GPU stopped kernel spin (2 resident CTAs dropped); later kernels are not run");
  launch(k, 1, 2);  // handed over after the stop
  EXPECT_EQ(launches.size(), 2u);
  EXPECT_EQ(dones.back().r.status, SIMTVP_ERR_LIMIT);
  port.kernel_end(port.ctx, &k);
  gpu_kernel_result why{};
  EXPECT_FALSE(begin(kernel(0, 2), &why));
  EXPECT_EQ(why.status, SIMTVP_ERR_LIMIT);
  EXPECT_TRUE(said("-gpgpu_max_cycle: the simulation limit was reached earlier; the timing GPU runs no more "
                   "kernels (launch 2 refused)"));
}

// -gpgpu_max_insn 1000: a cluster tick that brings gpu_sim_insn to 1000 asks for a stop, carried
// out by the supervisor at the next cycle (after every cluster of this one ticked).
TEST_F(GpuSimtTiming, TheInstructionLimitFoundAfterAClusterTickStopsAtTheNextCycle) {
  make({"-gpgpu_max_insn", "1000"});
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  launch(k, 0, 0);
  *insn = 1000;
  wakes.clear();
  gpu_simt_timing_ticked(t, 77);
  ASSERT_EQ(wakes.size(), 1u);
  EXPECT_EQ(wakes[0], 78u);
  EXPECT_FALSE(gpu_simt_timing_idle(t));  // a stop is pending
  EXPECT_EQ(gpu_simt_timing_next_check(t, 77), 78u);
  EXPECT_TRUE(dones.empty());
  gpu_simt_timing_supervise(t, 78);
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].r.status, SIMTVP_ERR_LIMIT);
  EXPECT_STREQ(gpu_simt_timing_last_fault(t)->option, "-gpgpu_max_insn");
  EXPECT_TRUE(said("-gpgpu_max_insn 1000 reached at core cycle 78 (1000 thread instructions)"));
}

// -deadlock_cycles 40, a CTA resident from cycle 10 and nothing executed: at cycle 50 the dump
// is asked for, the CTA dropped with SIMTVP_ERR_DEADLOCK; a deadlock does not refuse later kernels.
TEST_F(GpuSimtTiming, ADeadlockDumpsTheStateDropsTheCtasAndLetsLaterKernelsRun) {
  make({"-gpgpu_deadlock_detect", "1", "-deadlock_cycles", "40"});
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  now = 10;
  launch(k, 0, 0);
  EXPECT_EQ(wakes.back(), 50u);
  gpu_simt_timing_supervise(t, 49);
  EXPECT_EQ(dumps, 0);
  gpu_simt_timing_supervise(t, 50);
  EXPECT_EQ(dumps, 1);
  ASSERT_EQ(dones.size(), 1u);
  EXPECT_EQ(dones[0].r.status, SIMTVP_ERR_DEADLOCK);
  EXPECT_EQ(gpu_simt_timing_last_fault(t)->status, SIMTVP_ERR_DEADLOCK);
  EXPECT_STREQ(gpu_simt_timing_last_fault(t)->option, "-deadlock_cycles");
  EXPECT_TRUE(said("deadlock at core cycle 50: no instruction executed and no CTA finished for 40 cycles "
                   "(-deadlock_cycles 40); the state of every SIMT cluster and of the memory system follows"));
  port.kernel_end(port.ctx, &k);
  EXPECT_TRUE(begin(kernel(0, 2)));
}

// ---- reset --------------------------------------------------------------------------------------------

TEST_F(GpuSimtTiming, ResetDropsResidentCtasWithoutCompletionAndInvalidatesTheL2s) {
  make();
  gpu_kernel k = kernel(0, 1);
  ASSERT_TRUE(begin(k));
  launch(k, 0, 0);
  launch(k, 1, 1);
  gpu_simt_timing_reset(t);
  EXPECT_TRUE(dones.empty());
  EXPECT_EQ(rebuilds, 1);
  EXPECT_EQ(l2_invalidations, 1);
  EXPECT_TRUE(gpu_simt_timing_idle(t));
  EXPECT_EQ(gpu_simt_timing_resident(t, 0, 0), 0u);
  // The slot is free again and the image is read anew.
  EXPECT_TRUE(begin(kernel(0, 2)));
  launch(kernel(0, 2), 0, 0);
  EXPECT_EQ(launches.size(), 3u);
}

}  // namespace
