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
#include "simt_test_util.h"

using namespace simttest;

namespace {

std::vector<const char *> base(std::initializer_list<const char *> more = {}) {
  std::vector<const char *> v = {
      "-simt_model", "at", "-gpgpu_n_clusters", "1", "-gpgpu_num_sched_per_core", "1", "-gpgpu_sub_core_model", "0",
      "-gpgpu_perfect_inst_const_cache", "1", "-gpgpu_inst_fetch_throughput", "1",
      "-gpgpu_max_insn_issue_per_warp", "1", "-gpgpu_scheduler", "gto",
      "-ptx_opcode_latency_int", "6,13,4,5,145,32", "-ptx_opcode_initiation_int", "1,2,2,2,8,4",
      "-ptx_opcode_latency_fp", "4,13,4,5,39", "-ptx_opcode_initiation_fp", "1,2,2,2,4",
      "-ptx_opcode_latency_sfu", "20", "-ptx_opcode_initiation_sfu", "8", "-gpgpu_num_reg_banks", "8",
      "-gpgpu_reg_file_port_throughput", "4"};
  v.insert(v.end(), more);
  return v;
}

// Cycles of one launch of kernel(body) with `ctas` CTAs of `threads` threads.
uint64_t run(const std::vector<const char *> &opts, const std::string &body, uint32_t threads = 32,
             uint32_t ctas = 1, Gpu **keep = nullptr, bool preds = false) {
  Gpu *g = new Gpu("configs/SM7_QV100.config", opts, SH_LDST_FAKE, 100, 20, 0, keep != nullptr);
  EXPECT_EQ(g->load(kernel(body, preds)), SIMTVP_OK) << g->diag.message;
  uint64_t out = g->alloc(8 * threads * ctas);
  EXPECT_EQ(g->launch("k", ctas, threads, {out}), SIMTVP_OK) << g->diag.message;
  EXPECT_STREQ(simt_core_model_name(sh_core(g->h, 0)), "at");
  uint64_t c = g->cycles();
  if (keep) *keep = g;
  else delete g;
  return c;
}

// n independent adds: each reads %r1 (never written) and writes one of %r2..%r17 in turn.
std::string indep(int n) {
  std::string s;
  for (int i = 0; i < n; i++) s += "  add.s32 %r" + std::to_string(2 + i % 16) + ", %r1, 1;\n";
  return s;
}

std::string chain(int n) { return "  mov.u32 %r1, 1;\n" + repeat("  add.s32 %r1, %r1, 1;\n", n); }

std::vector<Gpu::Issue> trace(const std::vector<const char *> &opts, const std::string &body, uint32_t threads,
                              bool preds = false) {
  Gpu g("configs/SM7_QV100.config", opts, SH_LDST_FAKE, 100, 20, 0, true);
  EXPECT_EQ(g.load(kernel(body, preds)), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, threads, {g.alloc(8 * threads)}), SIMTVP_OK) << g.diag.message;
  return g.issues;
}

TEST(SimtAt, DependentAluChainCostsNTimesLatency) {
  // One warp, launched at 0: fetch at 0, mov issues at 2 (no reads: a 3, o 4, e 5, wb 5 + 6 = 11).
  // Each add.s32 reads %r1 once: issue t, read t + 2, o t + 3, e t + 4, wb t + 10 = the next
  // add's issue: L_ADD (6) + 4 = 10 cycles each; the fetches of later pairs hide behind the chain.
  // n adds: the last at 11 + 10 (n - 1); exit (same fetch pair) at 12 + 10 (n - 1), written back 9
  // later; the CTA ends that cycle: 10 n + 12 cycles in all.
  for (int n : {8, 16, 32}) EXPECT_EQ(run(base(), chain(n)), 10u * n + 12u) << n;
}

TEST(SimtAt, IndependentWarpsHideTheLatency) {
  // Four warps with the same chain on one scheduler: fetched at 0..3, their movs issue at 2..5 and
  // each chain runs 10 cycles per add, offset by one cycle per warp, so 4x the instructions cost
  // no more time per add. At the end GTO gives the single issue slot to each warp's exit before the
  // next warp's last add: warp 3's last add and exit come 6 cycles after a lone warp's.
  auto o = base({"-gpgpu_reg_bank_use_warp_id", "1"});
  uint64_t c8 = run(o, chain(8), 128), c16 = run(o, chain(16), 128);
  EXPECT_EQ(c16 - c8, 8u * 10u);
  EXPECT_EQ(c8, run(base(), chain(8)) + 6u);
}

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
  // 8 banks, one port, bank = register id mod 8: %r1 and %r9 share bank 1, %r1 and %r2 do not.
  // add %r1, %r1, %r9 reads at a + 1 and a + 2: r one cycle later, 11 cycles per dependent add.
  auto o = base({"-gpgpu_reg_file_port_throughput", "1"});
  std::string init = "  mov.u32 %r1, 1;\n  mov.u32 %r9, 1;\n  mov.u32 %r2, 1;\n";
  EXPECT_EQ(run(o, init + repeat("  add.s32 %r1, %r1, %r9;\n", 16)) - run(o, init + repeat("  add.s32 %r1, %r1, %r9;\n", 8)),
            8u * 11u);
  EXPECT_EQ(run(o, init + repeat("  add.s32 %r1, %r1, %r2;\n", 16)) - run(o, init + repeat("  add.s32 %r1, %r1, %r2;\n", 8)),
            8u * 10u);
}

