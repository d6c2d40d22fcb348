/* bench_simt — speed of the timing SIMT cores (models/simt "ca" and "at"): simulated warp
 * instructions per second and simulated core cycles per second on one host core, for the
 * QV100-class core of configs/SM7_QV100.config (4 schedulers, sub-cores, GTO, 64 warps, the LDST
 * unit of models/simt/ldst) on tiled SGEMM and vector add (tests/kernels/ptx/sgemm.ptx,
 * vector_add.ptx), with a fixed-latency memory behind the clusters; then the CA-vs-AT comparison
 * on one workload per tests/kernels program (tests/simt_at/at_workloads.h): cycles of both
 * models, the AT error, and both speeds. Targets: CA >= 220 K warp-instructions/s (20x
 * GPGPU-Sim's ~11 K); AT >= 3x CA's warp-instructions/s, total cycles within 15% of CA.
 *
 *   bench_simt [sms=4] [sgemm_n=128] [vector_n=262144] [mem_latency=200] [repeats=3] [table_scale=4]
 *              [select=all]
 *
 * select runs part of the speed table: "<ca|at|all>[:<sgemm|vector|all>]" (e.g. "at:sgemm").
 * Under callgrind (valgrind --tool=callgrind --collect-atstart=no bench_simt ...) only the
 * simulation of each launch is collected (CALLGRIND_TOGGLE_COLLECT around sh_launch), so the
 * instruction counts compare model speed without set-up and result checks.
 *
 * Each measurement runs `repeats` times on a fresh GPU; the best run is reported. Times are the
 * process's CPU time (the host is shared; wall time would count other jobs). SGEMM and vector add
 * results are checked against the host so a fast wrong answer cannot pass. table_scale 0 skips
 * the comparison table. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "at_workloads.h"
#include "simt_harness.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define COLLECT_TOGGLE() CALLGRIND_TOGGLE_COLLECT
#endif
#endif
#ifndef COLLECT_TOGGLE
#define COLLECT_TOGGLE() ((void)0)
#endif

#define TARGET_WARP_INSN_PER_S 220e3
#define TARGET_AT_SPEEDUP 3.0
#define TARGET_AT_ERROR 0.15

static double host_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const simtvp_diag *d) {
  fprintf(stderr, "bench_simt: %s: %s\n", what, d->message);
  exit(1);
}

typedef struct result {
  double seconds;
  uint64_t warp_insns, thread_insns, cycles;
} result;

typedef struct workload {
  uint32_t sms, mem_latency;
  const char *model;
} workload;

static sh_options options(const workload *w, const char **args, char *clusters, size_t n) {
  snprintf(clusters, n, "%u", w->sms);
  args[0] = "-gpgpu_n_clusters", args[1] = clusters, args[2] = "-simt_model", args[3] = w->model;
  sh_options o;
  memset(&o, 0, sizeof o);
  o.config_file = SIMTVP_SOURCE_DIR "/configs/SM7_QV100.config";
  o.args = args;
  o.n_args = 4;
  o.mem_latency = w->mem_latency;
  o.ldst = SH_LDST_REAL;
  o.quiet = true;
  return o;
}

static simt_harness *make(const workload *w) {
  char clusters[16];
  const char *args[4];
  sh_options o = options(w, args, clusters, sizeof clusters);
  simt_harness *h;
  simtvp_diag d = {0};
  if (sh_create(&o, &h, &d) != SIMTVP_OK) die("create", &d);
  if (sh_load_ptx_file(h, SIMTVP_SOURCE_DIR "/tests/kernels/ptx/sgemm.ptx", &d) != SIMTVP_OK) die("load sgemm", &d);
  if (sh_load_ptx_file(h, SIMTVP_SOURCE_DIR "/tests/kernels/ptx/vector_add.ptx", &d) != SIMTVP_OK)
    die("load vector_add", &d);
  return h;
}

static uint64_t get(simt_harness *h, const char *name) {
  int found = 0;
  return stats_get(sh_stats(h), name, &found);
}

static result sgemm(const workload *w, int n) {
  simt_harness *h = make(w);
  simtvp_diag d = {0};
  size_t nn = (size_t)n * n;
  float *A = malloc(nn * sizeof *A), *B = malloc(nn * sizeof *B), *C = calloc(nn, sizeof *C);
  for (size_t i = 0; i < nn; i++) A[i] = (float)((i * 5) % 9) - 4.0f, B[i] = (float)((i * 7) % 9) - 4.0f;
  uint64_t dA = sh_alloc(h, nn * 4), dB = sh_alloc(h, nn * 4), dC = sh_alloc(h, nn * 4);
  sh_write(h, dA, A, nn * 4, &d);
  sh_write(h, dB, B, nn * 4, &d);
  int32_t m = n;
  float one = 1.0f, zero = 0.0f;
  const void *args[] = {&m, &m, &m, &one, &dA, &dB, &zero, &dC};
  uint32_t grid[3] = {(uint32_t)n / 16, (uint32_t)n / 16, 1}, block[3] = {16, 16, 1};
  double t0 = host_now();
  COLLECT_TOGGLE();
  simtvp_status st = sh_launch(h, "_Z11sgemm_tilediiifPKfS0_fPf", grid, block, 0, args, &d);
  COLLECT_TOGGLE();
  if (st != SIMTVP_OK) die("sgemm", &d);
  result r = {host_now() - t0, get(h, "gpgpu_n_tot_w_icount"), get(h, "gpu_sim_insn"), sh_last_cycles(h)};
  sh_read(h, dC, C, nn * 4, &d);
  for (int i = 0; i < n; i += 7)
    for (int j = 0; j < n; j += 5) {
      float acc = 0.0f;
      for (int k = 0; k < n; k++) acc += A[(size_t)i * n + k] * B[(size_t)k * n + j];
      if (C[(size_t)i * n + j] != acc) {
        fprintf(stderr, "bench_simt: %s sgemm C[%d][%d] = %g, want %g\n", w->model, i, j, C[(size_t)i * n + j], acc);
        exit(1);
      }
    }
  free(A), free(B), free(C);
  sh_destroy(h);
  return r;
}

static result vector_add(const workload *w, int n) {
  simt_harness *h = make(w);
  simtvp_diag d = {0};
  float *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4), *c = malloc((size_t)n * 4);
  for (int i = 0; i < n; i++) a[i] = (float)i, b[i] = 0.25f * (float)i;
  uint64_t da = sh_alloc(h, (uint64_t)n * 4), db = sh_alloc(h, (uint64_t)n * 4), dc = sh_alloc(h, (uint64_t)n * 4);
  sh_write(h, da, a, (uint64_t)n * 4, &d);
  sh_write(h, db, b, (uint64_t)n * 4, &d);
  int32_t nn = n;
  const void *args[] = {&da, &db, &dc, &nn};
  /* as many CTAs as the GPU holds at once (grid-stride loop over the rest) */
  uint32_t grid[3] = {w->sms * 8, 1, 1}, block[3] = {256, 1, 1};
  double t0 = host_now();
  COLLECT_TOGGLE();
  simtvp_status st = sh_launch(h, "_Z10vector_addPKfS0_Pfi", grid, block, 0, args, &d);
  COLLECT_TOGGLE();
  if (st != SIMTVP_OK) die("vector_add", &d);
  result r = {host_now() - t0, get(h, "gpgpu_n_tot_w_icount"), get(h, "gpu_sim_insn"), sh_last_cycles(h)};
  sh_read(h, dc, c, (uint64_t)n * 4, &d);
  for (int i = 0; i < n; i++)
    if (c[i] != a[i] + b[i]) {
      fprintf(stderr, "bench_simt: %s vector_add c[%d] = %g, want %g\n", w->model, i, c[i], a[i] + b[i]);
      exit(1);
    }
  free(a), free(b), free(c);
  sh_destroy(h);
  return r;
}

