// at_workload_run — one tests/kernels workload (at_workloads.h) on four QV100-class SMs with the
// LDST unit and a 100-cycle memory, with the given option overrides: what the CA-vs-AT comparison
// and the sampled-AT tests run.
#ifndef SIMTVP_AT_WORKLOAD_RUN_H
#define SIMTVP_AT_WORKLOAD_RUN_H

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "simt_test_util.h"

extern "C" {
#include "at_workloads.h"
}

namespace simttest {

inline at_run run_at_workload(const char *program, uint32_t scale, const std::vector<const char *> &overrides) {
  std::vector<const char *> args = {"-gpgpu_n_clusters", "4"};
  args.insert(args.end(), overrides.begin(), overrides.end());
  std::string config = source("configs/SM7_QV100.config");
  sh_options o{};
  o.config_file = config.c_str();
  o.args = args.data();
  o.n_args = static_cast<int>(args.size());
  o.mem_latency = 100;
  o.ldst = SH_LDST_REAL;
  o.quiet = true;
  o.max_cycles = 5000000;
  at_run r{};
  const at_workload *w = at_workload_find(program);
  EXPECT_NE(w, nullptr) << program;
  if (w) at_workload_run(w, &o, SIMTVP_SOURCE_DIR, scale, &r);
  return r;
}

// One workload under `opts` against `ref` (another timing of the same cores): the same warp
// instructions, the same cycles and instructions on a second run under `opts`, and the cycles
// within `bound` (a fraction) of the reference's (printed with the error, each run by its label).
inline void expect_workload_near(const char *program, uint32_t scale, const std::vector<const char *> &ref,
                                 const std::vector<const char *> &opts, double bound, const char *ref_label,
                                 const char *label) {
  at_run base = run_at_workload(program, scale, ref);
  at_run r1 = run_at_workload(program, scale, opts), r2 = run_at_workload(program, scale, opts);
  ASSERT_EQ(base.status, SIMTVP_OK) << base.message;
  ASSERT_EQ(r1.status, SIMTVP_OK) << r1.message;
  ASSERT_EQ(r2.status, SIMTVP_OK) << r2.message;
  EXPECT_EQ(r1.warp_insns, base.warp_insns);
  EXPECT_EQ(r1.cycles, r2.cycles);
  EXPECT_EQ(r1.warp_insns, r2.warp_insns);
  double err = ((double)r1.cycles - (double)base.cycles) / (double)base.cycles;
  std::printf("  %-12s x%u: %s %8llu cycles, %s %8llu cycles, %+5.1f%%\n", program, scale, ref_label,
              (unsigned long long)base.cycles, label, (unsigned long long)r1.cycles, 100.0 * err);
  EXPECT_LE(std::fabs(err), bound);
}

// A sampled core (`-simt_model model -at_sample sample`) against its unsampled self on one
// workload (expect_workload_near).
inline void expect_sampled_workload(const char *model, const char *program, uint32_t scale, const char *sample,
                                    double bound) {
  expect_workload_near(program, scale, {"-simt_model", model}, {"-simt_model", model, "-at_sample", sample}, bound,
                       model, "sampled");
}

}  // namespace simttest

#endif
