// The approximately-timed SIMT core beyond timing: skipping cycles changes no statistic,
// determinism, the same memory traffic and instruction statistics as the CA core, faults and
// deadlocks reported with kernel/CTA/thread/PC and a warp dump, configuration errors naming the
// option, and the core's own API (CTA slots, next_event, dump) without the harness.
#include "simt_core_util.h"

using namespace simttest;

namespace {

std::vector<const char *> at(std::initializer_list<const char *> more) { return with_model("at", more); }

TEST(SimtAtCore, VisitingEveryCycleChangesNoStatistic) { expect_skipping_cycles_changes_nothing("at"); }

TEST(SimtAtCore, TwoRunsGiveIdenticalStatistics) { expect_two_runs_give_identical_statistics("at"); }

TEST(SimtAtCore, EverySchedulerPolicyComputesTheSameResult) {
  expect_every_policy_computes_the_same_result("at",
                                               {"lrr", "gto", "old", "rrr", "two_level_active:2:0:1", "warp_limiting:4:1"});
}

TEST(SimtAtCore, SameMemoryTrafficAndInstructionStatisticsAsTheCaCore) {
  // Global and shared accesses, barriers: through the same LDST unit the memory system sees the
  // same requests of every kind from AT cores as from CA cores (the order and timing differ), and
  // the instruction counters that do not depend on timing agree exactly.
  Gpu ca(kQV100, {"-gpgpu_n_clusters", "2"}), at_(kQV100, at({"-gpgpu_n_clusters", "2"}));
  Sgemm a, b;
  a.run(ca);
  b.run(at_);
  EXPECT_EQ(a.C, b.C);
  vector_add(ca);
  vector_add(at_);
  EXPECT_STREQ(simt_core_model_name(sh_core(at_.h, 1)), "at");
  for (uint32_t kind : {MEM_ACC_GLOBAL_R, MEM_ACC_GLOBAL_W, MEM_ACC_CONST_R})
    EXPECT_EQ(sh_mem_requests(at_.h, kind), sh_mem_requests(ca.h, kind)) << mem_access_kind_name((mem_access_kind)kind);
  EXPECT_GT(sh_mem_requests(at_.h, MEM_ACC_GLOBAL_R), 100u);
  EXPECT_GT(sh_mem_requests(at_.h, MEM_ACC_INST_R), 0u) << "instruction fetch misses go to memory too";
  EXPECT_EQ(sh_mem_misrouted(at_.h), 0u);
  for (const char *s : {"gpu_sim_insn", "gpgpu_n_tot_w_icount", "gpgpu_n_tot_thrd_icount", "gpgpu_n_load_insn",
                        "gpgpu_n_store_insn", "gpgpu_n_shmem_insn", "gpgpu_n_param_mem_insn", "gpgpu_n_shmem_bkconflict",
                        "gpgpu_n_mem_read_global", "gpgpu_n_mem_write_global", "W32", "W16", "simt_core[0].ctas",
                        "simt_core[1].warp_insn"})
    EXPECT_EQ(at_.stat(s), ca.stat(s)) << s;
  EXPECT_GT(at_.stat("simt_core[0].cycles"), 0u);
  EXPECT_GT(at_.stat("W0_Idle") + at_.stat("W0_Scoreboard") + at_.stat("Stall"), 0u);
}

TEST(SimtAtCore, IssueCountsAreTheSameWithAndWithoutAnIssueTrace) {
  // Without an issue trace the AT core counts a warp's instructions in runs of equal active lanes
  // (simt_base_count_issues, once per run); with one, instruction by instruction. Both must give
  // the same statistics, bit for bit: full warps (SGEMM), a partial last warp (vector add of 3000
  // floats: 3000 = 23 * 128 + 56, so one warp of 24 lanes) and lanes leaving a loop one by one
  // (thread t adds t, t % 5 times: the active lanes change inside the warp's intervals).
  const std::string loop = kernel(R"(
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 5;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
LOOP:
  setp.ge.u32 %p1, %r4, %r2;
  @%p1 bra DONE;
  add.u32 %r3, %r3, %r1;
  add.u32 %r4, %r4, 1;
  bra LOOP;
DONE:
)" + std::string(kOutSlot) + "  cvt.u64.u32 %rd2, %r3;\n  st.global.u64 [%rd1], %rd2;\n",
                                  true);
  auto opts = at({"-gpgpu_n_clusters", "2"});
  Gpu batched(kQV100, opts), traced(kQV100, opts, SH_LDST_REAL, 100, 20, 0, true);
  for (Gpu *g : {&batched, &traced}) {
    Sgemm s;
    s.run(*g);
    vector_add(*g);
    ASSERT_EQ(g->load(loop, "loop.ptx"), SIMTVP_OK) << g->diag.message;
    uint64_t out = g->alloc(2 * 64 * 8);
    ASSERT_EQ(g->launch("k", 2, 64, {out}), SIMTVP_OK) << g->diag.message;
    auto v = g->download<uint64_t>(out, 2 * 64);
    for (uint32_t i = 0; i < 2 * 64; i++) ASSERT_EQ(v[i], (uint64_t)(i % 64) * ((i % 64) % 5)) << i;
  }
  EXPECT_EQ(traced.issues.size(), traced.stat("gpgpu_n_tot_w_icount"));
  EXPECT_EQ(batched.cycles(), traced.cycles());
  EXPECT_EQ(stats_json(batched), stats_json(traced));
  EXPECT_GT(batched.stat("W24"), 0u);
  EXPECT_GT(batched.stat("W26") + batched.stat("W25") + batched.stat("W19") + batched.stat("W12"), 0u);
}