TEST(SimtAt, InitiationIntervalLimitsThroughput) {
  // Four warps of independent adds on one INT unit. II = 1: the unit takes one per cycle and the
  // single scheduler issues one per cycle (the four warps' fetches supply two per cycle). II = 4:
  // unit free at e + 4, so e advances 4 per add; the ID_OC slots fill and the scheduler waits
  // (Stall). 16 more adds per warp: 64 instructions → 64 cycles, or 256.
  auto ii1 = base({"-gpgpu_num_int_units", "1"});
  auto ii4 = base({"-gpgpu_num_int_units", "1", "-ptx_opcode_initiation_int", "4,2,2,2,8,4"});
  EXPECT_EQ(run(ii1, indep(32), 128) - run(ii1, indep(16), 128), 64u);
  Gpu *g;
  uint64_t c32 = run(ii4, indep(32), 128, 1, &g);
  EXPECT_EQ(c32 - run(ii4, indep(16), 128), 256u);
  EXPECT_GT(g->stat("Stall"), 0u);
  EXPECT_EQ(g->stat("Stall"), g->stat("simt_sched_stall[pipe_busy]"));
  delete g;
}

TEST(SimtAt, SfuLatencyAgainstSpLatency) {
  // Dependent chains: sqrt.approx.f32 on the SFU (latency 20) costs 20 + 4 = 24 cycles per
  // instruction, add.f32 on SP (fp ADD latency 4) 4 + 4 = 8.
  std::string init = "  mov.f32 %f1, 0f40800000;\n";
  EXPECT_EQ(run(base(), init + repeat("  sqrt.approx.f32 %f1, %f1;\n", 16)) -
                run(base(), init + repeat("  sqrt.approx.f32 %f1, %f1;\n", 8)),
            8u * 24u);
  EXPECT_EQ(run(base(), init + repeat("  add.f32 %f1, %f1, 0f3F800000;\n", 16)) -
                run(base(), init + repeat("  add.f32 %f1, %f1, 0f3F800000;\n", 8)),
            8u * 8u);
}

TEST(SimtAt, FetchThroughputLimitsASingleWarp) {
  // One warp of independent adds issues its fetched pair at t and t + 1, fetches at t + 1 and
  // issues the next pair from t + 3: 2 instructions per 3 cycles. With two fetch steps per cycle
  // the first fetch of a cycle is decoded in the same cycle: from t + 2, one per cycle. 16 more
  // adds: 24 or 16 cycles.
  auto f2 = base({"-gpgpu_inst_fetch_throughput", "2"});
  EXPECT_EQ(run(base(), indep(32)) - run(base(), indep(16)), 24u);
  EXPECT_EQ(run(f2, indep(32)) - run(f2, indep(16)), 16u);
}

TEST(SimtAt, BarrierReleasesEveryWarpWhenTheLastArrives) {
  // pc: 0 mov %tid, 1 setp, 2 @p bra SKIP, 3 mov, 4-7 adds (warp 1 only), 8 bar.sync, 9 add, 10 exit.
  // Warps fetched at 0 and 1; movs at 2 and 3 (wb 11, 12); setps at 11, 12 (wb 21, 22); warp 0's
  // branch at 21 is taken: the I-buffer is flushed and pc 8-9 fetched at 21 (ready 23); warp 1's
  // branch at 22 falls through, and GTO gives cycle 23 to warp 1 (the last issuer): mov at 23,
  // warp 0's bar.sync at 24. Warp 1's adds at 32, 42, 52, 62 (fetch of pc 8-9 at 62), its bar.sync
  // at 64 completes the barrier; both warps leave it at the end of that cycle: their next
  // instructions issue at 65 (warp 1, the greedy warp) and 66 — not earlier, however long warp 0
  // waited.
  std::string body = "  mov.u32 %r28, %tid.x;\n  setp.lt.u32 %p1, %r28, 32;\n  @%p1 bra SKIP;\n" + chain(4) +
                     "SKIP:\n  bar.sync 0;\n  add.s32 %r2, %r3, 1;\n";
  auto t = trace(base(), body, 64, true);
  auto at = [&](uint32_t warp, uint32_t pc) -> int64_t {
    for (auto &i : t)
      if (i.warp == warp && i.pc == pc) return (int64_t)i.cycle;
    return -1;
  };
  EXPECT_EQ(at(0, 2), 21);
  EXPECT_EQ(at(1, 3), 23);
  EXPECT_EQ(at(0, 8), 24);
  EXPECT_EQ(at(1, 7), 62);
  EXPECT_EQ(at(1, 8), 64);
  EXPECT_EQ(at(1, 9), 65);
  EXPECT_EQ(at(0, 9), 66);
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