static void report(const char *kernel, const char *size, const workload *w, const result *r, const result *ca) {
  double wps = (double)r->warp_insns / r->seconds;
  char verdict[64];
  if (!ca) {
    snprintf(verdict, sizeof verdict, "%s", wps >= TARGET_WARP_INSN_PER_S ? "met" : "MISSED");
  } else {
    double x = wps / ((double)ca->warp_insns / ca->seconds);
    double err = ((double)r->cycles - (double)ca->cycles) / (double)ca->cycles;
    snprintf(verdict, sizeof verdict, "%.2fx CA (%s), cycles %+.1f%% (%s)", x, x >= TARGET_AT_SPEEDUP ? "met" : "MISSED",
             100.0 * err, fabs(err) <= TARGET_AT_ERROR ? "met" : "MISSED");
  }
  printf("%-11s %-12s %-3s %4u %12" PRIu64 " %10" PRIu64 " %8.3f %12.0f %12.0f %8.2f  %s\n", kernel, size, w->model,
         w->sms, r->warp_insns, r->cycles, r->seconds, wps, (double)r->cycles / r->seconds,
         (double)r->thread_insns / (double)r->cycles, verdict);
}

static result best(result (*fn)(const workload *, int), const workload *w, int size, int repeats) {
  result b = fn(w, size);
  for (int i = 1; i < repeats; i++) {
    result r = fn(w, size);
    if (r.seconds < b.seconds) b = r;
  }
  return b;
}

