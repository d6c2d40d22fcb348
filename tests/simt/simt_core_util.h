// simt_core_util — what the SIMT core behaviour tests of every variant share (tests/simt/
// simt_core_test.cpp, tests/simt_at/simt_at_core_test.cpp): statistics as JSON, the SGEMM and
// vector-add workloads, the fault and barrier-deadlock kernels with the reports they must give,
// configuration errors, and a core driven through its API without the harness.
#ifndef SIMTVP_SIMT_CORE_UTIL_H
#define SIMTVP_SIMT_CORE_UTIL_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fake_ldst.h"
#include "simt_test_util.h"

namespace simttest {

inline const char *kQV100 = "configs/SM7_QV100.config";

// "-simt_model <model>" then `more`.
inline std::vector<const char *> with_model(const char *model, std::initializer_list<const char *> more) {
  std::vector<const char *> v = {"-simt_model", model};
  v.insert(v.end(), more);
  return v;
}

inline std::string stats_json(Gpu &g) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  EXPECT_EQ(stats_write_json_stream(sh_stats(g.h), f, nullptr), SIMTVP_OK);
  fclose(f);
  std::string s(buf, len);
  free(buf);
  return s;
}

// Tiled SGEMM (tests/kernels/sgemm.cu): global loads, shared memory, barriers and FMAs.
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

