// Straight runs on interval cores (-interval_runs 1; docs/simt-interval.md §11): the assignment and
// the fidelity map that name it, a loop whose iterations after the first are timed as runs at the
// detailed cycles, and workloads whose runs keep every instruction, are deterministic and stay
// within a bound of the per-instruction interval run. Results of every whole-kernel test through
// interval cores with runs: iv_runs_kernels_test.cpp.
#include <cstring>

#include "at_workload_run.h"
#include "simt_timing_util.h"

using namespace simttest;

namespace {

TEST(SimtIntervalRuns, IntervalRunsAssignmentAndFidelityMapNameTheRuns) {
  EXPECT_EQ(spec_words("interval-runs"), "-simt_model interval -icnt_model at -mempart_model at -dram_model at -interval_runs 1");
  std::string text = interval_fidelity_map(true, false);
  EXPECT_NE(text.find(" interval_runs=1"), std::string::npos) << text;
}

// A loop of n iterations, each a dependent chain of 8 adds, the counter's add, its compare and
// the branch back: one basic block that every iteration repeats.
std::string loop(int n) {
  return "  mov.u32 %r1, 1;\n  mov.u32 %r2, 0;\nLOOP:\n" + repeat("  add.s32 %r1, %r1, 1;\n", 8) +
         "  add.s32 %r2, %r2, 1;\n  setp.lt.u32 %p1, %r2, " + std::to_string(n) + ";\n  @%p1 bra LOOP;\n";
}

TEST(SimtIntervalRuns, LoopIterationsAfterTheFirstAreRunsAtTheDetailedCycles) {
  // One warp: the first iteration issues every pc in detail, the second builds the run (the 10
  // instructions before the branch) and every later one is timed from it. Its schedule is the
  // detailed rule for one warp alone — the chain at L + 4 per add, %r1 a live-in ready at the
  // last iteration's writeback, the I-buffer refill after the branch — so the cycles are the
  // per-instruction run's and the results the same.
  Gpu *a, *b;
  uint64_t detailed = run(timing_options("interval"), loop(100), 32, 1, &a, true);
  uint64_t runs = run(timing_options("interval", {"-interval_runs", "1"}), loop(100), 32, 1, &b, true);
  EXPECT_EQ(runs, detailed);
  EXPECT_EQ(b->stat("gpu_sim_insn"), a->stat("gpu_sim_insn"));
  EXPECT_GE(b->stat("iv_run_warp_insn"), 97u * 10u); /* iterations 3..100 at least */
  delete a;
  delete b;
}

TEST(SimtIntervalRuns, RegistersOnlyTheRunTouchesAreLeftOutAtTheDetailedCycles) {
  // The body's temporaries %r3, %r4 and %r6 are written and read only inside it (a take neither
  // checks nor writes their ready times), %r9 only inside but never read (a division, not ready by
  // the run's end: kept, or the next iteration's division would not wait for it), %r7 and %r5 are read after the loop (kept). The cycles are the
  // per-instruction run's.
  std::string body = std::string(kOutSlot) +
                     "  mov.u32 %r1, 1;\n  mov.u32 %r2, 0;\n  mov.u32 %r5, 0;\n  mov.u32 %r7, 0;\nLOOP:\n"
                     "  mul.lo.u32 %r3, %r1, 3;\n  add.s32 %r4, %r3, %r1;\n  mul.lo.u32 %r6, %r4, %r4;\n"
                     "  add.s32 %r1, %r4, 1;\n  add.s32 %r7, %r6, %r3;\n  and.b32 %r5, %r1, 7;\n"
                     "  add.s32 %r2, %r2, 1;\n  div.u32 %r9, %r7, 3;\n  setp.lt.u32 %p1, %r2, 100;\n"
                     "  @%p1 bra LOOP;\n  add.s32 %r8, %r5, %r7;\n  cvt.u64.u32 %rd2, %r8;\n  st.global.u64 [%rd1], %rd2;\n";
  Gpu *a, *b;
  uint64_t detailed = run(timing_options("interval"), body, 32, 1, &a, true);
  uint64_t runs = run(timing_options("interval", {"-interval_runs", "1"}), body, 32, 1, &b, true);
  EXPECT_EQ(runs, detailed);
  EXPECT_GE(b->stat("iv_run_warp_insn"), 97u * 9u);
  EXPECT_EQ(b->stat("gpu_sim_insn"), a->stat("gpu_sim_insn"));
  delete a;
  delete b;
}

TEST(SimtIntervalRuns, IgnoredUnderSampling) {
  // -at_sample fast-forwards on measured costs instead: the sampled run's cycles, no run counter
  Gpu *a, *b;
  uint64_t s = run(timing_options("interval", {"-at_sample", "1024,2048"}), loop(100), 32, 1, &a, true);
  uint64_t r = run(timing_options("interval", {"-interval_runs", "1", "-at_sample", "1024,2048"}), loop(100), 32,
                   1, &b, true);
  EXPECT_EQ(r, s);
  bool found = false;
  const stats *st = sh_stats(b->h);
  for (uint32_t i = 0; i < stats_counter_count(st); i++) found |= !strcmp(stats_counter_name(st, i), "iv_run_warp_insn");
  EXPECT_FALSE(found);
  delete a;
  delete b;
}

struct Case {
  const char *program;
  uint32_t scale;
  double bound; /* |cycle error| against the per-instruction interval run */
};
void PrintTo(const Case &c, std::ostream *os) { *os << c.program << " x" << c.scale; }

class SimtIntervalRunsWorkloads : public ::testing::TestWithParam<Case> {};

TEST_P(SimtIntervalRunsWorkloads, RunsKeepInstructionsAndAreDeterministic) {
  // Four SMs behind a fixed 100-cycle memory: the same warp instructions as per-instruction
  // timing, the same cycles twice, and the cycles within the case's bound of the
  // per-instruction interval run (printed).
  Case c = GetParam();
  expect_workload_near(c.program, c.scale, {"-simt_model", "interval"},
                       {"-simt_model", "interval", "-interval_runs", "1"}, c.bound, "interval", "with runs");
}

const Case kCases[] = {{"sgemm", 4, 0.05}, {"vector_add", 16, 0.05}, {"transpose", 8, 0.05}, {"reduction", 8, 0.05}};

INSTANTIATE_TEST_SUITE_P(Kernels, SimtIntervalRunsWorkloads, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.program); });

}  // namespace
