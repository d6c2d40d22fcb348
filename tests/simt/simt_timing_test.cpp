// Hand-computed timing of the cycle-accurate SIMT core (docs/simt.md "Timing"). Every case runs
// tiny PTX kernels on one core of the QV100-class configuration with the overrides below, a
// perfect instruction cache unless said otherwise, and the tests' fixed-latency LDST unit.
//
// Pipeline of one instruction issued at cycle t (simt_ca_pipe.c): collector unit at t+1, one
// register read per bank and cycle from t+2, dispatch to OC_EX the cycle after the last read,
// into an execution unit the cycle after that (d), writeback at d + L, when a dependent
// instruction may issue. With one register source: d = t+4, so a dependent chain costs L + 4
// cycles per instruction. Fetch at cycle t (hit) → decode at t+1 → issue from t+2.
// Differences between two kernel sizes cancel the fixed start and end of a launch.
#include "simt_test_util.h"

using namespace simttest;

namespace {

std::vector<const char *> base(std::initializer_list<const char *> more = {}) {
  std::vector<const char *> v = {
      "-gpgpu_n_clusters", "1", "-gpgpu_num_sched_per_core", "1", "-gpgpu_sub_core_model", "0",
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
             uint32_t ctas = 1, Gpu **keep = nullptr) {
  Gpu *g = new Gpu("configs/SM7_QV100.config", opts, SH_LDST_FAKE, 100, 20, 0, keep != nullptr);
  EXPECT_EQ(g->load(kernel(body)), SIMTVP_OK) << g->diag.message;
  uint64_t out = g->alloc(8 * threads * ctas);
  EXPECT_EQ(g->launch("k", ctas, threads, {out}), SIMTVP_OK) << g->diag.message;
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

// Issue trace of one launch.
std::vector<Gpu::Issue> trace(const std::vector<const char *> &opts, const std::string &body, uint32_t threads,
                              bool preds = false) {
  Gpu g("configs/SM7_QV100.config", opts, SH_LDST_FAKE, 100, 20, 0, true);
  EXPECT_EQ(g.load(kernel(body, preds)), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, threads, {g.alloc(8 * threads)}), SIMTVP_OK) << g.diag.message;
  return g.issues;
}

TEST(SimtCa, DependentAluChainCostsNTimesLatency) {
  // One warp: fetch at 0, decode 1, mov issues at 2 (no register read: collector 3, OC_EX 4,
  // unit 5, writeback 5 + 6 = 11); each add.s32 reads one register and waits for the previous
  // writeback: L_ADD(6) + 4 = 10 cycles. n adds → last at 11 + 10 (n - 1), exit the next cycle,
  // written back 9 later, kernel done that cycle: 10 n + 12 cycles in all.
  for (int n : {8, 16, 32}) EXPECT_EQ(run(base(), chain(n)), 10u * n + 12u) << n;
}

TEST(SimtCa, IndependentWarpsHideTheLatency) {
  // Four warps with the same chain on one scheduler (register banks by warp: no conflicts): each
  // still advances at 10 cycles per add, so 4x the instructions cost no more time per add.
  // Fetches stagger the warps by one cycle (3 cycles), and GTO lets the early warps' exits take
  // the single issue slot before the last adds of the younger warps (3 more).
  auto o = base({"-gpgpu_reg_bank_use_warp_id", "1"});
  uint64_t c8 = run(o, chain(8), 128), c16 = run(o, chain(16), 128);
  EXPECT_EQ(c16 - c8, 8u * 10u);
  EXPECT_EQ(c8, run(base(), chain(8)) + 6u);
}

TEST(SimtCa, ScoreboardStallsCountAsW0Scoreboard) {
  // Each extra dependent add: 9 cycles without issue. The add that empties the two-entry I-buffer
  // has the next one fetched the same cycle and decoded the next: 1 cycle W0_Idle + 8
  // W0_Scoreboard; the other finds its successor in the I-buffer: 9 W0_Scoreboard.
  Gpu *a, *b;
  run(base(), chain(2), 32, 1, &a);
  run(base(), chain(4), 32, 1, &b);
  EXPECT_EQ(b->stat("W0_Scoreboard") - a->stat("W0_Scoreboard"), 17u);
  EXPECT_EQ(b->stat("W0_Idle") - a->stat("W0_Idle"), 1u);
  EXPECT_EQ(b->stat("Stall"), 0u);
  EXPECT_EQ(b->stat("simt_sched_stall[scoreboard]"), b->stat("W0_Scoreboard"));
  for (size_t i = 2; i < b->issues.size() - 1; i++) EXPECT_EQ(b->issues[i].cycle - b->issues[i - 1].cycle, 10u) << i;
  delete a;
  delete b;
}

TEST(SimtCa, RegisterBankConflictDelaysTheSecondRead) {
  // 8 banks, one port, bank = register id mod 8: %r1 and %r9 share bank 1, %r1 and %r2 do not.
  // Two reads from one bank take two cycles: 11 cycles per dependent add instead of 10.
  auto o = base({"-gpgpu_reg_file_port_throughput", "1"});
  std::string init = "  mov.u32 %r1, 1;\n  mov.u32 %r9, 1;\n  mov.u32 %r2, 1;\n";
  Gpu *a, *b;
  uint64_t conf8 = run(o, init + repeat("  add.s32 %r1, %r1, %r9;\n", 8), 32, 1, &a);
  uint64_t conf16 = run(o, init + repeat("  add.s32 %r1, %r1, %r9;\n", 16), 32, 1, &b);
  uint64_t free8 = run(o, init + repeat("  add.s32 %r1, %r1, %r2;\n", 8));
  uint64_t free16 = run(o, init + repeat("  add.s32 %r1, %r1, %r2;\n", 16));
  EXPECT_EQ(conf16 - conf8, 8u * 11u);
  EXPECT_EQ(free16 - free8, 8u * 10u);
  EXPECT_EQ(b->stat("gpu_reg_bank_conflict_stalls") - a->stat("gpu_reg_bank_conflict_stalls"), 8u);
  delete a;
  delete b;
}

TEST(SimtCa, LrrAndGtoIssueInDifferentOrders) {
  // Two warps of 4 independent adds + exit; two fetches per cycle let a warp issue every cycle.
  // GTO keeps issuing from the warp that issued last; LRR moves to the next warp every time.
  auto gto = trace(base({"-gpgpu_inst_fetch_throughput", "2"}), indep(4), 64);
  auto lrr = trace(base({"-gpgpu_inst_fetch_throughput", "2", "-gpgpu_scheduler", "lrr"}), indep(4), 64);
  ASSERT_EQ(gto.size(), 10u);
  ASSERT_EQ(lrr.size(), 10u);
  for (uint32_t i = 0; i < 10; i++) {
    EXPECT_EQ(gto[i].cycle, 1u + i);
    EXPECT_EQ(gto[i].warp, i < 5 ? 0u : 1u) << i;
    EXPECT_EQ(gto[i].pc, i % 5) << i;
    EXPECT_EQ(lrr[i].cycle, 1u + i);
    EXPECT_EQ(lrr[i].warp, i % 2) << i;
    EXPECT_EQ(lrr[i].pc, i / 2) << i;
  }
}

TEST(SimtCa, BarrierReleasesEveryWarpWhenTheLastArrives) {
  // pc: 0 mov %tid, 1 setp, 2 @p bra, 3 mov, 4-7 adds (warp 1 only), 8 bar.sync, 9 add, 10 exit.
  // Warp 0 branches to the barrier and arrives at cycle 24; warp 1 runs the chain and arrives at
  // 64. Both leave the barrier when the last one arrives: their next instructions issue at 65
  // (warp 1, the greedy warp) and 66 — not earlier, however long warp 0 has waited.
  std::string body = "  mov.u32 %r28, %tid.x;\n  setp.lt.u32 %p1, %r28, 32;\n  @%p1 bra SKIP;\n" + chain(4) +
                     "SKIP:\n  bar.sync 0;\n  add.s32 %r2, %r3, 1;\n";
  auto t = trace(base(), body, 64, true);
  auto at = [&](uint32_t warp, uint32_t pc) -> int64_t {
    for (auto &i : t)
      if (i.warp == warp && i.pc == pc) return (int64_t)i.cycle;
    return -1;
  };
  EXPECT_EQ(at(0, 8), 24);
  EXPECT_EQ(at(1, 8), 64);
  EXPECT_EQ(at(1, 9), 65);
  EXPECT_EQ(at(0, 9), 66);
}

TEST(SimtCa, FirstFetchOfEachLineMissesTheInstructionCache) {
  // The QV100 L1I (128-byte lines) in front of a 100-cycle memory. One warp of 24 independent
  // adds + exit (25 x 16 bytes = 4 lines): fetch-bound, so each line's miss is on the critical
  // path: the miss leaves the next cycle, is answered 100 cycles later and the refetch hits: 101
  // cycles per line more than a perfect cache.
  Gpu *g;
  uint64_t miss = run(base({"-gpgpu_perfect_inst_const_cache", "0"}), indep(24), 32, 1, &g);
  uint64_t perfect = run(base(), indep(24));
  uint64_t misses = g->stat("L1I_total_cache_misses");
  EXPECT_EQ(misses, 4u);
  EXPECT_EQ(miss - perfect, 101u * misses);
  EXPECT_EQ(sh_mem_requests(g->h, MEM_ACC_INST_R), misses);
  EXPECT_GT(g->stat("L1I_total_cache_accesses"), misses);
  delete g;
}

TEST(SimtCa, InitiationIntervalLimitsThroughput) {
  // Four warps of independent adds on one INT unit: with II = 1 the single scheduler issues one
  // per cycle; with II = 4 the unit takes one every 4 cycles and the scheduler stalls meanwhile.
  // 16 more adds per warp: 64 instructions → 64 cycles, or 256.
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

TEST(SimtCa, SfuLatencyAgainstSpLatency) {
  // Dependent chains: sqrt.approx.f32 on the SFU (latency 20) costs 24 cycles per instruction,
  // add.f32 on SP (fp ADD latency 4) 8.
  std::string init = "  mov.f32 %f1, 0f40800000;\n";
  EXPECT_EQ(run(base(), init + repeat("  sqrt.approx.f32 %f1, %f1;\n", 16)) -
                run(base(), init + repeat("  sqrt.approx.f32 %f1, %f1;\n", 8)),
            8u * 24u);
  EXPECT_EQ(run(base(), init + repeat("  add.f32 %f1, %f1, 0f3F800000;\n", 16)) -
                run(base(), init + repeat("  add.f32 %f1, %f1, 0f3F800000;\n", 8)),
            8u * 8u);
}

TEST(SimtCa, DualIssueNeedsTwoDifferentUnits) {
  // Two instructions per warp and cycle, from different units (-gpgpu_dual_issue_diff_exec_units):
  // alternating INT and SP adds issue two per cycle, INT-only one per cycle. 16 more instructions:
  // 8 cycles, or 16. (Two fetches per cycle keep the I-buffer full.)
  auto o = base({"-gpgpu_max_insn_issue_per_warp", "2", "-gpgpu_dual_issue_diff_exec_units", "1",
                 "-gpgpu_inst_fetch_throughput", "2"});
  auto pairs = [](int n) {
    std::string s;
    for (int i = 0; i < n; i++)
      s += "  add.s32 %r" + std::to_string(2 + i % 16) + ", %r1, 1;\n  add.f32 %f" + std::to_string(10 + i % 16) +
           ", %f4, 0f3F800000;\n";
    return s;
  };
  EXPECT_EQ(run(o, pairs(16)) - run(o, pairs(8)), 8u);
  EXPECT_EQ(run(o, indep(32)) - run(o, indep(16)), 16u);
}

TEST(SimtCa, SubCoreSchedulersUseOnlyTheirOwnUnits) {
  // Two schedulers, two INT units with II = 4, one warp (scheduler 0). Shared units: two adds per
  // 4 cycles; sub-cores: only unit 0 is scheduler 0's, one add per 4 cycles. 16 more adds: 32 or 64.
  auto shared = base({"-gpgpu_num_sched_per_core", "2", "-gpgpu_num_int_units", "2", "-ptx_opcode_initiation_int",
                      "4,2,2,2,8,4"});
  auto sub = shared;
  sub.insert(sub.end(), {"-gpgpu_sub_core_model", "1"});
  EXPECT_EQ(run(shared, indep(32)) - run(shared, indep(16)), 32u);
  EXPECT_EQ(run(sub, indep(32)) - run(sub, indep(16)), 64u);
}

TEST(SimtCa, FetchThroughputLimitsASingleWarp) {
  // One warp of independent adds: it issues its two I-buffer entries, then waits for a fetch.
  // One fetch per cycle: fetch in the cycle the buffer empties, decode the next, issue the one
  // after: 2 instructions per 3 cycles. Two fetch+decode steps per cycle refill it the same cycle:
  // one per cycle. 16 more adds: 24 or 16 cycles.
  auto f2 = base({"-gpgpu_inst_fetch_throughput", "2"});
  EXPECT_EQ(run(base(), indep(32)) - run(base(), indep(16)), 24u);
  EXPECT_EQ(run(f2, indep(32)) - run(f2, indep(16)), 16u);
}

TEST(SimtCa, FenceWaitsForTheWarpsStores) {
  // st.global issues at t; its two register reads end at t+2, OC_EX at t+3, the fake LDST takes it
  // at t+4 and acknowledges it 20 cycles later (t+24). membar.gl (fetched after st emptied the
  // I-buffer: issue at t+2) waits until the warp has no memory instruction in flight and no store
  // unacknowledged: the add behind it issues at t+24.
  std::string body = std::string(kOutSlot) + "  st.global.u32 [%rd1], %r1;\n  membar.gl;\n  add.s32 %r2, %r3, 1;\n";
  auto t = trace(base(), body, 32);
  ASSERT_GE(t.size(), 4u);
  size_t st = t.size() - 4; /* st, membar, add, exit */
  EXPECT_EQ(t[st + 1].cycle, t[st].cycle + 2);
  EXPECT_EQ(t[st + 2].cycle, t[st].cycle + 24);
}

}  // namespace
