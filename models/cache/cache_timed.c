/* cache_timed — the cache used by approximately-timed owners (docs/cache.md "Timed use"): the AT
 * SIMT core's L1s and the AT memory partition's L2 slices decide hit or miss at the moment of the
 * access and keep, per sector, the cycle from which it is readable, instead of moving requests
 * through MSHRs, a miss queue and a hit pipeline.
 *
 * Same tag array, set-index functions, replacement order and statistics as the cycle-accurate use
 * (cache.c), so hit rates appear under the same names. What differs, by design:
 *   - a fetched sector is part of the line at once, readable from the cycle the owner reports with
 *     cache_timed_fill (CACHE_NEVER until it knows); a later access to it is a pending hit
 *     (HIT_RESERVED) that completes when the fill does — the MSHR merge, without an MSHR;
 *   - nothing is refused: a set whose lines all wait for fills still gives up its oldest line (a
 *     fill that finds its line gone is dropped), and MSHR and miss-queue limits are the owner's
 *     business (their effect is time, which the owner models);
 *   - on-fill and streaming allocation allocate at the miss, like on-miss allocation.
 * Write policies follow the manual's table as cache.c does: write-back marks sectors dirty and
 * evictions report a write-back; write-through and write-evict forward the write; the
 * write-allocate variants allocate (fetching what a write does not cover only for fetch-on-write). */
#include <stdlib.h>
#include <string.h>

#include "cache_internal.h"

static inline uint64_t line_addr(const cache *c, uint64_t addr) {
  return addr & c->line_mask;
}

static inline uint64_t *ready_of(cache *c, int32_t li) { return c->ready + (size_t)li * c->n_chunks; }

/* li if it holds `line` (the answer a set lookup would give), else -1. */
static inline int32_t holds(const cache *c, int32_t li, uint64_t line) {
  const cache_line *l = &c->lines[li];
  if (!l->allocated || l->tag != line) return -1;
  if (c->assoc != c->max_assoc && (uint32_t)li % c->max_assoc >= c->assoc) return -1;
  return li;
}

/* The line holding `line` from the memo, or -1 (then a set lookup decides). */
static inline int32_t memo_find(const cache *c, uint64_t line) { return holds(c, c->memo_li, line); }

/* The set of addr: a linear index (after the owner's index_addr, the L2 slices' case) inline,
 * any other function through cache_index_of. */
__attribute__((always_inline)) static inline uint32_t set_of(const cache *c, uint64_t addr) {
  if (c->index_linear) return (uint32_t)(addr >> c->line_log2) & (c->spec.n_sets - 1);
  if (c->index_hook_linear)
    return (uint32_t)(c->index_addr(c->index_ctx, addr) >> c->line_log2) & (c->spec.n_sets - 1);
  return cache_index_of(c, addr);
}

/* The line holding `line` (-1: none; *set is then its set), the memo first. */
static inline int32_t find(cache *c, uint64_t addr, uint64_t line, uint32_t *set) {
  int32_t li = memo_find(c, line);
  if (li >= 0) return li;
  *set = set_of(c, addr);
  li = cache_find_line(c, *set, line);
  if (li >= 0) c->memo_li = li;
  return li;
}

/* Where a line that find did not find goes in the line map: the empty slot that ended its probe
 * chain (slot1 = its index + 1; 0: not known, cache_map_insert probes again) and its home. */
typedef struct map_hole {
  uint32_t slot1, home;
} map_hole;

/* find, for an access that may place the line: a map lookup that misses also tells where the
 * line would be entered (*hole), so placing it does not walk the same probe chain again. */
static inline int32_t find_or_hole(cache *c, uint64_t addr, uint64_t line, uint32_t *set, map_hole *hole) {
  int32_t li = memo_find(c, line);
  if (li >= 0) return li;
  *set = set_of(c, addr);
  if (!c->map) {
    li = cache_find_line(c, *set, line);
    if (li >= 0) c->memo_li = li;
    return li;
  }
  uint32_t first = *set * c->max_assoc, home = cache_map_home(c, line), i = home;
  for (; c->map[i].li1; i = (i + 1) & c->map_mask)
    if (c->map[i].line == line) { /* cache_find_line's answer */
      uint32_t at = (uint32_t)CACHE_UNLINK(c->map[i].li1);
      if (at < first || at >= first + c->assoc) return -1;
      c->memo_li = (int32_t)at;
      return (int32_t)at;
    }
  *hole = (map_hole){i + 1, home};
  return -1;
}

