// at_workload_run — one tests/kernels workload (at_workloads.h) on four QV100-class SMs with the
// LDST unit and a 100-cycle memory, with the given option overrides: what the CA-vs-AT comparison
// and the sampled-AT tests run.
#ifndef SIMTVP_AT_WORKLOAD_RUN_H
#define SIMTVP_AT_WORKLOAD_RUN_H

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

}  // namespace simttest

#endif
