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

TEST(SimtAt, ForwardedDependentChainCostsItsLatency) { expect_forwarded_chain_costs_latency("at"); }

TEST(SimtAt, IndependentWarpsHideTheLatency) { expect_independent_warps_hide_the_latency("at"); }

TEST(SimtAt, FencesAreTimedByScope) { expect_fence_scopes("at", 108); }

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

TEST(SimtAt, InitiationIntervalLimitsThroughput) {
  // Four warps of independent adds on one INT unit, one scheduler. II = 1: the scheduler's one
  // issue per cycle is the limit (the four warps' fetches supply two per cycle): 64 more
  // instructions, 64 cycles — plus at most a few slots the run-ahead order leaves empty where
  // the warp handled next has no decoded instruction yet (the CA core's GTO order fills them;
  // docs/simt-at.md §2). II = 4: the unit takes one every 4 cycles, exactly: 256 cycles, and the
  // scheduler's waits for it are Stall (pipe busy).
  auto ii1 = base({"-gpgpu_num_int_units", "1"});
  auto ii4 = base({"-gpgpu_num_int_units", "1", "-ptx_opcode_initiation_int", "4,2,2,2,8,4"});
  uint64_t d1 = run(ii1, indep(32), 128) - run(ii1, indep(16), 128);
  EXPECT_GE(d1, 64u);
  EXPECT_LE(d1, 64u + 8u);
  Gpu *g;
  uint64_t c32 = run(ii4, indep(32), 128, 1, &g);
  EXPECT_EQ(c32 - run(ii4, indep(16), 128), 256u);
  EXPECT_GT(g->stat("Stall"), 0u);
  EXPECT_EQ(g->stat("Stall"), g->stat("simt_sched_stall[pipe_busy]"));
  delete g;
}

TEST(SimtAt, SfuLatencyAgainstSpLatency) { expect_sfu_latency_against_sp_latency("at"); }

TEST(SimtAt, FetchThroughputLimitsASingleWarp) { expect_fetch_throughput_limits_a_single_warp("at"); }

TEST(SimtAt, BarrierReleasesEveryWarpWhenTheLastArrives) {
  // barrier_kernel, two warps (tests/simt/simt_timing_util.h). Fetched at 0 and 1; movs at 2 and
  // 3 (writeback 11, 12); setps at 11, 12 (writeback 21, 22); warp 0's branch at 21 is taken: the
  // I-buffer is flushed and pc 8-9 fetched at 21 (ready 23). Warp 0 runs first (the oldest; the
  // AT core has no greedy warp): its bar.sync takes cycle 23, warp 1's mov 24. Warp 1's adds at
  // 33, 43, 53, 63 (fetch of pc 8-9 at 63, ready 65); its bar.sync at 65 completes the barrier;
  // both warps leave it at the end of that cycle, one issue slot each: 66 and 67 — not earlier,
  // however long warp 0 waited.
  auto t = trace(base(), barrier_kernel(), 64, true);
  EXPECT_EQ(issue_cycle(t, 0, 2), 21);
  EXPECT_EQ(issue_cycle(t, 0, 8), 23);
  EXPECT_EQ(issue_cycle(t, 1, 3), 24);
  EXPECT_EQ(issue_cycle(t, 1, 7), 63);
  EXPECT_EQ(issue_cycle(t, 1, 8), 65);
  int64_t a = issue_cycle(t, 1, 9), b = issue_cycle(t, 0, 9);
  EXPECT_EQ(std::min(a, b), 66);
  EXPECT_EQ(std::max(a, b), 67);
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
