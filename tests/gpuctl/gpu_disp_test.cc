// CTA dispatcher: per-SM limits (hand-computed occupancy), issue order, concurrent kernels,
// issue rate, kernel and CTA launch latencies, completion and fault reporting.
#include <gtest/gtest.h>

#include <vector>

#include "gpu_disp.h"

namespace {

struct Launched {
  uint64_t uid;
  uint32_t slot, sm, cta[3];
  uint64_t at;
  int p0;  // first parameter byte as the SIMT side sees it (-1: none)
};

struct Fake {
  gpu_disp *d = nullptr;
  std::vector<Launched> launched;
  std::vector<std::pair<uint32_t, gpu_kernel_result>> done;
  bool sync_complete = false;  // complete each CTA inside launch_cta (functional mode)
  bool refuse = false;
  uint64_t now = 0;
  std::vector<uint64_t> begun, ended;
};

class GpuDisp : public ::testing::Test {
 protected:
  void make(uint32_t max_kernels = 4, uint32_t ctas_per_cycle = 0, uint32_t kernel_latency = 0,
            uint32_t cta_latency = 0) {
    gpu_disp_config c{};
    c.n_clusters = 2;
    c.cores_per_cluster = 2;
    c.sm.warp_size = 32;
    c.sm.max_threads = 2048;
    c.sm.max_warps = 64;
    c.sm.max_ctas = 32;
    c.sm.regs = 65536;
    c.sm.reg_alloc_unit = 256;
    c.sm.smem_bytes = 48 * 1024;
    c.sm.smem_alloc_unit = 256;
    c.max_kernels = max_kernels;
    c.ctas_per_cycle = ctas_per_cycle;
    c.kernel_launch_cycles = kernel_latency;
    c.cta_launch_cycles = cta_latency;
    limits = c.sm;
    gpu_disp_ports p{};
    p.simt.ctx = &f;
    p.simt.kernel_begin = [](void *c, const gpu_kernel *k, gpu_kernel_result *why) {
      auto *f = static_cast<Fake *>(c);
      f->begun.push_back(k->launch_uid);
      if (f->refuse) {
        why->status = SIMTVP_ERR_FAULT;
        why->fault_addr = 0xBAD;
        return false;
      }
      return true;
    };
    p.simt.launch_cta = [](void *c, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
      auto *f = static_cast<Fake *>(c);
      f->launched.push_back({k->launch_uid, k->slot, sm, {cta[0], cta[1], cta[2]}, f->now,
                            k->desc.param_bytes ? k->desc.params[0] : -1});
      if (f->sync_complete) {
        gpu_cta_result r{SIMTVP_OK, 0, 0};
        gpu_disp_cta_done(f->d, sm, k->slot, &r, f->now);
      }
    };
    p.simt.kernel_end = [](void *c, const gpu_kernel *k) { static_cast<Fake *>(c)->ended.push_back(k->launch_uid); };
    p.kernel_done.ctx = &f;
    p.kernel_done.done = [](void *c, uint32_t tag, const gpu_kernel_result *r, uint64_t) {
      static_cast<Fake *>(c)->done.push_back({tag, *r});
    };
    d = gpu_disp_create(&c, p);
    f.d = d;
    ASSERT_NE(d, nullptr);
  }
  void TearDown() override { gpu_disp_destroy(d); }
  static gpu_launch_desc kernel(uint32_t ctas, uint32_t threads, uint32_t smem, uint32_t regs = 16) {
    gpu_launch_desc k{};
    k.grid[0] = ctas;
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = threads;
    k.block[1] = k.block[2] = 1;
    k.smem_static = smem;
    k.regs_per_thread = regs;
    return k;
  }
  void advance(uint64_t t) {
    f.now = t;
    gpu_disp_advance(d, t);
  }
  void finish(size_t i, uint64_t t, simtvp_status st = SIMTVP_OK) {
    gpu_cta_result r{st, st == SIMTVP_OK ? 0 : 0x1234u, 7};
    gpu_disp_cta_done(d, f.launched[i].sm, f.launched[i].slot, &r, t);
  }
  gpu_sm_limits limits;
  Fake f;
  gpu_disp *d = nullptr;
};

TEST_F(GpuDisp, SharedMemoryLimitsCoreToTwoCtasOf20KiB) {
  make();
  // 48 KiB per core / 20 KiB per CTA (already a multiple of 256) = 2 CTAs per core; 4 cores → 8.
  gpu_launch_desc k = kernel(16, 128, 20 * 1024);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  EXPECT_EQ(f.launched.size(), 8u);
  for (uint32_t sm = 0; sm < 4; sm++) EXPECT_EQ(gpu_disp_resident_ctas(d, sm), 2u) << "sm " << sm;
  finish(0, 5);  // frees one slot on its SM → exactly one more CTA goes there
  advance(5);
  ASSERT_EQ(f.launched.size(), 9u);
  EXPECT_EQ(f.launched[8].sm, f.launched[0].sm);
}

TEST_F(GpuDisp, OccupancyFollowsTheTightestResource) {
  make();
  gpu_occ_limiter why;
  // 768 threads = 24 warps: 2048 / 768 = 2 by threads, 64 / 24 = 2 by warps → 2, threads first.
  gpu_cta_usage u = gpu_cta_usage_of(&limits, 768, 16, 0);
  EXPECT_EQ(gpu_occupancy(&limits, &u, &why), 2u);
  EXPECT_EQ(why, GPU_OCC_THREADS);
  // 33 regs × 32 lanes = 1056 → 1280 per warp (unit 256); 8 warps → 10240 per CTA;
  // 65536 / 10240 = 6 (threads would allow 8).
  u = gpu_cta_usage_of(&limits, 256, 33, 0);
  EXPECT_EQ(u.regs, 10240u);
  EXPECT_EQ(gpu_occupancy(&limits, &u, &why), 6u);
  EXPECT_EQ(why, GPU_OCC_REGS);
  // 100 bytes of shared memory round up to 256: 49152 / 256 = 192 > 32 slots → CTA slots.
  u = gpu_cta_usage_of(&limits, 32, 8, 100);
  EXPECT_EQ(u.smem, 256u);
  EXPECT_EQ(gpu_occupancy(&limits, &u, &why), 32u);
  EXPECT_EQ(why, GPU_OCC_CTAS);
  // 50 threads occupy 2 whole warps.
  u = gpu_cta_usage_of(&limits, 50, 8, 0);
  EXPECT_EQ(u.warps, 2u);
  EXPECT_EQ(u.threads, 64u);
  // A CTA that cannot fit at all.
  u = gpu_cta_usage_of(&limits, 1024, 80, 0);  // 32 warps × 2560 = 81920 > 65536
  EXPECT_EQ(gpu_occupancy(&limits, &u, nullptr), 0u);
}

TEST_F(GpuDisp, KernelWhoseCtaNeverFitsIsRefused) {
  make();
  gpu_launch_desc k = kernel(1, 1024, 0, 80);
  EXPECT_FALSE(gpu_disp_launch(d, &k, 0, 0));
}

TEST_F(GpuDisp, IssueWalksClustersBeforeCoresRoundRobin) {
  make();
  gpu_launch_desc k = kernel(6, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  ASSERT_EQ(f.launched.size(), 6u);
  // sm = cluster * 2 + core; order: c0k0, c1k0, c0k1, c1k1, then around again.
  const uint32_t want[6] = {0, 2, 1, 3, 0, 2};
  for (int i = 0; i < 6; i++) {
    EXPECT_EQ(f.launched[i].sm, want[i]) << "CTA " << i;
    EXPECT_EQ(f.launched[i].cta[0], (uint32_t)i);
  }
}

TEST_F(GpuDisp, FreedSlotsFillInRoundRobinOrderNotInTheOrderTheyFreed) {
  make();
  // 40 KiB of shared memory: one CTA per core. Positions (clusters first): 0 → SM 0, 1 → SM 2,
  // 2 → SM 1, 3 → SM 3; the first four CTAs fill them and the round robin is back at position 0.
  gpu_launch_desc k = kernel(12, 32, 40 * 1024);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  ASSERT_EQ(f.launched.size(), 4u);
  advance(1);  // full: nothing more
  EXPECT_EQ(f.launched.size(), 4u);
  finish(3, 2);  // SM 3 (position 3) frees first,
  finish(1, 2);  // then SM 2 (position 1)
  advance(2);
  ASSERT_EQ(f.launched.size(), 6u);
  EXPECT_EQ(f.launched[4].sm, 2u);  // position 1 comes first from position 0
  EXPECT_EQ(f.launched[5].sm, 3u);
  advance(3);  // full again, nothing freed
  EXPECT_EQ(f.launched.size(), 6u);
  finish(0, 4);  // SM 0 (position 0); the round robin stands at position 0 (after position 3)
  finish(2, 4);  // SM 1 (position 2)
  advance(4);
  ASSERT_EQ(f.launched.size(), 8u);
  EXPECT_EQ(f.launched[6].sm, 0u);
  EXPECT_EQ(f.launched[7].sm, 1u);
  // Every SM frees at once: round robin from position 3 (after CTA 7's position 2).
  for (size_t i = 4; i < 8; i++) finish(i, 5);
  advance(5);
  ASSERT_EQ(f.launched.size(), 12u);
  const uint32_t want[4] = {3, 0, 2, 1};
  for (int i = 0; i < 4; i++) EXPECT_EQ(f.launched[8 + i].sm, want[i]) << "CTA " << 8 + i;
}

TEST_F(GpuDisp, CtaCoordinatesCoverA3DGridInLinearOrder) {
  make();
  gpu_launch_desc k = kernel(1, 32, 0);
  k.grid[0] = 2;
  k.grid[1] = 3;
  k.grid[2] = 2;
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  ASSERT_EQ(f.launched.size(), 12u);
  EXPECT_EQ(f.launched[5].cta[0], 1u);
  EXPECT_EQ(f.launched[5].cta[1], 2u);
  EXPECT_EQ(f.launched[5].cta[2], 0u);
  EXPECT_EQ(f.launched[11].cta[2], 1u);
}

// Thread block clusters: a cluster's CTAs issue together, in rank order (x fastest), one per SM
// round robin; a cluster that does not fit entirely waits; bad cluster shapes are refused.
TEST_F(GpuDisp, ClusterCtasIssueTogetherOnePerSmInRankOrder) {
  make();
  gpu_launch_desc k = kernel(4, 32, 0);
  k.grid[1] = 2;
  k.cluster[0] = 2;
  k.cluster[1] = 2;
  k.cluster[2] = 1;
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  ASSERT_EQ(f.launched.size(), 8u);
  // cluster 0 = CTAs (0,0) (1,0) (0,1) (1,1); cluster 1 = (2,0) (3,0) (2,1) (3,1)
  const uint32_t want[8][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {3, 0}, {2, 1}, {3, 1}};
  const uint32_t sm[8] = {0, 2, 1, 3, 0, 2, 1, 3};  // cluster-first SM order, as for single CTAs
  for (int i = 0; i < 8; i++) {
    EXPECT_EQ(f.launched[i].cta[0], want[i][0]) << "CTA " << i;
    EXPECT_EQ(f.launched[i].cta[1], want[i][1]) << "CTA " << i;
    EXPECT_EQ(f.launched[i].sm, sm[i]) << "CTA " << i;
  }
}

TEST_F(GpuDisp, ClusterWaitsUntilAllItsCtasFit) {
  make();
  // 20 KiB CTAs: 2 per SM, 8 on the GPU. A first kernel holds 7 slots; a cluster of 2 must wait
  // for a second free slot although one is free at once.
  gpu_launch_desc a = kernel(7, 32, 20 * 1024);
  ASSERT_TRUE(gpu_disp_launch(d, &a, 0, 0));
  advance(0);
  ASSERT_EQ(f.launched.size(), 7u);
  gpu_launch_desc k = kernel(2, 32, 20 * 1024);
  k.cluster[0] = 2;
  k.cluster[1] = k.cluster[2] = 1;
  ASSERT_TRUE(gpu_disp_launch(d, &k, 1, 1));
  advance(1);
  EXPECT_EQ(f.launched.size(), 7u) << "one free slot is not enough for a cluster of 2";
  finish(0, 2);
  advance(2);
  ASSERT_EQ(f.launched.size(), 9u);
  EXPECT_EQ(f.launched[7].cta[0], 0u);
  EXPECT_EQ(f.launched[8].cta[0], 1u);
  EXPECT_EQ(f.launched[7].at, f.launched[8].at);
}

TEST_F(GpuDisp, ClusterThatCannotBeResidentOrDoesNotDivideTheGridIsRefused) {
  make();
  gpu_launch_desc k = kernel(20, 32, 20 * 1024);
  k.cluster[0] = 10;  // 10 CTAs of 20 KiB > 8 resident on the whole GPU
  k.cluster[1] = k.cluster[2] = 1;
  EXPECT_FALSE(gpu_disp_launch(d, &k, 0, 0));
  k = kernel(6, 32, 0);
  k.cluster[0] = 4;  // does not divide 6
  k.cluster[1] = k.cluster[2] = 1;
  EXPECT_FALSE(gpu_disp_launch(d, &k, 0, 0));
  k = kernel(34, 32, 0);
  k.cluster[0] = 17;  // more than 16
  k.cluster[1] = k.cluster[2] = 1;
  EXPECT_FALSE(gpu_disp_launch(d, &k, 0, 0));
}

TEST_F(GpuDisp, ConcurrentKernelsAreLimitedToTheConfiguredMaximum) {
  make(2);
  gpu_launch_desc k = kernel(1, 32, 0);
  EXPECT_TRUE(gpu_disp_launch(d, &k, 1, 0));
  EXPECT_TRUE(gpu_disp_launch(d, &k, 2, 0));
  EXPECT_FALSE(gpu_disp_launch(d, &k, 3, 0));
  advance(0);
  EXPECT_EQ(f.launched.size(), 2u) << "both kernels run at once";
  EXPECT_NE(f.launched[0].slot, f.launched[1].slot);
  finish(0, 10);
  advance(10);
  ASSERT_EQ(f.done.size(), 1u);
  EXPECT_EQ(f.done[0].first, 1u);
  EXPECT_TRUE(gpu_disp_launch(d, &k, 3, 10));
}

TEST_F(GpuDisp, OlderKernelIssuesFirstAndYoungerFillsLeftoverSpace) {
  make();
  gpu_launch_desc a = kernel(8, 128, 20 * 1024);  // fills 2 per SM
  gpu_launch_desc b = kernel(4, 32, 0);           // needs no shared memory: fits beside
  ASSERT_TRUE(gpu_disp_launch(d, &a, 1, 0));
  ASSERT_TRUE(gpu_disp_launch(d, &b, 2, 0));
  advance(0);
  ASSERT_EQ(f.launched.size(), 12u);
  for (int i = 0; i < 8; i++) EXPECT_EQ(f.launched[i].uid, 1u);
  for (int i = 8; i < 12; i++) EXPECT_EQ(f.launched[i].uid, 2u);
}

TEST_F(GpuDisp, IssueRateLimitSpreadsCtasOverCycles) {
  make(4, 1);
  gpu_launch_desc k = kernel(3, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 100));
  EXPECT_EQ(gpu_disp_next_event(d), 100u);
  advance(100);
  EXPECT_EQ(f.launched.size(), 1u);
  EXPECT_EQ(gpu_disp_next_event(d), 101u);
  advance(101);
  advance(102);
  ASSERT_EQ(f.launched.size(), 3u);
  EXPECT_EQ(f.launched[2].at, 102u);
  EXPECT_EQ(gpu_disp_next_event(d), UINT64_MAX) << "idle until a CTA finishes";
}

TEST_F(GpuDisp, KernelCompletesAfterItsLastCtaWithTheFirstFault) {
  make();
  gpu_launch_desc k = kernel(3, 32, 0);
  k.grid_id = 42;
  ASSERT_TRUE(gpu_disp_launch(d, &k, 7, 0));
  advance(0);
  finish(1, 3, SIMTVP_ERR_FAULT);
  finish(0, 4, SIMTVP_ERR_TRAP);
  advance(4);
  EXPECT_TRUE(f.done.empty());
  finish(2, 9);
  EXPECT_EQ(gpu_disp_next_event(d), 9u);
  advance(9);
  ASSERT_EQ(f.done.size(), 1u);
  EXPECT_EQ(f.done[0].first, 7u);
  EXPECT_EQ(f.done[0].second.status, SIMTVP_ERR_FAULT);
  EXPECT_EQ(f.done[0].second.fault_addr, 0x1234u);
  EXPECT_EQ(f.ended.size(), 1u);
  EXPECT_EQ(gpu_disp_running_kernels(d), 0u);
}

TEST_F(GpuDisp, CompletionIsDueOnlyWhenItFreesRoomForACtaLeftOrEndsTheKernel) {
  make();
  // 16 CTAs of 20 KiB: 2 per SM, 8 resident. While 8 are left, a completion frees room they wait
  // for: due at once. In the tail (nothing left to issue) only the last completion makes work.
  gpu_launch_desc k = kernel(16, 128, 20 * 1024);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  ASSERT_EQ(f.launched.size(), 8u);
  EXPECT_EQ(gpu_disp_next_event(d), UINT64_MAX);
  for (size_t i = 0; i < 8; i++) {
    finish(i, 10 + i);
    EXPECT_EQ(gpu_disp_next_event(d), 10 + i) << "CTA " << i;
    advance(10 + i);
  }
  ASSERT_EQ(f.launched.size(), 16u);
  for (size_t i = 8; i < 15; i++) {
    finish(i, 30 + i);
    EXPECT_EQ(gpu_disp_next_event(d), UINT64_MAX) << "tail CTA " << i;
  }
  EXPECT_TRUE(f.done.empty());
  finish(15, 50);
  EXPECT_EQ(gpu_disp_next_event(d), 50u);
  advance(50);
  ASSERT_EQ(f.done.size(), 1u);
  EXPECT_EQ(gpu_disp_get_counters(d).ctas_done, 16u);
}

TEST_F(GpuDisp, KernelInAHigherSlotKeepsIssuingAfterLowerOnesEnd) {
  make(4);
  // Slots 0, 1, 2 taken in launch order; the kernels in 0 and 1 end, the one in 2 still has CTAs
  // to issue (32 KiB each: one per SM), and a new kernel takes slot 0 again.
  gpu_launch_desc one = kernel(1, 32, 0), big = kernel(6, 128, 32 * 1024);
  ASSERT_TRUE(gpu_disp_launch(d, &one, 1, 0));
  ASSERT_TRUE(gpu_disp_launch(d, &one, 2, 0));
  ASSERT_TRUE(gpu_disp_launch(d, &big, 3, 0));
  advance(0);
  ASSERT_EQ(f.launched.size(), 6u);  // 1 + 1 + 4 of big
  EXPECT_EQ(gpu_disp_running_kernels(d), 3u);
  finish(0, 5);
  finish(1, 5);
  advance(5);
  EXPECT_EQ(f.done.size(), 2u);
  EXPECT_EQ(gpu_disp_running_kernels(d), 1u);
  finish(2, 6);
  EXPECT_EQ(gpu_disp_next_event(d), 6u);
  advance(6);
  ASSERT_EQ(f.launched.size(), 7u);
  EXPECT_EQ(f.launched[6].slot, 2u);
  ASSERT_TRUE(gpu_disp_launch(d, &one, 4, 7));
  advance(7);
  ASSERT_EQ(f.launched.size(), 8u);
  EXPECT_EQ(f.launched[7].slot, 0u);
  EXPECT_EQ(gpu_disp_running_kernels(d), 2u);
  for (size_t i = 3; i < 8; i++) finish(i, 20);
  advance(20);
  ASSERT_EQ(f.launched.size(), 9u);  // big's last CTA
  EXPECT_EQ(f.launched[8].slot, 2u);
  finish(8, 21);
  advance(21);
  EXPECT_EQ(f.done.size(), 4u);
  EXPECT_EQ(gpu_disp_running_kernels(d), 0u);
}

TEST_F(GpuDisp, CtasCompletedInsideLaunchRunTheWholeGridInOneAdvance) {
  make();
  f.sync_complete = true;
  gpu_launch_desc k = kernel(1000, 256, 20 * 1024);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  EXPECT_EQ(f.launched.size(), 1000u);
  ASSERT_EQ(f.done.size(), 1u);
  EXPECT_EQ(gpu_disp_get_counters(d).ctas_done, 1000u);
}

TEST_F(GpuDisp, RefusedKernelEndsAtOnceWithTheReason) {
  make();
  f.refuse = true;
  gpu_launch_desc k = kernel(4, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 3, 0));
  advance(0);
  EXPECT_TRUE(f.launched.empty());
  ASSERT_EQ(f.done.size(), 1u);
  EXPECT_EQ(f.done[0].second.status, SIMTVP_ERR_FAULT);
  EXPECT_EQ(f.done[0].second.fault_addr, 0xBADu);
  EXPECT_TRUE(f.ended.empty());
}

