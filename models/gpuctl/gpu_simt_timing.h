/* gpu_simt_timing — the policy of the timing SIMT side (docs/timing.md): what happens between
 * the CTA dispatcher (gpu_simt_port) and the SIMT core clusters when the GPU's cores are CA or AT.
 * The SystemC shell (tlm/gpu/simt_timing.cc) builds the clusters, the memory system and the clock
 * domains, binds them, and forwards; everything it must decide is decided here:
 *
 *   - kernels: at kernel_begin the program image is loaded (gpu_launcher, with the SIMT cores'
 *     timing decode simt_program attached per image) into one of -gpgpu_max_concurrent_kernel
 *     kernel slots; kernel_end flushes the L1Ds and L2 slices (-gpgpu_flush_l1_cache,
 *     -gpgpu_flush_l2_cache) and ends the launch;
 *   - CTA residency: which CTAs of which kernel slot are resident on which core (launch_cta hands
 *     a CTA to the cluster of its core; its completion comes back through gpu_simt_timing_cta_done
 *     and goes on to the dispatcher);
 *   - simulation control (gpu_simctl.h): -gpgpu_max_cycle, -gpgpu_max_insn, -gpgpu_max_cta and the
 *     deadlock watchdog; a stop drops the resident CTAs (each reported with the stop's status),
 *     rebuilds the busy clusters, aborts the stopped kernels in the dispatcher and says why,
 *     naming the option; a deadlock first asks for the dump of every cluster and the memory system;
 *   - faults: the first failing CTA of each kernel becomes last_fault, with the core's structured
 *     report (kernel, CTA, thread, pc, PTX line, address) when the core sent one;
 *   - local memory: core sm's region is [local_base(sm), +max threads per core x
 *     GPU_SIMT_TIMING_LOCAL_BYTES_PER_THREAD), above device memory and the malloc heap, below the
 *     generic-address windows (docs/timing.md §5); the per-core configurations carry it.
 *
 * Time is the core clock's cycle (ports.now). Nothing here runs per cycle: the shell calls
 * gpu_simt_timing_ticked after each cluster tick and gpu_simt_timing_supervise at the cycles
 * ports.wake names. C11, no SystemC. */
#ifndef SIMTVP_GPU_SIMT_TIMING_H
#define SIMTVP_GPU_SIMT_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "devmem.h"
#include "func.h"
#include "gpu_config.h"
#include "gpu_disp.h"
#include "gpu_params.h"
#include "gpu_simctl.h"
#include "simt.h"
#include "simtvp_diag.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Local memory reserved per thread slot (bytes): a kernel whose local frame plus call stack needs
 * more aliases the next core's region in the caches (timing only; a warning says so). */
#define GPU_SIMT_TIMING_LOCAL_BYTES_PER_THREAD (64u << 10)

typedef struct gpu_simt_timing gpu_simt_timing;

typedef struct gpu_simt_timing_config {
  const gpu_config *gpu;     /* the whole configuration (finalized; must outlive the side) */
  const gpu_params *params;  /* what gpu_params_from_config derived from it (same lifetime) */
  devmem *mem;               /* the device-memory store: program images are read from it */
  stats *st;                 /* statistics sink; NULL: a private one (simulation control reads the
                              * cores' instruction counter) */
  func_ports func;           /* the functional engine's ports as the shell answers them: clock
                              * (%clock64) the core clock's cycle, globaltimer the simulated ns,
                              * print; messages without emit: ports.messages */
  mem_aperture_port aperture; /* (addition) where an address lives, as the clusters' requests are
                               * routed: the interval cores' memory model routes system memory by
                               * its bus address (ctx NULL: every line is device memory) */
} gpu_simt_timing_config;

/* What leaves the side. Every function is called with ctx; none may be NULL unless it says so. */
typedef struct gpu_simt_timing_ports {
  void *ctx;
  /* The core clock's current cycle. */
  uint64_t (*now)(void *ctx);
  /* A CTA of kernel_slot finished (or was dropped) on core sm: to the dispatcher, now. */
  void (*cta_done)(void *ctx, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r);
  /* The side stopped the kernel in kernel_slot: the dispatcher issues none of its remaining CTAs
   * and ends it once its resident CTAs are reported (gpuctl_abort_kernel). May be NULL. */
  void (*abort_kernel)(void *ctx, uint32_t kernel_slot, const gpu_cta_result *why);
  /* Start CTA cta[] of k on core sm of cluster `cluster` at the next core edge (k stays valid
   * until the CTA is reported done or the clusters are rebuilt). */
  void (*launch_cta)(void *ctx, uint32_t cluster, uint32_t sm, const simt_kernel *k, const uint32_t cta[3]);
  /* Give every cluster that holds work a fresh model core (resident CTAs and pending starts are
   * dropped without completion; the side reports them). */
  void (*rebuild_clusters)(void *ctx);
  /* Write back and invalidate every L1D (at core cycle now) / every L2 slice; invalidate every
   * L2 slice without write-back (reset). */
  void (*flush_l1)(void *ctx, uint64_t now);
  /* MMU_REPLAY at core cycle now: every core's warps waiting on replayable faults retry (cancel:
   * their CTAs end with a fault); simt_core_replay on each core, then wake them. May be NULL. */
  void (*replay)(void *ctx, bool cancel, uint64_t now);
  void (*flush_l2)(void *ctx);
  void (*invalidate_l2)(void *ctx);
  /* Call gpu_simt_timing_supervise at core cycle `cycle` (or earlier: it checks again). */
  void (*wake)(void *ctx, uint64_t cycle);
  /* The deadlock dump: every busy cluster (requests waiting for replies, warps) and the memory
   * system's queues, as lines at `severity` through the shell's messages. May be NULL. */
  void (*dump)(void *ctx, simtvp_severity severity);
  simtvp_msg_port messages; /* warnings, stop reasons, refused kernels */
  /* (addition) Runs fn(fn_ctx, copy of data[0..bytes), bytes, arg) now, or — when called from a
   * cluster's parallel tick (-sim_threads > 1) — in the serial phase after it, in the order a
   * one-thread run calls it (replayable faults, docs/vm.md). May be NULL: at once. */
  void (*serially)(void *ctx, void (*fn)(void *fn_ctx, const void *data, size_t bytes, uint64_t arg), void *fn_ctx,
                   const void *data, size_t bytes, uint64_t arg);
} gpu_simt_timing_ports;

