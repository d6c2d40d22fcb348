/* bench_func — speed of the functional engine: thread instructions per second of
 * functional execution on one host core for a shared-memory tiled SGEMM (target >= 200 M/s) and
 * vector add (target >= 50 M/s). The kernels are platform/simtvp-func/demo.cu (demo.ptx bundled).
 * GPGPU-Sim's functional mode runs about 8 M thread-instructions/s on this class of machine.
 *
 *   bench_func [sgemm_n=512] [vector_n=8388608] [repeats=3] [run|step|plain]
 *
 * The mode says how kernels execute: run (default) is func_launch_run, functional mode; step and
 * plain drive the per-warp interface as a timing model does, one CTA at a time, warps in turn,
 * every instruction through func_warp_step(w, NULL) (step), or straight runs of register-only
 * instructions through func_warp_run_plain and the rest through func_warp_step (plain). Under
 * callgrind they give the host instructions per warp instruction of each call (docs/func.md).
 *
 * Each workload runs `repeats` times; the best run is reported (the host is shared). Results are
 * checked against the host so a fast wrong answer cannot pass. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "func_runner.h"

extern const char func_demo_ptx[];
extern const unsigned long func_demo_ptx_len;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const simtvp_diag *d) {
  fprintf(stderr, "bench_func: %s: %s\n", what, d->message);
  exit(1);
}

/* The per-warp driver of the step and plain modes. */
typedef struct driver {
  bool plain;
  uint64_t plain_insns; /* warp instructions func_warp_run_plain executed */
} driver;

/* One CTA at a time; each warp in turn runs until it stops (barrier, exit). */
static simtvp_status drive(void *ctx, func_launch *l, simtvp_diag *diag) {
  driver *dv = ctx;
  func_launch_params lp;
  func_launch_get_params(l, &lp);
  const func_program *p = func_launch_program(l);
  uint64_t n = (uint64_t)lp.grid[0] * lp.grid[1] * lp.grid[2];
  for (uint64_t i = 0; i < n; i++) {
    uint32_t id[3] = {(uint32_t)(i % lp.grid[0]), (uint32_t)(i / lp.grid[0] % lp.grid[1]),
                      (uint32_t)(i / ((uint64_t)lp.grid[0] * lp.grid[1]))};
    func_cta *c;
    simtvp_status st = func_cta_start(l, id, 0, 0, &c, diag);
    if (st != SIMTVP_OK) return st;
    while (!func_cta_done(c)) {
      for (uint32_t wi = 0; wi < func_cta_warp_count(c); wi++) {
        func_warp *w = func_cta_warp(c, wi);
        if (func_warp_get_state(w) == FUNC_WARP_BARRIER) func_cta_release_barrier(c, func_warp_barrier(w));
        while (func_warp_get_state(w) == FUNC_WARP_READY) {
          uint32_t run = dv->plain ? func_program_plain_run(p, func_warp_pc(w)) : 0;
          if (run) {
            dv->plain_insns += func_warp_run_plain(w, run, diag);
            continue;
          }
          if ((st = func_warp_step(w, NULL, diag)) != SIMTVP_OK) {
            func_cta_finish(c);
            return st;
          }
        }
      }
    }
    func_cta_finish(c);
  }
  return SIMTVP_OK;
}

typedef struct result {
  double seconds;
  func_launch_counts c;
} result;

