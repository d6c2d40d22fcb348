// SIMT core behaviour beyond timing: skipping quiet cycles changes no statistic, determinism,
// faults and deadlocks reported with kernel/CTA/thread/PC and a warp dump, the func variant and
// mixed variants, configuration errors naming the option, the cluster's routing and response
// FIFO, and the core's own API (slots, idle, next_event, dump) without the harness.
#include "simt_core_util.h"
#include "simt_program.h"

using namespace simttest;

namespace {

TEST(SimtCore, SkippingQuietCyclesChangesNoStatistic) { expect_skipping_cycles_changes_nothing("ca"); }

TEST(SimtCore, EverySchedulerPolicyComputesTheSameResult) {
  expect_every_policy_computes_the_same_result(
      "ca", {"lrr", "gto", "old", "rrr", "two_level_active:2:0:1", "two_level_active:4:1:1", "warp_limiting:4:1"});
}

TEST(SimtCore, TwoRunsGiveIdenticalStatistics) { expect_two_runs_give_identical_statistics("ca"); }

// simt_program.touch_prev (interval runs leave out registers only their own pcs touch): each
// register's previous touch in its function, cyclically; in a module with calls, none known.
TEST(SimtProgram, TouchPrevIsThePreviousTouchInTheFunctionCyclically) {
  std::string text = kernel("  mov.u32 %r1, 1;\n"          /* pc 0: r1 */
                            "  add.s32 %r2, %r1, 1;\n"      /* pc 1: r1 → r2 */
                            "  add.s32 %r3, %r2, %r2;\n"    /* pc 2: r2 r2 → r3 */
                            "  add.s32 %r3, %r3, 1;\n");    /* pc 3: r3 → r3 */
  simtvp_diag d{};
  ptx_module *m = ptx_parse(text.data(), text.size(), "k.ptx", nullptr, &d);
  ASSERT_NE(m, nullptr) << d.message;
  simt_program *sp;
  ASSERT_EQ(simt_program_create(m, &sp, &d), SIMTVP_OK) << d.message;
  uint32_t first = m->functions[0].first_insn;
  auto prev = [&](uint32_t pc, uint32_t j) { return sp->touch_prev[sp->info[first + pc].regs + j] - first; };
  EXPECT_EQ(prev(0, 0), 1u); /* r1 at pc 0: cyclically, its last touch (pc 1) */
  EXPECT_EQ(prev(1, 0), 0u); /* r1 at pc 1 */
  EXPECT_EQ(prev(1, 1), 2u); /* r2 at pc 1 (its first touch): the function's last, pc 2 */
  EXPECT_EQ(sp->info[first + 2].n_src, 1u); /* r2 read twice at pc 2: listed once */
  EXPECT_EQ(prev(2, 0), 1u);
  EXPECT_EQ(prev(2, 1), 3u); /* r3 at pc 2 (its first touch): the function's last, pc 3 */
  EXPECT_EQ(prev(3, 0), 2u); /* r3 at pc 3 after pc 2 */
  simt_program_destroy(sp);
  ptx_module_destroy(m);
}

TEST(SimtCore, FaultInsideACaCoreNamesKernelCtaThreadAndPc) {
  Gpu g(kQV100, {"-gpgpu_n_clusters", "2"}, SH_LDST_FAKE);
  expect_fault_reported(g);
}

TEST(SimtCore, BarrierDeadlockIsReportedWithAWarpDump) {
  Gpu g(kQV100, {"-gpgpu_n_clusters", "1"}, SH_LDST_FAKE);
  expect_deadlock_reported(g);
}

TEST(SimtCore, BarrierCountsOnlyWarpsThatHaveNotExited) { expect_barrier_after_early_exits("ca"); }

TEST(SimtCore, BarrierOfACtaIgnoresALaterCtaInTheSlotOfItsFinishedWarp) {
  expect_barrier_ignores_a_later_cta_in_a_freed_slot("ca");
}

TEST(SimtCore, BarrierDeadlockIsFoundBesideALaterCtaInTheSlotOfAFinishedWarp) {
  expect_deadlock_found_beside_a_later_cta_in_a_freed_slot("ca");
}

TEST(SimtCore, FuncCoresCountOnlyWarpsThatHaveNotExitedAtABarrier) { expect_barrier_after_early_exits("func"); }

TEST(SimtCore, HangingKernelDumpsEveryWarpAtTheCycleLimit) {
  std::string m = hang_messages("ca");
  EXPECT_NE(m.find("cycle limit"), std::string::npos) << m;
  EXPECT_NE(m.find("SIMT core 0 (ca)"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 0 (slot 0, sched 0): "), std::string::npos) << m;
  EXPECT_NE(m.find("warp 1 (slot 1, sched 1): "), std::string::npos) << m;
  EXPECT_NE(m.find("spin.ptx:"), std::string::npos) << m;
}

TEST(SimtCore, FuncVariantRunsEachCtaAtLaunchInZeroTime) {
  Gpu ca(kQV100, {"-gpgpu_n_clusters", "2"}), fn(kQV100, {"-gpgpu_n_clusters", "2", "-simt_model", "func"});
  vector_add(ca);
  vector_add(fn);
  EXPECT_STREQ(simt_core_model_name(sh_core(fn.h, 0)), "func");
  EXPECT_EQ(fn.stat("gpu_sim_insn"), ca.stat("gpu_sim_insn"));
  EXPECT_EQ(fn.stat("gpgpu_n_tot_w_icount"), ca.stat("gpgpu_n_tot_w_icount"));
  EXPECT_LT(fn.cycles(), 20u);
  EXPECT_GT(ca.cycles(), 200u);
  EXPECT_EQ(sh_mem_requests(fn.h, MEM_ACC_GLOBAL_R) + sh_mem_requests(fn.h, MEM_ACC_INST_R), 0u);
}

TEST(SimtCore, FuncVariantSendsStructuredFaultAndDeadlockReports) {
  // The fault and deadlock kernels of the CA tests above on func cores: the same place fields.
  Gpu g(kQV100, {"-gpgpu_n_clusters", "2", "-simt_model", "func"});
  ASSERT_EQ(g.load(fault_kernel(), "fault.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 2, 32, {g.alloc(8 * 64)}), SIMTVP_ERR_FAULT);
  EXPECT_EQ(place(sh_fault_report(g.h)), kFaultPlace);
  ASSERT_EQ(g.load(deadlock_kernel(), "deadlock.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, 64, {g.alloc(8)}), SIMTVP_ERR_DEADLOCK);
  EXPECT_EQ(place(sh_fault_report(g.h)), kDeadlockPlace);
}

TEST(SimtCore, CoresOfDifferentModelsShareOneGpu) {
  expect_models_share_one_gpu({"-gpgpu_n_clusters", "3", "-simt_model_override", "1:func"}, {"ca", "func", "ca"});
}

TEST(SimtCore, DisabledInstructionCacheFetchesFromMemory) { expect_fetches_from_memory_without_l1i("ca"); }

TEST(SimtCore, InconsistentConfigurationsNameTheOption) { expect_config_errors_name_the_option("ca"); }

TEST(SimtCore, ClusterSetsNodesFromTheAddressAndRoutesRepliesBack) {
  // Two cores per cluster, three clusters, the fake LDST sending one request per global access:
  // every request leaves with src_node = its cluster and dst_node = 3 + the sub-partition of its
  // address; replies find their core (results are right and every request was answered).
  Gpu g(kQV100, {"-gpgpu_n_clusters", "3", "-gpgpu_n_cores_per_cluster", "2"}, SH_LDST_FAKE_TRAFFIC);
  vector_add(g, 4000, 12);
  EXPECT_EQ(sh_mem_misrouted(g.h), 0u);
  EXPECT_GT(sh_mem_requests(g.h, MEM_ACC_GLOBAL_R), 200u);
  EXPECT_GT(sh_mem_requests(g.h, MEM_ACC_INST_R), 0u);
  EXPECT_GT(g.stat("simt_cluster[2].injected"), 0u);
  for (uint32_t c = 0; c < 3; c++) EXPECT_EQ(simt_cluster_pending_replies(sh_cluster(g.h, c)), 0u);
  EXPECT_TRUE(simt_cluster_idle(sh_cluster(g.h, 0)));
}

TEST(SimtCore, FullResponseFifoBacksUpIntoTheInterconnect) {
  // A one-entry response FIFO shared by two busy cores: replies are refused (gpu_stall_icnt2sh)
  // and delivered later, one per cycle; the kernel still computes the right result.
  Gpu g(kQV100, {"-gpgpu_n_clusters", "1", "-gpgpu_n_cores_per_cluster", "2", "-gpgpu_n_cluster_ejection_buffer_size", "1"},
        SH_LDST_FAKE_TRAFFIC, 50);
  vector_add(g, 4000, 8);
  EXPECT_GT(g.stat("gpu_stall_icnt2sh"), 0u);
  EXPECT_EQ(sh_mem_misrouted(g.h), 0u);
}

// ---- the core's API without the harness -----------------------------------------------------

struct Standalone : CoreStandalone {};

TEST_F(Standalone, CtaSlotsLimitResidentCtasAndFreeOnCompletion) {
  expect_cta_slots_limit_resident_ctas(GPU_FIDELITY_CA);
}

TEST_F(Standalone, NextEventSkipsToTheWritebackOfALongLatencyResult) {
  // Two warps, each a chain of SFU instructions (latency 100 in the QV100 configuration): while
  // both wait for a result in the pipeline the core reports the writeback cycle, not the next
  // cycle, so most cycles are never simulated.
  make(GPU_FIDELITY_CA, 1);
  const uint32_t c0[3] = {0, 0, 0};
  ASSERT_EQ(simt_core_launch_cta(core, &k, c0, 0, &d), SIMTVP_OK);
  uint64_t now = 0, jumps = 0, steps = 0;
  while (simt_core_next_event(core) != SIMT_NEVER) {
    uint64_t t = simt_core_next_event(core);
    if (t > now + 1) jumps++;
    now = t;
    steps++;
    simt_core_advance(core, now);
  }
  EXPECT_GT(jumps, 10u);
  EXPECT_LT(steps, now / 4) << "cycles simulated " << steps << " of " << now;
}

TEST_F(Standalone, DumpNamesEveryResidentWarp) {
  std::string text = dump_after_30_cycles(GPU_FIDELITY_CA);
  EXPECT_NE(text.find("SIMT core 5 (ca) at cycle 30: 1 CTAs, 2 warps"), std::string::npos) << text;
}

TEST_F(Standalone, BadInstructionCacheStringNamesTheOption) {
  simt_core_config cc;
  ASSERT_EQ(simt_core_config_from_gpu(&cfg, 0, &cc, &d), SIMTVP_OK);
  cc.l1i = "N:64:128";
  cc.ldst_iface = fake_ldst_iface();
  simt_core_ports ports{};
  ports.cta_done = [](void *, uint32_t, uint32_t, const gpu_cta_result *, uint64_t) {};
  simt_core *c = nullptr;
  EXPECT_EQ(simt_core_create(&cc, ports, &c, &d), SIMTVP_ERR_PARSE);
  EXPECT_EQ(c, nullptr);
  EXPECT_STREQ(d.option, "-gpgpu_cache:il1");
}

TEST_F(Standalone, CoreWithoutCtaDonePortIsRefused) {
  simt_core_config cc;
  ASSERT_EQ(simt_core_config_from_gpu(&cfg, 0, &cc, &d), SIMTVP_OK);
  cc.ldst_iface = fake_ldst_iface();
  simt_core_ports ports{};
  simt_core *c = nullptr;
  EXPECT_EQ(simt_core_create(&cc, ports, &c, &d), SIMTVP_ERR_ARG);
  EXPECT_EQ(simt_core_config_from_gpu(&cfg, 80, &cc, &d), SIMTVP_ERR_ARG) << "core index beyond the GPU";
}

}  // namespace
