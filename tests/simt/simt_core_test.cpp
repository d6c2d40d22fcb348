// SIMT core behaviour beyond timing: skipping quiet cycles changes no statistic, determinism,
// faults and deadlocks reported with kernel/CTA/thread/PC and a warp dump, the func variant and
// mixed variants, configuration errors naming the option, the cluster's routing and response
// FIFO, and the core's own API (slots, idle, next_event, dump) without the harness.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fake_ldst.h"
#include "simt_test_util.h"

using namespace simttest;

namespace {

const char *kQV100 = "configs/SM7_QV100.config";

std::string stats_json(Gpu &g) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  EXPECT_EQ(stats_write_json_stream(sh_stats(g.h), f, nullptr), SIMTVP_OK);
  fclose(f);
  std::string s(buf, len);
  free(buf);
  return s;
}

// Tiled SGEMM (tests/kernels/sgemm.cu) on the QV100-class core with the LDST unit: a mix of
// global loads, shared memory, barriers and FMAs.
struct Sgemm {
  std::vector<float> A, B, C;
  static constexpr int m = 32, n = 32, k = 48;
  Sgemm() : A(m * k), B(k * n), C(m * n) {
    for (int i = 0; i < m * k; i++) A[i] = (float)((i * 5) % 9 - 4);
    for (int i = 0; i < k * n; i++) B[i] = (float)((i * 7) % 9 - 4);
  }
  void run(Gpu &g) {
    ASSERT_EQ(g.load(read_file(kernels_dir() + "sgemm.ptx"), "sgemm.ptx"), SIMTVP_OK) << g.diag.message;
    uint64_t dA = g.upload(A), dB = g.upload(B), dC = g.upload(C);
    uint32_t one = 0x3f800000u, zero = 0;
    ASSERT_EQ(g.launch("_Z11sgemm_tilediiifPKfS0_fPf", n / 16, 16,
                       {(uint64_t)m, (uint64_t)n, (uint64_t)k, one, dA, dB, zero, dC}, 0, m / 16, 16),
              SIMTVP_OK)
        << g.diag.message;
    C = g.download<float>(dC, m * n);
  }
};

TEST(SimtCore, SkippingQuietCyclesChangesNoStatistic) {
  // The same kernel simulated with quiet cycles skipped (the default) and with every cycle
  // simulated: identical issue traces and statistics, bit for bit. A 300-cycle memory makes the
  // cores wait most of the time.
  Gpu skip(kQV100, {"-gpgpu_n_clusters", "2"}, SH_LDST_REAL, 300, 20, 0, true, false);
  Gpu every(kQV100, {"-gpgpu_n_clusters", "2"}, SH_LDST_REAL, 300, 20, 0, true, true);
  Sgemm a, b;
  a.run(skip);
  b.run(every);
  EXPECT_EQ(a.C, b.C);
  EXPECT_EQ(skip.cycles(), every.cycles());
  ASSERT_EQ(skip.issues.size(), every.issues.size());
  for (size_t i = 0; i < skip.issues.size(); i++) {
    ASSERT_EQ(skip.issues[i].cycle, every.issues[i].cycle) << i;
    ASSERT_EQ(skip.issues[i].warp, every.issues[i].warp) << i;
  }
  EXPECT_EQ(stats_json(skip), stats_json(every));
  EXPECT_GT(skip.stat("W0_Scoreboard") + skip.stat("W0_Idle"), skip.cycles());
}

TEST(SimtCore, EverySchedulerPolicyComputesTheSameResult) {
  Sgemm ref;
  {
    Gpu g(kQV100, {"-gpgpu_n_clusters", "1", "-simt_model", "func"});
    ref.run(g);
  }
  for (const char *policy : {"lrr", "gto", "old", "rrr", "two_level_active:2:0:1", "two_level_active:4:1:1",
                             "warp_limiting:4:1"}) {
    Gpu g(kQV100, {"-gpgpu_n_clusters", "2", "-gpgpu_scheduler", policy});
    Sgemm s;
    s.run(g);
    EXPECT_EQ(s.C, ref.C) << policy;
    EXPECT_GT(g.cycles(), 100u) << policy;
  }
}

