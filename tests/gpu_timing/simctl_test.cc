// gpu_simctl alone: the bookkeeping behind -gpgpu_max_cycle, -gpgpu_max_insn, -gpgpu_max_cta, the
// deadlock watchdog and gpu_occupancy, with hand-computed cycles.
#include <gtest/gtest.h>

#include <cmath>

extern "C" {
#include "gpu_simctl.h"
#include "stats.h"
}

namespace {

struct ctl {
  uint64_t insn = 0;
  stats *st = stats_create();
  gpu_simctl *s = nullptr;
  explicit ctl(gpu_simctl_config c) {
    c.insn = &insn;
    c.st = st;
    if (!c.n_cores) c.n_cores = 2;
    if (!c.max_warps) c.max_warps = 8;
    EXPECT_EQ(gpu_simctl_create(&c, &s, nullptr), SIMTVP_OK);
  }
  ~ctl() {
    gpu_simctl_destroy(s);
    stats_destroy(st);
  }
};

TEST(GpuSimctl, OccupancyIsResidentWarpsOverWarpSlotsWhileACoreHoldsACta) {
  ctl c({});
  gpu_simctl_kernel_begin(c.s, 0);
  // Core 0: 4 warps over [10, 30), then 6 warps over [30, 50); core 1: 2 warps over [20, 40).
  gpu_simctl_cta_start(c.s, 0, 4, 10);
  gpu_simctl_cta_start(c.s, 1, 2, 20);
  gpu_simctl_cta_start(c.s, 0, 2, 30);
  gpu_simctl_cta_end(c.s, 1, 2, 40);
  gpu_simctl_cta_end(c.s, 0, 4, 50);
  gpu_simctl_cta_end(c.s, 0, 2, 50);
  gpu_simctl_kernel_end(c.s, 60);
  // warp-cycles 4*20 + 6*20 + 2*20 = 240; slot-cycles 8 * (40 + 20) = 480: occupancy 0.5.
  int found = 0;
  EXPECT_EQ(stats_get(c.st, "simt.resident_warp_cycles", &found), 240u);
  EXPECT_EQ(stats_get(c.st, "simt.warp_slot_cycles", &found), 480u);
  EXPECT_DOUBLE_EQ(stats_get_ratio(c.st, "gpu_occupancy", &found), 0.5);
}

TEST(GpuSimctl, CycleLimitCountsOnlyCyclesWithAKernelRunningAndStaysReached) {
  gpu_simctl_config cfg{};
  cfg.max_cycle = 80;
  ctl c(cfg);
  gpu_simctl_kernel_begin(c.s, 100);
  gpu_simctl_kernel_end(c.s, 150);  // 50 busy cycles
  EXPECT_EQ(gpu_simctl_next_check(c.s), GPU_SIMCTL_NEVER);
  gpu_simctl_kernel_begin(c.s, 1000);
  EXPECT_EQ(gpu_simctl_next_check(c.s), 1030u);  // 30 cycles left
  EXPECT_EQ(gpu_simctl_check(c.s, 1029), GPU_SIMCTL_RUN);
  EXPECT_EQ(gpu_simctl_check(c.s, 1030), GPU_SIMCTL_MAX_CYCLE);
  EXPECT_EQ(gpu_simctl_busy_cycles(c.s, 1030), 80u);
  gpu_simctl_stopped(c.s, GPU_SIMCTL_MAX_CYCLE, 1031);
  gpu_simctl_stop why;
  EXPECT_FALSE(gpu_simctl_may_start(c.s, &why));
  EXPECT_EQ(why, GPU_SIMCTL_MAX_CYCLE);
  EXPECT_EQ(gpu_simctl_check(c.s, 2000), GPU_SIMCTL_RUN);  // carried out once
  EXPECT_STREQ(gpu_simctl_stop_option(why), "-gpgpu_max_cycle");
  EXPECT_EQ(gpu_simctl_stop_status(why), SIMTVP_ERR_LIMIT);
}

TEST(GpuSimctl, ConcurrentKernelsCountTheirCommonCyclesOnce) {
  gpu_simctl_config cfg{};
  ctl c(cfg);
  gpu_simctl_kernel_begin(c.s, 10);
  gpu_simctl_kernel_begin(c.s, 20);
  gpu_simctl_kernel_end(c.s, 30);
  gpu_simctl_kernel_end(c.s, 40);  // busy over [10, 40)
  EXPECT_EQ(gpu_simctl_busy_cycles(c.s, 100), 30u);
}

TEST(GpuSimctl, InstructionLimitIsTheTotalOfThreadInstructions) {
  gpu_simctl_config cfg{};
  cfg.max_insn = 1000;
  ctl c(cfg);
  gpu_simctl_kernel_begin(c.s, 0);
  c.insn = 999;
  EXPECT_EQ(gpu_simctl_check(c.s, 5), GPU_SIMCTL_RUN);
  c.insn = 1000;
  EXPECT_EQ(gpu_simctl_check(c.s, 6), GPU_SIMCTL_MAX_INSN);
  gpu_simctl_stopped(c.s, GPU_SIMCTL_MAX_INSN, 7);
  EXPECT_FALSE(gpu_simctl_may_start(c.s, nullptr));
}

TEST(GpuSimctl, CtaLimitStopsFurtherStartsButNotTheRunningCtas) {
  gpu_simctl_config cfg{};
  cfg.max_cta = 2;
  ctl c(cfg);
  gpu_simctl_kernel_begin(c.s, 0);
  EXPECT_TRUE(gpu_simctl_may_start(c.s, nullptr));
  gpu_simctl_cta_start(c.s, 0, 1, 0);
  gpu_simctl_cta_start(c.s, 1, 1, 0);
  gpu_simctl_stop why;
  EXPECT_FALSE(gpu_simctl_may_start(c.s, &why));
  EXPECT_EQ(why, GPU_SIMCTL_MAX_CTA);
  EXPECT_EQ(gpu_simctl_check(c.s, 10), GPU_SIMCTL_RUN);  // nothing to stop
}

TEST(GpuSimctl, DeadlockAfterDeadlockCyclesWithoutInstructionsOrFinishedCtas) {
  gpu_simctl_config cfg{};
  cfg.deadlock_detect = true;
  cfg.deadlock_cycles = 100;
  ctl c(cfg);
  gpu_simctl_kernel_begin(c.s, 0);
  EXPECT_EQ(gpu_simctl_next_check(c.s), GPU_SIMCTL_NEVER);  // no CTA resident yet: not armed
  gpu_simctl_cta_start(c.s, 0, 1, 40);                       // the window opens at 40
  EXPECT_EQ(gpu_simctl_next_check(c.s), 140u);
  c.insn = 32;
  EXPECT_EQ(gpu_simctl_check(c.s, 60), GPU_SIMCTL_RUN);  // progress at 60
  EXPECT_EQ(gpu_simctl_next_check(c.s), 160u);
  gpu_simctl_cta_start(c.s, 1, 1, 70);
  gpu_simctl_cta_end(c.s, 0, 1, 90);                      // a finished CTA is progress too
  EXPECT_EQ(gpu_simctl_check(c.s, 189), GPU_SIMCTL_RUN);
  EXPECT_EQ(gpu_simctl_check(c.s, 190), GPU_SIMCTL_DEADLOCK);  // the CTA on core 1 never moved
  EXPECT_EQ(gpu_simctl_quiet_cycles(c.s, 190), 100u);
  gpu_simctl_stopped(c.s, GPU_SIMCTL_DEADLOCK, 191);       // the window starts again
  EXPECT_TRUE(gpu_simctl_may_start(c.s, nullptr));
  EXPECT_EQ(gpu_simctl_next_check(c.s), 291u);
  EXPECT_EQ(gpu_simctl_stop_status(GPU_SIMCTL_DEADLOCK), SIMTVP_ERR_DEADLOCK);
}

// A kernel waiting out -gpgpu_kernel_launch_latency (or a CTA inside -gpgpu_TB_launch_latency)
// has nothing resident and executes nothing: that is not a deadlock.
TEST(GpuSimctl, NoDeadlockWhileNoCtaIsResident) {
  gpu_simctl_config cfg{};
  cfg.deadlock_detect = true;
  cfg.deadlock_cycles = 40;
  ctl c(cfg);
  gpu_simctl_kernel_begin(c.s, 0);
  EXPECT_EQ(gpu_simctl_check(c.s, 5000), GPU_SIMCTL_RUN);
  gpu_simctl_cta_start(c.s, 0, 1, 5000);
  EXPECT_EQ(gpu_simctl_next_check(c.s), 5040u);
  EXPECT_EQ(gpu_simctl_check(c.s, 5039), GPU_SIMCTL_RUN);
  gpu_simctl_cta_end(c.s, 0, 1, 5039);                    // done: nothing resident again
  EXPECT_EQ(gpu_simctl_check(c.s, 9000), GPU_SIMCTL_RUN);
  EXPECT_EQ(gpu_simctl_next_check(c.s), GPU_SIMCTL_NEVER);
}

TEST(GpuSimctl, NoKernelNoChecks) {
  gpu_simctl_config cfg{};
  cfg.deadlock_detect = true;
  cfg.deadlock_cycles = 10;
  cfg.max_cycle = 5;
  ctl c(cfg);
  EXPECT_EQ(gpu_simctl_next_check(c.s), GPU_SIMCTL_NEVER);
  EXPECT_EQ(gpu_simctl_check(c.s, 1000), GPU_SIMCTL_RUN);
}

TEST(GpuSimctl, CreationWithoutAnInstructionCounterIsAnArgumentError) {
  gpu_simctl_config cfg{};
  cfg.n_cores = 1;
  gpu_simctl *s = nullptr;
  simtvp_diag d;
  EXPECT_EQ(gpu_simctl_create(&cfg, &s, &d), SIMTVP_ERR_ARG);
  EXPECT_EQ(s, nullptr);
}

}  // namespace