TEST_F(GpuDisp, ParametersAreCopiedAtLaunch) {
  make();
  uint8_t params[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  gpu_launch_desc k = kernel(1, 32, 0);
  k.params = params;
  k.param_bytes = 8;
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  params[0] = 99;  // the caller's buffer may change at once
  advance(0);
  ASSERT_EQ(f.launched.size(), 1u);
  EXPECT_EQ(f.launched[0].p0, 1);
}

// ---- launch latencies (-gpgpu_kernel_launch_latency, -gpgpu_TB_launch_latency) ------------------

TEST_F(GpuDisp, KernelLaunchLatencyDelaysTheFirstCtaByExactlyThatManyCycles) {
  make(4, 0, 100, 0);
  gpu_launch_desc k = kernel(3, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 10));
  // Accepted at 10: the kernel begins (runs, for gpu_sim_cycle) at 10, its CTAs issue at
  // 10 + 100 = 110, not before.
  EXPECT_EQ(gpu_disp_next_event(d), 10u);
  advance(10);
  EXPECT_EQ(f.begun.size(), 1u);
  EXPECT_TRUE(f.launched.empty());
  EXPECT_EQ(gpu_disp_next_event(d), 110u);
  advance(109);
  EXPECT_TRUE(f.launched.empty());
  EXPECT_EQ(gpu_disp_next_event(d), 110u);
  advance(110);
  ASSERT_EQ(f.launched.size(), 3u);
  for (const Launched &l : f.launched) EXPECT_EQ(l.at, 110u);
  EXPECT_EQ(gpu_disp_next_event(d), UINT64_MAX) << "nothing until a CTA finishes";
}

