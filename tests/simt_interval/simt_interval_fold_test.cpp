// Folded warps on interval cores (-interval_fold 1; docs/simt-interval.md §13): the assignment and
// the fidelity map that name it, a group issuing at its pace, a warp whose path differs leaving
// its group with the results unchanged, a follower's fault named at its own thread, barriers that
// keep a group, and workloads that keep every instruction, are deterministic and stay within a
// bound of straight runs without groups. Results of every whole-kernel test through folded
// interval cores: iv_fold_kernels_test.cpp.
#include <cstring>

#include "at_workload_run.h"
#include "simt_core_util.h"
#include "simt_timing_util.h"

using namespace simttest;

namespace {

std::vector<const char *> fold_options(std::initializer_list<const char *> more = {}) {
  auto o = timing_options("interval", {"-interval_runs", "1", "-interval_fold", "1"});
  o.insert(o.end(), more);
  return o;
}

TEST(SimtIntervalFold, IntervalFoldAssignmentAndFidelityMapNameTheFold) {
  EXPECT_EQ(spec_words("interval-fold"), "-simt_model interval -icnt_model at -mempart_model at -dram_model at "
                                         "-interval_runs 1 -interval_fold 1");
  std::string both = interval_fidelity_map(true, true), fold = interval_fidelity_map(false, true);
  EXPECT_NE(both.find(" interval_runs=1 interval_fold=1"), std::string::npos) << both;
  /* folded warps without runs are a fidelity of their own too */
  EXPECT_NE(fold.find(" interval_fold=1"), std::string::npos) << fold;
  EXPECT_EQ(fold.find("interval_runs"), std::string::npos) << fold;
}

TEST(SimtIntervalFold, AGroupOnOneSchedulerKeepsTheChainsPace) {
  // Four warps with the same chain of dependent adds on one scheduler, one group: it issues the
  // four adds of a step in 4 cycles (its pace) and each warp's next add waits the 10-cycle latency,
  // so 8 more adds cost 80 cycles as they do for a warp alone. At the end each warp leaves the
  // group at exit one cycle after the one before it on the scheduler: warp 3's exit comes 3 cycles
  // after warp 0's, and its last add's result 3 after the leader's — 6 cycles after a lone warp,
  // which is what the CA core gives (simt_timing_util.h, expect_independent_warps_hide_the_latency;
  // interval cores without groups time the four warps as one). The followers' instructions are
  // timed by the leader.
  auto o = fold_options({"-gpgpu_reg_bank_use_warp_id", "1"});
  uint64_t c8 = run(o, chain(8), 128);
  uint64_t alone = run(timing_options("interval", {"-gpgpu_reg_bank_use_warp_id", "1"}), chain(8), 128);
  uint64_t ca = run(timing_options("ca", {"-gpgpu_reg_bank_use_warp_id", "1"}), chain(8), 128);
  EXPECT_EQ(c8, alone + 6u) << "the group's stagger";
  EXPECT_EQ(c8, ca);
  /* (one simulated GPU at a time; no issue trace: a traced warp is timed alone) */
  Gpu g("configs/SM7_QV100.config", o, SH_LDST_FAKE);
  ASSERT_EQ(g.load(kernel(chain(16))), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.launch("k", 1, 128, {g.alloc(8 * 128)}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.cycles() - c8, 8u * 10u);
  EXPECT_GE(g.stat("iv_fold_warp_insn"), 3u * 17u); /* 3 followers: the mov and 16 adds each */
}

// Warp 1 (threads 32-63) loops 100 times; the others skip the loop. Each thread stores its count
// plus its index.
std::string diverging_warp() {
  return std::string(kOutSlot) +
         "  mov.u32 %r1, %tid.x;\n  shr.u32 %r2, %r1, 5;\n  mov.u32 %r3, 0;\n  setp.ne.u32 %p1, %r2, 1;\n"
         "  @%p1 bra DONE;\nLOOP:\n  add.u32 %r3, %r3, 3;\n  setp.lt.u32 %p2, %r3, 300;\n  @%p2 bra LOOP;\n"
         "DONE:\n  add.u32 %r4, %r3, %r1;\n  cvt.u64.u32 %rd2, %r4;\n  st.global.u64 [%rd1], %rd2;\n";
}

TEST(SimtIntervalFold, AWarpWhosePathDiffersLeavesItsGroup) {
  // The branch sends warp 1 into the loop: it leaves the group there and runs alone; the others
  // go on as a group. Every thread's result and every instruction count are the functional
  // engine's; the loop's 300 instructions are warp 1's own, not the group's.
  for (const char *model : {"interval", "fold"}) {
    auto o = !strcmp(model, "fold") ? fold_options() : timing_options("interval", {"-interval_runs", "1"});
    Gpu g("configs/SM7_QV100.config", o, SH_LDST_FAKE);
    ASSERT_EQ(g.load(kernel(diverging_warp(), true)), SIMTVP_OK) << g.diag.message;
    uint64_t out = g.alloc(8 * 128);
    ASSERT_EQ(g.launch("k", 1, 128, {out}), SIMTVP_OK) << g.diag.message;
    std::vector<uint64_t> v = g.download<uint64_t>(out, 128);
    for (uint32_t i = 0; i < 128; i++) EXPECT_EQ(v[i], (i / 32 == 1 ? 300u : 0u) + i) << model << " thread " << i;
    if (!strcmp(model, "fold")) {
      uint64_t fol = g.stat("iv_fold_warp_insn"), all = g.stat("gpgpu_n_tot_w_icount");
      EXPECT_GT(fol, 0u);
      EXPECT_LT(fol, all - 300u) << "the loop is warp 1's own";
    }
  }
}

TEST(SimtIntervalFold, AFollowersFaultNamesItsOwnThread) {
  // fault_kernel's thread 37 loads from 0x10: in one CTA of 64 threads it is warp 1's, a follower
  // of warp 0's group. The launch fails naming that thread, its pc and the address, as without
  // groups.
  Gpu g("configs/SM7_QV100.config", fold_options({"-gpgpu_n_clusters", "2"}), SH_LDST_FAKE);
  ASSERT_EQ(g.load(fault_kernel(), "fault.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, 64, {g.alloc(8 * 64)}), SIMTVP_ERR_FAULT);
  EXPECT_EQ(g.diag.address, 0x10u);
  EXPECT_EQ(place(sh_fault_report(g.h)),
            "kernel fault: kernel k CTA (0,0,0) thread (37,0,0) pc 10 fault.ptx:20 address 0x10");
}

// Eight rounds of: each thread stores its round + index in shared memory, a barrier, reads its
// neighbour's (index + 1, wrapping in the CTA), a barrier, adds it up. Stores the sum.
std::string barrier_rounds() {
  return std::string(kOutSlot) +
         "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ntid.x;\n  shl.b32 %r3, %r1, 2;\n  add.u32 %r4, %r1, 1;\n"
         "  rem.u32 %r4, %r4, %r2;\n  shl.b32 %r4, %r4, 2;\n  mov.u32 %r5, 0;\n  mov.u32 %r6, 0;\n"
         "LOOP:\n  add.u32 %r7, %r5, %r1;\n  st.shared.u32 [%r3], %r7;\n  bar.sync 0;\n"
         "  ld.shared.u32 %r8, [%r4];\n  add.u32 %r6, %r6, %r8;\n  bar.sync 0;\n  add.u32 %r5, %r5, 1;\n"
         "  setp.lt.u32 %p1, %r5, 8;\n  @%p1 bra LOOP;\n  cvt.u64.u32 %rd2, %r6;\n  st.global.u64 [%rd1], %rd2;\n";
}

TEST(SimtIntervalFold, BarriersKeepTheGroup) {
  // Every warp of the CTA arrives at each barrier with its group and leaves it with the group:
  // the followers' instructions stay timed by the leader (all of them but the warps' exits) and
  // the results are right.
  Gpu g("configs/SM7_QV100.config", fold_options(), SH_LDST_FAKE);
  std::string k = kernel(barrier_rounds(), true);
  k.insert(k.find("  .reg .b32"), "  .shared .align 4 .b8 sm[1024];\n");
  ASSERT_EQ(g.load(k), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(8 * 256);
  ASSERT_EQ(g.launch("k", 1, 256, {out}, 1024), SIMTVP_OK) << g.diag.message;
  std::vector<uint64_t> v = g.download<uint64_t>(out, 256);
  for (uint32_t i = 0; i < 256; i++) EXPECT_EQ(v[i], 8u * ((i + 1) % 256) + 28u) << "thread " << i;
  uint64_t fol = g.stat("iv_fold_warp_insn"), all = g.stat("gpgpu_n_tot_w_icount");
  EXPECT_GE(fol, (all - 8u) * 7u / 8u) << "7 of the 8 warps follow warp 0 to their exits";
}

// Sixteen rounds of one load each: warp 1 loads from a new 4 KiB page every round (an L1 miss
// each time), the others from the page they loaded in the first round (hits). Each thread stores
// the sum of what it loaded (every word holds its own offset / 4).
std::string one_late_warp() {
  return std::string(kOutSlot) +
         "  ld.param.u64 %rd3, [out];\n  mov.u32 %r1, %tid.x;\n  shr.u32 %r2, %r1, 5;\n  and.b32 %r3, %r1, 31;\n"
         "  shl.b32 %r3, %r3, 2;\n  mov.u32 %r4, 0;\n  mov.u32 %r6, 0;\n  setp.eq.u32 %p1, %r2, 1;\n"
         "LOOP:\n  selp.u32 %r5, %r4, 0, %p1;\n  shl.b32 %r5, %r5, 12;\n  add.u32 %r5, %r5, %r3;\n"
         "  add.u32 %r5, %r5, 8192;\n  cvt.u64.u32 %rd4, %r5;\n  add.u64 %rd4, %rd3, %rd4;\n"
         "  ld.global.u32 %r7, [%rd4];\n  add.u32 %r6, %r6, %r7;\n  add.u32 %r4, %r4, 1;\n"
         "  setp.lt.u32 %p2, %r4, 16;\n  @%p2 bra LOOP;\n  cvt.u64.u32 %rd2, %r6;\n  st.global.u64 [%rd1], %rd2;\n";
}

TEST(SimtIntervalFold, AWarpWhoseDataComesTwiceAsLateLeavesItsGroup) {
  // Warp 1 misses in the L1 every round while the leader hits: its data comes more than twice as
  // late as the leader's, so it leaves the group and waits for its own (the group does not wait
  // for it). Its later instructions are its own; every result is right.
  Gpu g("configs/SM7_QV100.config", fold_options(), SH_LDST_FAKE);
  ASSERT_EQ(g.load(kernel(one_late_warp(), true)), SIMTVP_OK) << g.diag.message;
  const uint32_t words = (8192 + 16 * 4096) / 4;
  std::vector<uint32_t> init(words);
  for (uint32_t i = 0; i < words; i++) init[i] = (i * 4) & 4095;
  uint64_t base = g.upload(init);
  ASSERT_EQ(g.launch("k", 1, 128, {base}), SIMTVP_OK) << g.diag.message;
  std::vector<uint64_t> v = g.download<uint64_t>(base, 128);
  for (uint32_t i = 0; i < 128; i++) EXPECT_EQ(v[i], 64u * (i % 32)) << "thread " << i;
  uint64_t fol = g.stat("iv_fold_warp_insn"), all = g.stat("gpgpu_n_tot_w_icount");
  EXPECT_GT(fol, 0u);
  EXPECT_LT(fol, all * 3u / 4u - 16u * 5u) << "warp 1's rounds after the first are its own";
}

struct Case {
  const char *program;
  uint32_t scale;
  double bound; /* |cycle error| against straight runs without groups */
};
void PrintTo(const Case &c, std::ostream *os) { *os << c.program << " x" << c.scale; }

class SimtIntervalFoldWorkloads : public ::testing::TestWithParam<Case> {};

TEST_P(SimtIntervalFoldWorkloads, GroupsKeepInstructionsAndAreDeterministic) {
  // Four SMs behind a fixed 100-cycle memory: the same warp instructions as without groups, the
  // same cycles twice, and the cycles within the case's bound of straight runs without groups
  // (printed).
  Case c = GetParam();
  expect_workload_near(c.program, c.scale, {"-simt_model", "interval", "-interval_runs", "1"},
                       {"-simt_model", "interval", "-interval_runs", "1", "-interval_fold", "1"}, c.bound, "runs",
                       "folded");
}

const Case kCases[] = {{"sgemm", 4, 0.10}, {"vector_add", 16, 0.10}, {"transpose", 8, 0.10}, {"reduction", 8, 0.10}};

TEST(SimtIntervalFold, GroupsWithoutRunsKeepInstructionsAndAreDeterministic) {
  // -interval_fold without -interval_runs: every instruction of a group is timed one by one by its
  // leader. The same warp instructions as interval cores without groups, the same cycles twice,
  // and within 10 % of them.
  expect_workload_near("sgemm", 4, {"-simt_model", "interval"}, {"-simt_model", "interval", "-interval_fold", "1"},
                       0.10, "interval", "folded");
}

INSTANTIATE_TEST_SUITE_P(Kernels, SimtIntervalFoldWorkloads, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.program); });

}  // namespace
