/* cache — one cache + MSHR model core for every cache of the GPU: L1 instruction (L1I), L1 data
 * (L1D), constant (L1C), texture (L1T) and the L2 slices of the memory partitions.
 *
 * Follows the GPGPU-Sim 3.x manual (§3.3.x "Caches", the L1 data cache write-policy table, the
 * texture cache's prefetching design) and the 4.x / Accel-Sim additions (sectored lines, the
 * fetch-on-write and lazy-fetch-on-read write-allocate policies, the streaming L1). It is
 * configured with GPGPU-Sim's cache configuration strings, taken as they are
 * ("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32", "none"); docs/cache.md documents every field.
 *
 * Timing models move addresses and masks, never data (DESIGN.md §3): the cache keeps tags,
 * per-sector valid / dirty / pending state and MSHRs, and decides when a request completes.
 *
 * How an owner drives it (docs/cache.md has the long form):
 *   - cache_access(c, req, now): HIT / HIT_RESERVED / MISS, or RESERVATION_FAIL (the caller keeps
 *     the request and retries later). Any other status means the cache has taken the request.
 *   - Misses and write-backs leave through the miss queue: the `next_level` port, or
 *     cache_miss_peek / cache_miss_pop when the owner drains it.
 *   - Replies from the next level go to cache_fill(c, reply, now); it returns false for replies
 *     that are not fills of this cache (acks of writes the cache forwarded), which the owner
 *     routes to the requester itself.
 *   - Completed requests (is_reply set) leave through the `reply` port or cache_reply_pop.
 *   - cache_advance(c, now) / cache_next_event(c): time in cycles of the owner's clock.
 *
 * No globals, no I/O, no allocation per access: lines, MSHRs and FIFOs are sized from the
 * configuration at create time; requests the cache generates come from a mem_req_pool. */
#ifndef SIMTVP_CACHE_H
#define SIMTVP_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem_req.h"
#include "simtvp_diag.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "Never" for cache_next_event: nothing will happen until the owner calls in. */
#define CACHE_NEVER UINT64_MAX

/* ---- configuration string (GPGPU-Sim format) --------------------------------------------------- */

typedef enum cache_type {
  CACHE_TYPE_NORMAL = 0, /* 'N': one valid/dirty state per line, whole lines fetched */
  CACHE_TYPE_SECTOR      /* 'S': 128-byte lines of four 32-byte sectors, only missing sectors fetched */
} cache_type;

typedef enum cache_replacement {
  CACHE_REPL_LRU = 0, /* 'L': least recently used */
  CACHE_REPL_FIFO     /* 'F': first allocated */
} cache_replacement;

typedef enum cache_write_policy {
  CACHE_WP_READ_ONLY = 0,     /* 'R': no writes expected; a write bypasses (invalidates, forwarded) */
  CACHE_WP_WRITE_BACK,        /* 'B': writes stay in the cache, dirty lines written back on eviction */
  CACHE_WP_WRITE_THROUGH,     /* 'T': every write is forwarded; lines stay clean */
  CACHE_WP_WRITE_EVICT,       /* 'E': every write is forwarded and evicts the written sectors */
  CACHE_WP_LOCAL_WB_GLOBAL_WT /* 'L': local writes write-back, other writes write-evict (Fermi L1) */
} cache_write_policy;

typedef enum cache_alloc_policy {
  CACHE_ALLOC_ON_MISS = 0, /* 'm': a line is reserved when the miss is sent */
  CACHE_ALLOC_ON_FILL,     /* 'f': a line is taken when the fill arrives */
  CACHE_ALLOC_STREAMING    /* 's': streaming (Volta L1): on-fill, lines never block a miss */
} cache_alloc_policy;

typedef enum cache_write_alloc {
  CACHE_WA_NO_WRITE_ALLOCATE = 0, /* 'N': write misses are forwarded, nothing allocated */
  CACHE_WA_WRITE_ALLOCATE,        /* 'W': forward the write and fetch the line (GPGPU-Sim 3.x) */
  CACHE_WA_FETCH_ON_WRITE,        /* 'F': allocate, fetch what the write does not cover, merge */
  CACHE_WA_LAZY_FETCH_ON_READ     /* 'L': allocate without fetching; fetch when a read needs it */
} cache_write_alloc;