TEST_F(GpuDisp, EachKernelWaitsItsOwnLaunchLatencyFromItsBegin) {
  make(4, 0, 50, 0);
  gpu_launch_desc k = kernel(1, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 1, 0));
  advance(0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 2, 30));
  advance(30);
  // Kernel 1 issues at 0 + 50, kernel 2 at 30 + 50 = 80.
  EXPECT_EQ(gpu_disp_next_event(d), 50u);
  advance(50);
  ASSERT_EQ(f.launched.size(), 1u);
  EXPECT_EQ(f.launched[0].uid, 1u);
  EXPECT_EQ(gpu_disp_next_event(d), 80u);
  advance(80);
  ASSERT_EQ(f.launched.size(), 2u);
  EXPECT_EQ(f.launched[1].uid, 2u);
  EXPECT_EQ(f.launched[1].at, 80u);
}

TEST_F(GpuDisp, CtaLaunchLatencyHoldsTheCoreSlotFromIssueAndStartsTheCtaLater) {
  make(4, 0, 0, 7);
  // 20 KiB of shared memory: 2 CTAs per core, 4 cores → 8 issued at 0, each reaching its core at
  // 0 + 7 = 7; their slots are taken from 0.
  gpu_launch_desc k = kernel(10, 128, 20 * 1024);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  EXPECT_TRUE(f.launched.empty());
  EXPECT_EQ(gpu_disp_starting_ctas(d), 8u);
  for (uint32_t sm = 0; sm < 4; sm++) EXPECT_EQ(gpu_disp_resident_ctas(d, sm), 2u) << "sm " << sm;
  EXPECT_EQ(gpu_disp_next_event(d), 7u);
  advance(6);
  EXPECT_TRUE(f.launched.empty());
  advance(7);
  ASSERT_EQ(f.launched.size(), 8u);
  const uint32_t want_sm[4] = {0, 2, 1, 3};  // issue order: clusters first
  for (uint32_t i = 0; i < 8; i++) {
    EXPECT_EQ(f.launched[i].at, 7u);
    EXPECT_EQ(f.launched[i].cta[0], i) << "in issue order";
    EXPECT_EQ(f.launched[i].sm, want_sm[i % 4]);
  }
  EXPECT_EQ(gpu_disp_starting_ctas(d), 0u);
  // A CTA finishing at 20 frees its slot: CTA 8 is issued at 20 and reaches the core at 27.
  finish(0, 20);
  EXPECT_EQ(gpu_disp_next_event(d), 20u);
  advance(20);
  EXPECT_EQ(f.launched.size(), 8u);
  EXPECT_EQ(gpu_disp_resident_ctas(d, f.launched[0].sm), 2u) << "the new CTA holds the slot";
  EXPECT_EQ(gpu_disp_next_event(d), 27u);
  advance(27);
  ASSERT_EQ(f.launched.size(), 9u);
  EXPECT_EQ(f.launched[8].cta[0], 8u);
  EXPECT_EQ(f.launched[8].sm, f.launched[0].sm);
}

