// CA-vs-AT cycle comparison: workloads of the tests/kernels programs (at_workloads.h, the kernel
// tests' sizes) on four QV100-class SMs with the LDST unit and a 100-cycle memory, once with
// cycle-accurate and once with approximately-timed cores. The AT core's total cycles must stay
// within 15% of the CA core's (docs/simt-at.md §5 has the measured table: within 10% on every
// program whose instruction stream does not depend on timing). A test that fails when the AT model
// drifts badly from the CA model it approximates.
#include <cmath>
#include <cstdio>

#include "simt_test_util.h"

extern "C" {
#include "at_workloads.h"
}

namespace {

at_run run(const char *program, const char *model, uint32_t scale) {
  const char *args[] = {"-gpgpu_n_clusters", "4", "-simt_model", model};
  std::string config = simttest::source("configs/SM7_QV100.config");
  sh_options o{};
  o.config_file = config.c_str();
  o.args = args;
  o.n_args = 4;
  o.mem_latency = 100;
  o.ldst = SH_LDST_REAL;
  o.quiet = true;
  o.max_cycles = 5000000;
  at_run r;
  const at_workload *w = at_workload_find(program);
  EXPECT_NE(w, nullptr) << program;
  if (w) at_workload_run(w, &o, SIMTVP_SOURCE_DIR, scale, &r);
  return r;
}

struct Case {
  const char *program;
  uint32_t scale;
};
// gtest prints a parameter it has no printer for byte by byte, padding included (valgrind then
// reports uninitialised bytes): name it instead.
void PrintTo(const Case &c, std::ostream *os) { *os << c.program << " x" << c.scale; }

class SimtAtCompare : public ::testing::TestWithParam<Case> {};

TEST_P(SimtAtCompare, CyclesWithinFifteenPercentOfTheCaCore) {
  Case c = GetParam();
  at_run ca = run(c.program, "ca", c.scale), at = run(c.program, "at", c.scale);
  ASSERT_EQ(ca.status, SIMTVP_OK) << ca.message;
  ASSERT_EQ(at.status, SIMTVP_OK) << at.message;
  EXPECT_EQ(at.warp_insns, ca.warp_insns) << "the same instructions ran";
  double err = ((double)at.cycles - (double)ca.cycles) / (double)ca.cycles;
  std::printf("  %-14s x%u: CA %8llu cycles, AT %8llu cycles, %+5.1f%%\n", c.program, c.scale,
              (unsigned long long)ca.cycles, (unsigned long long)at.cycles, 100.0 * err);
  EXPECT_LE(std::fabs(err), 0.15) << c.program << ": CA " << ca.cycles << " cycles, AT " << at.cycles;
}

INSTANTIATE_TEST_SUITE_P(Kernels, SimtAtCompare,
                         ::testing::Values(Case{"sgemm", 2}, Case{"reduction", 2}, Case{"scan", 2},
                                           Case{"transpose", 2}, Case{"vector_add", 4}, Case{"histogram", 1},
                                           Case{"bitonic_sort", 1}, Case{"dynamic_smem", 2}, Case{"daxpy", 2}),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.program); });

}  // namespace