/* The best of `repeats` runs of one tests/kernels workload on `model` cores. */
static at_run best_program(const at_workload *p, const workload *w, uint32_t scale, int repeats) {
  char clusters[16];
  const char *args[4];
  sh_options o = options(w, args, clusters, sizeof clusters);
  o.max_cycles = 100000000ull;
  at_run b;
  for (int i = 0; i < repeats; i++) {
    at_run r;
    at_workload_run(p, &o, SIMTVP_SOURCE_DIR, scale, &r);
    if (r.status != SIMTVP_OK) {
      fprintf(stderr, "bench_simt: %s on %s cores: %s\n", p->name, w->model, r.message);
      exit(1);
    }
    if (i == 0 || r.seconds < b.seconds) b = r;
  }
  return b;
}

static void table(uint32_t sms, uint32_t mem_latency, uint32_t scale, int repeats) {
  printf("\nCA vs AT on the tests/kernels programs (at_workloads, scale %u: the kernel tests' sizes x %u), %u SMs, "
         "%u-cycle memory:\n",
         scale, scale, sms, mem_latency);
  printf("%-15s %8s %10s %10s %7s %11s %11s %6s\n", "program", "launches", "CA cycles", "AT cycles", "error",
         "CA w-insn/s", "AT w-insn/s", "AT/CA");
  workload ca = {sms, mem_latency, "ca"}, at = {sms, mem_latency, "at"};
  double sum_err = 0, max_err = 0, sum_ca = 0, sum_at = 0;
  uint64_t insns = 0;
  for (uint32_t i = 0; i < at_n_workloads; i++) {
    const at_workload *p = &at_workloads[i];
    at_run rc = best_program(p, &ca, scale, repeats), ra = best_program(p, &at, scale, repeats);
    double err = ((double)ra.cycles - (double)rc.cycles) / (double)rc.cycles;
    double wc = (double)rc.warp_insns / rc.seconds, wa = (double)ra.warp_insns / ra.seconds;
    sum_err += fabs(err);
    if (fabs(err) > max_err) max_err = fabs(err);
    sum_ca += rc.seconds, sum_at += ra.seconds, insns += rc.warp_insns;
    printf("%-15s %8" PRIu64 " %10" PRIu64 " %10" PRIu64 " %+6.1f%% %11.0f %11.0f %5.2fx%s\n", p->name, rc.launches,
           rc.cycles, ra.cycles, 100.0 * err, wc, wa, wa / wc,
           ra.warp_insns != rc.warp_insns ? "  (instruction count differs: timing-dependent program)" : "");
  }
  printf("mean |error| %.1f%%, max %.1f%%; all programs: CA %.3f s, AT %.3f s of CPU time (%.2fx)\n",
         100.0 * sum_err / at_n_workloads, 100.0 * max_err, sum_ca, sum_at, sum_ca / sum_at);
  (void)insns;
}

