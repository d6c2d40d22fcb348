/* at_workloads — one workload per PTX program of tests/kernels/ptx (the kernels and problem
 * shapes of the whole-kernel tests, sizes times a scale factor), run on the SIMT harness
 * (tests/simt/simt_harness.h) with any core model: the CA-vs-AT comparison of
 * tests/simt_at/simt_at_compare_test.cpp and bench/simt/bench_simt.c. A workload's cycles are
 * the sum over its launches; its seconds are host CPU time spent in the launches only. Results are
 * not checked here (the kernel tests do that); a launch that fails fails the workload. */
#ifndef SIMTVP_TESTS_AT_WORKLOADS_H
#define SIMTVP_TESTS_AT_WORKLOADS_H

#include <stdint.h>

#include "simt_harness.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct at_run {
  simtvp_status status;
  uint64_t cycles;      /* core cycles, summed over the workload's launches */
  uint64_t warp_insns;  /* gpgpu_n_tot_w_icount */
  uint64_t launches;
  double seconds;       /* host CPU time inside the launches */
  char message[1024];   /* the first failure */
} at_run;

typedef struct at_workload {
  const char *name;     /* the program: tests/kernels/ptx/<name>.ptx */
  const char *kernels;  /* what it launches, for tables */
  uint32_t stack_bytes; /* per-thread call stack it needs (0: the default) */
  void (*run)(simt_harness *h, uint32_t scale, at_run *r);
} at_workload;

extern const at_workload at_workloads[];
extern const uint32_t at_n_workloads;
const at_workload *at_workload_find(const char *name);

/* Builds a harness from `o` (config_file, args, mem_latency, ldst …; stack_bytes is the
 * workload's when o leaves it 0), loads <source_dir>/tests/kernels/ptx/<name>.ptx, runs the
 * workload at `scale` (1 = the kernel tests' sizes) and destroys the harness. */
void at_workload_run(const at_workload *w, const sh_options *o, const char *source_dir, uint32_t scale,
                     at_run *r);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_TESTS_AT_WORKLOADS_H */