TEST_F(GpuDisp, KernelAndCtaLatenciesAdd) {
  make(4, 0, 50, 5);
  gpu_launch_desc k = kernel(2, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  // Issue at 0 + 50, start at 50 + 5 = 55.
  EXPECT_EQ(gpu_disp_next_event(d), 50u);
  advance(50);
  EXPECT_TRUE(f.launched.empty());
  EXPECT_EQ(gpu_disp_next_event(d), 55u);
  advance(55);
  ASSERT_EQ(f.launched.size(), 2u);
  EXPECT_EQ(f.launched[0].at, 55u);
  // The kernel ends when its last CTA finishes, not before.
  finish(0, 60);
  advance(60);
  EXPECT_TRUE(f.done.empty());
  finish(1, 61);
  advance(61);
  EXPECT_EQ(f.done.size(), 1u);
}

TEST_F(GpuDisp, IssueLimitAppliesAfterTheKernelLaunchLatency) {
  make(4, 1, 10, 0);
  gpu_launch_desc k = kernel(3, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  // One CTA per cycle from 0 + 10: at 10, 11, 12.
  for (uint64_t t = 10; t <= 12; t++) {
    EXPECT_EQ(gpu_disp_next_event(d), t);
    advance(t);
  }
  ASSERT_EQ(f.launched.size(), 3u);
  EXPECT_EQ(f.launched[0].at, 10u);
  EXPECT_EQ(f.launched[1].at, 11u);
  EXPECT_EQ(f.launched[2].at, 12u);
}

TEST_F(GpuDisp, ResetDropsCtasStillOnTheirWayToACore) {
  make(4, 0, 0, 5);
  gpu_launch_desc k = kernel(2, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 0));
  advance(0);
  EXPECT_EQ(gpu_disp_starting_ctas(d), 2u);
  gpu_disp_reset(d);
  EXPECT_EQ(gpu_disp_starting_ctas(d), 0u);
  EXPECT_EQ(gpu_disp_next_event(d), UINT64_MAX);
  advance(5);
  EXPECT_TRUE(f.launched.empty());
}

// A kernel stopped inside its launch latency (e.g. -gpgpu_max_cycle reached) ends at once with the
// stop's status instead of waiting for the latency and issuing CTAs that would be refused.
TEST_F(GpuDisp, AbortedKernelEndsWithoutWaitingOutItsLaunchLatency) {
  make(4, 0, 5000, 0);
  gpu_launch_desc k = kernel(4, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 9, 0));
  advance(0);
  gpu_kernel_result why{SIMTVP_ERR_LIMIT, 0, 0};
  gpu_disp_abort(d, 0, &why, 3000);  // the kernel is in slot 0
  EXPECT_EQ(gpu_disp_next_event(d), 3000u);
  advance(3000);
  ASSERT_EQ(f.done.size(), 1u);
  EXPECT_EQ(f.done[0].first, 9u);
  EXPECT_EQ(f.done[0].second.status, SIMTVP_ERR_LIMIT);
  EXPECT_TRUE(f.launched.empty());
  EXPECT_EQ(f.ended.size(), 1u);
  EXPECT_EQ(gpu_disp_running_kernels(d), 0u);
  EXPECT_EQ(gpu_disp_get_counters(d).ctas_done, 0u) << "no CTA ran";
}

