/* cache_internal — state of the cache model core, shared by its source files only (cache.c: tag
 * array, MSHRs, read/write policies; cache_tex.c: the texture cache's fragment FIFO and reorder
 * buffer; cache_index.c: set-index functions; cache_stats.c: counters). */
#ifndef SIMTVP_CACHE_INTERNAL_H
#define SIMTVP_CACHE_INTERNAL_H

#include "cache.h"

/* Requests the cache generates carry owner_ctx = the cache and this tag in owner_tag:
 * bits 0-7 the line chunks (sectors) concerned, 8-15 the type, 16-47 the MSHR / ROB slot. */
enum { CACHE_TAG_FETCH = 1, CACHE_TAG_WRITE_BACK = 2, CACHE_TAG_TEX_FETCH = 3 };
#define CACHE_TAG(type, slot, chunks) \
  (((uint64_t)(slot) << 16) | ((uint64_t)(type) << 8) | (uint64_t)(chunks))
#define CACHE_TAG_CHUNKS(t) ((uint8_t)((t)&0xffu))
#define CACHE_TAG_TYPE(t) ((unsigned)(((t) >> 8) & 0xffu))
#define CACHE_TAG_SLOT(t) ((uint32_t)(((t) >> 16) & 0xffffffffu))

/* Breakdown columns (GPGPU-Sim's cache_request_status, as counted). */
enum { CACHE_BD_HIT, CACHE_BD_HIT_RESERVED, CACHE_BD_MISS, CACHE_BD_RESERVATION_FAIL,
       CACHE_BD_SECTOR_MISS, CACHE_BD_COUNT };

/* Zero bytes are an empty line, an empty set order, an empty map slot and an empty MSHR hash
 * chain: every link below (to a line, an MSHR entry) is stored as its index + 1, 0 for none. A
 * cache's arrays come zeroed (simtvp_zalloc), so cache_create writes no line, slot or set and a
 * large cache's pages cost a fault only once a run uses their sets. */
#define CACHE_LINK(i) ((i) + 1)      /* index i (or -1, none) as a stored link */
#define CACHE_UNLINK(v) ((v) - 1)    /* a stored link as an index, -1 for none */

typedef struct cache_line {
  uint64_t tag;            /* line address (all address bits above the line offset) */
  uint64_t last_use;       /* LRU stamp */
  uint64_t alloc_stamp;    /* FIFO stamp */
  uint64_t dirty_bytes[2]; /* dirty bytes, 128-byte-line relative (mem_req.byte_mask layout) */
  int32_t mshr1;           /* link: live MSHR entry for this line (the line is reserved), 0 none */
  uint8_t allocated;       /* tag valid */
  uint8_t valid;           /* readable chunks */
  uint8_t written;         /* chunks with written bytes, not readable (lazy fetch-on-read) */
  uint8_t dirty;           /* chunks to write back */
  int32_t older1, newer1;  /* links, with a line map: neighbours in its set's replacement order */
} cache_line;

/* With a line map (many ways), each set keeps its allocated lines in replacement order, oldest
 * first (LRU: by last use; FIFO: by allocation); stamps are unique, so the order is exactly the
 * one the stamps give and the victim is the first eligible line from the oldest end. */
typedef struct cache_set_order {
  int32_t oldest1, newest1; /* links to lines, 0 when the set holds no line */
  uint32_t allocated;       /* lines of the set with a valid tag */
} cache_set_order;

/* An entry of the line map (struct cache.map). */
typedef struct cache_line_slot {
  uint64_t line;
  int32_t li1;   /* link to the line holding `line`; 0: the slot is empty */
  uint32_t home; /* map_home(line), kept so deletion does not rehash the entries it shifts */
} cache_line_slot;
#define CACHE_MAP_MIN_ASSOC 8u

/* Entries of cache_timed_read_hit's memo (struct cache.hit_memo): a power of two. Eight hold a
 * short kernel's code lines (QV100 vector add: every warp enters 4 L1I lines in turn). */
#define CACHE_HIT_MEMO 8u

/* A request merged into an MSHR entry, waiting for the chunks in `waits`. */
typedef struct cache_waiter {
  mem_req *req;
  int32_t next;
  uint8_t waits;
} cache_waiter;

