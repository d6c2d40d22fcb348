/* syscache — the system-level cache (SLC / shared LLC) of -system_mode shared_llc
 * (docs/system-modes.md §2): one cache in front of the SoC's memory that every system agent's
 * accesses go through — the host CPU, the GPU's copy engines and command processor, and the GPU's
 * L2 misses (its hub).
 *
 * Organisation: `sets` × `ways` lines of `line_bytes`, set = (address / line_bytes) mod sets,
 * LRU within a set, write-back, write-allocate. Timing (picoseconds, like models/socmem): each line
 * an access touches is looked up at the access's arrival `now`, all lines in parallel:
 *   hit                       done = now + hit_ps
 *   miss, whole-line write    done = now + hit_ps (allocated dirty: nothing to fetch)
 *   other miss                done = memory(line, fill, at now + hit_ps)   (the fill completes)
 * and a dirty victim is written back through the memory port at now + hit_ps (posted: it takes
 * memory bandwidth but delays nobody but later accesses that queue behind it). The access
 * completes when its last line does. Fills and write-backs reach memory as the agent
 * SOCMEM_CACHE.
 *
 * Statistics (registered at create when a stats sink is given): syscache.<agent>.hits / misses /
 * writebacks (the write-backs its misses caused) for host, gpu, dma, other; syscache.fills.
 * Deterministic; allocation-free after create; nothing per idle time. */
#ifndef SIMTVP_SYSCACHE_H
#define SIMTVP_SYSCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "simtvp_diag.h"
#include "socmem.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;

/* What leaves the cache: its fills and write-backs to memory. Returns when the access completes
 * (≥ now_ps). */
typedef struct syscache_port {
  void *ctx;
  uint64_t (*memory)(void *ctx, uint64_t addr, uint32_t bytes, bool write, uint64_t now_ps);
} syscache_port;

typedef struct syscache_config {
  uint32_t sets;        /* ≥ 1 */
  uint32_t ways;        /* 1..64 */
  uint32_t line_bytes;  /* a power of two, 32..4096 */
  uint64_t hit_ps;      /* tag and data access */
  syscache_port port;
  struct stats *stats;  /* may be NULL */
} syscache_config;

typedef struct syscache syscache;

/* SIMTVP_ERR_CONFIG naming -syscache_sets / -syscache_ways / -syscache_line_bytes or
 * SIMTVP_ERR_ARG when the port has no memory function. */
simtvp_status syscache_create(const syscache_config *cfg, syscache **out, simtvp_diag *diag);
void syscache_destroy(syscache *c);

/* An access of `bytes` (≥ 1) at `addr` by `agent` arriving at now_ps; returns its completion. */
uint64_t syscache_access(syscache *c, uint64_t addr, uint64_t bytes, bool write, socmem_agent agent, uint64_t now_ps);

/* Whether the line holding addr is present (and dirty). No statistics, no LRU update. */
bool syscache_probe(const syscache *c, uint64_t addr, bool *dirty);

typedef struct syscache_stats {
  uint64_t hits[SOCMEM_AGENTS], misses[SOCMEM_AGENTS], writebacks[SOCMEM_AGENTS];
  uint64_t fills;
} syscache_stats;
void syscache_get_stats(const syscache *c, syscache_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_SYSCACHE_H */
