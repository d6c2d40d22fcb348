/* mempart — one memory partition of the GPU (one DRAM channel) with its L2 sub-partitions.
 *
 * Follows the GPGPU-Sim 3.x manual §2.5 ("Memory Partition") and its 4.x options. Each
 * sub-partition (an L2 slice, an interconnect node of its own) has the queues of the manual:
 *
 *   icnt ──push──▶ ROP delay ──▶ ICNT→L2 ──▶ L2 slice ──miss queue──▶ L2→DRAM ─┐
 *   icnt ◀─reply── L2→ICNT ◀──────────────┘   ▲ fill                          │ arbitration
 *                     ▲                        │                               ▼ (round robin)
 *                     └──────────────────── DRAM→L2 ◀── DRAM return    DRAM latency queue ──▶ DRAM
 *
 * - ROP: every request waits rop_latency cycles (-gpgpu_l2_rop_latency) before it enters the
 *   ICNT→L2 queue; a sub-partition takes at most one request per cycle and refuses when its
 *   ICNT→L2 queue is full (GPGPU-Sim's "DRAM full" stall, gpu_stall_dramfull).
 * - L2: a models/cache instance per sub-partition (-gpgpu_cache:dl2: sectors, write policies,
 *   MSHRs, L2 atomics marking lines dirty), set index from the address with the partition (channel)
 *   and sub-partition bits removed (GPGPU-Sim's partition address). -gpgpu_cache:dl2_texture_only
 *   lets only texture reads use it; "none" or bypass sends requests straight to L2→DRAM;
 *   -l2_ideal answers every access as a hit.
 * - DRAM side: the sub-partitions' L2→DRAM queues are arbitrated round robin, one request per
 *   cycle, into the DRAM latency queue (-dram_latency); its head goes to the DRAM controller
 *   through a port. The controller is NOT inside this block: it lives behind `ports.dram` (its
 *   own shell, at or ca per channel) and hands finished requests back with mempart_dram_return.
 * - Replies (read data, write and atomic acknowledgements when needs_reply is set) leave through
 *   `ports.reply` with back-pressure; writes without needs_reply and L2 write-backs end here.
 *
 * Time: integer cycles of the L2 clock for every queue of the block (GPGPU-Sim splits the
 * partition over three domains: ICNT→L2 push and the L2 slice in the L2 domain, the DRAM latency
 * queue and the sub-partition arbitration in the DRAM domain, the L2→ICNT pop in the interconnect
 * domain; here the partition is one L2-clocked block and the clock crossings are the shells'
 * business — docs/mempart.md). Every queue-to-queue move takes one cycle; stages run downstream
 * first, so a request moves at most one stage per cycle. Deterministic, no allocation per request
 * (queues are intrusive lists through mem_req.next, delay lines are rings sized at create). */
#ifndef SIMTVP_MEMPART_H
#define SIMTVP_MEMPART_H

#include <stdbool.h>
#include <stdint.h>

#include "mem_req.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;
struct cache;
struct dram_addrmap;
struct gpu_config;

#define MEMPART_NEVER UINT64_MAX

typedef struct mempart_ports {
  void *ctx;
  /* A reply (is_reply set, dst_node = the requester's src_node) from sub-partition `sub` (local
   * index) toward the interconnect. false = refused: the partition keeps it at the head of the
   * L2→ICNT queue and offers nothing more from `sub` until mempart_reply_ready(sub). */
  bool (*reply)(void *ctx, uint32_t sub, mem_req *req, uint64_t now);
  /* A request for the DRAM controller. false = refused: the partition keeps it at the head of
   * the DRAM latency queue until mempart_dram_ready. */
  bool (*dram)(void *ctx, mem_req *req, uint64_t now);
  /* Optional, approximately-timed partitions only: a reply whose departure from sub-partition
   * `sub` is known now to be cycle `at` (≥ now) is handed over at once instead of through `reply`
   * at that cycle (an approximately-timed interconnect times it onward). false: not taken, it goes
   * through `reply` at `at`. */
  bool (*reply_timed)(void *ctx, uint32_t sub, mem_req *req, uint64_t at, uint64_t now);
  /* Optional: requests for system memory (mem_req.aperture MEM_APERTURE_SYSMEM) leave here for
   * the GPU's hub instead of through `dram` (same rules: false = refused until
   * mempart_dram_ready; finished ones come back with mempart_dram_return). NULL: through `dram`. */
  bool (*sysmem)(void *ctx, mem_req *req, uint64_t now);
} mempart_ports;

