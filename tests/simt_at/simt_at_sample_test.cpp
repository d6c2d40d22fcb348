// Sampled timing on AT cores (-at_sample DETAIL,PERIOD; docs/simt-at.md §6a): the option and its
// errors, the fast-forward's clock by hand on a dependent chain, a kernel shorter than the detail
// phase timed exactly as without sampling, longer workloads that fast-forward (the same
// instructions, determinism, cycles within a bound of the unsampled run). Results through sampled
// cores: sampled_kernels_test.cpp.
#include <cmath>
#include <cstdio>
#include <map>

#include "at_workload_run.h"
#include "simt_timing_util.h"

using namespace simttest;

namespace {

// sh_create's status and message for the QV100-class configuration with `args`.
simtvp_status create(std::vector<const char *> args, std::string *message) {
  std::string config = source("configs/SM7_QV100.config");
  sh_options o{};
  o.config_file = config.c_str();
  o.args = args.data();
  o.n_args = (int)args.size();
  o.mem_latency = 100;
  o.quiet = true;
  simt_harness *h = nullptr;
  simtvp_diag d{};
  simtvp_status st = sh_create(&o, &h, &d);
  if (h) sh_destroy(h);
  *message = d.message;
  return st;
}

TEST(SimtAtSample, OptionTakesDetailAndPeriodAndNamesItselfInErrors) {
  std::string m;
  EXPECT_EQ(create({"-simt_model", "at", "-at_sample", "0,0"}, &m), SIMTVP_OK) << m;
  EXPECT_EQ(create({"-simt_model", "at", "-at_sample", "2000,20000"}, &m), SIMTVP_OK) << m;
  struct Bad {
    const char *value, *why;
  } bad[] = {{"2000", "two core-cycle counts"},
             {"2000,20000,5", "two core-cycle counts"},
             {"a,b", "two core-cycle counts"},
             {"100,1000", "too short"},
             {"4000,4000", "longer than the detail phase"}};
  for (const Bad &b : bad) {
    EXPECT_NE(create({"-simt_model", "at", "-at_sample", b.value}, &m), SIMTVP_OK) << b.value;
    EXPECT_NE(m.find("-at_sample"), std::string::npos) << m;
    EXPECT_NE(m.find(b.why), std::string::npos) << m;
  }
}

TEST(SimtAtSample, SamplingWithoutAnAtCoreIsRefused) {
  // CA and functional cores have nothing to sample: the option would silently do nothing.
  std::string m;
  EXPECT_EQ(create({"-simt_model", "ca", "-at_sample", "2000,20000"}, &m), SIMTVP_ERR_CONFIG);
  EXPECT_NE(m.find("-at_sample"), std::string::npos) << m;
  EXPECT_NE(m.find("no core is one"), std::string::npos) << m;
  EXPECT_EQ(create({"-simt_model", "ca", "-simt_model_override", "1:at", "-at_sample", "2000,20000"}, &m), SIMTVP_OK)
      << m;
}

TEST(SimtAtSample, IntegratedSystemModesAreRefused) {
  // Fast-forwarded accesses would bypass the system-level cache, coherence directory and IOMMU.
  std::string m;
  for (const char *mode : {"unified", "shared_llc", "shared_va"}) {
    EXPECT_EQ(create({"-simt_model", "at", "-system_mode", mode, "-at_sample", "2000,20000"}, &m), SIMTVP_ERR_CONFIG)
        << mode;
    EXPECT_NE(m.find("-at_sample"), std::string::npos) << m;
    EXPECT_NE(m.find("-system_mode discrete"), std::string::npos) << m;
  }
}

// The sampled options of the timing tests (tests/simt/simt_timing_util.h).
std::vector<const char *> sampled(const char *pair) { return timing_options("at", {"-at_sample", pair}); }

TEST(SimtAtSample, DependentChainFastForwardsOnTheSameClock) {
  // -at_sample 1024,2048: detail [0, 1024), fast-forward [1024, 2048), detail [2048, 3072)...
  // The window of period 0 is [512, 896): one add every 10 cycles (L + 4, the chain of
  // SimtAt.DependentAluChainCostsNTimesLatency), 38 instructions ≥ 32, the kernel resident since
  // cycle 0: period 0 fast-forwards from 1024. A fast-forwarded add issues by the same rules
  // (issue slot, unit, register ready times), only the front end (a free fetch, decode 2) and the
  // memory stage are left out, and a dependent chain never waits for its front end: the cycles are
  // 10 n + 12, as in detail, and every add issued in [1024, 2048) or [3072, 4012] is counted as
  // fast-forwarded: (2048 − 1024) / 10 ≈ 102 + (4012 − 3072) / 10 ≈ 94.
  Gpu *g;
  uint64_t cycles = run(sampled("1024,2048"), chain(400), 32, 1, &g);
  EXPECT_EQ(cycles, 10u * 400u + 12u);
  EXPECT_GE(g->stat("at_sample_ff_warp_insn"), 190u);
  EXPECT_LE(g->stat("at_sample_ff_warp_insn"), 200u);
  EXPECT_EQ(g->stat("at_sample_ff_phases"), 2u);
  EXPECT_EQ(g->stat("gpgpu_n_tot_w_icount"), 402u); /* mov, 400 adds, exit: exact */
  delete g;
}

TEST(SimtAtSample, FastForwardedInstructionsComputeExactResults) {
  // Each thread adds 3 three hundred times and stores the sum: ~3 000 cycles, periods of 2 048
  // cycles, so the adds of [1024, 2048) fast-forward — and every thread's result is exact.
  std::string body = std::string(kOutSlot) + "  mov.u32 %r1, 0;\n" + repeat("  add.s32 %r1, %r1, 3;\n", 300) +
                     "  cvt.u64.u32 %rd2, %r1;\n  st.global.u64 [%rd1], %rd2;\n";
  Gpu g("configs/SM7_QV100.config", sampled("1024,2048"), SH_LDST_FAKE);
  ASSERT_EQ(g.load(kernel(body)), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(8 * 128);
  ASSERT_EQ(g.launch("k", 2, 64, {out}), SIMTVP_OK) << g.diag.message;
  EXPECT_GT(g.stat("at_sample_ff_warp_insn"), 100u);
  auto v = g.download<uint64_t>(out, 128);
  for (size_t i = 0; i < v.size(); i++) EXPECT_EQ(v[i], 900u) << "thread " << i;
}

// Every counter of a stats sink, by name.
std::map<std::string, uint64_t> counters(Gpu *g) {
  std::map<std::string, uint64_t> m;
  const stats *s = sh_stats(g->h);
  for (uint32_t i = 0; i < stats_counter_count(s); i++) m[stats_counter_name(s, i)] = *stats_counter_value(s, i);
  return m;
}

TEST(SimtAtSample, KernelShorterThanTheDetailPhaseHasTheUnsampledStatistics) {
  // chain(60) ends at cycle 612, inside the first detail phase [0, 1024): nothing fast-forwards,
  // and every statistic is the unsampled run's (the sampling counters aside).
  Gpu *a, *b;
  uint64_t ca = run(timing_options("at"), chain(60), 64, 2, &a);
  uint64_t cb = run(sampled("1024,2048"), chain(60), 64, 2, &b);
  EXPECT_EQ(ca, cb);
  auto x = counters(a), y = counters(b);
  EXPECT_EQ(y["at_sample_ff_warp_insn"], 0u);
  EXPECT_EQ(y["at_sample_ff_phases"], 0u);
  y.erase("at_sample_ff_warp_insn");
  y.erase("at_sample_ff_phases");
  EXPECT_EQ(x, y);
  delete a;
  delete b;
}

struct Case {
  const char *program;
  uint32_t scale;
};
void PrintTo(const Case &c, std::ostream *os) { *os << c.program << " x" << c.scale; }

class SimtAtSampleWorkloads : public ::testing::TestWithParam<Case> {};

TEST_P(SimtAtSampleWorkloads, FastForwardKeepsInstructionsAndIsDeterministic) {
  // Four SMs behind a fixed 100-cycle memory, -at_sample 1024,4096: three quarters of each long
  // launch fast-forward. The same warp instructions as unsampled, the same cycles twice, and the
  // cycles within 15 % of the unsampled AT run (measured: sgemm x4 −0.4 %, vector_add x16 +0.4 %,
  // transpose x8 −7.8 %: its three launches of ~8 000 cycles each fast-forward on one or two
  // windows' measurements).
  Case c = GetParam();
  simttest::expect_sampled_workload("at", c.program, c.scale, "1024,4096", 0.15);
}

const Case kCases[] = {{"sgemm", 4}, {"vector_add", 16}, {"transpose", 8}};

INSTANTIATE_TEST_SUITE_P(Kernels, SimtAtSampleWorkloads, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.program); });

}  // namespace
