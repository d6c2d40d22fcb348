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
#include <map>
#include <set>

#include "ptx.h"
#include "simt_timing_util.h"

using namespace simttest;

namespace {

std::vector<const char *> base(std::initializer_list<const char *> more = {}) { return timing_options("ca", more); }

TEST(SimtCa, DependentAluChainCostsNTimesLatency) { expect_dependent_chain_costs_latency_plus_4("ca"); }

TEST(SimtCa, ForwardedDependentChainCostsItsLatency) { expect_forwarded_chain_costs_latency("ca"); }

TEST(SimtCa, IndependentWarpsHideTheLatency) { expect_independent_warps_hide_the_latency("ca"); }

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
  expect_register_bank_conflict_delays_the_second_read("ca", true);
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
  expect_barrier_releases_every_warp_when_the_last_arrives("ca");
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

TEST(SimtCa, InitiationIntervalLimitsThroughput) { expect_initiation_interval_limits_throughput("ca"); }

TEST(SimtCa, SfuLatencyAgainstSpLatency) { expect_sfu_latency_against_sp_latency("ca"); }

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

TEST(SimtCa, FetchThroughputLimitsASingleWarp) { expect_fetch_throughput_limits_a_single_warp("ca"); }

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

TEST(SimtCa, FencesAreTimedByScope) { expect_fence_scopes("ca", 24); }

// The PTX line profile's stall cycles (-enable_ptx_file_line_stats): an instruction's stall is the
// cycles its warp waited after its previous issue (docs/statistics.md §4). As in the fence case
// above: membar.gl issues 2 cycles after st.global (1 cycle of stall: t+1 is the earliest), the add
// behind it at t+24 (21 cycles of stall: it could have issued at t+3). Lines of kernel(): 8 header
// lines, the 7 of kOutSlot, then st (16), membar (17), add (18).
TEST(SimtCa, LineProfileStallsAreTheCyclesAWarpWaitedToIssue) {
  std::string body = std::string(kOutSlot) + "  st.global.u32 [%rd1], %r1;\n  membar.gl;\n  add.s32 %r2, %r3, 1;\n";
  Gpu *g = nullptr;
  run(base({"-enable_ptx_file_line_stats", "1"}), body, 32, 1, &g);
  stats *st = sh_stats(g->h);
  EXPECT_EQ(stats_code_line_get(st, "test.ptx", 17, STATS_CODE_STALL_CYCLES), 1u);
  EXPECT_EQ(stats_code_line_get(st, "test.ptx", 18, STATS_CODE_STALL_CYCLES), 21u);
  EXPECT_EQ(stats_code_line_get(st, "test.ptx", 18, STATS_CODE_WARP_INSN), 1u);
  delete g;
}

// Both timing cores: every instruction after a warp's first has, as stall cycles, the gap to the
// warp's previous issue minus one, exactly as the issue trace shows; off, nothing is counted.
void expect_stalls_follow_the_trace(const char *model) {
  std::string body = std::string(kOutSlot) + "  ld.global.u32 %r1, [%rd1];\n  add.s32 %r2, %r1, 1;\n"
                     "  mul.lo.s32 %r3, %r2, %r2;\n  st.global.u32 [%rd1], %r3;\n";
  std::string ptx = kernel(body);
  Gpu g("configs/SM7_QV100.config", timing_options(model, {"-enable_ptx_file_line_stats", "1"}), SH_LDST_FAKE, 100,
        20, 0, true);
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.launch("k", 2, 64, {g.alloc(8 * 128)}), SIMTVP_OK) << g.diag.message;
  simtvp_diag d;
  ptx_module *m = ptx_parse(ptx.data(), ptx.size(), "test.ptx", nullptr, &d);
  ASSERT_NE(m, nullptr);
  std::map<uint32_t, uint64_t> expect;  // PTX line -> stall cycles
  std::set<uint32_t> first_lines;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> last;  // (sm, warp slot) -> previous issue
  for (const Gpu::Issue &i : g.issues) {
    uint32_t line = m->insns[i.pc].ptx_line;
    auto key = std::make_pair(i.sm, i.warp);
    auto it = last.find(key);
    if (it == last.end())
      first_lines.insert(line);
    else
      expect[line] += i.cycle - it->second - 1;
    last[key] = i.cycle;
  }
  ptx_module_destroy(m);
  ASSERT_FALSE(expect.empty());
  uint64_t total = 0;
  for (auto &e : expect) {
    if (first_lines.count(e.first)) continue;  // its first instruction also waited for the CTA's arrival
    EXPECT_EQ(stats_code_line_get(sh_stats(g.h), "test.ptx", e.first, STATS_CODE_STALL_CYCLES), e.second)
        << model << " line " << e.first;
    total += e.second;
  }
  EXPECT_GT(total, 0u) << model;

  Gpu off("configs/SM7_QV100.config", timing_options(model, {}), SH_LDST_FAKE, 100, 20, 0, false);
  ASSERT_EQ(off.load(ptx), SIMTVP_OK);
  ASSERT_EQ(off.launch("k", 2, 64, {off.alloc(8 * 128)}), SIMTVP_OK);
  EXPECT_EQ(stats_code_count(sh_stats(off.h)), 0u);
}

TEST(SimtCa, LineProfileStallsFollowTheIssueTrace) { expect_stalls_follow_the_trace("ca"); }
TEST(SimtAt, LineProfileStallsFollowTheIssueTrace) { expect_stalls_follow_the_trace("at"); }

}  // namespace