/* Enters line li as the holder of `line` into the map at the hole find_or_hole found (which
 * nothing has filled since), or where cache_map_insert finds one. */
static inline void map_enter(cache *c, uint64_t line, int32_t li, map_hole hole) {
  if (!hole.slot1) {
    cache_map_insert(c, line, li);
    return;
  }
  cache_line_slot *e = &c->map[hole.slot1 - 1];
  e->line = line;
  e->li1 = CACHE_LINK(li);
  e->home = hole.home;
}

/* The latest ready time of the chunks `m` of line li. */
__attribute__((always_inline)) static inline uint64_t chunks_ready(const cache *c, int32_t li, uint8_t m) {
  const uint64_t *r = c->ready + (size_t)li * c->n_chunks;
  if (m == 0xf) { /* a whole sectored line (the common coalesced access) */
    uint64_t a = r[0] > r[1] ? r[0] : r[1], b = r[2] > r[3] ? r[2] : r[3];
    return a > b ? a : b;
  }
  uint64_t t = 0;
  for (; m; m &= (uint8_t)(m - 1)) {
    uint64_t x = r[__builtin_ctz(m)];
    if (x > t) t = x;
  }
  return t;
}

__attribute__((always_inline)) static inline void set_ready(cache *c, int32_t li, uint8_t m, uint64_t t) {
  uint64_t *r = ready_of(c, li);
  if (m == 0xf) { /* a whole sectored line */
    r[0] = r[1] = r[2] = r[3] = t;
    return;
  }
  for (; m; m &= (uint8_t)(m - 1)) r[__builtin_ctz(m)] = t;
}

/* A line for `line` in `set` (the victim's dirty chunks reported as a write-back). */
static int32_t allocate(cache *c, uint32_t set, uint64_t line, cache_timed_result *out) {
  int32_t victim = cache_pick_victim(c, set, true);
  cache_line *v = &c->lines[victim];
  if (v->allocated && v->dirty) {
    out->wb_line = v->tag;
    out->wb_chunks = v->dirty;
    ++*c->inst.write_back;
    ++*c->group.write_back;
  }
  cache_install(c, victim, line);
  c->memo_li = victim;
  return victim;
}

/* allocate, for the common case of a set with the line map that still has an invalid way among
 * those in use (a cache warming up): the lowest such way takes the line, as cache_pick_victim
 * and cache_install would do, without their calls and the way's division back into set and way;
 * -1 when the set has none (then allocate decides). */
__attribute__((always_inline)) static inline int32_t allocate_free_way(cache *c, uint32_t set, uint64_t line,
                                                                     map_hole hole) {
  if (!c->order) return -1;
  cache_set_order *o = &c->order[set];
  if (o->allocated >= c->assoc) return -1;
  uint64_t *bits = &c->alloc_bits[(size_t)set * c->alloc_words];
  /* fewer lines than ways in use and none beyond them (cache_set_assoc empties every set): the
   * lowest free way is one in use */
  uint32_t w = 0, way;
  if (c->alloc_words == 1) { /* one word a set: its lowest zero bit, no scan */
    if (!~bits[0]) return -1;
    way = (uint32_t)__builtin_ctzll(~bits[0]);
  } else {
    while (w * 64 < c->assoc && !~bits[w]) w++;
    if (w * 64 >= c->assoc) return -1;
    way = w * 64 + (uint32_t)__builtin_ctzll(~bits[w]);
  }
  if (way >= c->assoc) return -1;
  int32_t li = (int32_t)(set * c->max_assoc + way);
  cache_line *l = &c->lines[li];
  /* cache_order_append with the set's order at hand (no division of li back into its set) */
  l->newer1 = 0;
  l->older1 = o->newest1;
  if (o->newest1) c->lines[CACHE_UNLINK(o->newest1)].newer1 = CACHE_LINK(li);
  else o->oldest1 = CACHE_LINK(li);
  o->newest1 = CACHE_LINK(li);
  o->allocated++;
  bits[w] |= 1ull << (way % 64);
  map_enter(c, line, li, hole);
  cache_line_take(c, l, line);
  c->memo_li = li;
  return li;
}