// Stopped with CTAs resident and others inside their CTA launch latency: the latter are dropped
// (their core slots freed), the kernel ends when the resident ones are reported.
TEST_F(GpuDisp, AbortDropsCtasOnTheirWayAndWaitsForResidentOnes) {
  make(4, 0, 0, 10);
  gpu_launch_desc k = kernel(6, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 1, 0));
  advance(0);
  advance(10);  // 6 CTAs reach their cores at 10
  ASSERT_EQ(f.launched.size(), 6u);
  gpu_launch_desc k2 = kernel(2, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k2, 2, 12));
  advance(12);  // kernel 2's CTAs issued at 12, due at 22
  EXPECT_EQ(gpu_disp_starting_ctas(d), 2u);
  gpu_kernel_result why{SIMTVP_ERR_DEADLOCK, 0, 0};
  gpu_disp_abort(d, 1, &why, 15);  // kernel 2 is in slot 1
  EXPECT_EQ(gpu_disp_starting_ctas(d), 0u);
  advance(15);
  ASSERT_EQ(f.done.size(), 1u);
  EXPECT_EQ(f.done[0].first, 2u);
  EXPECT_EQ(f.done[0].second.status, SIMTVP_ERR_DEADLOCK);
  uint32_t total = 0;
  for (uint32_t sm = 0; sm < 4; sm++) total += gpu_disp_resident_ctas(d, sm);
  EXPECT_EQ(total, 6u) << "kernel 1's CTAs only";
  advance(22);
  EXPECT_EQ(f.launched.size(), 6u) << "dropped CTAs never reach a core";
}

TEST_F(GpuDisp, LatenciesOfZeroIssueAndStartInTheAcceptingCycle) {
  make(4, 0, 0, 0);
  gpu_launch_desc k = kernel(2, 32, 0);
  ASSERT_TRUE(gpu_disp_launch(d, &k, 0, 3));
  advance(3);
  ASSERT_EQ(f.launched.size(), 2u);
  EXPECT_EQ(f.launched[1].at, 3u);
  EXPECT_EQ(gpu_disp_starting_ctas(d), 0u);
}

}  // namespace