int main(int argc, char **argv) {
  uint32_t sms = argc > 1 ? (uint32_t)atoi(argv[1]) : 4u, lat = argc > 4 ? (uint32_t)atoi(argv[4]) : 200u;
  int n = argc > 2 ? atoi(argv[2]) : 128;
  int vn = argc > 3 ? atoi(argv[3]) : 262144;
  int repeats = argc > 5 ? atoi(argv[5]) : 3;
  int scale = argc > 6 ? atoi(argv[6]) : 4;
  const char *select = argc > 7 ? argv[7] : "all";
  const char *colon = strchr(select, ':');
  size_t mlen = colon ? (size_t)(colon - select) : strlen(select);
  const char *kern = colon ? colon + 1 : "all";
  bool run_ca = !strncmp(select, "all", mlen) || !strncmp(select, "ca", mlen);
  bool run_at = !strncmp(select, "all", mlen) || !strncmp(select, "at", mlen);
  bool run_sgemm = !strcmp(kern, "all") || !strcmp(kern, "sgemm");
  bool run_vector = !strcmp(kern, "all") || !strcmp(kern, "vector");
  if (sms < 1 || n < 16 || n % 16 || vn < 1 || repeats < 1 || scale < 0 || mlen == 0 || !(run_ca || run_at) ||
      !(run_sgemm || run_vector)) {
    fprintf(stderr, "usage: bench_simt [sms] [sgemm_n (multiple of 16)] [vector_n] [mem_latency] [repeats] "
                    "[table_scale] [select: <ca|at|all>[:<sgemm|vector|all>]]\n");
    return 2;
  }
  printf("bench_simt: CA and AT SIMT cores (configs/SM7_QV100.config), one host core, %u-cycle memory, "
         "best of %d runs (CPU time, results checked)\n", lat, repeats);
  printf("%-11s %-12s %-3s %4s %12s %10s %8s %12s %12s %8s  target: CA %.0f K warp-insn/s; AT %.0fx CA, "
         "cycles within %.0f%%\n",
         "kernel", "size", "", "SMs", "warp-insns", "cycles", "seconds", "warp-insn/s", "cycles/s", "IPC",
         TARGET_WARP_INSN_PER_S / 1e3, TARGET_AT_SPEEDUP, 100.0 * TARGET_AT_ERROR);
  workload ca = {sms, lat, "ca"}, at = {sms, lat, "at"};
  char size[48];
  snprintf(size, sizeof size, "%dx%dx%d", n, n, n);
  result rc, ra;
  if (run_sgemm) {
    if (run_ca) rc = best(sgemm, &ca, n, repeats), report("sgemm_tiled", size, &ca, &rc, NULL);
    if (run_at) ra = best(sgemm, &at, n, repeats), report("sgemm_tiled", size, &at, &ra, run_ca ? &rc : NULL);
  }
  snprintf(size, sizeof size, "%d", vn);
  if (run_vector) {
    if (run_ca) rc = best(vector_add, &ca, vn, repeats), report("vector_add", size, &ca, &rc, NULL);
    if (run_at) ra = best(vector_add, &at, vn, repeats), report("vector_add", size, &at, &ra, run_ca ? &rc : NULL);
  }
  if (scale > 0) table(sms, 100, (uint32_t)scale, repeats);
  return 0;
}
