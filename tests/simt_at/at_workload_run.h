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

// A sampled core (`-simt_model model -at_sample sample`) against its unsampled self on one
// workload: the same warp instructions, the same cycles and instructions on a second sampled run,
// and the cycles within `bound` (a fraction) of the unsampled run's (printed with the error).
inline void expect_sampled_workload(const char *model, const char *program, uint32_t scale, const char *sample,
                                    double bound) {
  at_run full = run_at_workload(program, scale, {"-simt_model", model});
  at_run s1 = run_at_workload(program, scale, {"-simt_model", model, "-at_sample", sample});
  at_run s2 = run_at_workload(program, scale, {"-simt_model", model, "-at_sample", sample});
  ASSERT_EQ(full.status, SIMTVP_OK) << full.message;
  ASSERT_EQ(s1.status, SIMTVP_OK) << s1.message;
  ASSERT_EQ(s2.status, SIMTVP_OK) << s2.message;
  EXPECT_EQ(s1.warp_insns, full.warp_insns);
  EXPECT_EQ(s1.cycles, s2.cycles);
  EXPECT_EQ(s1.warp_insns, s2.warp_insns);
  double err = ((double)s1.cycles - (double)full.cycles) / (double)full.cycles;
  std::printf("  %-12s x%u: %s %8llu cycles, sampled %8llu cycles, %+5.1f%%\n", program, scale, model,
              (unsigned long long)full.cycles, (unsigned long long)s1.cycles, 100.0 * err);
  EXPECT_LE(std::fabs(err), bound);
}

}  // namespace simttest

#endif