TEST(SimtCore, TwoRunsGiveIdenticalStatistics) {
  Gpu g1(kQV100, {"-gpgpu_n_clusters", "3"}), g2(kQV100, {"-gpgpu_n_clusters", "3"});
  Sgemm a, b;
  a.run(g1);
  b.run(g2);
  EXPECT_EQ(a.C, b.C);
  EXPECT_EQ(g1.cycles(), g2.cycles());
  EXPECT_EQ(stats_json(g1), stats_json(g2));
  EXPECT_GT(g1.stat("gpgpu_n_shmem_insn"), 0u);
  EXPECT_GT(g1.stat("gpgpu_n_load_insn"), 0u);
}

TEST(SimtCore, FaultInsideACaCoreNamesKernelCtaThreadAndPc) {
  // Thread 37 (CTA 1, lane 5 of warp 0... of the second CTA) loads from an unmapped address.
  Gpu g(kQV100, {"-gpgpu_n_clusters", "2"}, SH_LDST_FAKE);
  std::string body = std::string(kOutSlot) +
                     "  setp.eq.u32 %p1, %r31, 37;\n  @!%p1 bra DONE;\n  mov.u64 %rd2, 0x10;\n"
                     "  ld.global.u32 %r1, [%rd2];\n  st.global.u32 [%rd1], %r1;\nDONE:\n";
  ASSERT_EQ(g.load(kernel(body, true), "fault.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 2, 32, {g.alloc(8 * 64)}), SIMTVP_ERR_FAULT);
  EXPECT_EQ(g.diag.address, 0x10u);
  std::string m = g.diag.message;
  EXPECT_NE(m.find("SIMT core"), std::string::npos) << m;
  EXPECT_NE(m.find("k"), std::string::npos) << m;
  EXPECT_NE(m.find("(1,0,0)"), std::string::npos) << "CTA: " << m;
  EXPECT_NE(m.find("(5,0,0)"), std::string::npos) << "thread: " << m;
  EXPECT_NE(m.find("fault.ptx:"), std::string::npos) << "PTX line: " << m;
  EXPECT_NE(m.find("0x10"), std::string::npos) << "address: " << m;
  // The structured report (simt_core_ports.fault through the cluster) carries every place field
  // the functional engine filled: the load is pc 10 on line 20 of fault.ptx (9 header lines, 7
  // of kOutSlot, then setp, bra, mov, ld).
  const simtvp_diag *f = sh_fault_report(g.h);
  EXPECT_EQ(place(f), "kernel fault: kernel k CTA (1,0,0) thread (5,0,0) pc 10 fault.ptx:20 address 0x10");
  if (f) {
    EXPECT_EQ(std::string(f->message), m);
  }
}

TEST(SimtCore, BarrierDeadlockIsReportedWithAWarpDump) {
  // Warp 0 waits at barrier 0, warp 1 at barrier 1: neither can ever complete.
  Gpu g(kQV100, {"-gpgpu_n_clusters", "1"}, SH_LDST_FAKE);
  std::string body = "  mov.u32 %r28, %tid.x;\n  setp.lt.u32 %p1, %r28, 32;\n  @%p1 bra W0;\n  bar.sync 1;\n"
                     "  bra.uni OUT;\nW0:\n  bar.sync 0;\nOUT:\n";
  ASSERT_EQ(g.load(kernel(body, true), "deadlock.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, 64, {g.alloc(8)}), SIMTVP_ERR_DEADLOCK);
  std::string m = g.messages();
  EXPECT_NE(m.find("barrier deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("CTA (0,0,0)"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 0 (slot 0, sched 0): barrier 0 (pc 5 `bar.sync 0;`)"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 1 (slot 1, sched 1): barrier 1 (pc 3 `bar.sync 1;`)"), std::string::npos) << m;
  EXPECT_NE(m.find("deadlock.ptx:"), std::string::npos) << m;
  // The structured report: kernel, CTA and the barrier the first waiting warp (warp 0) waits at,
  // `bar.sync 0` = pc 5 on line 16 (9 header lines, then mov, setp, bra, bar, bra, the label).
  const simtvp_diag *f = sh_fault_report(g.h);
  EXPECT_EQ(place(f), "deadlock: kernel k CTA (0,0,0) thread (0,0,0) pc 5 deadlock.ptx:16");
  if (f) {
    EXPECT_NE(std::string(f->message).find("barrier deadlock"), std::string::npos) << f->message;
  }
}

TEST(SimtCore, HangingKernelDumpsEveryWarpAtTheCycleLimit) {
  Gpu g(kQV100, {"-gpgpu_n_clusters", "1"}, SH_LDST_FAKE, 100, 20, 0, false, false, 3000);
  ASSERT_EQ(g.load(kernel("LOOP:\n  add.s32 %r1, %r1, 1;\n  bra.uni LOOP;\n"), "spin.ptx"), SIMTVP_OK);
  EXPECT_EQ(g.launch("k", 1, 64, {g.alloc(8)}), SIMTVP_ERR_LIMIT);
  std::string m = g.messages();
  EXPECT_NE(m.find("cycle limit"), std::string::npos) << m;
  EXPECT_NE(m.find("SIMT core 0 (ca)"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 0 (slot 0, sched 0): "), std::string::npos) << m;
  EXPECT_NE(m.find("warp 1 (slot 1, sched 1): "), std::string::npos) << m;
  EXPECT_NE(m.find("spin.ptx:"), std::string::npos) << m;
}

const char *kVecAdd = "_Z10vector_addPKfS0_Pfi";

void vector_add(Gpu &g, int n = 3000, uint32_t blocks = 8) {
  ASSERT_EQ(g.load(read_file(kernels_dir() + "vector_add.ptx"), "vector_add.ptx"), SIMTVP_OK) << g.diag.message;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = 0.5f * (float)i;
  uint64_t da = g.upload(a), db = g.upload(b), dc = g.alloc(n * 4);
  ASSERT_EQ(g.launch(kVecAdd, blocks, 128, {da, db, dc, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  auto c = g.download<float>(dc, n);
  for (int i = 0; i < n; i++) ASSERT_EQ(c[i], a[i] + b[i]) << i;
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
  std::string fault = std::string(kOutSlot) +
                      "  setp.eq.u32 %p1, %r31, 37;\n  @!%p1 bra DONE;\n  mov.u64 %rd2, 0x10;\n"
                      "  ld.global.u32 %r1, [%rd2];\n  st.global.u32 [%rd1], %r1;\nDONE:\n";
  ASSERT_EQ(g.load(kernel(fault, true), "fault.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 2, 32, {g.alloc(8 * 64)}), SIMTVP_ERR_FAULT);
  EXPECT_EQ(place(sh_fault_report(g.h)), "kernel fault: kernel k CTA (1,0,0) thread (5,0,0) pc 10 fault.ptx:20 address 0x10");
  std::string stuck = "  mov.u32 %r28, %tid.x;\n  setp.lt.u32 %p1, %r28, 32;\n  @%p1 bra W0;\n  bar.sync 1;\n"
                      "  bra.uni OUT;\nW0:\n  bar.sync 0;\nOUT:\n";
  ASSERT_EQ(g.load(kernel(stuck, true), "deadlock.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, 64, {g.alloc(8)}), SIMTVP_ERR_DEADLOCK);
  EXPECT_EQ(place(sh_fault_report(g.h)), "deadlock: kernel k CTA (0,0,0) thread (0,0,0) pc 5 deadlock.ptx:16");
}

TEST(SimtCore, CoresOfDifferentModelsShareOneGpu) {
  Gpu g(kQV100, {"-gpgpu_n_clusters", "3", "-simt_model_override", "1:func"});
  vector_add(g, 5000, 12);
  EXPECT_STREQ(simt_core_model_name(sh_core(g.h, 0)), "ca");
  EXPECT_STREQ(simt_core_model_name(sh_core(g.h, 1)), "func");
  EXPECT_STREQ(simt_core_model_name(sh_core(g.h, 2)), "ca");
  EXPECT_GT(g.stat("simt_core[0].warp_insn"), 0u);
  EXPECT_GT(g.stat("simt_core[1].warp_insn"), 0u);
  EXPECT_GT(g.stat("simt_core[2].cycles"), 0u);
}

TEST(SimtCore, DisabledInstructionCacheFetchesFromMemory) {
  Gpu g(kQV100, {"-gpgpu_n_clusters", "1", "-gpgpu_cache:il1", "none"});
  vector_add(g, 600, 2);
  EXPECT_GT(sh_mem_requests(g.h, MEM_ACC_INST_R), 20u);
}

TEST(SimtCore, AtModelIsReportedAsNotBuilt) {
#ifdef SIMTVP_HAVE_SIMT_AT
  GTEST_SKIP() << "this build has the at model (models/simt/at; its tests are tests/simt_at)";
#endif
  std::vector<const char *> args = {"-gpgpu_n_clusters", "1", "-simt_model", "at"};
  sh_options o{};
  std::string file = source(kQV100);
  o.config_file = file.c_str();
  o.args = args.data();
  o.n_args = (int)args.size();
  o.quiet = true;
  simt_harness *h = nullptr;
  simtvp_diag d{};
  EXPECT_EQ(sh_create(&o, &h, &d), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_EQ(h, nullptr);
  EXPECT_STREQ(d.option, "-simt_model");
  EXPECT_NE(std::string(d.message).find("'at'"), std::string::npos) << d.message;
}

simtvp_status create_with(std::vector<const char *> args, simtvp_diag *d) {
  args.insert(args.begin(), {"-gpgpu_n_clusters", "1"});
  sh_options o{};
  std::string file = source(kQV100);
  o.config_file = file.c_str();
  o.args = args.data();
  o.n_args = (int)args.size();
  o.quiet = true;
  o.ldst = SH_LDST_FAKE;
  simt_harness *h = nullptr;
  simtvp_status st = sh_create(&o, &h, d);
  sh_destroy(h);
  return st;
}

TEST(SimtCore, InconsistentConfigurationsNameTheOption) {
  struct Case {
    std::vector<const char *> args;
    const char *option;
  } cases[] = {
      {{"-gpgpu_num_sp_units", "0"}, "-gpgpu_num_sp_units"},
      {{"-gpgpu_shader_core_pipeline", "1024:16"}, "-gpgpu_shader_core_pipeline"},
      {{"-gpgpu_operand_collector_num_units_gen", "0"}, "-gpgpu_operand_collector_num_units_gen"},
      {{"-gpgpu_operand_collector_num_in_ports_gen", "0"}, "-gpgpu_operand_collector_num_in_ports_gen"},
      {{"-gpgpu_pipeline_widths", "4,4,4,4,4,4,4,4,4,4,0,4,4"}, "-gpgpu_pipeline_widths"},
      {{"-gpgpu_pipeline_widths", "0,4,4,4,4,4,4,4,4,4,8,4,4"}, "-gpgpu_pipeline_widths"},
      {{"-gpgpu_num_reg_banks", "2"}, "-gpgpu_num_reg_banks"},
      {{"-gpgpu_num_sched_per_core", "17"}, "-gpgpu_num_sched_per_core"},
      {{"-gpgpu_inst_fetch_throughput", "0"}, "-gpgpu_inst_fetch_throughput"},
      {{"-gpgpu_n_cluster_ejection_buffer_size", "0"}, "-gpgpu_n_cluster_ejection_buffer_size"},
  };
  for (auto &c : cases) {
    simtvp_diag d{};
    EXPECT_EQ(create_with(c.args, &d), SIMTVP_ERR_CONFIG) << c.args[0] << " " << c.args[1];
    EXPECT_STREQ(d.option, c.option) << d.message;
  }
}

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

struct Standalone : ::testing::Test {
  devmem *mem = nullptr;
  func_engine *e = nullptr;
  ptx_module *m = nullptr;
  func_program *p = nullptr;
  func_launch *l = nullptr;
  simt_program *sp = nullptr;
  simt_kernel k{};
  simt_core *core = nullptr;
  gpu_config cfg{};
  config_registry *reg = nullptr;
  std::vector<std::pair<uint32_t, gpu_cta_result>> done;
  simtvp_diag d{};

  void SetUp() override {
    reg = config_registry_create(nullptr);
    std::string file = source(kQV100);
    const char *files[] = {file.c_str()};
    ASSERT_EQ(gpu_config_load(&cfg, reg, files, 1, &d), SIMTVP_OK) << d.message;
    mem = devmem_create();
    func_config fc{};
    e = func_create(&fc, nullptr, mem, nullptr, &d);
    std::string text = kernel("  mov.f32 %f1, 0f40800000;\n" + repeat("  sqrt.approx.f32 %f1, %f1;\n", 10) +
                              repeat("  add.s32 %r1, %r1, 1;\n", 10));
    m = ptx_parse(text.data(), text.size(), "k.ptx", nullptr, &d);
    ASSERT_NE(m, nullptr) << d.message;
    func_placement pl{};
    ASSERT_EQ(func_program_load(e, m, &pl, &p, &d), SIMTVP_OK) << d.message;
    func_launch_params lp{};
    lp.kernel = func_program_kernel(p, "k");
    lp.grid[0] = 4, lp.grid[1] = lp.grid[2] = 1;
    lp.block[0] = 64, lp.block[1] = lp.block[2] = 1;
    static const uint64_t out = 0;
    lp.params = &out;
    lp.param_bytes = 8;
    ASSERT_EQ(func_launch_create(e, p, &lp, &l, &d), SIMTVP_OK) << d.message;
    ASSERT_EQ(simt_program_create(m, &sp, &d), SIMTVP_OK);
    k.slot = 3;
    k.launch_uid = 1;
    k.name = "k";
    k.launch = l;
    k.program = sp;
  }
  void make(uint32_t max_ctas) {
    simt_core_config cc;
    ASSERT_EQ(simt_core_config_from_gpu(&cfg, 5, &cc, &d), SIMTVP_OK);
    cc.max_ctas = max_ctas;
    cc.perfect_l1i = true;
    cc.ldst_iface = fake_ldst_iface();
    cc.ldst.l1d_latency = 10;
    simt_core_ports ports{};
    ports.ctx = this;
    ports.send = [](void *, mem_req *, uint64_t) { return false; };
    ports.cta_done = [](void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r, uint64_t) {
      EXPECT_EQ(sm, 5u);
      static_cast<Standalone *>(ctx)->done.push_back({slot, *r});
    };
    ASSERT_EQ(simt_core_create(&cc, ports, &core, &d), SIMTVP_OK) << d.message;
  }
  void TearDown() override {
    simt_core_destroy(core);
    if (l) func_launch_destroy(l);
    simt_program_destroy(sp);
    func_program_destroy(p);
    ptx_module_destroy(m);
    func_destroy(e);
    devmem_destroy(mem);
    config_registry_destroy(reg);
  }
  uint64_t run_to_end(uint64_t now) {
    while (simt_core_next_event(core) != SIMT_NEVER) {
      now = simt_core_next_event(core);
      simt_core_advance(core, now);
    }
    return now;
  }
};

TEST_F(Standalone, CtaSlotsLimitResidentCtasAndFreeOnCompletion) {
  make(2);
  const uint32_t c0[3] = {0, 0, 0}, c1[3] = {1, 0, 0}, c2[3] = {2, 0, 0};
  EXPECT_TRUE(simt_core_idle(core));
  EXPECT_EQ(simt_core_next_event(core), SIMT_NEVER);
  ASSERT_EQ(simt_core_launch_cta(core, &k, c0, 0, &d), SIMTVP_OK);
  ASSERT_EQ(simt_core_launch_cta(core, &k, c1, 0, &d), SIMTVP_OK);
  EXPECT_EQ(simt_core_launch_cta(core, &k, c2, 0, &d), SIMTVP_ERR_STATE);
  EXPECT_NE(std::string(d.message).find("no free CTA slot"), std::string::npos) << d.message;
  EXPECT_EQ(simt_core_resident_ctas(core), 2u);
  EXPECT_FALSE(simt_core_idle(core));
  EXPECT_EQ(simt_core_next_event(core), 0u);
  uint64_t end = run_to_end(0);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].first, 3u);
  EXPECT_EQ(done[0].second.status, SIMTVP_OK);
  EXPECT_TRUE(simt_core_idle(core));
  EXPECT_EQ(simt_core_resident_ctas(core), 0u);
  ASSERT_EQ(simt_core_launch_cta(core, &k, c2, end + 5, &d), SIMTVP_OK);
  run_to_end(end + 5);
  EXPECT_EQ(done.size(), 3u);
}

TEST_F(Standalone, NextEventSkipsToTheWritebackOfALongLatencyResult) {
  // Two warps, each a chain of SFU instructions (latency 100 in the QV100 configuration): while
  // both wait for a result in the pipeline the core reports the writeback cycle, not the next
  // cycle, so most cycles are never simulated.
  make(1);
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
  make(1);
  const uint32_t c0[3] = {0, 0, 0};
  ASSERT_EQ(simt_core_launch_cta(core, &k, c0, 0, &d), SIMTVP_OK);
  simt_core_advance(core, 30);
  std::string text;
  simt_core_dump(core, [](void *ctx, const char *line) { *static_cast<std::string *>(ctx) += std::string(line) + "\n"; },
                 &text);
  EXPECT_NE(text.find("SIMT core 5 (ca) at cycle 30: 1 CTAs, 2 warps"), std::string::npos) << text;
  EXPECT_NE(text.find("CTA (0,0,0) of k"), std::string::npos) << text;
  EXPECT_NE(text.find("warp 0 (slot 0, sched 0)"), std::string::npos) << text;
  EXPECT_NE(text.find("warp 1 (slot 1, sched 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("`sqrt.approx.f32"), std::string::npos) << text;
  EXPECT_NE(text.find("fake LDST"), std::string::npos) << text;
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
