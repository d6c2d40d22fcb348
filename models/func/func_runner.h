/* func_runner — a standalone functional GPU for tests, debugging and benchmarks: load PTX, place
 * buffers in device memory, launch kernels on the functional engine (func.h) with a grid, block,
 * dynamic shared memory and parameters, read results back, print statistics. It stands in for the
 * CUDA runtime where no platform is needed; the CLI `simtvp-func` is built on it.
 *
 * Device memory layout: every buffer gets its own mapping, placed so that it ends at the end of
 * its last page (rounded up to 256 bytes, CUDA's alignment) and is followed by an unmapped guard
 * page, so running off the end of a buffer faults at once. Module .global/.const segments and the
 * device heap of malloc/free are placed the same way. */
#ifndef SIMTVP_FUNC_RUNNER_H
#define SIMTVP_FUNC_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "func.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct func_runner func_runner;

typedef struct func_runner_config {
  func_config engine;          /* zeros = defaults; heap_base/heap_bytes are chosen by the runner */
  uint64_t heap_bytes;         /* device malloc heap; 0 = 8 MiB */
  /* Device printf output; NULL = written to `out` (stdout when NULL). */
  void (*print)(void *ctx, const char *text, size_t len);
  void *print_ctx;
  FILE *out;
  simtvp_msg_port messages;    /* parser warnings */
  func_debug_port debug;       /* a debugger (models/debug); zeros = none */
  /* (addition) Runs each launch instead of func_launch_run — through the per-warp interface, as a
   * timing model would (tests of that interface); it returns the launch's status as
   * func_launch_run does. NULL = func_launch_run. */
  simtvp_status (*run_launch)(void *ctx, func_launch *l, simtvp_diag *diag);
  void *run_ctx;
} func_runner_config;

func_runner *func_runner_create(const func_runner_config *config, simtvp_diag *diag);
void func_runner_destroy(func_runner *r);

/* Loads a module (several may be loaded; kernels are found by name across them). */
simtvp_status func_runner_load_ptx(func_runner *r, const char *text, size_t len, const char *name,
                                   simtvp_diag *diag);
simtvp_status func_runner_load_ptx_file(func_runner *r, const char *path, simtvp_diag *diag);

/* Device buffers. */
simtvp_status func_runner_alloc(func_runner *r, uint64_t bytes, uint64_t *dptr, simtvp_diag *diag);
simtvp_status func_runner_free(func_runner *r, uint64_t dptr, simtvp_diag *diag);
simtvp_status func_runner_write(func_runner *r, uint64_t dptr, const void *src, uint64_t bytes,
                                simtvp_diag *diag);
simtvp_status func_runner_read(func_runner *r, uint64_t dptr, void *dst, uint64_t bytes,
                               simtvp_diag *diag);
simtvp_status func_runner_memset(func_runner *r, uint64_t dptr, uint8_t value, uint64_t bytes,
                                 simtvp_diag *diag);
/* Device address of a module-scope variable (cudaGetSymbolAddress); false when absent. */
bool func_runner_symbol(func_runner *r, const char *name, uint64_t *dptr, uint64_t *bytes);

/* Launches kernel `name`: args[i] points to the value of parameter i, which has the size the PTX
 * declares (as cuLaunchKernel's kernelParams). Runs to completion. A fault returns its status with
 * the diag naming kernel, CTA, thread, PC, PTX line and address. */
simtvp_status func_runner_launch(func_runner *r, const char *name, const uint32_t grid[3],
                                 const uint32_t block[3], uint32_t dynamic_smem,
                                 const void *const *args, simtvp_diag *diag);
/* (addition) The same with thread block cluster dimensions (func_launch_params.cluster; 0,0,0 =
 * the kernel's .reqnctapercluster, or none). */
simtvp_status func_runner_launch_cluster(func_runner *r, const char *name, const uint32_t grid[3],
                                         const uint32_t block[3], const uint32_t cluster[3],
                                         uint32_t dynamic_smem, const void *const *args, simtvp_diag *diag);
/* Number of parameters of a kernel and the size of parameter i (0 when absent). */
uint32_t func_runner_param_count(func_runner *r, const char *name);
uint32_t func_runner_param_size(func_runner *r, const char *name, uint32_t i);

/* Counters of the last launch. */
void func_runner_last_counts(const func_runner *r, func_launch_counts *out);
/* Statistics of the last kernel and the totals, GPGPU-Sim style text. */
void func_runner_print_stats(const func_runner *r, FILE *out);
stats *func_runner_stats(func_runner *r);
devmem *func_runner_devmem(func_runner *r);
func_engine *func_runner_engine(func_runner *r);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_FUNC_RUNNER_H */