/* allocate, for a set with the line map whose ways in use all hold a line (allocate_free_way
 * found none): its oldest line (LRU: least recently used; FIFO: first allocated) is the victim,
 * as cache_pick_victim answers in timed use (reserved lines too), and takes the line as
 * cache_install would — the new line entered at its hole before the old one leaves the map, the
 * victim moved from the oldest end of the order to the newest, without their calls. */
__attribute__((always_inline)) static inline int32_t replace_oldest(cache *c, uint32_t set, uint64_t line,
                                                                  map_hole hole, cache_timed_result *out) {
  cache_set_order *o = &c->order[set];
  int32_t li = CACHE_UNLINK(o->oldest1);
  if (!hole.slot1 || li < 0) return allocate(c, set, line, out);
  cache_line *v = &c->lines[li];
  if (v->dirty) {
    out->wb_line = v->tag;
    out->wb_chunks = v->dirty;
    ++*c->inst.write_back;
    ++*c->group.write_back;
  }
  map_enter(c, line, li, hole); /* the hole ends the new line's probe chain: no probe */
  cache_map_remove(c, v->tag);
  if (v->newer1) { /* the oldest becomes the newest */
    int32_t next = CACHE_UNLINK(v->newer1);
    o->oldest1 = v->newer1;
    c->lines[next].older1 = 0;
    v->older1 = o->newest1;
    v->newer1 = 0;
    c->lines[CACHE_UNLINK(o->newest1)].newer1 = CACHE_LINK(li);
    o->newest1 = CACHE_LINK(li);
  }
  cache_line_take(c, v, line);
  c->memo_li = li;
  return li;
}

/* A line for `line`, which find_or_hole did not find in `set`: a free way, else a victim. */
__attribute__((always_inline)) static inline int32_t place(cache *c, uint32_t set, uint64_t line, map_hole hole,
                                                         cache_timed_result *out) {
  if (!c->order) return allocate(c, set, line, out);
  int32_t li = allocate_free_way(c, set, line, hole);
  return li >= 0 ? li : replace_oldest(c, set, line, hole, out);
}

__attribute__((always_inline)) static inline void count(cache *c, const mem_req *req, cache_status st, bool sector_miss) {
  unsigned col = st == CACHE_HIT            ? CACHE_BD_HIT
                 : st == CACHE_HIT_RESERVED ? CACHE_BD_HIT_RESERVED
                 : sector_miss              ? CACHE_BD_SECTOR_MISS
                                            : CACHE_BD_MISS;
  cache_stats_count_ok(c, req->kind, col);
}

static void forwarded(cache *c, cache_timed_result *out) {
  out->forward = true;
  ++*c->inst.forwarded;
  ++*c->group.forwarded;
}

/* Reads (and atomics, which leave their sectors dirty). */
static void timed_read(cache *c, const mem_req *req, uint64_t now, cache_timed_result *out) {
  uint64_t line = line_addr(c, req->addr);
  uint32_t set = 0;
  uint8_t need = cache_req_chunks(c, req);
  map_hole hole = {0, 0};
  int32_t li = find_or_hole(c, req->addr, line, &set, &hole);
  uint8_t present = li >= 0 ? c->lines[li].valid : 0;
  uint8_t missing = need & (uint8_t)~present;
  out->line = line;
  if (!missing) {
    cache_touch(c, li);
    uint64_t r = chunks_ready(c, li, need);
    if (req->kind == MEM_ACC_ATOMIC) c->lines[li].dirty |= need;
    if (r <= now) { /* each outcome counted with its own constant column: no branch per counter */
      out->status = CACHE_HIT;
      out->data_port = true;
      cache_stats_count_ok(c, req->kind, CACHE_BD_HIT);
    } else {
      out->status = CACHE_HIT_RESERVED;
      out->ready = r;
      cache_stats_count_ok(c, req->kind, CACHE_BD_HIT_RESERVED);
    }
    return;
  }
  bool sector_miss = li >= 0;
  if (li < 0) li = place(c, set, line, hole, out);
  else cache_touch(c, li);
  uint8_t fetch = c->sector ? missing : c->all_chunks;
  c->lines[li].valid |= fetch;
  c->lines[li].written &= (uint8_t)~fetch; /* (fetched bytes merge under the written ones) */
  set_ready(c, li, fetch, CACHE_NEVER);
  if (req->kind == MEM_ACC_ATOMIC) c->lines[li].dirty |= need;
  out->status = CACHE_MISS;
  out->fetch = fetch;
  out->ready = CACHE_NEVER;
  /* sectors it needs that were already on their way */
  uint8_t old = need & present;
  if (old) out->pending_ready = chunks_ready(c, li, old);
  if (sector_miss) cache_stats_count_ok(c, req->kind, CACHE_BD_SECTOR_MISS);
  else cache_stats_count_ok(c, req->kind, CACHE_BD_MISS);
}