typedef enum cache_set_index {
  CACHE_INDEX_LINEAR = 0, /* 'L': line number modulo sets */
  CACHE_INDEX_FERMI_HASH, /* 'H': Fermi L1 XOR hash (32 or 64 sets) */
  CACHE_INDEX_IPOLY,      /* 'P': irreducible-polynomial hash (power-of-two sets) */
  CACHE_INDEX_XOR,        /* 'X': index XOR low tag bits (power-of-two sets) */
  CACHE_INDEX_CUSTOM      /* 'C': GPGPU-Sim's per-config custom function: parsed, not supported */
} cache_set_index;

typedef enum cache_mshr_type {
  CACHE_MSHR_ASSOC = 0,       /* 'A': associative MSHRs that merge requests to the same line */
  CACHE_MSHR_SECTOR_ASSOC,    /* 'S': the same, next level sectored (behaves as 'A') */
  CACHE_MSHR_TEX_FIFO,        /* 'F': texture cache: fragment FIFO + reorder buffer */
  CACHE_MSHR_SECTOR_TEX_FIFO  /* 'T': the same, next level sectored (behaves as 'F') */
} cache_mshr_type;

/* A parsed configuration string. Units: bytes, entries. */
typedef struct cache_spec {
  bool disabled; /* "none": the cache forwards every access (see cache_access) */
  cache_type type;
  uint32_t n_sets;
  uint32_t line_bytes;
  uint32_t assoc;
  cache_replacement replacement;
  cache_write_policy write_policy;
  cache_alloc_policy alloc_policy;
  cache_write_alloc write_alloc;
  cache_set_index set_index;
  cache_mshr_type mshr_type;
  uint32_t mshr_entries;        /* A/S: MSHR entries.            F/T: fragment FIFO entries */
  uint32_t mshr_max_merge;      /* A/S: requests per MSHR entry. F/T: request FIFO entries */
  uint32_t miss_queue_entries;  /* A/S: miss queue entries.      F/T: reorder buffer entries */
  uint32_t result_fifo_entries; /* F/T: result FIFO entries (0: unbounded); A/S: unused */
  uint32_t data_port_bytes;     /* bytes the data array reads or writes per cycle (0 → line) */
} cache_spec;

/* Parses a GPGPU-Sim cache configuration string:
 *   none
 *   [T:]sets:line:assoc,repl:write:alloc:write_alloc[:set_index],mshr:entries:merge,mq[:rfifo[,port]]
 * `option` (may be NULL) names the option it came from ("-gpgpu_cache:dl1") for the diag. A
 * malformed string gives SIMTVP_ERR_PARSE naming the field, its column and the string; a
 * well-formed but inconsistent one SIMTVP_ERR_CONFIG; 'C' (custom set index) UNSUPPORTED. */
simtvp_status cache_spec_parse(const char *text, const char *option, cache_spec *spec,
                               simtvp_diag *diag);
/* Checks the combination of fields (also done by cache_spec_parse and cache_create). */
simtvp_status cache_spec_validate(const cache_spec *spec, const char *option, simtvp_diag *diag);
/* Writes the canonical string for spec (always the full 4.x form); returns the length it needs. */
size_t cache_spec_format(const cache_spec *spec, char *buf, size_t size);
/* Capacity in bytes (sets × assoc × line). */
uint64_t cache_spec_capacity(const cache_spec *spec);

/* ---- the cache --------------------------------------------------------------------------------- */

typedef struct cache cache;

/* Which level this instance is: chooses the kinds of the requests it generates
 * (L1_WRBK / L2_WRBK for write-backs, L1_WR_ALLOC_R / L2_WR_ALLOC_R for write-allocate fetches). */
typedef enum cache_level { CACHE_LEVEL_L1 = 0, CACHE_LEVEL_L2 } cache_level;

/* An output of the cache. send returns false when the receiver cannot take the request this
 * cycle: the cache keeps it, offers it again at the next cache_advance, and meanwhile reports
 * next_event = the following cycle. A port with send == NULL is drained by the owner instead. */
typedef struct cache_port {
  void *ctx;
  bool (*send)(void *ctx, mem_req *req, uint64_t now);
} cache_port;

typedef struct cache_ports {
  cache_port next_level; /* fetches, write-backs and forwarded writes (the miss queue) */
  cache_port reply;      /* completed requests, is_reply set */
} cache_ports;

