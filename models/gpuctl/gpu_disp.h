/* gpu_disp — the kernel/CTA dispatcher: places the CTAs of running kernels onto SIMT cores under
 * each core's limits of threads, warps, CTA slots, registers and shared memory (gpu_hw.h
 * gpu_occupancy rules), round robin over clusters and cores, oldest kernel first, with up to
 * max_kernels kernels (from different channels) running at once.
 *
 * The SIMT side is a port: functional mode connects models/func (which may run a CTA to completion
 * inside launch_cta and report it at once), timing models connect their cores; both call
 * gpu_disp_cta_done when a CTA finishes. SM numbering: sm = cluster * cores_per_cluster + core.
 * The issue order walks clusters first (cluster 0 core 0, cluster 1 core 0, …, cluster 0 core 1
 * …) so consecutive CTAs spread over clusters as GPGPU-Sim's issue does.
 *
 * Thread block clusters (sm_90; gpu_launch_desc.cluster, not to be confused with the SIMT core
 * clusters above): a kernel with clusters issues cluster after cluster, each cluster's CTAs in
 * rank order at once (one issue) when all of them fit, filling SMs from the round-robin position
 * on — a cluster never waits half-resident, as the hardware guarantees co-scheduling.
 *
 * Launch latencies (GPGPU-Sim's -gpgpu_kernel_launch_latency and -gpgpu_TB_launch_latency):
 * a kernel begins (kernel_begin, so it counts as running) at the cycle it is accepted and issues
 * its first CTA kernel_launch_cycles later; a CTA issued at cycle t holds its core's resources
 * from t and reaches the core (launch_cta) at t + cta_launch_cycles. Both are exact: next_event
 * names the cycle, advance does it then. */
#ifndef SIMTVP_GPU_DISP_H
#define SIMTVP_GPU_DISP_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_hw.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_disp gpu_disp;

typedef struct gpu_disp_config {
  uint32_t n_clusters, cores_per_cluster;
  gpu_sm_limits sm;          /* per SIMT core */
  uint32_t max_kernels;      /* concurrent kernels; 0 = 1 */
  uint32_t ctas_per_cycle;   /* CTAs issued per cycle over the whole GPU; 0 = no limit */
  uint32_t max_param_bytes;  /* parameter buffer copied per kernel; 0 = 32764 */
  uint32_t kernel_launch_cycles; /* from a kernel's begin to its first CTA issue; 0 = at once */
  uint32_t cta_launch_cycles;    /* from a CTA's issue (resources taken) to launch_cta; 0 = at once */
} gpu_disp_config;

/* The SIMT cores as the dispatcher sees them. */
typedef struct gpu_simt_port {
  void *ctx;
  /* Kernel k becomes active, before its first CTA. Returning false refuses it (e.g. its program
   * image cannot be read): the kernel ends at once with *why as its result. May be NULL. */
  bool (*kernel_begin)(void *ctx, const gpu_kernel *k, gpu_kernel_result *why);
  /* Run CTA cta[] of k on core sm. The core calls gpu_disp_cta_done when it finished — possibly
   * before launch_cta returns. */
  void (*launch_cta)(void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]);
  /* Every CTA of k finished; k is gone after this returns. May be NULL. */
  void (*kernel_end)(void *ctx, const gpu_kernel *k);
} gpu_simt_port;

typedef struct gpu_disp_ports {
  gpu_simt_port simt;
  /* A kernel accepted with gpu_disp_launch(tag) finished (result: the first failing CTA's, or OK).
   * Its slot is free before this is called. */
  struct {
    void *ctx;
    void (*done)(void *ctx, uint32_t tag, const gpu_kernel_result *result, uint64_t now);
  } kernel_done;
} gpu_disp_ports;

typedef struct gpu_disp_counters {
  uint64_t kernels, ctas_issued, ctas_done, cta_faults;
} gpu_disp_counters;

gpu_disp *gpu_disp_create(const gpu_disp_config *config, gpu_disp_ports ports);
void gpu_disp_destroy(gpu_disp *d);
void gpu_disp_reset(gpu_disp *d); /* forgets every kernel (no callbacks) */

/* Accepts a kernel at cycle now (copies desc and its parameters); false when max_kernels run or
 * one CTA can never fit a core (the firmware checks the latter first). */
bool gpu_disp_launch(gpu_disp *d, const gpu_launch_desc *desc, uint32_t tag, uint64_t now);
/* A CTA of the kernel in `kernel_slot` finished on core sm at cycle now. */
void gpu_disp_cta_done(gpu_disp *d, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r,
                       uint64_t now);
/* The SIMT side stopped the kernel in `kernel_slot` (a simulation limit, a deadlock): it issues
 * no further CTAs — those never issued and those still inside their launch latency count as done
 * with *why (the kernel's result unless a CTA failed before) — and ends at the next advance once
 * its resident CTAs are reported done. No effect on a free slot. */
void gpu_disp_abort(gpu_disp *d, uint32_t kernel_slot, const gpu_kernel_result *why, uint64_t now);
/* Begins accepted kernels, starts CTAs whose launch latency is over, issues CTAs and retires
 * kernels due by now. */
void gpu_disp_advance(gpu_disp *d, uint64_t now);
/* UINT64_MAX when nothing can happen until a CTA finishes or a kernel arrives. */
uint64_t gpu_disp_next_event(const gpu_disp *d);

uint32_t gpu_disp_running_kernels(const gpu_disp *d);
/* CTAs resident on core sm (all kernels), and how many of them belong to kernel_slot. */
uint32_t gpu_disp_resident_ctas(const gpu_disp *d, uint32_t sm);
uint32_t gpu_disp_resident_ctas_of(const gpu_disp *d, uint32_t sm, uint32_t kernel_slot);
/* CTAs issued but not yet handed to their core (inside cta_launch_cycles); included above. */
uint32_t gpu_disp_starting_ctas(const gpu_disp *d);
gpu_disp_counters gpu_disp_get_counters(const gpu_disp *d);
/* Counts into the sink from now on (cta_disp.kernels, cta_disp.ctas_issued, cta_disp.ctas_done,
 * cta_disp.cta_faults); call once, before the first launch. */
void gpu_disp_register_stats(gpu_disp *d, stats *st);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_DISP_H */