typedef enum { EFF_BACK, EFF_THROUGH, EFF_EVICT } eff_policy;

static eff_policy effective_policy(const cache *c, const mem_req *req) {
  switch (c->spec.write_policy) {
    case CACHE_WP_WRITE_BACK:
      return EFF_BACK;
    case CACHE_WP_WRITE_THROUGH:
      return EFF_THROUGH;
    case CACHE_WP_LOCAL_WB_GLOBAL_WT:
      return (req->kind == MEM_ACC_LOCAL_W || req->kind == MEM_ACC_L1_WRBK) ? EFF_BACK : EFF_EVICT;
    default:
      return EFF_EVICT;
  }
}

static void timed_write(cache *c, const mem_req *req, uint64_t now, cache_timed_result *out) {
  uint64_t line = line_addr(c, req->addr);
  uint32_t set = 0;
  uint8_t need = cache_req_chunks(c, req);
  map_hole hole = {0, 0};
  eff_policy eff = effective_policy(c, req);
  out->line = line;
  out->ready = now;
  if (eff == EFF_EVICT) {
    /* the write goes on; the sectors it writes leave the cache. Nothing is placed: a plain
     * lookup, and the usual case (a streaming store to a line the cache does not hold) counted
     * with its constant column */
    int32_t li = find(c, req->addr, line, &set);
    if (li < 0) {
      out->status = CACHE_MISS;
      forwarded(c, out);
      cache_stats_count_ok(c, req->kind, CACHE_BD_MISS);
      return;
    }
    uint8_t absent = need & (uint8_t)~c->lines[li].valid;
    cache_status st = absent ? CACHE_MISS : CACHE_HIT;
    cache_line *l = &c->lines[li];
    uint8_t drop_dirty = l->dirty & need;
    if (drop_dirty) {
      out->wb_line = l->tag;
      out->wb_chunks = drop_dirty;
      ++*c->inst.write_back;
      ++*c->group.write_back;
    }
    l->valid &= (uint8_t)~need;
    l->written &= (uint8_t)~need;
    l->dirty &= (uint8_t)~need;
    if (!l->valid && !l->written && !l->dirty) cache_evict(c, li, NULL);
    out->status = st;
    forwarded(c, out);
    count(c, req, st, st == CACHE_MISS);
    return;
  }
  int32_t li = find_or_hole(c, req->addr, line, &set, &hole);
  /* a write lands on sectors present, or written before and not yet fetched (lazy fetch-on-read) */
  uint8_t present = li >= 0 ? (uint8_t)(c->lines[li].valid | c->lines[li].written) : 0;
  uint8_t absent = need & (uint8_t)~present;
  bool back = eff == EFF_BACK;
  if (!absent) { /* write hit (on sectors present or on their way) */
    cache_touch(c, li);
    out->data_port = true;
    if (back) c->lines[li].dirty |= need;
    else forwarded(c, out);
    out->status = CACHE_HIT;
    count(c, req, CACHE_HIT, false);
    return;
  }
  cache_write_alloc wa = c->spec.write_alloc;
  bool sector_miss = li >= 0;
  out->status = CACHE_MISS;
  if (wa == CACHE_WA_NO_WRITE_ALLOCATE) {
    forwarded(c, out);
    count(c, req, CACHE_MISS, sector_miss);
    return;
  }
  if (li < 0) li = place(c, set, line, hole, out);
  else cache_touch(c, li);
  cache_line *l = &c->lines[li];
  if (wa == CACHE_WA_WRITE_ALLOCATE) { /* GPGPU-Sim 3.x: the write goes on, the line is fetched */
    uint8_t fetch = c->sector ? absent : c->all_chunks;
    l->valid |= fetch;
    set_ready(c, li, fetch, CACHE_NEVER);
    out->fetch = fetch;
    forwarded(c, out);
  } else if (wa == CACHE_WA_FETCH_ON_WRITE && !c->sector) { /* a partial line needs the rest */
    l->valid |= c->all_chunks;
    set_ready(c, li, c->all_chunks, CACHE_NEVER);
    out->fetch = c->all_chunks;
    if (back) l->dirty |= need;
    else forwarded(c, out);
  } else if (wa == CACHE_WA_LAZY_FETCH_ON_READ && c->sector && c->n_chunks == MEM_SECTORS_PER_LINE &&
             c->spec.line_bytes == MEM_LINE_BYTES) {
    /* lazy fetch-on-read (cache.c's rule): sectors the write covers whole are valid, partly
     * written ones wait, unreadable, for a read to fetch the rest */
    uint64_t bytes[2];
    cache_req_bytes(req, bytes);
    uint8_t full = 0;
    for (uint32_t k = 0; k < MEM_SECTORS_PER_LINE; k++)
      if ((uint32_t)(bytes[k / 2] >> (32 * (k % 2))) == 0xFFFFFFFFu) full |= (uint8_t)(1u << k);
    full &= absent;
    l->valid |= full;
    l->written |= (uint8_t)(absent & ~full);
    set_ready(c, li, full, now);
    out->data_port = back;
    if (back) l->dirty |= need;
    else forwarded(c, out);
  } else { /* fetch-on-write of whole sectors */
    l->valid |= absent;
    set_ready(c, li, absent, now);
    out->data_port = back;
    if (back) l->dirty |= need;
    else forwarded(c, out);
  }
  count(c, req, CACHE_MISS, sector_miss);
}

