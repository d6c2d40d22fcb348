// The interval SIMT core beyond timing, with the shared helpers of the CA and AT core tests
// (tests/simt/simt_core_util.h): skipping cycles changes nothing, determinism, mixes with the
// other variants in one GPU, faults and barrier deadlocks reported with kernel/CTA/thread/PC and
// a warp dump, barriers that count only live warps, a hanging kernel's dump, configuration errors
// naming the option, the L1I in front of the interval port.
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