TEST(SimtAtCore, MixedModelsShareOneGpu) {
  expect_models_share_one_gpu(at({"-gpgpu_n_clusters", "3", "-simt_model_override", "0:ca,2:func"}), {"ca", "at", "func"});
}

TEST(SimtAtCore, DisabledInstructionCacheFetchesFromMemory) { expect_fetches_from_memory_without_l1i("at"); }

TEST(SimtAtCore, FirstFetchOfEachLineMissesTheInstructionCache) {
  // The QV100 L1I (128-byte lines) in front of a 100-cycle memory: one warp of 24 independent adds
  // and exit (25 x 16 bytes = 4 lines) is fetch-bound, so each line's miss is on the critical
  // path: it leaves the cycle after the fetch, is answered 100 cycles later and the fetch is
  // made again (a hit): 101 cycles per line more than a perfect instruction cache.
  auto opts = [](const char *perfect) {
    return at({"-gpgpu_n_clusters", "1", "-gpgpu_num_sched_per_core", "1", "-gpgpu_sub_core_model", "0",
               "-gpgpu_perfect_inst_const_cache", perfect});
  };
  std::string body;
  for (int i = 0; i < 24; i++) body += "  add.s32 %r" + std::to_string(2 + i % 16) + ", %r1, 1;\n";
  Gpu miss(kQV100, opts("0"), SH_LDST_FAKE), perfect(kQV100, opts("1"), SH_LDST_FAKE);
  for (Gpu *g : {&miss, &perfect}) {
    ASSERT_EQ(g->load(kernel(body)), SIMTVP_OK) << g->diag.message;
    ASSERT_EQ(g->launch("k", 1, 32, {g->alloc(256)}), SIMTVP_OK) << g->diag.message;
  }
  EXPECT_EQ(miss.stat("L1I_total_cache_misses"), 4u);
  EXPECT_EQ(sh_mem_requests(miss.h, MEM_ACC_INST_R), 4u);
  EXPECT_EQ(miss.cycles() - perfect.cycles(), 4u * 101u);
}

TEST(SimtAtCore, FaultInsideAnAtCoreNamesKernelCtaThreadAndPc) {
  Gpu g(kQV100, at({"-gpgpu_n_clusters", "2"}), SH_LDST_FAKE);
  expect_fault_reported(g);
}

TEST(SimtAtCore, BarrierDeadlockIsReportedWithAWarpDump) {
  Gpu g(kQV100, at({"-gpgpu_n_clusters", "1"}), SH_LDST_FAKE);
  expect_deadlock_reported(g);
}

TEST(SimtAtCore, BarrierCountsOnlyWarpsThatHaveNotExited) { expect_barrier_after_early_exits("at"); }

TEST(SimtAtCore, BarrierOfACtaIgnoresALaterCtaInTheSlotOfItsFinishedWarp) {
  expect_barrier_ignores_a_later_cta_in_a_freed_slot("at");
  // sampled: the spins fast-forward after the first 512 cycles
  expect_barrier_ignores_a_later_cta_in_a_freed_slot("at", {"-at_sample", "512,1024"});
}

TEST(SimtAtCore, BarrierDeadlockIsFoundBesideALaterCtaInTheSlotOfAFinishedWarp) {
  expect_deadlock_found_beside_a_later_cta_in_a_freed_slot("at");
}

TEST(SimtAtCore, HangingKernelDumpsEveryWarpAtTheCycleLimit) {
  std::string m = hang_messages("at");
  EXPECT_NE(m.find("cycle limit"), std::string::npos) << m;
  EXPECT_NE(m.find("SIMT core 0 (at)"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 0 (slot 0, sched 0): ready"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 1 (slot 1, sched 1): "), std::string::npos) << m;
  EXPECT_NE(m.find("spin.ptx:"), std::string::npos) << m;
}

TEST(SimtAtCore, InconsistentConfigurationsNameTheOption) { expect_config_errors_name_the_option("at"); }

// ---- the core's API without the harness -----------------------------------------------------

struct AtStandalone : CoreStandalone {};

TEST_F(AtStandalone, CtaSlotsLimitResidentCtasAndFreeOnCompletion) {
  // The fetch at 0 is decoded at 1: the first issue (and the core's first event) is at 2.
  expect_cta_slots_limit_resident_ctas(GPU_FIDELITY_AT, 2, 3);
}

TEST_F(AtStandalone, OnlyCyclesInWhichSomethingIssuesAreVisited) {
  // Two warps on two schedulers (sub-cores), each a chain of 10 SFU instructions (latency 100):
  // the core is visited in the cycles its warps issue or finish and jumps over the waits in
  // between — about as many visits as instructions, over a run of 10 x 104 cycles.
  make(GPU_FIDELITY_AT, 1);
  const uint32_t c0[3] = {0, 0, 0};
  ASSERT_EQ(simt_core_launch_cta(core, &k, c0, 0, &d), SIMTVP_OK);
  uint64_t now = 0, steps = 0;
  while (simt_core_next_event(core) != SIMT_NEVER) {
    now = simt_core_next_event(core);
    steps++;
    simt_core_advance(core, now);
  }
  EXPECT_GT(now, 10u * 104u);
  EXPECT_LT(steps, 2u * 23u + 10u) << "cycles visited " << steps << " of " << now;
}

TEST_F(AtStandalone, DumpNamesEveryResidentWarp) {
  std::string text = dump_after_30_cycles(GPU_FIDELITY_AT, false);
  EXPECT_NE(text.find("SIMT core 5 (at) at cycle 30: 1 CTAs, 2 warps"), std::string::npos) << text;
  EXPECT_NE(text.find("ready at"), std::string::npos) << text;
}

}  // namespace