/* Builds the functional engine, the launcher, the local-memory layout and every core's
 * configuration. NULL with *diag naming the option when the configuration cannot be built
 * (SIMTVP_ERR_CONFIG "-device_memory_mb" when the local-memory regions do not fit below the
 * generic-address windows, a core option simt_core_config_from_gpu refuses …). */
gpu_simt_timing *gpu_simt_timing_create(const gpu_simt_timing_config *cfg, gpu_simt_timing_ports ports,
                                        simtvp_diag *diag);
/* Second step, after the shell built the clusters and the memory system: simulation control
 * starts (its counters follow theirs in the statistics). SIMTVP_OK or the error. */
simtvp_status gpu_simt_timing_start(gpu_simt_timing *t, simtvp_diag *diag);
void gpu_simt_timing_destroy(gpu_simt_timing *t);

/* ---- what the shell builds from ------------------------------------------------------------ */

stats *gpu_simt_timing_stats(const gpu_simt_timing *t);           /* the sink in use */
uint32_t gpu_simt_timing_cores(const gpu_simt_timing *t);
uint32_t gpu_simt_timing_clusters(const gpu_simt_timing *t);
uint32_t gpu_simt_timing_cores_per_cluster(const gpu_simt_timing *t);
/* n_cores configurations, cluster c's cores at [c * cores_per_cluster] (stable addresses). */
const simt_core_config *gpu_simt_timing_core_configs(const gpu_simt_timing *t);
uint64_t gpu_simt_timing_local_base(const gpu_simt_timing *t, uint32_t sm);
uint64_t gpu_simt_timing_local_region_bytes(const gpu_simt_timing *t);

/* ---- the dispatcher's side ----------------------------------------------------------------- */

/* The port to hand to the dispatcher (kernel_begin, launch_cta, kernel_end). */
gpu_simt_port gpu_simt_timing_port(gpu_simt_timing *t);

/* ---- the clusters' side -------------------------------------------------------------------- */

/* A CTA the side launched finished on core sm at core cycle `cycle`. */
void gpu_simt_timing_cta_done(gpu_simt_timing *t, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r,
                              uint64_t cycle);
/* A core's structured fault or barrier-deadlock report; arrives before that CTA's completion. */
void gpu_simt_timing_fault(gpu_simt_timing *t, uint32_t sm, uint32_t kernel_slot, const simtvp_diag *report);
/* A cluster ticked at core cycle `cycle` (instructions may have executed). */
void gpu_simt_timing_ticked(gpu_simt_timing *t, uint64_t cycle);

/* ---- the supervisor (ticked after every cluster in the core domain) --------------------------- */

/* Checks the limits and the deadlock window at core cycle c and carries out a stop found here or
 * by gpu_simt_timing_ticked. */
void gpu_simt_timing_supervise(gpu_simt_timing *t, uint64_t c);
/* The next cycle after `last` (the supervisor's last tick) at which supervise must run;
 * GPU_SIMCTL_NEVER when nothing is watched. */
uint64_t gpu_simt_timing_next_check(const gpu_simt_timing *t, uint64_t last);

/* ---- state ----------------------------------------------------------------------------------- */

/* Hardware reset: every kernel and CTA is dropped without completion, busy clusters rebuilt,
 * decoded program images forgotten, the L2 slices invalidated; limits reached stay reached. */
void gpu_simt_timing_reset(gpu_simt_timing *t);
/* No CTA resident and no stop pending. */
bool gpu_simt_timing_idle(const gpu_simt_timing *t);
/* The last fault's full report (SIMTVP_OK when none). */
const simtvp_diag *gpu_simt_timing_last_fault(const gpu_simt_timing *t);
/* CTAs of kernel_slot resident on core sm (launched, not yet reported). */
uint32_t gpu_simt_timing_resident(const gpu_simt_timing *t, uint32_t sm, uint32_t kernel_slot);
const gpu_simctl *gpu_simt_timing_control(const gpu_simt_timing *t);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_SIMT_TIMING_H */