typedef struct cache_config {
  cache_spec spec;
  cache_level level;
  uint32_t hit_latency;           /* core-clock cycles from a hit to its reply (-gpgpu_l1_latency) */
  uint32_t n_banks;               /* data-array banks (-gpgpu_l1_banks); 0 or 1: one bank */
  uint32_t bank_interleave_bytes; /* bytes per bank before the next (-gpgpu_l1_banks_byte_interleaving);
                                   * 0 → line size */
  uint32_t max_assoc;             /* ways allocated per set for cache_set_assoc (0 → spec.assoc) */
  /* Statistics (docs/cache.md "Statistics"): all optional. */
  stats *stats;
  const char *name;        /* instance, e.g. "L1D_cache_core[3]": <name>.access, .miss, ... */
  const char *stats_group; /* "L1D", "L1I", "L1C", "L1T", "L2": <group>_total_cache_accesses ... */
  const char *stats_total_alias;  /* "dl1": total_dl1_accesses, total_dl1_misses, total_dl1_miss_rate */
  bool stats_instance_breakdown;  /* also <name>.stats_breakdown[KIND][STATUS] per instance */
  /* Where fetch and write-back requests are allocated; NULL: the cache owns a pool. */
  mem_req_pool *pool;
  /* Address used for set indexing (the L2 strips the partition bits, GPGPU-Sim's
   * partition_address); NULL: the address itself. Tags always use the full address. */
  uint64_t (*index_addr)(void *ctx, uint64_t addr);
  void *index_ctx;
  cache_ports ports;
  /* Timed use (cache_timed_*, approximately-timed owners): keeps a ready cycle per sector. */
  bool timed;
} cache_config;

/* Creates a cache; on bad configuration returns the status, fills diag and sets *out = NULL. */
simtvp_status cache_create(const cache_config *config, cache **out, simtvp_diag *diag);
/* Frees the cache; requests it still holds are returned to their pools. A cache that owns its
 * pool (cfg.pool NULL) frees it too: destroy it only after its fetches have come back. */
void cache_destroy(cache *c);

typedef enum cache_status {
  CACHE_HIT = 0,          /* served by the cache */
  CACHE_HIT_RESERVED,     /* the data is on its way: merged into the MSHR of an earlier miss */
  CACHE_MISS,             /* a request to the next level was queued (or the access went through) */
  CACHE_RESERVATION_FAIL, /* no line / MSHR / queue space: nothing changed, retry later */
  CACHE_STATUS_COUNT
} cache_status;

typedef enum cache_fail_reason {
  CACHE_FAIL_NONE = 0,
  CACHE_FAIL_LINE_ALLOC,         /* every line of the set is reserved by a pending miss */
  CACHE_FAIL_MISS_QUEUE_FULL,    /* no room in the miss queue (tex: request FIFO) */
  CACHE_FAIL_MSHR_ENTRY,         /* no free MSHR entry (sector caches: sector slot) */
  CACHE_FAIL_MSHR_MERGE,         /* the MSHR entry already holds max-merge requests */
  CACHE_FAIL_FRAGMENT_FIFO_FULL, /* texture: fragment FIFO full */
  CACHE_FAIL_ROB_FULL,           /* texture: reorder buffer full */
  CACHE_FAIL_COUNT
} cache_fail_reason;

/* Details of one access (all optional to read). */
typedef struct cache_outcome {
  cache_status status;
  cache_fail_reason reason; /* when status is RESERVATION_FAIL */
  bool sector_miss;         /* MISS on a line whose tag was present (some sectors missing) */
  bool forwarded;           /* the request itself went into the miss queue (write-through, bypass) */
  uint8_t fetches;          /* fetch requests queued by this access */
  uint8_t write_backs;      /* write-back requests queued by this access */
} cache_outcome;

/* Presents one request at cycle `now`. The request addresses one line (the caller splits
 * requests that cross lines); its sector_mask (or addr/size when 0) says which sectors it
 * needs, its byte_mask (or addr/size) which bytes a write writes. Kinds: reads GLOBAL_R,
 * LOCAL_R, CONST_R, TEXTURE_R, INST_R and the WR_ALLOC_R kinds; writes GLOBAL_W, LOCAL_W and the
 * WRBK kinds (is_write); MEM_ACC_ATOMIC is a read that leaves the line dirty (L2 atomics: the
 * caller executes the data semantics elsewhere). `out` may be NULL. */
cache_status cache_access(cache *c, mem_req *req, uint64_t now, cache_outcome *out);

/* What cache_access would answer now (HIT, HIT_RESERVED or MISS), changing nothing: no LRU
 * update, no statistics. For tests and for owners that look before they leap. */
cache_status cache_probe(const cache *c, const mem_req *req);

/* A reply from the next level. True when it was a fill of this cache (the cache consumes and
 * frees it, installs the sectors, releases merged requests in merge order); false when it is
 * not this cache's (e.g. the ack of a write the cache forwarded): nothing changed. */
bool cache_fill(cache *c, mem_req *reply, uint64_t now);

