// The interval SIMT core beyond timing, with the shared helpers of the CA and AT core tests
// (tests/simt/simt_core_util.h): skipping cycles changes nothing, determinism, mixes with the
// other variants in one GPU, faults and barrier deadlocks reported with kernel/CTA/thread/PC and
// a warp dump, barriers that count only live warps, a hanging kernel's dump, configuration errors
// naming the option, the L1I in front of the interval port, per-launch instruction facts.
#include "simt_core_util.h"

using namespace simttest;

namespace {

std::vector<const char *> iv(std::initializer_list<const char *> more) { return with_model("interval", more); }

TEST(SimtIntervalCore, VisitingEveryCycleChangesNoStatistic) { expect_skipping_cycles_changes_nothing("interval"); }

TEST(SimtIntervalCore, TwoRunsGiveIdenticalStatistics) { expect_two_runs_give_identical_statistics("interval"); }

TEST(SimtIntervalCore, MixedModelsShareOneGpu) {
  expect_models_share_one_gpu(iv({"-gpgpu_n_clusters", "4", "-simt_model_override", "0:ca,2:func,3:at"}),
                              {"ca", "interval", "func", "at"});
}

TEST(SimtIntervalCore, FirstFetchOfEachLineMissesTheInstructionCache) {
  // The QV100 L1I (128-byte lines) in front of the harness's 100-cycle port: one warp of 24
  // independent adds and exit (25 x 16 bytes = 4 lines). A warp entering a new line looks it up
  // two cycles before it would issue (fetch, decode); a miss leaves the cycle after, is back 100
  // cycles later and the instruction issues 2 cycles after the fill: 101 cycles per line more
  // than a perfect instruction cache.
  auto opts = [](const char *perfect) {
    return iv({"-gpgpu_n_clusters", "1", "-gpgpu_num_sched_per_core", "1", "-gpgpu_sub_core_model", "0",
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

TEST(SimtIntervalCore, EachLaunchIsTimedByItsOwnInstructions) {
  // What issue needs of an instruction (unit, latency, registers, L1I line) is learnt once per pc
  // and launch on each core, in a table the launch's CTAs share and a later launch takes over.
  // Two modules put different instructions at the same pcs: a chain of 16 dependent add.s32
  // (INT) and one of 16 dependent sqrt.approx.f32 (SFU, another latency). Each launch, after
  // the other on the same GPU and with several CTAs on the core, takes the cycles it takes on a
  // GPU of its own: no fact of the earlier launch is reused.
  const std::string adds = kernel("  mov.u32 %r1, 1;\n" + repeat("  add.s32 %r1, %r1, 1;\n", 16));
  std::string sqrts = kernel("  mov.f32 %f1, 0f40000000;\n" + repeat("  sqrt.approx.f32 %f1, %f1;\n", 16));
  sqrts.replace(sqrts.find(".entry k("), 9, ".entry k2(");
  auto opts = iv({"-gpgpu_n_clusters", "1"});
  // (a launch's cycles on a GPU of its own, after `before` launches of it there: the L1I keeps
  // its lines between launches)
  auto alone = [&](const std::string &ptx, const char *name, int before) {
    Gpu g(kQV100, opts, SH_LDST_FAKE);
    EXPECT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
    uint64_t out = g.alloc(4 * 64 * 8);
    for (int i = 0; i <= before; i++) EXPECT_EQ(g.launch(name, 4, 64, {out}), SIMTVP_OK) << g.diag.message;
    return g.cycles();
  };
  uint64_t add_alone = alone(adds, "k", 0), sqrt_alone = alone(sqrts, "k2", 0), add_again = alone(adds, "k", 1);
  ASSERT_NE(add_alone, sqrt_alone);
  Gpu g(kQV100, opts, SH_LDST_FAKE);
  ASSERT_EQ(g.load(adds), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.load(sqrts, "sqrt.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(4 * 64 * 8);
  ASSERT_EQ(g.launch("k", 4, 64, {out}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.cycles(), add_alone);
  ASSERT_EQ(g.launch("k2", 4, 64, {out}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.cycles(), sqrt_alone);
  ASSERT_EQ(g.launch("k", 4, 64, {out}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.cycles(), add_again);
}

TEST(SimtIntervalCore, FaultInsideAnIntervalCoreNamesKernelCtaThreadAndPc) {
  Gpu g(kQV100, iv({"-gpgpu_n_clusters", "2"}), SH_LDST_FAKE);
  expect_fault_reported(g);
}

TEST(SimtIntervalCore, BarrierDeadlockIsReportedWithAWarpDump) {
  Gpu g(kQV100, iv({"-gpgpu_n_clusters", "1"}), SH_LDST_FAKE);
  expect_deadlock_reported(g);
}

TEST(SimtIntervalCore, BarrierCountsOnlyWarpsThatHaveNotExited) { expect_barrier_after_early_exits("interval"); }

TEST(SimtIntervalCore, BarrierOfACtaIgnoresALaterCtaInTheSlotOfItsFinishedWarp) {
  expect_barrier_ignores_a_later_cta_in_a_freed_slot("interval");
}

TEST(SimtIntervalCore, BarrierDeadlockIsFoundBesideALaterCtaInTheSlotOfAFinishedWarp) {
  expect_deadlock_found_beside_a_later_cta_in_a_freed_slot("interval");
}

TEST(SimtIntervalCore, HangingKernelDumpsEveryWarpAtTheCycleLimit) {
  std::string m = hang_messages("interval");
  EXPECT_NE(m.find("cycle limit"), std::string::npos) << m;
  EXPECT_NE(m.find("SIMT core 0 (interval)"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 0 (slot 0, sched 0): ready"), std::string::npos) << m;
  EXPECT_NE(m.find("spin.ptx:"), std::string::npos) << m;
}

TEST(SimtIntervalCore, InconsistentConfigurationsNameTheOption) { expect_config_errors_name_the_option("interval"); }

}  // namespace