typedef struct cache_mshr {
  uint64_t line;     /* line address */
  int32_t hnext1;    /* link: next entry of its hash chain; of the free list when free */
  int32_t way;       /* index into lines[] of the line it fills, or -1 (on-fill, not yet placed) */
  int32_t wait_head, wait_tail; /* waiters in merge order */
  uint16_t fetches;  /* fetch requests in flight */
  uint16_t waiters;  /* requests merged */
  uint16_t chunk_waiters[MEM_SECTORS_PER_LINE]; /* merged requests per chunk (merge limit) */
  uint8_t pending;   /* chunks being fetched */
  uint8_t live;
} cache_mshr;

typedef struct cache_fragment {
  mem_req *req;
  int32_t rob;     /* reorder-buffer slot of its miss, or -1 for a hit */
  uint64_t ready;  /* hits: cycle its data can be read */
} cache_fragment;

typedef struct cache_rob_entry {
  uint64_t fill_time;
  uint8_t ready;
} cache_rob_entry;

/* An intrusive FIFO of requests (mem_req.next belongs to the current holder). */
typedef struct cache_req_list {
  mem_req *head, *tail;
  uint32_t len;
} cache_req_list;

typedef struct cache_stat_set {
  uint64_t *access, *miss, *pending_hit, *reservation_fail, *sector_miss, *write_back, *fill,
      *forwarded, *data_port_busy, *fill_port_busy;
  /* Registered on first use (one name formatted per counter, never per access). */
  uint64_t *breakdown[MEM_ACC_KIND_COUNT][CACHE_BD_COUNT];
  uint64_t *fail[MEM_ACC_KIND_COUNT][CACHE_FAIL_COUNT];
  char prefix[96];
  bool group;   /* names are <prefix>_cache_stats_breakdown..., else <prefix>.stats_breakdown... */
  bool enabled; /* breakdowns registered at all */
} cache_stat_set;

struct cache {
  cache_spec spec;
  cache_level level;
  bool tex;            /* F/T MSHR: fragment FIFO + reorder buffer */
  bool sector;
  bool on_fill;        /* f or s allocation */
  uint32_t n_chunks;   /* sectors per line (1 for normal caches) */
  uint32_t chunk_bytes;
  uint8_t all_chunks;
  uint32_t line_log2;
  uint64_t line_mask;  /* ~(line_bytes - 1): an address's line address */
  uint32_t set_bits;   /* log2(n_sets) when a power of two */
  bool sets_pow2;
  uint32_t assoc, max_assoc;
  uint32_t hit_latency;
  uint32_t data_port_bytes;
  uint32_t n_banks, bank_interleave;

  void *block;         /* the one allocation behind the arrays below that the spec sizes */
  cache_line *lines;   /* n_sets × max_assoc */
  uint64_t stamp;
  /* With many ways (max_assoc > CACHE_MAP_MIN_ASSOC; the QV100 L1D has 64): line address →
   * index into lines[] of the allocated line holding it, open addressing with linear probing
   * (li -1: empty), so a tag lookup does not scan every way. NULL: lookups scan the set. */
  cache_line_slot *map;
  uint32_t map_mask;
  cache_set_order *order; /* per set, with the map */
  /* With the map: per set, one bit per way that holds a line (alloc_words words a set), so the
   * lowest invalid way is a count of trailing zeros instead of a scan of every way's line. */
  uint64_t *alloc_bits;
  uint32_t alloc_words;
  /* false while every line is empty (zero bytes): a flush or an invalidation of a cache no access
   * has used reads none of its lines, so their pages stay untouched */
  bool holds_lines;

  /* set index */
  uint64_t (*index_addr)(void *ctx, uint64_t addr);
  void *index_ctx;
  uint16_t (*ipoly)[256]; /* [8][256]: residues of each byte of the line number */
  uint64_t ipoly_mask;    /* line-number bits the IPOLY hash uses */
  bool index_linear;      /* linear set index, power-of-two sets, no index_addr: the set is
                             (addr >> line_log2) & (n_sets - 1), computed inline by timed lookups */
  bool index_hook_linear; /* the same after index_addr (the L2 slices' address translation): the
                             set is (index_addr(addr) >> line_log2) & (n_sets - 1), computed inline */

