// Hand-computed timing of the approximately-timed SIMT core (docs/simt-at.md §2). Every case runs
// tiny PTX kernels on one AT core of the QV100-class configuration with the overrides below (one
// scheduler, no sub-cores, a perfect instruction cache, one fetch per cycle) and the tests'
// fixed-latency LDST unit (tests/simt/fake_ldst.h), so the numbers are the AT core's equations:
//
//   fetch at f (first come, first served, one per cycle)  → the I-buffer head may issue at f + 2
//   issue at t: collector unit a = t + 1; one read per source at a + 1 (bank ports permitting);
//   r = the last read (a without reads); OC_EX o = r + 1; unit e = max(o + 1, unit free);
//   writeback wb = e + L (the unit is free again at e + II); a dependent issues at wb.
// So a dependent chain of one-source instructions costs L + 4 cycles per instruction, as on the CA
// core. Differences between two kernel sizes cancel the fixed start and end of a launch.
#include "simt_timing_util.h"

using namespace simttest;

namespace {

std::vector<const char *> base(std::initializer_list<const char *> more = {}) { return timing_options("at", more); }

TEST(SimtAt, DependentAluChainCostsNTimesLatency) { expect_dependent_chain_costs_latency_plus_4("at"); }

TEST(SimtAt, IndependentWarpsHideTheLatency) { expect_independent_warps_hide_the_latency("at"); }

TEST(SimtAt, ScoreboardWaitsCountAsW0Scoreboard) {
  // Two more dependent adds: 2 x 9 cycles without issue, classified when the scheduler finds
  // nothing to issue; here every warp's head instruction waits for %r1 (W0_Scoreboard) except the
  // cycle after the pair's fetch, when the I-buffer is still empty (W0_Idle).
  Gpu *a, *b;
  run(base(), chain(2), 32, 1, &a);
  run(base(), chain(4), 32, 1, &b);
  EXPECT_EQ(b->stat("W0_Scoreboard") + b->stat("W0_Idle") - a->stat("W0_Scoreboard") - a->stat("W0_Idle"), 18u);
  EXPECT_EQ(b->stat("Stall"), 0u);
  EXPECT_EQ(b->stat("simt_sched_stall[scoreboard]"), b->stat("W0_Scoreboard"));
  for (size_t i = 2; i < b->issues.size() - 1; i++) EXPECT_EQ(b->issues[i].cycle - b->issues[i - 1].cycle, 10u) << i;
  // every scheduler-cycle is an issue or classified: W1..W32 + W0_* = the cycles with a resident
  // CTA but the last (the CTA ends in it before the issue stage, as on the CA core)
  uint64_t w = 0;
  for (int i = 1; i <= 32; i++) w += b->stat(("W" + std::to_string(i)).c_str());
  EXPECT_EQ(w, b->stat("gpgpu_n_tot_w_icount"));
  EXPECT_EQ(w + b->stat("W0_Scoreboard") + b->stat("W0_Idle") + b->stat("Stall"), b->stat("simt_core[0].cycles") - 1);
  delete a;
  delete b;
}

TEST(SimtAt, RegisterBankConflictDelaysTheSecondRead) {
  expect_register_bank_conflict_delays_the_second_read("at", false);
}

TEST(SimtAt, InitiationIntervalLimitsThroughput) { expect_initiation_interval_limits_throughput("at"); }

TEST(SimtAt, SfuLatencyAgainstSpLatency) { expect_sfu_latency_against_sp_latency("at"); }

TEST(SimtAt, FetchThroughputLimitsASingleWarp) { expect_fetch_throughput_limits_a_single_warp("at"); }

TEST(SimtAt, BarrierReleasesEveryWarpWhenTheLastArrives) {
  expect_barrier_releases_every_warp_when_the_last_arrives("at");
}

TEST(SimtAt, SharedMemoryBankConflictsLengthenTheAccess) {
  // Timed by the AT core itself (no LDST unit): a dependent chain ld.shared → add of one warp.
  // ld at t reads %r5: o = t + 3, memory stage at t + 4, phases from t + 5, data 19 cycles
  // (-gpgpu_smem_latency) after the last phase: t + 23 + phases; the add reads %r5 and %r1
  // (different banks): wb 10 later = the next ld. Lane stride 1 word: 1 phase, 34 cycles per
  // step; stride 2 words: lanes i and i + 16 share a bank, 2 phases, 35 cycles per step.
  auto kern = [&](int stride, int n) {
    std::string body = "  mov.u32 %r28, %tid.x;\n  mul.lo.u32 %r5, %r28, " + std::to_string(4 * stride) +
                       ";\n  mov.u32 %r6, buf;\n  add.u32 %r5, %r5, %r6;\n  st.shared.u32 [%r5], 0;\n" +
                       repeat("  ld.shared.u32 %r1, [%r5];\n  add.s32 %r5, %r5, %r1;\n", n);
    std::string k = kernel(body);
    k.insert(k.find(".visible"), ".shared .align 4 .b8 buf[1024];\n");
    Gpu g("configs/SM7_QV100.config", base(), SH_LDST_FAKE);
    EXPECT_EQ(g.load(k), SIMTVP_OK) << g.diag.message;
    EXPECT_EQ(g.launch("k", 1, 32, {g.alloc(8 * 32)}), SIMTVP_OK) << g.diag.message;
    return std::make_pair(g.cycles(), g.stat("gpgpu_n_shmem_bkconflict"));
  };
  auto s1a = kern(1, 8), s1b = kern(1, 16), s2a = kern(2, 8), s2b = kern(2, 16);
  EXPECT_EQ(s1b.first - s1a.first, 8u * 34u);
  EXPECT_EQ(s2b.first - s2a.first, 8u * 35u);
  EXPECT_EQ(s1b.second, 0u);
  EXPECT_EQ(s2b.second - s2a.second, 8u); /* one extra cycle per access */
}

}  // namespace