void cache_timed_access(cache *c, const mem_req *req, uint64_t now, cache_timed_result *out) {
  memset(out, 0, sizeof *out);
  out->ready = now;
  if (__builtin_expect(!c->ready, 0)) { /* "none" (cache_create allocates no ready times for a
                                            disabled cache): everything goes to the next level */
    out->status = CACHE_MISS;
    out->line = req->addr & ~(uint64_t)(MEM_LINE_BYTES - 1);
    out->forward = true;
    return;
  }
  bool write = req->is_write && req->kind != MEM_ACC_ATOMIC;
  if (write) timed_write(c, req, now, out); /* a read-only cache's too: a bypass (write-evict) */
  else timed_read(c, req, now, out);
}

/* cache_timed_read_hit's lookup past its memo: find, the line it finds remembered there. */
static __attribute__((noinline)) int32_t hit_lookup(cache *c, uint64_t addr, uint64_t line, int32_t *memo) {
  uint32_t set = 0;
  int32_t li = find(c, addr, line, &set);
  if (li >= 0) *memo = li;
  return li;
}

cache_status cache_timed_read_hit(cache *c, uint64_t addr, uint32_t size, uint8_t sector_mask, uint8_t kind,
                                  uint64_t now, uint64_t *ready, uint64_t *line_out) {
  if (__builtin_expect(!c->ready, 0) || kind == MEM_ACC_ATOMIC) return CACHE_MISS;
  uint64_t line = line_addr(c, addr);
  int32_t *memo = &c->hit_memo[(line >> c->line_log2) & (CACHE_HIT_MEMO - 1)];
  int32_t li = holds(c, *memo, line);
  if (__builtin_expect(li < 0, 0) && (li = hit_lookup(c, addr, line, memo)) < 0) return CACHE_MISS;
  const cache_line *l = &c->lines[li];
  uint64_t r;
  if (!c->sector) { /* one chunk a line: its ready time is the line's */
    if (!(l->valid & 1u)) return CACHE_MISS;
    r = c->ready[li];
  } else {
    uint8_t need = cache_chunks_of(c, addr, size, sector_mask);
    if (need & (uint8_t)~l->valid) return CACHE_MISS;
    r = chunks_ready(c, li, need);
  }
  /* timed_read's hit, step for step */
  *line_out = line;
  cache_touch(c, li);
  if (r <= now) {
    *ready = now;
    cache_stats_count_ok(c, kind, CACHE_BD_HIT);
    return CACHE_HIT;
  }
  *ready = r;
  cache_stats_count_ok(c, kind, CACHE_BD_HIT_RESERVED);
  return CACHE_HIT_RESERVED;
}