  /* MSHRs */
  cache_mshr *mshr;
  uint32_t mshr_cap;
  int32_t *bucket;      /* per hash of a line address, link to the first entry of its chain */
  uint32_t bucket_bits;
  int32_t mshr_free;    /* freed entries, last freed first (-1: none) */
  uint32_t mshr_fresh;  /* entries [mshr_fresh, mshr_cap) never used yet: taken in order when none
                         * is free (the order a list of all entries would give them) */
  uint32_t mshr_live;
  uint32_t mshr_chunks; /* chunks being fetched, all entries */
  cache_waiter *waiter;
  uint32_t waiter_cap;
  int32_t waiter_free;   /* freed waiters, last freed first */
  uint32_t waiter_fresh; /* waiters [waiter_fresh, waiter_cap) never used yet: taken in order when
                          * none is free, so building a cache does not link thousands */
  uint32_t merged;

  /* queues */
  cache_req_list miss_queue;
  uint32_t miss_queue_cap;
  cache_req_list released; /* fills released these (tex: the result FIFO) */
  uint32_t released_cap;   /* tex result FIFO size, 0 = unbounded */
  cache_req_list hits;     /* hits waiting for the hit latency */
  uint32_t hits_ready;     /* requests at the head of `hits` whose latency has passed */
  uint64_t *run_ready;     /* ready cycle of each run of hits still in the latency pipe */
  uint32_t *run_count;
  uint32_t run_cap, run_head, run_n;

  /* texture */
  cache_fragment *frag;
  uint32_t frag_cap, frag_head, frag_n;
  cache_rob_entry *rob;
  uint32_t rob_cap, rob_head, rob_n;

  uint64_t epoch;      /* cache_state_epoch: bumped by every change of state */

  /* ports and time */
  cache_ports ports;
  bool miss_port_blocked, reply_port_blocked;
  uint64_t last_now;
  uint64_t data_port_free_at, fill_port_free_at;
  uint64_t *bank_used; /* cycle + 1 of the bank's last access, 0 = never */

  mem_req_pool *pool;
  bool own_pool;

  /* timed use (cache_timed.c): per line and chunk, the cycle it is readable (CACHE_NEVER: on its
   * way, not timed yet); NULL unless cache_config.timed */
  uint64_t *ready;
  /* the line the last timed lookup found or placed (checked before use: a line address lives in
   * at most one line, so an allocated line with that tag within the ways in use is the answer a
   * set lookup would give); a fill or a repeated access to the same line skips the set index */
  int32_t memo_li;
  /* cache_timed_read_hit's memo behind memo_li, checked alike: the line its lookups last found
   * for each line address modulo CACHE_HIT_MEMO, so the few lines a kernel's warps take turns at
   * (its code's L1I lines, its parameters' L1C line) are found without the set index */
  int32_t hit_memo[CACHE_HIT_MEMO];

  /* statistics */
  stats *stats;
  cache_stat_set inst, group;
  /* The group's set as every cache of the group shares it (kept by the sink, stats_shared): its
   * counters resolved once, its breakdowns as any cache registers them; NULL without a group. */
  cache_stat_set *group_shared;
  uint64_t *alias_access, *alias_miss;
  uint64_t dummy; /* target of counters nobody registered */
};

/* ---- requests ---------------------------------------------------------------------------- */

/* Chunks of the line the request touches: its sector mask in a sectored cache (or the sectors
 * addr/size cover when the mask is 0); the single chunk of a normal cache. */
static inline uint8_t cache_chunks_of(const cache *c, uint64_t addr, uint32_t size, uint8_t sector_mask) {
  if (!c->sector) return 1;
  uint8_t m = sector_mask & c->all_chunks;
  if (m) return m;
  uint32_t off = (uint32_t)(addr & (MEM_LINE_BYTES - 1));
  if (!size) size = 1;
  uint32_t last = off + size - 1;
  if (last >= MEM_LINE_BYTES) last = MEM_LINE_BYTES - 1;
  for (uint32_t s = off / MEM_SECTOR_BYTES; s <= last / MEM_SECTOR_BYTES; s++) m |= (uint8_t)(1u << s);
  return m;
}

static inline uint8_t cache_req_chunks(const cache *c, const mem_req *r) {
  return cache_chunks_of(c, r->addr, r->size, r->sector_mask);
}

/* ---- tag array: lookups and the replacement order, inlined into every path ---------------- */

/* The line map (cache.map): every allocated line once, by its address. A line only ever lives in
 * the set of its address, so the map finds what a scan of that set finds. */
static inline uint32_t cache_map_home(const cache *c, uint64_t line) {
  return (uint32_t)(((line >> c->line_log2) * 0x9E3779B97F4A7C15ull) >> 32) & c->map_mask;
}