static void report(const char *kernel, const char *size, const result *r, double target) {
  double mt = (double)r->c.thread_insns / r->seconds / 1e6;
  printf("%-12s %-10s %14" PRIu64 " %12" PRIu64 " %9.3f %12.1f %12.2f  %6.0f  %s\n", kernel, size,
         r->c.thread_insns, r->c.warp_insns, r->seconds, mt, (double)r->c.warp_insns / r->seconds / 1e6,
         target, mt >= target ? "met" : "MISSED");
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512;
  long vn = argc > 2 ? atol(argv[2]) : 8l << 20;
  int repeats = argc > 3 ? atoi(argv[3]) : 3;
  const char *mode = argc > 4 ? argv[4] : "run";
  bool per_warp = !strcmp(mode, "step") || !strcmp(mode, "plain");
  if (n < 16 || n % 16 || vn < 1 || repeats < 1 || (!per_warp && strcmp(mode, "run"))) {
    fprintf(stderr, "usage: bench_func [sgemm_n (multiple of 16)] [vector_n] [repeats] [run|step|plain]\n");
    return 2;
  }
  simtvp_diag d = {0};
  driver dv = {!strcmp(mode, "plain"), 0};
  func_runner_config cfg = {0};
  if (per_warp) {
    cfg.run_launch = drive;
    cfg.run_ctx = &dv;
  }
  func_runner *r = func_runner_create(&cfg, &d);
  if (!r) die("create", &d);
  if (func_runner_load_ptx(r, func_demo_ptx, func_demo_ptx_len, "demo.ptx", &d) != SIMTVP_OK) die("load", &d);

  /* SGEMM: small-integer inputs keep every sum exact, so the check is bit for bit */
  size_t nn = (size_t)n * n;
  float *A = malloc(nn * sizeof *A), *B = malloc(nn * sizeof *B), *C = malloc(nn * sizeof *C);
  for (size_t i = 0; i < nn; i++) {
    A[i] = (float)((int)(i * 7 % 9) - 4);
    B[i] = (float)((int)(i * 5 % 7) - 3);
  }
  uint64_t dA = 0, dB = 0, dC = 0;
  if (func_runner_alloc(r, nn * 4, &dA, &d) || func_runner_alloc(r, nn * 4, &dB, &d) ||
      func_runner_alloc(r, nn * 4, &dC, &d))
    die("alloc", &d);
  func_runner_write(r, dA, A, nn * 4, &d);
  func_runner_write(r, dB, B, nn * 4, &d);
  int32_t n32 = n;
  const void *sargs[4] = {&dA, &dB, &dC, &n32};
  uint32_t sgrid[3] = {(uint32_t)n / 16, (uint32_t)n / 16, 1}, sblock[3] = {16, 16, 1};
  result best_s = {1e30, {0}};
  for (int k = 0; k < repeats; k++) {
    double t0 = now();
    if (func_runner_launch(r, "sgemm_tiled", sgrid, sblock, 0, sargs, &d) != SIMTVP_OK) die("sgemm", &d);
    double t = now() - t0;
    if (t < best_s.seconds) {
      best_s.seconds = t;
      func_runner_last_counts(r, &best_s.c);
    }
  }
  func_runner_read(r, dC, C, nn * 4, &d);
  for (int i = 0; i < n; i += n / 8 + 1)
    for (int j = 0; j < n; j += n / 8 + 1) {
      float acc = 0.0f;
      for (int p = 0; p < n; p++) acc += A[(size_t)i * n + p] * B[(size_t)p * n + j];
      if (acc != C[(size_t)i * n + j]) {
        fprintf(stderr, "bench_func: sgemm C[%d][%d] = %g, want %g\n", i, j, C[(size_t)i * n + j], acc);
        return 1;
      }
    }

  /* vector add */
  float *a = malloc((size_t)vn * 4), *b = malloc((size_t)vn * 4), *c = malloc((size_t)vn * 4);
  for (long i = 0; i < vn; i++) a[i] = (float)i, b[i] = (float)(2 * i);
  uint64_t da = 0, db = 0, dc = 0;
  if (func_runner_alloc(r, (uint64_t)vn * 4, &da, &d) || func_runner_alloc(r, (uint64_t)vn * 4, &db, &d) ||
      func_runner_alloc(r, (uint64_t)vn * 4, &dc, &d))
    die("alloc", &d);
  func_runner_write(r, da, a, (uint64_t)vn * 4, &d);
  func_runner_write(r, db, b, (uint64_t)vn * 4, &d);
  int32_t vn32 = (int32_t)vn;
  const void *vargs[4] = {&da, &db, &dc, &vn32};
  uint32_t vgrid[3] = {(uint32_t)((vn + 255) / 256), 1, 1}, vblock[3] = {256, 1, 1};
  result best_v = {1e30, {0}};
  for (int k = 0; k < repeats; k++) {
    double t0 = now();
    if (func_runner_launch(r, "vector_add", vgrid, vblock, 0, vargs, &d) != SIMTVP_OK) die("vector_add", &d);
    double t = now() - t0;
    if (t < best_v.seconds) {
      best_v.seconds = t;
      func_runner_last_counts(r, &best_v.c);
    }
  }
  func_runner_read(r, dc, c, (uint64_t)vn * 4, &d);
  for (long i = 0; i < vn; i++)
    if (c[i] != a[i] + b[i]) {
      fprintf(stderr, "bench_func: vector_add c[%ld] = %g, want %g\n", i, c[i], a[i] + b[i]);
      return 1;
    }

  printf("bench_func: functional engine (%s), one host core, best of %d runs (results checked)\n",
         per_warp ? dv.plain ? "per-warp, straight runs" : "per-warp, step by step" : "functional mode", repeats);
  if (dv.plain) printf("warp instructions in straight runs (all runs): %" PRIu64 "\n", dv.plain_insns);
  printf("%-12s %-10s %14s %12s %9s %12s %12s  %6s\n", "kernel", "size", "thread-insns", "warp-insns",
         "seconds", "M thr-insn/s", "M warp-in/s", "target");
  char size[64];
  snprintf(size, sizeof size, "%dx%dx%d", n, n, n);
  report("sgemm_tiled", size, &best_s, 200);
  snprintf(size, sizeof size, "%ld", vn);
  report("vector_add", size, &best_v, 50);
  free(A), free(B), free(C), free(a), free(b), free(c);
  func_runner_destroy(r);
  return 0;
}