void cache_timed_fill(cache *c, uint64_t line, uint8_t chunks, uint64_t t) {
  if (!c->ready) return;
  uint32_t set = 0;
  int32_t li = find(c, line, line_addr(c, line), &set);
  if (li < 0) return; /* evicted while the fetch was on its way */
  uint8_t m = chunks & c->lines[li].valid;
  uint64_t *r = ready_of(c, li);
  /* a later refetch of a dropped sector is not this fill: only sectors still untimed take t */
  if (m == 0xf) { /* a whole sectored line: each sector's time chosen without a branch */
    uint64_t r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3];
    r[0] = r0 == CACHE_NEVER ? t : r0;
    r[1] = r1 == CACHE_NEVER ? t : r1;
    r[2] = r2 == CACHE_NEVER ? t : r2;
    r[3] = r3 == CACHE_NEVER ? t : r3;
  } else {
    for (; m; m &= (uint8_t)(m - 1)) {
      uint32_t k = (uint32_t)__builtin_ctz(m);
      if (r[k] == CACHE_NEVER) r[k] = t;
    }
  }
  ++*c->inst.fill;
  ++*c->group.fill;
}

uint64_t cache_timed_ready(const cache *c, uint64_t addr, uint8_t chunks) {
  if (!c->ready) return CACHE_NEVER;
  uint64_t line = line_addr(c, addr);
  int32_t li = memo_find(c, line);
  if (li < 0) li = cache_find_line(c, cache_index_of(c, addr), line);
  if (li < 0 || (chunks & (uint8_t)~c->lines[li].valid)) return CACHE_NEVER;
  return chunks_ready(c, li, chunks);
}

/* Line li at kernel end: its dirty chunks reported and counted, then emptied (zero bytes: what
 * cache_evict leaves, without unlinking it from the order, which the caller empties at once).
 * Returns 1 when it was dirty. */
static inline uint32_t flush_line(cache *c, size_t li,
                                  void (*write_back)(void *ctx, uint64_t line, uint8_t chunks), void *ctx) {
  cache_line *l = &c->lines[li];
  uint32_t dirty = 0;
  if (l->dirty) {
    if (write_back) write_back(ctx, l->tag, l->dirty);
    ++*c->inst.write_back;
    ++*c->group.write_back;
    dirty = 1;
  }
  memset(l, 0, sizeof *l);
  return dirty;
}

uint32_t cache_timed_flush(cache *c, void (*write_back)(void *ctx, uint64_t line, uint8_t chunks), void *ctx) {
  uint32_t n = 0;
  if (!c->holds_lines) return 0;
  if (!c->map) {
    size_t lines = (size_t)c->spec.n_sets * c->max_assoc;
    for (size_t i = 0; i < lines; i++)
      if (c->lines[i].allocated) n += flush_line(c, i, write_back, ctx);
    c->holds_lines = false;
    return n;
  }
  /* With the map: the allocated lines of the sets that hold any, from the way bitmaps, in index
   * order (the callbacks' order), each set's order and bitmap emptied as it is done. The map is
   * emptied line by line while the lines are fewer than its pages (a large cache a kernel barely
   * used keeps its untouched pages), else rewritten at once. */
  size_t slots = (size_t)c->map_mask + 1, budget = slots * sizeof *c->map / 4096, removed = 0;
  for (uint32_t s = 0; s < c->spec.n_sets; s++) {
    cache_set_order *o = &c->order[s];
    if (!o->allocated) continue;
    uint64_t *bits = &c->alloc_bits[(size_t)s * c->alloc_words];
    for (uint32_t w = 0; w < c->alloc_words; w++) {
      for (uint64_t m = bits[w]; m; m &= m - 1) {
        size_t li = (size_t)s * c->max_assoc + w * 64 + (size_t)__builtin_ctzll(m);
        if (removed < budget) cache_map_remove(c, c->lines[li].tag);
        removed++;
        n += flush_line(c, li, write_back, ctx);
      }
      bits[w] = 0;
    }
    *o = (cache_set_order){0, 0, 0};
  }
  if (removed > budget) /* only the links: an empty slot's other fields are never read */
    for (size_t i = 0; i < slots; i++) c->map[i].li1 = 0;
  c->holds_lines = false;
  return n;
}

uint8_t cache_req_chunks_of(const cache *c, const mem_req *req) { return cache_req_chunks(c, req); }