/* Does everything due up to `now`: hit latency expiry, texture fragments, port offers. */
void cache_advance(cache *c, uint64_t now);
/* Earliest cycle at which the cache has something to do or to hand out (≤ the last `now` when
 * an output is waiting to be drained); CACHE_NEVER when idle. */
uint64_t cache_next_event(const cache *c);

/* Miss queue, when the owner drains it (no next_level port): head request, or NULL. */
mem_req *cache_miss_peek(const cache *c);
mem_req *cache_miss_pop(cache *c);
uint32_t cache_miss_queue_length(const cache *c);

/* Completed requests ready at `now` (is_reply set), when the owner drains them: fills release
 * first, then hits whose latency has passed. NULL when none. */
mem_req *cache_reply_peek(cache *c, uint64_t now);
mem_req *cache_reply_pop(cache *c, uint64_t now);

/* Data-array and fill ports (data_port_bytes per cycle): a hit occupies the data port, a fill
 * the fill port, for ceil(bytes / data_port_bytes) cycles. The owner checks before it accesses. */
bool cache_data_port_free(const cache *c, uint64_t now);
bool cache_fill_port_free(const cache *c, uint64_t now);
/* The first cycle at which the data port is free (for owners that skip cycles). */
uint64_t cache_data_port_free_from(const cache *c);
/* Banks: one access per bank per cycle (GPGPU-Sim's L1 latency queue per bank). */
uint32_t cache_bank(const cache *c, uint64_t addr);
bool cache_bank_free(const cache *c, uint64_t addr, uint64_t now);

/* Retrying a failed access. A reservation failure repeats while the cache's state stays the
 * same: cache_state_epoch changes whenever something happens that can change the answer to an
 * access (an access that is not a reservation failure, a fill, a miss taken off the miss queue, a
 * flush, an invalidation, a new associativity, texture-cache progress). An owner that retries
 * the same request at an unchanged epoch may skip the access and count the failure with
 * cache_count_reservation_fail, which bumps exactly the statistics cache_access would. Texture
 * caches (F/T MSHR) also change with time alone: the epoch promises nothing for them. */
uint64_t cache_state_epoch(const cache *c);
/* n failures of a `kind` request for `reason`, the last one at cycle now (n 1: one retry; more:
 * retries of skipped cycles counted in bulk). */
void cache_count_reservation_fail(cache *c, uint8_t kind, cache_fail_reason reason, uint64_t now, uint64_t n);

/* ---- timed use (approximately-timed owners; docs/cache.md "Timed use") ----------------------------
 * The owner decides hit or miss at the moment of the access and keeps time itself: the cache holds
 * per sector the cycle from which it is readable. A cache created with cache_config.timed is used
 * only through these calls (plus flush/invalidate/lookups); nothing is ever refused, no request is
 * queued or allocated, and the statistics are counted under the same names as cache_access. */
typedef struct cache_timed_result {
  cache_status status;   /* HIT, HIT_RESERVED (every sector present, one still on its way), MISS */
  uint64_t ready;        /* HIT: now; HIT_RESERVED: the cycle its last sector is readable, or
                            CACHE_NEVER when that fill is not timed yet; MISS: CACHE_NEVER */
  uint64_t pending_ready;/* MISS: latest ready cycle of the needed sectors already on their way (0) */
  uint64_t line;         /* line address of the access */
  uint8_t fetch;         /* MISS: chunks to fetch from the next level (then cache_timed_fill) */
  bool forward;          /* the access itself goes to the next level (write-through, write-evict,
                            no-write-allocate miss, read-only bypass, a disabled cache) */
  bool data_port;        /* the access used the data array (a read hit, a write into the cache):
                            it holds the data port ceil(size / port width) cycles, as cache_access */
  uint8_t wb_chunks;     /* an evicted (or write-evicted) line's dirty chunks to write back … */
  uint64_t wb_line;      /* … of this line */
} cache_timed_result;

/* Presents req (one line; kind, is_write, sector/byte masks as for cache_access) at cycle now. */
void cache_timed_access(cache *c, const mem_req *req, uint64_t now, cache_timed_result *out);
/* A read (not an atomic) of [addr, addr + size) with sector_mask (as mem_req's) at cycle now
 * that finds every chunk it needs in the cache: looked up, touched and counted exactly as
 * cache_timed_access would, without a request or a result to fill. CACHE_HIT (*ready = now) or
 * CACHE_HIT_RESERVED (*ready = its last chunk's ready cycle, CACHE_NEVER while untimed), *line
 * the line address (cache_timed_result's fields); anything
 * else (a chunk absent, a disabled cache, an atomic) is CACHE_MISS with nothing changed or
 * counted — then cache_timed_access. */