typedef struct mempart_config {
  const char *model;          /* "ca" (NULL: ca) or "at" (-mempart_model; docs/mempart.md) */
  uint32_t partition;         /* channel index (mem_req.partition; statistics names) */
  uint32_t n_sub;             /* -gpgpu_n_sub_partition_per_mchannel: L2 slices (power of two) */
  const char *l2;             /* -gpgpu_cache:dl2 of each slice; NULL or "none": no L2 */
  bool l2_texture_only;       /* -gpgpu_cache:dl2_texture_only: only TEXTURE_R uses the L2 */
  bool l2_ideal;              /* -l2_ideal: every access hits */
  bool sysmem_in_l2;          /* the slices cache system memory (aperture SYSMEM) as well; false:
                               * such requests go around the L2 (docs/system-modes.md) */
  /* -gpgpu_dram_partition_queues, entries per sub-partition (0 = unlimited). */
  uint32_t queue_icnt_to_l2, queue_l2_to_dram, queue_dram_to_l2, queue_l2_to_icnt;
  uint32_t rop_latency;       /* L2 cycles (-gpgpu_l2_rop_latency is in core cycles:
                               * mempart_config_from_gpu converts) */
  uint32_t dram_latency;      /* L2 cycles (-dram_latency, core cycles, converted likewise) */
  uint32_t atomic_ops;        /* -gpgpu_l2_atomic_ops_per_cycle: lane operations a slice's atomic
                               * unit executes per L2 cycle; 0 = unlimited */
  /* L2 set indexing: -gpgpu_mem_addr_mapping and -gpgpu_n_mem tell which address bits select
   * the channel and the sub-partition; they are removed from the index address. NULL: the
   * address is used as it is. */
  const char *addr_mapping;
  uint32_t n_channels;
  /* Optional: every request pushed is decoded and checked to belong to this partition and
   * sub-partition (a misrouted request is reported through `msg` and counted, then served). */
  const struct dram_addrmap *addrmap;
  struct stats *stats;        /* counters registered here when non-NULL */
  mem_req_pool *pool;         /* the L2's own requests (fetches, write-backs); NULL: owns one */
  simtvp_msg_port msg;        /* errors found while running (misrouted requests) */
  mempart_ports ports;
} mempart_config;

/* Defaults of GPGPU-Sim's options: 1 sub-partition, queues 8:8:8:8, ROP 85, DRAM latency 30
 * (taken as L2 cycles), the 3.x default L2 "64:128:8,L:B:m:N,A:16:4,4", L2 for all accesses. */
void mempart_config_default(mempart_config *cfg);

/* Fills the fields that come from a gpu_config (finalized): sub-partitions, L2 string and
 * flags, queue sizes, the address mapping, and the ROP and DRAM latencies converted from core
 * cycles to L2 cycles, rounded up: ceil(latency × l2_mhz / core_mhz). Leaves stats, pool, msg,
 * ports and addrmap as they are. Fails (diag naming the option) on bad clock domains. */
simtvp_status mempart_config_from_gpu(const struct gpu_config *g, uint32_t partition,
                                      mempart_config *cfg, simtvp_diag *diag);

typedef struct mempart mempart;

/* Creates a partition; on bad configuration returns the status with a diag naming the option
 * (-gpgpu_cache:dl2, -gpgpu_mem_addr_mapping, -gpgpu_n_sub_partition_per_mchannel …). */
simtvp_status mempart_create(const mempart_config *cfg, mempart **out, simtvp_diag *diag);
/* Frees the partition; requests it still holds are returned to their pools. */
void mempart_destroy(mempart *mp);
/* "ca" or "at". */
const char *mempart_model_name(const mempart *mp);
/* The model names a -mempart_model / -mempart_model_override value may use, for messages. */
#define MEMPART_MODELS "ca, at"

/* ---- timed access (approximately-timed partitions) --------------------------------------------
 * An approximately-timed neighbour (the AT interconnect's timed transport) hands a request over
 * and learns at once when its reply leaves: */
