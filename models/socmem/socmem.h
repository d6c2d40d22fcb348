/* socmem — the SoC's memory (system DRAM) as a timing model: what an integrated GPU, the copy
 * engines and the host contend for (docs/system-modes.md §2).
 *
 * Channels interleaved every `interleave` bytes, each a server of bandwidth / channels with a
 * fixed access latency. An access of n bytes arriving at time t occupies each channel it touches
 * for that channel's share of the bytes:
 *     start_c = max(t, free_c);  free_c = start_c + ceil(bytes_c × ps_per_kbyte / 1000)
 * and completes at max over its channels of free_c + latency. A channel that is still busy with
 * earlier accesses delays it (queueing): that wait is what one agent's traffic costs another.
 * Times are picoseconds of simulated time (the system has no clock of its own here).
 *
 * Agents (who issued an access) only label statistics: sysmem.<agent>.reads / writes / bytes /
 * wait_ps (time spent waiting for busy channels). Deterministic; nothing per idle time. */
#ifndef SIMTVP_SOCMEM_H
#define SIMTVP_SOCMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;

/* Who issued an access (the system initiators of docs/system-modes.md). */
typedef enum socmem_agent {
  SOCMEM_HOST = 0,   /* the host CPU (driver rings, staging, the program's shared pages) */
  SOCMEM_GPU = 1,    /* the GPU's kernels: its hub (L2 misses, zero-copy accesses) */
  SOCMEM_DMA = 2,    /* the GPU's copy engines and command processor */
  SOCMEM_CACHE = 3,  /* the system-level cache's fills and write-backs */
  SOCMEM_OTHER = 4,
  SOCMEM_AGENTS = 5
} socmem_agent;

const char *socmem_agent_name(socmem_agent a); /* "host", "gpu", "dma", "cache", "other" */

typedef struct socmem_config {
  uint32_t channels;        /* ≥ 1 */
  uint32_t interleave;      /* bytes per channel before the next, a power of two ≥ 64 */
  uint64_t latency_ps;      /* access latency */
  uint64_t ps_per_kbyte;    /* one channel's transfer time for 1000 bytes (≥ 1) */
  struct stats *stats;      /* may be NULL */
} socmem_config;

/* From the options: bandwidth in GB/s over all channels, latency in ns. */
void socmem_config_from(socmem_config *c, uint32_t channels, uint32_t interleave, double latency_ns,
                        double bandwidth_gbs);

typedef struct socmem socmem;

/* SIMTVP_ERR_CONFIG naming -sysmem_channels / -sysmem_interleave_bytes / -sysmem_bandwidth_gbs. */
simtvp_status socmem_create(const socmem_config *cfg, socmem **out, simtvp_diag *diag);
void socmem_destroy(socmem *m);

/* An access of `bytes` at `addr` arriving at now_ps: returns when it completes (≥ now_ps). */
uint64_t socmem_access(socmem *m, uint64_t addr, uint64_t bytes, bool write, socmem_agent agent, uint64_t now_ps);

typedef struct socmem_stats {
  uint64_t reads[SOCMEM_AGENTS], writes[SOCMEM_AGENTS], bytes[SOCMEM_AGENTS], wait_ps[SOCMEM_AGENTS];
  uint64_t busy_ps; /* summed over channels */
} socmem_stats;
void socmem_get_stats(const socmem *m, socmem_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_SOCMEM_H */
