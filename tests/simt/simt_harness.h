/* simt_harness — a small GPU around the SIMT model cores for tests and benchmarks (no SystemC):
 * GPGPU-Sim option files and overrides → gpu_config, a device-memory store with a bump allocator
 * (guard page after each buffer), PTX modules written into device memory as program images
 * (gpu_image) exactly as the driver does, the CTA dispatcher (gpu_disp) and gpu_launcher, SIMT core
 * clusters (simt_cluster: func or ca cores per -simt_model), and a fixed-latency memory behind
 * the clusters' injection ports (every request is answered `mem_latency` core cycles later; the
 * full memory system comes later).
 *
 * Optionally the cores use the tests' fake LDST unit (fake_ldst.h) instead of models/simt/ldst,
 * so hand-computed timing does not depend on the LDST's own timing. One clock: core cycles. */
#ifndef SIMTVP_TESTS_SIMT_HARNESS_H
#define SIMTVP_TESTS_SIMT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "func.h"
#include "gpu_config.h"
#include "simt.h"
#include "simt_cluster.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sh_ldst_kind {
  SH_LDST_REAL = 0,   /* models/simt/ldst (when this build has it; else the fake) */
  SH_LDST_FAKE,       /* fake_ldst: fixed latency, no memory traffic */
  SH_LDST_FAKE_TRAFFIC /* fake_ldst: one request per global load/store through the cluster */
} sh_ldst_kind;

typedef struct sh_options {
  const char *config_file;          /* GPGPU-Sim option file; NULL: the built-in defaults */
  const char *const *args;          /* overrides: "-option", "value", ... */
  int n_args;
  uint32_t mem_latency;             /* fixed-latency memory, core cycles (0: 100) */
  uint8_t ldst;                     /* sh_ldst_kind */
  uint32_t fake_ldst_latency;       /* fake LDST: cycles from issue to completion (0: 20) */
  uint64_t max_cycles;              /* per launch (0: 100 million): then SIMTVP_ERR_LIMIT */
  uint32_t stack_bytes;             /* per-thread call stack (func_config.stack_bytes) */
  bool quiet;                       /* do not copy messages to stderr */
  simt_trace_port trace;            /* every issued warp instruction (optional) */
  bool every_cycle;                 /* simt_core_config.every_cycle */
  func_debug_port debug;            /* a debugger on the functional engine (models/debug) */
  /* interval cores' memory beyond the L1 (simt_core_config.interval_mem); ctx NULL: the
   * harness's own, answering after mem_latency cycles and counted in sh_mem_requests */
  simt_interval_mem_port interval_mem;
} sh_options;

typedef struct simt_harness simt_harness;

simtvp_status sh_create(const sh_options *o, simt_harness **out, simtvp_diag *diag);
void sh_destroy(simt_harness *h);

const gpu_config *sh_config(const simt_harness *h);
stats *sh_stats(simt_harness *h);
devmem *sh_devmem(simt_harness *h);
uint32_t sh_cluster_count(const simt_harness *h);
simt_cluster *sh_cluster(simt_harness *h, uint32_t i);
simt_core *sh_core(simt_harness *h, uint32_t sm);

/* Loads a module (several may be loaded; kernels are found by name, newest module first). */
simtvp_status sh_load_ptx(simt_harness *h, const char *text, size_t len, const char *name, simtvp_diag *diag);
simtvp_status sh_load_ptx_file(simt_harness *h, const char *path, simtvp_diag *diag);

/* Device buffers. */
uint64_t sh_alloc(simt_harness *h, uint64_t bytes);
simtvp_status sh_write(simt_harness *h, uint64_t addr, const void *src, uint64_t n, simtvp_diag *diag);
simtvp_status sh_read(simt_harness *h, uint64_t addr, void *dst, uint64_t n, simtvp_diag *diag);
/* Device address and size of a module-scope variable; false when absent. */
bool sh_symbol(simt_harness *h, const char *name, uint64_t *addr, uint64_t *bytes);

/* Replayable page faults (unified memory, docs/vm.md "Unified memory"): from now on launches
 * translate through an identity MMU in which the 4 KiB pages at `pages` (addresses) are not
 * resident — an access to one is a replayable fault (MMU_FAULT_REPLAY_ABSENT), so the warp waits —
 * and when nothing else can happen the harness plays the driver's part for the faults recorded:
 * SH_FAULTS_MIGRATE makes those pages resident and replays (MMU_REPLAY), SH_FAULTS_CANCEL cancels
 * (MMU_REPLAY.CANCEL: the waiting accesses fail); SH_FAULTS_NO_BUFFER is a GPU without a fault
 * buffer (the recorder refuses: the faults are fatal). n 0 with SH_FAULTS_NONE turns translation
 * off. */
typedef enum sh_fault_policy {
  SH_FAULTS_NONE = 0,
  SH_FAULTS_MIGRATE,
  SH_FAULTS_CANCEL,
  SH_FAULTS_NO_BUFFER
} sh_fault_policy;
void sh_set_absent_pages(simt_harness *h, const uint64_t *pages, uint32_t n, sh_fault_policy policy);
/* Distinct pages reported as faults (per replay window) and replays (or cancels) done so far. */
uint64_t sh_faults(const simt_harness *h);
uint64_t sh_replays(const simt_harness *h);

/* Launches kernel `name` (args[i] points to parameter i, as cuLaunchKernel) and runs the GPU
 * until it finishes. Returns the kernel's result (the first failing CTA's status); diag gets the
 * first error message the cores reported (fault with kernel, CTA, thread, PC; deadlock dump). */
simtvp_status sh_launch(simt_harness *h, const char *name, const uint32_t grid[3], const uint32_t block[3],
                        uint32_t dynamic_smem, const void *const *args, simtvp_diag *diag);
/* Core cycles the last launch took (from its acceptance to its completion). */
uint64_t sh_last_cycles(const simt_harness *h);
/* The current cycle. */
uint64_t sh_now(const simt_harness *h);
/* Device printf output and every message the model cores sent (one line each), since create. */
const char *sh_printed(const simt_harness *h);
const char *sh_messages(const simt_harness *h);
/* The first structured fault or barrier-deadlock report (simt_core_ports.fault, through the
 * clusters) of the last launch; NULL when there was none. */
const simtvp_diag *sh_fault_report(const simt_harness *h);
/* Requests the fixed-latency memory answered, by kind (mem_access_kind). */
uint64_t sh_mem_requests(const simt_harness *h, uint32_t kind);
/* Requests whose src_node was not their cluster or whose dst_node was not n_clusters + the
 * sub-partition of their address. */
uint64_t sh_mem_misrouted(const simt_harness *h);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_TESTS_SIMT_HARNESS_H */