// Vector add (tests/kernels/vector_add.cu) of n floats in `blocks` CTAs of 128 threads, checked.
inline void vector_add(Gpu &g, int n = 3000, uint32_t blocks = 8) {
  ASSERT_EQ(g.load(read_file(kernels_dir() + "vector_add.ptx"), "vector_add.ptx"), SIMTVP_OK) << g.diag.message;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = 0.5f * (float)i;
  uint64_t da = g.upload(a), db = g.upload(b), dc = g.alloc(n * 4);
  ASSERT_EQ(g.launch("_Z10vector_addPKfS0_Pfi", blocks, 128, {da, db, dc, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  auto c = g.download<float>(dc, n);
  for (int i = 0; i < n; i++) ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

// SGEMM on two clusters of `model` cores with a 300-cycle memory (the cores wait most of the time),
// with quiet cycles skipped (the default) and with every cycle simulated while a CTA is resident
// (simt_core_config.every_cycle): identical results, issue traces and statistics, bit for bit.
inline void expect_skipping_cycles_changes_nothing(const char *model) {
  Gpu skip(kQV100, with_model(model, {"-gpgpu_n_clusters", "2"}), SH_LDST_REAL, 300, 20, 0, true, false);
  Gpu every(kQV100, with_model(model, {"-gpgpu_n_clusters", "2"}), SH_LDST_REAL, 300, 20, 0, true, true);
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

// SGEMM under every scheduler policy of `policies` on `model` cores: the func cores' result.
inline void expect_every_policy_computes_the_same_result(const char *model,
                                                         std::initializer_list<const char *> policies) {
  Sgemm ref;
  {
    Gpu g(kQV100, {"-gpgpu_n_clusters", "1", "-simt_model", "func"});
    ref.run(g);
  }
  for (const char *policy : policies) {
    Gpu g(kQV100, with_model(model, {"-gpgpu_n_clusters", "2", "-gpgpu_scheduler", policy}));
    Sgemm s;
    s.run(g);
    EXPECT_EQ(s.C, ref.C) << policy;
    EXPECT_GT(g.cycles(), 100u) << policy;
  }
}

// SGEMM twice on three clusters of `model` cores: the same cycles and statistics, bit for bit.
inline void expect_two_runs_give_identical_statistics(const char *model) {
  auto opts = with_model(model, {"-gpgpu_n_clusters", "3"});
  Gpu g1(kQV100, opts), g2(kQV100, opts);
  Sgemm a, b;
  a.run(g1);
  b.run(g2);
  EXPECT_EQ(a.C, b.C);
  EXPECT_EQ(g1.cycles(), g2.cycles());
  EXPECT_EQ(stats_json(g1), stats_json(g2));
  EXPECT_GT(g1.stat("gpgpu_n_shmem_insn"), 0u);
  EXPECT_GT(g1.stat("gpgpu_n_load_insn"), 0u);
}

// Without an L1I (-gpgpu_cache:il1 none) every fetch is a request to memory.
inline void expect_fetches_from_memory_without_l1i(const char *model) {
  Gpu g(kQV100, with_model(model, {"-gpgpu_n_clusters", "1", "-gpgpu_cache:il1", "none"}));
  vector_add(g, 600, 2);
  EXPECT_GT(sh_mem_requests(g.h, MEM_ACC_INST_R), 20u);
}

// Vector add on three clusters whose cores have the models `expected` (by -simt_model and
// -simt_model_override in `opts`): every core runs its share of the CTAs.
inline void expect_models_share_one_gpu(const std::vector<const char *> &opts,
                                        std::initializer_list<const char *> expected) {
  Gpu g(kQV100, opts);
  vector_add(g, 5000, 12);
  uint32_t sm = 0;
  for (const char *model : expected) {
    std::string core = "simt_core[" + std::to_string(sm) + "]";
    EXPECT_STREQ(simt_core_model_name(sh_core(g.h, sm)), model) << core;
    EXPECT_GT(g.stat((core + ".warp_insn").c_str()), 0u) << core;
    if (std::string(model) != "func") {
      EXPECT_GT(g.stat((core + ".cycles").c_str()), 0u) << core;
    }
    sm++;
  }
}

// Thread 37 (lane 5 of the second CTA of 32 threads) loads from the unmapped address 0x10: the
// load is pc 10 on line 20 of fault.ptx (9 header lines, 7 of kOutSlot, then setp, bra, mov, ld).
inline std::string fault_kernel() {
  return kernel(std::string(kOutSlot) +
                    "  setp.eq.u32 %p1, %r31, 37;\n  @!%p1 bra DONE;\n  mov.u64 %rd2, 0x10;\n"
                    "  ld.global.u32 %r1, [%rd2];\n  st.global.u32 [%rd1], %r1;\nDONE:\n",
                true);
}
inline const char *kFaultPlace = "kernel fault: kernel k CTA (1,0,0) thread (5,0,0) pc 10 fault.ptx:20 address 0x10";

// Runs fault_kernel (2 CTAs of 32 threads): the launch fails with the fault, its message names the
// core, CTA, thread, PTX line and address, and the structured report (simt_core_ports.fault
// through the cluster) carries every place field the functional engine filled.
inline void expect_fault_reported(Gpu &g) {
  ASSERT_EQ(g.load(fault_kernel(), "fault.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 2, 32, {g.alloc(8 * 64)}), SIMTVP_ERR_FAULT);
  EXPECT_EQ(g.diag.address, 0x10u);
  std::string m = g.diag.message;
  EXPECT_NE(m.find("SIMT core"), std::string::npos) << m;
  EXPECT_NE(m.find("(1,0,0)"), std::string::npos) << "CTA: " << m;
  EXPECT_NE(m.find("(5,0,0)"), std::string::npos) << "thread: " << m;
  EXPECT_NE(m.find("fault.ptx:"), std::string::npos) << "PTX line: " << m;
  EXPECT_NE(m.find("0x10"), std::string::npos) << "address: " << m;
  const simtvp_diag *f = sh_fault_report(g.h);
  EXPECT_EQ(place(f), kFaultPlace);
  if (f) {
    EXPECT_EQ(std::string(f->message), m);
  }
}

// Warp 0 waits at barrier 0, warp 1 at barrier 1: neither can ever complete. `bar.sync 0` is pc 5
// on line 16 of deadlock.ptx (9 header lines, then mov, setp, bra, bar, bra, the label).
inline std::string deadlock_kernel() {
  return kernel("  mov.u32 %r28, %tid.x;\n  setp.lt.u32 %p1, %r28, 32;\n  @%p1 bra W0;\n  bar.sync 1;\n"
                "  bra.uni OUT;\nW0:\n  bar.sync 0;\nOUT:\n",
                true);
}
inline const char *kDeadlockPlace = "deadlock: kernel k CTA (0,0,0) thread (0,0,0) pc 5 deadlock.ptx:16";

// Runs deadlock_kernel (one CTA of 64 threads) on one core: the launch ends with the deadlock, the
// messages have the report and one line per warp, the structured report names the kernel, the CTA
// and the barrier the first waiting warp (warp 0) waits at.
inline void expect_deadlock_reported(Gpu &g) {
  ASSERT_EQ(g.load(deadlock_kernel(), "deadlock.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, 64, {g.alloc(8)}), SIMTVP_ERR_DEADLOCK);
  std::string m = g.messages();
  EXPECT_NE(m.find("barrier deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("CTA (0,0,0)"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 0 (slot 0, sched 0): barrier 0 (pc 5 `bar.sync 0;`)"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 1 (slot 1, sched 1): barrier 1 (pc 3 `bar.sync 1;`)"), std::string::npos) << m;
  EXPECT_NE(m.find("deadlock.ptx:"), std::string::npos) << m;
  const simtvp_diag *f = sh_fault_report(g.h);
  EXPECT_EQ(place(f), kDeadlockPlace);
  if (f) {
    EXPECT_NE(std::string(f->message).find("barrier deadlock"), std::string::npos) << f->message;
  }
}

// Some warps of a CTA exit before the others meet at `bar.sync 0` (hardware and GPGPU-Sim count
// only warps that have not exited). CTAs of `threads` threads (the last warp may be partial);
// threads with tid >= `stay` exit at once (`early`) or after a loop of 200 iterations (so the
// barrier's arrivals come first and the last exit completes it). The others write tid + 1 to
// shared memory, meet at the barrier and store their neighbour's (tid ^ 1) value: out[t] =
// (t ^ 1) + 1 for t and t ^ 1 < stay, 0 for the rest (shared memory starts zeroed).
inline std::string early_exit_kernel(bool early) {
  std::string late = early ? "" : "  mov.u32 %r5, 0;\nSPIN:\n  add.u32 %r5, %r5, 1;\n  setp.lt.u32 %p2, %r5, 200;\n"
                                  "  @%p2 bra SPIN;\n";
  return std::string(".version 7.0\n.target sm_70\n.address_size 64\n"
                     ".visible .entry k(.param .u64 out, .param .u32 stay)\n{\n"
                     "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n"
                     "  .shared .align 4 .b32 s[1024];\n"
                     "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r1, [stay];\n  mov.u32 %r2, %tid.x;\n"
                     "  mul.wide.u32 %rd2, %r2, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
                     "  setp.ge.u32 %p1, %r2, %r1;\n  @%p1 bra LEAVE;\n"
                     "  mov.u32 %r3, s;\n  shl.b32 %r4, %r2, 2;\n  add.u32 %r6, %r3, %r4;\n"
                     "  add.u32 %r7, %r2, 1;\n  st.shared.u32 [%r6], %r7;\n  bar.sync 0;\n"
                     "  xor.b32 %r8, %r4, 4;\n  add.u32 %r9, %r3, %r8;\n  ld.shared.u32 %r10, [%r9];\n"
                     "  st.global.u32 [%rd3], %r10;\n  exit;\nLEAVE:\n") +
         late + "  exit;\n}\n";
}

// Runs early_exit_kernel on 3 CTAs of every (threads, stay) case under `model` cores: no deadlock,
// every value right. stay is a multiple of 32 where whole warps exit, else a warp is split (its
// staying lanes arrive for it).
inline void expect_barrier_after_early_exits(const char *model) {
  struct Case { uint32_t threads, stay; };
  for (bool early : {true, false})
    for (Case c : {Case{128, 64}, Case{128, 32}, Case{96, 64}, Case{80, 64}, Case{256, 224}, Case{128, 48}, Case{1024, 1000}, Case{1024, 512}, Case{512, 33}}) {
      Gpu g(kQV100, with_model(model, {"-gpgpu_n_clusters", "1"}));
      ASSERT_EQ(g.load(early_exit_kernel(early), "early_exit.ptx"), SIMTVP_OK) << g.diag.message;
      uint64_t out = g.alloc(4 * c.threads);  // every CTA writes the same values
      ASSERT_EQ(g.launch("k", 3, c.threads, {out, c.stay}), SIMTVP_OK)
          << model << " threads " << c.threads << " stay " << c.stay << (early ? " early" : " late") << ": "
          << g.diag.message << g.messages();
      auto v = g.download<uint32_t>(out, c.threads);
      for (uint32_t t = 0; t < c.threads; t++)
        ASSERT_EQ(v[t], t < c.stay && (t ^ 1) < c.stay ? (t ^ 1) + 1 : 0u) << model << " thread " << t << " threads " << c.threads;
    }
}

// A CTA's warp slots are freed warp by warp, so a CTA started later may take the slot of a
// finished warp of a CTA still resident; that CTA's barrier settling must not read the newcomer.
// One core holding 2 CTAs (-gpgpu_shader_cta 2) of 2 warps runs 3 CTAs (warp w = tid / 32):
//   CTA 0 (warp slots 0, 1): warp 0 exits at once (stores nothing); warp 1 spins 600 iterations,
//                            stores 1 and exits;
//   CTA 1 (slots 2, 3):      both warps spin 100 iterations, store 2 and exit: CTA 1 ends first
//                            (after CTA 0's warp 0 finished, long before CTA 0's warp 1 exits);
//   CTA 2 takes the first free slots, 0 (CTA 0's finished warp 0) and 2: its warp 0 waits at
//                            bar.sync 0 at once, its warp 1 spins 2000 iterations and arrives
//                            there; both store 3 and exit.
// A loop iteration is 3 instructions, so CTA 0's warp 1 exits after ≥ 1800 issues, while CTA 2's
// warp 0 still waits for warp 1 (≥ 6000 issues). That exit settles CTA 0's barriers: read by
// slot, slot 0 (CTA 2's warp 0) "waits at a barrier" and every other warp has exited, a false
// barrier deadlock of CTA 0. Expected: no error; out[64 * cta + tid] = 0 for CTA 0's warp 0, 1
// for its warp 1, 2 for CTA 1, 3 for CTA 2.
inline std::string slot_reuse_kernel() {
  auto loop = [](const char *label, int n) {
    return std::string("  mov.u32 %r2, 0;\n") + label + ":\n  add.u32 %r2, %r2, 1;\n  setp.lt.u32 %p3, %r2, " +
           std::to_string(n) + ";\n  @%p3 bra " + label + ";\n";
  };
  return kernel(std::string(kOutSlot) +
                    "  shr.u32 %r1, %r28, 5;\n  setp.eq.u32 %p2, %r1, 0;\n  add.u32 %r3, %r29, 1;\n"
                    "  setp.eq.u32 %p1, %r29, 0;\n  @%p1 bra C0;\n  setp.eq.u32 %p1, %r29, 1;\n  @%p1 bra C1;\n"
                    "  @%p2 bra BAR;\n" + loop("S2", 2000) + "BAR:\n  bar.sync 0;\n  bra.uni DONE;\n"
                    "C1:\n" + loop("S1", 100) + "  bra.uni DONE;\n"
                    "C0:\n  @%p2 bra OUT;\n" + loop("S0", 600) +
                    "DONE:\n  cvt.u64.u32 %rd2, %r3;\n  st.global.u64 [%rd1], %rd2;\nOUT:\n",
                true);
}

inline void expect_barrier_ignores_a_later_cta_in_a_freed_slot(const char *model,
                                                               std::initializer_list<const char *> more = {}) {
  std::vector<const char *> args = with_model(model, {"-gpgpu_n_clusters", "1", "-gpgpu_shader_cta", "2"});
  args.insert(args.end(), more);
  Gpu g(kQV100, args);
  ASSERT_EQ(g.load(slot_reuse_kernel(), "slot_reuse.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(8 * 3 * 64);
  ASSERT_EQ(g.launch("k", 3, 64, {out}), SIMTVP_OK) << model << ": " << g.diag.message << g.messages();
  auto v = g.download<uint64_t>(out, 3 * 64);
  for (uint32_t i = 0; i < 3 * 64; i++)
    ASSERT_EQ(v[i], i < 32 ? 0u : i < 64 ? 1u : i / 64 + 1) << model << " CTA " << i / 64 << " thread " << i % 64;
}

// The other side of the same slot reuse: a real deadlock is reported although a later CTA's warp
// runs in the slot of a finished warp. One core holding 2 CTAs of 3 warps runs 3 CTAs:
//   CTA 0 (slots 0-2): warp 0 exits at once; warp 1 waits at bar.sync 1, warp 2 spins 600
//                      iterations and waits at bar.sync 2: neither barrier can complete (each
//                      expects the 2 warps that have not exited), a deadlock at warp 2's arrival;
//   CTA 1 (slots 3-5): spins 100 iterations and exits, so CTA 2 starts (slots 0, 3, 4) and spins
//                      2000 iterations (running at CTA 0's deadlock), then exits.
// Read by slot, CTA 2's running warp in slot 0 hid the deadlock. Expected: the launch ends with
// SIMTVP_ERR_DEADLOCK naming CTA (0,0,0) and bar.sync 1 (warp 1 waits first); CTA 0's warps 1 and
// 2 are dumped with their barriers, slot 0 (no longer CTA 0's) is not; CTA 2 stores 3 everywhere.
inline std::string slot_reuse_deadlock_kernel() {
  auto loop = [](const char *label, int n) {
    return std::string("  mov.u32 %r2, 0;\n") + label + ":\n  add.u32 %r2, %r2, 1;\n  setp.lt.u32 %p3, %r2, " +
           std::to_string(n) + ";\n  @%p3 bra " + label + ";\n";
  };
  return kernel(std::string(kOutSlot) +
                    "  shr.u32 %r1, %r28, 5;\n  add.u32 %r3, %r29, 1;\n"
                    "  setp.eq.u32 %p1, %r29, 0;\n  @%p1 bra C0;\n  setp.eq.u32 %p1, %r29, 1;\n  @%p1 bra C1;\n" +
                    loop("S2", 2000) + "  bra.uni DONE;\n"
                    "C1:\n" + loop("S1", 100) + "  bra.uni DONE;\n"
                    "C0:\n  setp.eq.u32 %p2, %r1, 0;\n  @%p2 bra OUT;\n  setp.eq.u32 %p2, %r1, 1;\n  @%p2 bra B1;\n" +
                    loop("S0", 600) + "  bar.sync 2;\n  bra.uni DONE;\nB1:\n  bar.sync 1;\n"
                    "DONE:\n  cvt.u64.u32 %rd2, %r3;\n  st.global.u64 [%rd1], %rd2;\nOUT:\n",
                true);
}

inline void expect_deadlock_found_beside_a_later_cta_in_a_freed_slot(const char *model) {
  Gpu g(kQV100, with_model(model, {"-gpgpu_n_clusters", "1", "-gpgpu_shader_cta", "2"}), SH_LDST_REAL, 100, 20, 0,
        false, false, 200000);
  ASSERT_EQ(g.load(slot_reuse_deadlock_kernel(), "slot_reuse_deadlock.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(8 * 3 * 96);
  EXPECT_EQ(g.launch("k", 3, 96, {out}), SIMTVP_ERR_DEADLOCK) << model << ": " << g.diag.message << g.messages();
  std::string m = g.messages();
  EXPECT_NE(m.find("CTA (0,0,0): barrier deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 1 (slot 1, sched 1): barrier 1"), std::string::npos) << m;
  EXPECT_NE(m.find("warp 2 (slot 2, sched 2): barrier 2"), std::string::npos) << m;
  EXPECT_EQ(m.find("(slot 0,"), std::string::npos) << m;
  const simtvp_diag *f = sh_fault_report(g.h);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->cta[0], 0u);
  auto v = g.download<uint64_t>(out, 3 * 96);
  for (uint32_t i = 2 * 96; i < 3 * 96; i++) ASSERT_EQ(v[i], 3u) << model << " CTA 2 thread " << i - 2 * 96;
}

// A kernel spinning forever in 2 warps stopped by a 3000-cycle limit: every warp is dumped.
inline std::string hang_messages(const char *model) {
  Gpu g(kQV100, with_model(model, {"-gpgpu_n_clusters", "1"}), SH_LDST_FAKE, 100, 20, 0, false, false, 3000);
  EXPECT_EQ(g.load(kernel("LOOP:\n  add.s32 %r1, %r1, 1;\n  bra.uni LOOP;\n"), "spin.ptx"), SIMTVP_OK);
  EXPECT_EQ(g.launch("k", 1, 64, {g.alloc(8)}), SIMTVP_ERR_LIMIT);
  return g.messages();
}

// sh_create on one cluster of QV100-class cores of `model` with `args`: its status (diag filled).
inline simtvp_status create_with(const char *model, std::vector<const char *> args, simtvp_diag *d) {
  args.insert(args.begin(), {"-gpgpu_n_clusters", "1", "-simt_model", model});
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

// A configuration error, the status and the option its message must name.
struct ConfigCase {
  std::vector<const char *> args;
  const char *option;
  simtvp_status status;
};

// The checks at create of a timing core and its cluster: every one names its option.
inline std::vector<ConfigCase> core_config_cases() {
  return {
      {{"-gpgpu_num_sp_units", "0"}, "-gpgpu_num_sp_units", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_shader_core_pipeline", "1024:16"}, "-gpgpu_shader_core_pipeline", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_operand_collector_num_units_gen", "0"}, "-gpgpu_operand_collector_num_units_gen", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_operand_collector_num_in_ports_gen", "0"}, "-gpgpu_operand_collector_num_in_ports_gen",
       SIMTVP_ERR_CONFIG},
      {{"-gpgpu_pipeline_widths", "4,4,4,4,4,4,4,4,4,4,0,4,4"}, "-gpgpu_pipeline_widths", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_pipeline_widths", "0,4,4,4,4,4,4,4,4,4,8,4,4"}, "-gpgpu_pipeline_widths", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_num_reg_banks", "2"}, "-gpgpu_num_reg_banks", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_num_sched_per_core", "17"}, "-gpgpu_num_sched_per_core", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_inst_fetch_throughput", "0"}, "-gpgpu_inst_fetch_throughput", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_n_cluster_ejection_buffer_size", "0"}, "-gpgpu_n_cluster_ejection_buffer_size", SIMTVP_ERR_CONFIG},
      {{"-gpgpu_cache:il1", "N:64:128"}, "-gpgpu_cache:il1", SIMTVP_ERR_PARSE},
  };
}

// Every case of core_config_cases fails to create cores of `model` with its status and option.
inline void expect_config_errors_name_the_option(const char *model) {
  for (auto &c : core_config_cases()) {
    simtvp_diag d{};
    EXPECT_EQ(create_with(model, c.args, &d), c.status) << c.args[0] << " " << c.args[1];
    EXPECT_STREQ(d.option, c.option) << d.message;
  }
}

// ---- a core driven through its API, without the harness ---------------------------------------

// One QV100-class core (sm 5) of `model` (make), the fake LDST, a perfect L1I; kernel k (dispatcher
// slot 3): 4 CTAs of 64 threads, a chain of 10 sqrt.approx.f32 (SFU, latency 100 in the QV100
// configuration) then 10 integer adds. CTA completions are collected in `done`.
struct CoreStandalone : ::testing::Test {
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
  void make(uint8_t model, uint32_t max_ctas) {
    simt_core_config cc;
    ASSERT_EQ(simt_core_config_from_gpu(&cfg, 5, &cc, &d), SIMTVP_OK);
    cc.model = model;
    cc.max_ctas = max_ctas;
    cc.perfect_l1i = true;
    cc.ldst_iface = fake_ldst_iface();
    cc.ldst.l1d_latency = 10;
    simt_core_ports ports{};
    ports.ctx = this;
    ports.send = [](void *, mem_req *, uint64_t) { return false; };
    ports.cta_done = [](void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r, uint64_t) {
      EXPECT_EQ(sm, 5u);
      static_cast<CoreStandalone *>(ctx)->done.push_back({slot, *r});
    };
    ASSERT_EQ(simt_core_create(&cc, ports, &core, &d), SIMTVP_OK) << d.message;
    ASSERT_STREQ(simt_core_model_name(core), gpu_fidelity_name((gpu_fidelity)model));
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
  // Two CTA slots: a third CTA is refused while two are resident; a slot frees on completion.
  // first_event: the core's first cycle with work after a launch at 0 (CA: the fetch at 0; AT: the
  // first issue, fetch at 0 + decode = 2); first_done: the cycle the first CTA reports.
  void expect_cta_slots_limit_resident_ctas(uint8_t model, uint64_t first_event = 0, uint64_t first_done = 3) {
    make(model, 2);
    const uint32_t c0[3] = {0, 0, 0}, c1[3] = {1, 0, 0}, c2[3] = {2, 0, 0};
    EXPECT_TRUE(simt_core_idle(core));
    EXPECT_EQ(simt_core_next_event(core), SIMT_NEVER);
    ASSERT_EQ(simt_core_launch_cta(core, &k, c0, 0, &d), SIMTVP_OK);
    ASSERT_EQ(simt_core_launch_cta(core, &k, c1, 0, &d), SIMTVP_OK);
    EXPECT_EQ(simt_core_launch_cta(core, &k, c2, 0, &d), SIMTVP_ERR_STATE);
    EXPECT_NE(std::string(d.message).find("no free CTA slot"), std::string::npos) << d.message;
    EXPECT_EQ(simt_core_resident_ctas(core), 2u);
    EXPECT_FALSE(simt_core_idle(core));
    EXPECT_EQ(simt_core_next_event(core), first_event);
    uint64_t end = run_to_end(0);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[0].first, first_done);
    EXPECT_EQ(done[0].second.status, SIMTVP_OK);
    EXPECT_TRUE(simt_core_idle(core));
    EXPECT_EQ(simt_core_resident_ctas(core), 0u);
    ASSERT_EQ(simt_core_launch_cta(core, &k, c2, end + 5, &d), SIMTVP_OK);
    run_to_end(end + 5);
    EXPECT_EQ(done.size(), 3u);
  }
  // The dump after 30 cycles of one CTA: the core line, the CTA and every resident warp (and, for
  // a variant with an LDST unit, the unit: the tests' fake one).
  std::string dump_after_30_cycles(uint8_t model, bool has_ldst = true) {
    make(model, 1);
    const uint32_t c0[3] = {0, 0, 0};
    EXPECT_EQ(simt_core_launch_cta(core, &k, c0, 0, &d), SIMTVP_OK);
    simt_core_advance(core, 30);
    std::string text;
    simt_core_dump(core, [](void *ctx, const char *line) { *static_cast<std::string *>(ctx) += std::string(line) + "\n"; },
                   &text);
    EXPECT_NE(text.find("CTA (0,0,0) of k"), std::string::npos) << text;
    EXPECT_NE(text.find("warp 0 (slot 0, sched 0)"), std::string::npos) << text;
    EXPECT_NE(text.find("warp 1 (slot 1, sched 1)"), std::string::npos) << text;
    EXPECT_NE(text.find("`sqrt.approx.f32"), std::string::npos) << text;
    if (has_ldst) {
      EXPECT_NE(text.find("fake LDST"), std::string::npos) << text;
    }
    return text;
  }
};

}  // namespace simttest

#endif
