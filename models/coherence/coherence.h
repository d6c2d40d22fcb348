/* coherence — the MESI directory of the shared system modes (docs/system-modes.md §3).
 *
 * The directory sits at the system side, in front of the system-level cache, and keeps the copies
 * that caching agents hold of shared lines coherent. Agents are socmem_agent values; a bit per
 * agent in `caching` says whether it keeps copies (the host CPU's caches; the GPU's L2 where it
 * caches shared pages). Other agents (copy engines) are I/O-coherent: their reads snoop a dirty
 * copy, their writes invalidate every copy, and they never hold one.
 *
 * Per line and caching agent one stable MESI state; the directory keeps, per line, which agents
 * hold it (a sharer set) and whether one of them owns it (E or M). Transitions for a request of
 * agent R on line L (other holders O):
 *
 *   R reads, R holds L                 nothing (no message)
 *   R reads, O holds L in M            O: M→S, O writes L back; R→S (caching R)    1 message
 *   R reads, O holds L in E            O: E→S; R→S                                  1 message
 *   R reads, O hold L in S             R→S                                          no message
 *   R reads, nobody holds L            R→E (caching R; a non-caching R: nothing)    no message
 *   R writes                           every O → I (an O in M writes L back when R does not
 *                                      keep L: R's write is merged in memory); R→M (caching R)
 *                                      one invalidation message per O
 *   R evicts L (coherence_evict)       R→I; from M, R writes L back
 *   R writes back / writes through L   as R writes, then R→I (it kept no copy)
 *   (coherence_writeback / _write_through)
 *
 * Timing (picoseconds): a request costs `lookup_ps`; if it sends messages, one more `message_ps`
 * (invalidations and the snoop go out in parallel and the directory waits for every answer);
 * a write-back it causes (port.writeback) must also complete before the request does. Lines of one
 * access are handled in parallel; the access completes when its last line does.
 *
 * The directory is sparse: `sets` × `ways` entries (line holders), LRU per set. When a set is
 * full the least recently used entry is recalled: its holders are invalidated (port.invalidate,
 * M copies written back), counted as coherence.recalls, off the requester's path.
 *
 * Ports: invalidate(agent, line address) tells the agent's cache to drop the line (may be NULL
 * when no caching agent's cache is modelled: the directory still tracks it);
 * writeback(agent, line address, now) returns when the agent's dirty copy reached memory.
 *
 * Statistics (registered at create with a sink): coherence.<agent>.reads / writes (requests on
 * shared lines), coherence.<agent>.invalidations (copies of this agent invalidated),
 * coherence.<agent>.downgrades (E/M copies of this agent made S), coherence.messages,
 * coherence.writebacks, coherence.recalls, coherence.latency_ps (time requests spent in the
 * directory beyond nothing: lookups, messages, write-backs). Deterministic, allocation-free
 * after create. */
#ifndef SIMTVP_COHERENCE_H
#define SIMTVP_COHERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include "simtvp_diag.h"
#include "socmem.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;

typedef enum coherence_state { COH_I = 0, COH_S = 1, COH_E = 2, COH_M = 3 } coherence_state;
const char *coherence_state_name(coherence_state s); /* "I", "S", "E", "M" */

typedef struct coherence_port {
  void *ctx;
  void (*invalidate)(void *ctx, socmem_agent agent, uint64_t line_addr);                  /* may be NULL */
  uint64_t (*writeback)(void *ctx, socmem_agent agent, uint64_t line_addr, uint64_t now); /* may be NULL */
} coherence_port;

typedef struct coherence_config {
  uint32_t sets, ways;    /* directory entries: sets ≥ 1, 1 ≤ ways ≤ 64 */
  uint32_t line_bytes;    /* a power of two, 32..4096 */
  uint32_t caching;       /* bit (1 << agent) per agent that keeps copies */
  uint64_t lookup_ps;     /* directory lookup */
  uint64_t message_ps;    /* one round of snoop / invalidation messages */
  coherence_port port;
  struct stats *stats;    /* may be NULL */
} coherence_config;

typedef struct coherence coherence;

/* SIMTVP_ERR_CONFIG naming -coherence_dir_sets / -coherence_dir_ways / -syscache_line_bytes. */
simtvp_status coherence_create(const coherence_config *cfg, coherence **out, simtvp_diag *diag);
void coherence_destroy(coherence *d);

/* A read or write of `bytes` (≥ 1) at addr by agent arriving at now; returns when the directory
 * has done its part (≥ now + lookup_ps). */
uint64_t coherence_access(coherence *d, uint64_t addr, uint64_t bytes, bool write, socmem_agent agent, uint64_t now);
/* The agent writes back a dirty copy it evicts (the GPU L2's write-backs, whose stores the
 * directory did not see): the write's rules (every other copy is invalidated) and the agent then
 * holds nothing; returns like coherence_access. Counted as a write and a write-back. */
uint64_t coherence_writeback(coherence *d, uint64_t addr, uint64_t bytes, socmem_agent agent, uint64_t now);
/* The same for a write that goes through the agent's cache (the GPU L2's writes and atomics to
 * host memory, which it caches for reads only): counted as a write, not a write-back. */
uint64_t coherence_write_through(coherence *d, uint64_t addr, uint64_t bytes, socmem_agent agent, uint64_t now);
/* The agent dropped its copy of the line holding addr (an eviction); from M it writes back. */
void coherence_evict(coherence *d, uint64_t addr, socmem_agent agent, uint64_t now);
/* The agent's state for the line holding addr. */
coherence_state coherence_state_of(const coherence *d, uint64_t addr, socmem_agent agent);

typedef struct coherence_stats {
  uint64_t reads[SOCMEM_AGENTS], writes[SOCMEM_AGENTS], invalidations[SOCMEM_AGENTS], downgrades[SOCMEM_AGENTS];
  uint64_t messages, writebacks, recalls, latency_ps;
} coherence_stats;
void coherence_get_stats(const coherence *d, coherence_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_COHERENCE_H */