/* Enters line li as the holder of `line` (which no line holds) into the map. */
static inline void cache_map_insert(cache *c, uint64_t line, int32_t li) {
  uint32_t home = cache_map_home(c, line), i = home;
  while (c->map[i].li1) i = (i + 1) & c->map_mask;
  c->map[i].line = line;
  c->map[i].li1 = CACHE_LINK(li);
  c->map[i].home = home;
}

/* Removes `line` from the map (nothing if no line holds it); cache.c. */
void cache_map_remove(cache *c, uint64_t line);

/* Bytes [lo, hi) of a 128-byte line as a mem_req byte mask. */
static inline void cache_byte_range(uint32_t lo, uint32_t hi, uint64_t m[2]) {
  m[0] = m[1] = 0;
  for (uint32_t w = 0; w < 2; w++) {
    uint32_t a = lo > 64 * w ? lo : 64 * w, b = hi < 64 * w + 64 ? hi : 64 * w + 64;
    if (a >= b) continue;
    uint32_t n = b - a;
    m[w] = (n == 64 ? ~0ull : ((1ull << n) - 1)) << (a - 64 * w);
  }
}

/* Bytes a request writes, 128-byte-line relative: its byte mask, else its address and size. */
static inline void cache_req_bytes(const mem_req *r, uint64_t m[2]) {
  if (r->byte_mask[0] | r->byte_mask[1]) {
    m[0] = r->byte_mask[0];
    m[1] = r->byte_mask[1];
    return;
  }
  uint32_t off = (uint32_t)(r->addr & (MEM_LINE_BYTES - 1));
  uint32_t end = off + (r->size ? r->size : 1);
  cache_byte_range(off, end > MEM_LINE_BYTES ? MEM_LINE_BYTES : end, m);
}

/* The set's replacement order (with the map): unlink line li / append it as the newest. */
/* The fields of a line that has just taken `line`: allocated, nothing valid, written or dirty yet
 * (cache_install and the timed path's fill of a free way). */
static inline void cache_line_take(cache *c, cache_line *l, uint64_t line) {
  l->tag = line;
  l->alloc_stamp = l->last_use = ++c->stamp;
  l->dirty_bytes[0] = l->dirty_bytes[1] = 0;
  l->mshr1 = 0;
  l->allocated = 1;
  l->valid = l->written = l->dirty = 0;
  c->holds_lines = true;
}

static inline void cache_order_unlink(cache *c, int32_t li) {
  cache_line *l = &c->lines[li];
  cache_set_order *o = &c->order[(uint32_t)li / c->max_assoc];
  if (l->older1) c->lines[CACHE_UNLINK(l->older1)].newer1 = l->newer1;
  else o->oldest1 = l->newer1;
  if (l->newer1) c->lines[CACHE_UNLINK(l->newer1)].older1 = l->older1;
  else o->newest1 = l->older1;
  l->older1 = l->newer1 = 0;
}

static inline void cache_order_append(cache *c, int32_t li) {
  cache_line *l = &c->lines[li];
  cache_set_order *o = &c->order[(uint32_t)li / c->max_assoc];
  l->newer1 = 0;
  l->older1 = o->newest1;
  if (o->newest1) c->lines[CACHE_UNLINK(o->newest1)].newer1 = CACHE_LINK(li);
  else o->oldest1 = CACHE_LINK(li);
  o->newest1 = CACHE_LINK(li);
}

/* Line li, not the newest of its set (lines[li].newer1 != 0), becomes the newest: unlink and
 * append in one, the set's order found once. */
static inline void cache_order_to_newest(cache *c, int32_t li) {
  cache_line *l = &c->lines[li];
  cache_set_order *o = &c->order[(uint32_t)li / c->max_assoc];
  if (l->older1) c->lines[CACHE_UNLINK(l->older1)].newer1 = l->newer1;
  else o->oldest1 = l->newer1;
  c->lines[CACHE_UNLINK(l->newer1)].older1 = l->older1;
  l->older1 = o->newest1; /* not li: li had a newer line */
  l->newer1 = 0;
  c->lines[CACHE_UNLINK(o->newest1)].newer1 = CACHE_LINK(li);
  o->newest1 = CACHE_LINK(li);
}