cache_status cache_timed_read_hit(cache *c, uint64_t addr, uint32_t size, uint8_t sector_mask, uint8_t kind,
                                  uint64_t now, uint64_t *ready, uint64_t *line);
/* The chunks of `line` fetched after a MISS are readable from cycle t. */
void cache_timed_fill(cache *c, uint64_t line, uint8_t chunks, uint64_t t);
/* Chunks (sectors; the one chunk of a normal cache) of its line that req touches. */
uint8_t cache_req_chunks_of(const cache *c, const mem_req *req);
/* The sectors of its 128-byte line that `chunks` of this cache's line `line` cover — what a fill
 * or a write-back of them reads or writes beyond the cache (the CA path's fill and write-back
 * requests): a sectored cache's chunks are sectors; another cache's line is whole (a 128-byte line
 * all four sectors, a 64-byte one the two it spans). */
uint8_t cache_line_sectors(const cache *c, uint64_t line, uint8_t chunks);
/* Ready cycle of the chunks of the line holding addr; CACHE_NEVER when one is absent or untimed. */
uint64_t cache_timed_ready(const cache *c, uint64_t addr, uint8_t chunks);
/* Reports every dirty line through write_back and empties the cache; returns the lines written back. */
uint32_t cache_timed_flush(cache *c, void (*write_back)(void *ctx, uint64_t line, uint8_t chunks), void *ctx);

/* Set that an address maps to (after index_addr and the set-index function). */
uint32_t cache_set_of(const cache *c, uint64_t addr);

/* Writes back every dirty line (write-back requests into the miss queue, beyond its nominal
 * size) and invalidates the lines without pending fills; returns the write-backs queued. */
uint32_t cache_flush(cache *c, uint64_t now);
/* Invalidates every line without a pending fill, dropping dirty data; returns lines dropped. */
uint32_t cache_invalidate(cache *c);
/* Invalidates the line holding addr (a coherence invalidation from outside: the system's directory,
 * docs/system-modes.md), dropping its data, dirty or not (values are functional; the holder's
 * write-back was accounted by whoever invalidates); a line with a pending fill keeps its
 * reservation and forgets its data. true when a line held addr. */
bool cache_invalidate_line(cache *c, uint64_t addr);
/* Changes the associativity (≤ max_assoc) between kernels (Volta's adaptive L1): only when no
 * miss is outstanding (SIMTVP_ERR_STATE otherwise); invalidates the cache. */
simtvp_status cache_set_assoc(cache *c, uint32_t assoc, simtvp_diag *diag);

/* State of the line holding addr, for tests and deadlock dumps. Masks are per sector (bit 0
 * only for normal caches). False when no line holds it. */
typedef struct cache_line_state {
  uint32_t set, way;
  uint8_t valid;   /* readable sectors */
  uint8_t written; /* sectors holding written bytes but not readable (lazy fetch-on-read) */
  uint8_t dirty;   /* sectors to write back */
  uint8_t pending; /* sectors being fetched */
} cache_line_state;
bool cache_line_lookup(const cache *c, uint64_t addr, cache_line_state *state);

/* Occupancy, for deadlock dumps and tests. */
typedef struct cache_occupancy {
  uint32_t mshr_entries;   /* live MSHR entries (texture: fragments in the fragment FIFO) */
  uint32_t mshr_sectors;   /* sectors being fetched (texture: reorder buffer entries) */
  uint32_t miss_queue;     /* requests waiting in the miss queue */
  uint32_t replies;        /* completed requests not yet handed out (incl. hits in flight) */
  uint32_t merged;         /* requests waiting in MSHRs */
} cache_occupancy;
void cache_get_occupancy(const cache *c, cache_occupancy *occ);
/* True when the cache holds no request and expects no fill. */
bool cache_is_idle(const cache *c);

const cache_spec *cache_get_spec(const cache *c);
/* GPGPU-Sim's names: "HIT", "HIT_RESERVED", "MISS", "RESERVATION_FAIL". */
const char *cache_status_name(cache_status status);
/* GPGPU-Sim's names incl. its spelling: "LINE_ALLOC_FAIL", "MISS_QUEUE_FULL", "MSHR_ENRTY_FAIL",
 * "MSHR_MERGE_ENRTY_FAIL"; ours: "FRAGMENT_FIFO_FULL", "ROB_FULL". */
const char *cache_fail_reason_name(cache_fail_reason reason);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CACHE_H */