typedef enum mempart_timed_status {
  MEMPART_DONE = 0,   /* *reply_at: the cycle the reply leaves the sub-partition; req is now the
                         reply (is_reply set, dst_node = src_node), the caller's again. A request
                         that needs no reply is the partition's (freed or sent on to the DRAM):
                         *reply_at is the cycle the L2 took it. */
  MEMPART_DEFERRED    /* the partition keeps req (an L2 miss waits for the DRAM); its reply leaves
                         later through ports.reply_timed or ports.reply */
} mempart_timed_status;
/* true for "at" partitions (mempart_access_timed may be used). */
bool mempart_is_timed(const mempart *mp);
mempart_timed_status mempart_access_timed(mempart *mp, uint32_t sub, mem_req *req, uint64_t now,
                                          uint64_t *reply_at);

/* Would sub-partition `sub` take a request at cycle `now`? (one per cycle, ROP and ICNT→L2 room) */
bool mempart_can_accept(const mempart *mp, uint32_t sub, uint64_t now);
/* A request from the interconnect for sub-partition `sub` (local index) at cycle `now` (>= every
 * earlier now; cycles before it are completed first). false = refused, nothing kept (the caller
 * retries; the cycles it waits are counted as gpu_stall_dramfull). */
bool mempart_push(mempart *mp, uint32_t sub, mem_req *req, uint64_t now);
/* A request the DRAM controller has finished. Writes that need no reply and L2 write-backs end
 * here (returned to their pools); others enter their sub-partition's DRAM→L2 queue. false = that
 * queue is full, nothing kept (the controller keeps it in its return queue). */
bool mempart_dram_return(mempart *mp, mem_req *req, uint64_t now);
/* Would mempart_dram_return take req now? */
bool mempart_can_return(const mempart *mp, const mem_req *req);
/* The interconnect port of `sub`, which refused a reply, has room again. */
void mempart_reply_ready(mempart *mp, uint32_t sub, uint64_t now);
/* The DRAM port, which refused a request, has room again. */
void mempart_dram_ready(mempart *mp, uint64_t now);

/* Does everything due up to and including cycle `now`. */
void mempart_advance(mempart *mp, uint64_t now);
/* The next cycle at which something can happen; MEMPART_NEVER when idle or blocked on a port. */
uint64_t mempart_next_event(const mempart *mp);

/* Writes every dirty L2 line back (-gpgpu_flush_l2_cache at kernel end) at cycle `now`; returns
 * the write-backs queued. Invalidate drops every L2 line without a pending fill. */
uint32_t mempart_flush_l2(mempart *mp, uint64_t now);
uint32_t mempart_invalidate_l2(mempart *mp);
/* Invalidates the L2 line holding addr in local sub-partition `sub` (a coherence invalidation from
 * the system's directory, docs/system-modes.md); true when the slice held it. */
bool mempart_invalidate_l2_line(mempart *mp, uint32_t sub, uint64_t addr);

/* The address the L2 slices index with: channel and sub-partition bits removed. */
uint64_t mempart_index_addr(const mempart *mp, uint64_t addr);

/* The L2 slice of `sub` (NULL without an L2), for tests and deadlock dumps. */
const struct cache *mempart_l2(const mempart *mp, uint32_t sub);

/* Queue lengths of one sub-partition (and the partition's DRAM latency queue). */
typedef struct mempart_occupancy {
  uint32_t rop, icnt_to_l2, l2_to_dram, dram_to_l2, l2_to_icnt;
  uint32_t dram_latency; /* partition-wide */
} mempart_occupancy;
void mempart_get_occupancy(const mempart *mp, uint32_t sub, mempart_occupancy *occ);
/* True when no request is held anywhere in the partition (queues, L2 MSHRs and replies). */
bool mempart_is_idle(const mempart *mp);

/* Counts kept by the partition (the same values the stats sink gets). */
typedef struct mempart_stats {
  uint64_t cycles;           /* L2 cycles accounted (up to the last cycle advanced) */
  uint64_t requests;         /* requests accepted from the interconnect */
  uint64_t replies;          /* replies handed to the interconnect */
  uint64_t dram_reads, dram_writes; /* requests handed to the DRAM controller */
  uint64_t l2_bypassed;      /* requests that went around the L2 */
  uint64_t stall_dramfull;   /* cycles requests waited at a full sub-partition */
  uint64_t stall_icnt2sh;    /* cycles replies waited for the interconnect */
  uint64_t stall_dram_port;  /* cycles the DRAM latency queue's head waited for the controller */
  uint64_t misrouted;        /* requests that did not belong here */
} mempart_stats;
void mempart_get_stats(const mempart *mp, mempart_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_MEMPART_H */