static inline int32_t cache_find_line(const cache *c, uint32_t set, uint64_t line) {
  uint32_t first = set * c->max_assoc;
  if (c->map) {
    for (uint32_t i = cache_map_home(c, line); c->map[i].li1; i = (i + 1) & c->map_mask)
      if (c->map[i].line == line) {
        uint32_t li = (uint32_t)CACHE_UNLINK(c->map[i].li1);
        return li >= first && li < first + c->assoc ? (int32_t)li : -1;
      }
    return -1;
  }
  const cache_line *l = &c->lines[first];
  for (uint32_t w = 0; w < c->assoc; w++)
    if (l[w].allocated && l[w].tag == line) return (int32_t)(first + w);
  return -1;
}

/* Line li was used now (LRU: it becomes the newest of its set). */
static inline void cache_touch(cache *c, int32_t li) {
  c->lines[li].last_use = ++c->stamp;
  if (c->order && c->spec.replacement == CACHE_REPL_LRU && c->lines[li].newer1) { /* now the newest */
    cache_order_to_newest(c, li);
  }
}

/* cache_index.c */
simtvp_status cache_index_init(cache *c, simtvp_diag *diag);
uint32_t cache_index_of(const cache *c, uint64_t addr);

/* cache_stats.c */
void cache_stats_init(cache *c, const cache_config *cfg);
void cache_stats_count(cache *c, uint8_t kind, cache_status status, bool sector_miss,
                       cache_fail_reason reason);
/* n reservation failures at once (cache_count_reservation_fail). */
void cache_stats_count_fails(cache *c, uint8_t kind, cache_fail_reason reason, uint64_t n);
/* The breakdown counter of (kind, col) in set s, registered on its first use (a set whose
 * breakdowns are off gets c->dummy); the slow path of cache_stats_count_ok. */
uint64_t *cache_stats_breakdown_slot(cache *c, cache_stat_set *s, uint8_t kind, unsigned col);

__attribute__((always_inline)) static inline void cache_stats_count_set(cache *c, cache_stat_set *s, uint8_t kind, unsigned col) {
  ++*s->access;
  if (col == CACHE_BD_HIT_RESERVED) ++*s->pending_hit;
  if (col == CACHE_BD_MISS || col == CACHE_BD_SECTOR_MISS) ++*s->miss;
  if (col == CACHE_BD_SECTOR_MISS) ++*s->sector_miss;
  uint64_t *p = s->breakdown[kind][col];
  if (__builtin_expect(!p, 0)) p = cache_stats_breakdown_slot(c, s, kind, col);
  ++*p;
}

/* An accepted access (col: HIT, HIT_RESERVED, MISS or SECTOR_MISS) in every counter it moves:
 * inlined, so a call site with a constant outcome pays a handful of increments. */
__attribute__((always_inline)) static inline void cache_stats_count_ok(cache *c, uint8_t kind, unsigned col) {
  if (__builtin_expect(kind >= MEM_ACC_KIND_COUNT, 0)) kind = MEM_ACC_GLOBAL_R; /* count it somewhere */
  cache_stats_count_set(c, &c->inst, kind, col);
  cache_stats_count_set(c, &c->group, kind, col);
  ++*c->alias_access;
  if (col == CACHE_BD_MISS || col == CACHE_BD_SECTOR_MISS) ++*c->alias_miss;
}

/* cache.c, used by cache_tex.c */
void cache_list_push(cache_req_list *l, mem_req *r);
mem_req *cache_list_pop(cache_req_list *l);
int32_t cache_pick_victim(const cache *c, uint32_t set, bool allow_reserved);
void cache_evict(cache *c, int32_t li, const mem_req *trigger);
void cache_install(cache *c, int32_t li, uint64_t line);
mem_req *cache_new_fetch(cache *c, uint64_t line, uint8_t chunks, uint8_t kind,
                         const mem_req *trigger, uint64_t owner_tag);
void cache_complete(cache *c, mem_req *req); /* to the released list (or freed) */
void cache_use_fill_port(cache *c, uint32_t bytes, uint64_t now);
void cache_write_bypass(cache *c, mem_req *req, uint64_t now, cache_outcome *o);

/* cache_tex.c */
simtvp_status cache_tex_init(cache *c);
void cache_tex_access(cache *c, mem_req *req, uint64_t now, cache_outcome *o);
void cache_tex_fill(cache *c, mem_req *reply, uint64_t now);
void cache_tex_progress(cache *c, uint64_t now);
uint64_t cache_tex_next_event(const cache *c);
void cache_tex_destroy(cache *c);

#endif /* SIMTVP_CACHE_INTERNAL_H */
