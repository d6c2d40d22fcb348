/* cache — tag array, MSHRs and the read / write policies of the GPGPU-Sim cache model (manual
 * §3.3 "Caches" and its write-policy table; 4.x sectors and write-allocate variants). The texture
 * cache's fragment FIFO lives in cache_tex.c; set-index functions in cache_index.c.
 *
 * State per line: tag, readable chunks (`valid`), chunks written but not fetched (`written`,
 * lazy fetch-on-read), chunks to write back (`dirty`), and the MSHR entry fetching its other
 * chunks (a reserved line is never a victim). A chunk is a 32-byte sector in a sectored cache and
 * the whole line in a normal one. An MSHR entry covers one line, tracks the chunks in flight and
 * the requests merged into it in merge order; a sectored cache counts its MSHR capacity and the
 * merge limit per sector, as GPGPU-Sim's per-sector MSHRs do. */
#include "simtvp_bits.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "cache_internal.h"
#include "simtvp_zalloc.h"

static inline uint32_t popcount8(uint8_t v) { return (uint32_t)simtvp_popcount32(v); }
static inline uint64_t line_of(const cache *c, uint64_t addr) {
  return addr & ~(uint64_t)(c->spec.line_bytes - 1);
}

/* ---- request lists -------------------------------------------------------------------------- */

void cache_list_push(cache_req_list *l, mem_req *r) {
  r->next = NULL;
  if (l->tail) l->tail->next = r;
  else l->head = r;
  l->tail = r;
  l->len++;
}

/* Puts r back at the head (a request taken off for a port that then refused it). */
static void list_push_front(cache_req_list *l, mem_req *r) {
  r->next = l->head;
  l->head = r;
  if (!l->tail) l->tail = r;
  l->len++;
}

mem_req *cache_list_pop(cache_req_list *l) {
  mem_req *r = l->head;
  if (!r) return NULL;
  l->head = r->next;
  if (!l->head) l->tail = NULL;
  r->next = NULL;
  l->len--;
  return r;
}

static void list_free_all(cache_req_list *l) {
  mem_req *r;
  while ((r = cache_list_pop(l))) mem_req_free(r);
}

/* ---- masks ---------------------------------------------------------------------------------- */

/* Bytes of the given chunks of a line, 128-byte-line relative (all bytes for lines > 128). */
static void chunk_bytes_mask(const cache *c, uint64_t line, uint8_t chunks, uint64_t m[2]) {
  m[0] = m[1] = 0;
  if (c->spec.line_bytes > MEM_LINE_BYTES) {
    m[0] = m[1] = ~0ull;
    return;
  }
  uint32_t base = (uint32_t)(line & (MEM_LINE_BYTES - 1));
  for (uint32_t k = 0; k < c->n_chunks; k++) {
    if (!(chunks & (1u << k))) continue;
    uint64_t t[2];
    cache_byte_range(base + k * c->chunk_bytes, base + (k + 1) * c->chunk_bytes, t);
    m[0] |= t[0];
    m[1] |= t[1];
  }
}

uint8_t cache_line_sectors(const cache *c, uint64_t line, uint8_t chunks) {
  if (c->sector) return chunks;
  if (c->spec.line_bytes >= MEM_LINE_BYTES) return (uint8_t)((1u << MEM_SECTORS_PER_LINE) - 1);
  uint32_t off = (uint32_t)(line & (MEM_LINE_BYTES - 1));
  uint32_t first = off / MEM_SECTOR_BYTES, last = (off + c->spec.line_bytes - 1) / MEM_SECTOR_BYTES;
  uint8_t m = 0;
  for (uint32_t s = first; s <= last; s++) m |= (uint8_t)(1u << s);
  return m;
}

/* Chunks among `chunks` whose every byte the write covers. */
static uint8_t full_chunks(const cache *c, uint64_t line, const uint64_t bytes[2], uint8_t chunks) {
  if (c->spec.line_bytes > MEM_LINE_BYTES) return 0;
  uint8_t full = 0;
  for (uint32_t k = 0; k < c->n_chunks; k++) {
    if (!(chunks & (1u << k))) continue;
    uint64_t m[2];
    chunk_bytes_mask(c, line, (uint8_t)(1u << k), m);
    if ((bytes[0] & m[0]) == m[0] && (bytes[1] & m[1]) == m[1]) full |= (uint8_t)(1u << k);
  }
  return full;
}

/* ---- tag array ------------------------------------------------------------------------------ */



void cache_map_remove(cache *c, uint64_t line) {
  uint32_t i = cache_map_home(c, line);
  while (c->map[i].li1 && c->map[i].line != line) i = (i + 1) & c->map_mask;
  if (!c->map[i].li1) return;
  /* backward-shift deletion: probe chains stay unbroken without tombstones */
  uint32_t hole = i;
  for (uint32_t j = (i + 1) & c->map_mask; c->map[j].li1; j = (j + 1) & c->map_mask) {
    uint32_t home = c->map[j].home;
    bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      c->map[hole] = c->map[j];
      hole = j;
    }
  }
  c->map[hole].li1 = 0;
}



/* Line li's bit in its set's allocated-way bitmap (with the map), flipped as it fills or empties. */
static inline void alloc_bit_flip(cache *c, int32_t li) {
  uint32_t set = (uint32_t)li / c->max_assoc, way = (uint32_t)li % c->max_assoc;
  c->alloc_bits[(size_t)set * c->alloc_words + way / 64] ^= 1ull << (way % 64);
}

/* Empties line li (tag invalid, no reservation), keeping the map and the order in step. */
static void line_clear(cache *c, int32_t li) {
  cache_line *l = &c->lines[li];
  if (c->map && l->allocated) {
    cache_map_remove(c, l->tag);
    cache_order_unlink(c, li);
    c->order[(uint32_t)li / c->max_assoc].allocated--;
    alloc_bit_flip(c, li);
  }
  memset(l, 0, sizeof *l); /* empty: no MSHR, no neighbours */
}


/* An invalid line if there is one (lowest way), else the least recently used (LRU) or first
 * allocated (FIFO) line that no pending fill has reserved; -1 when every line is reserved. */
int32_t cache_pick_victim(const cache *c, uint32_t set, bool allow_reserved) {
  if (c->order) {
    const cache_set_order *o = &c->order[set];
    if (o->allocated < c->assoc) { /* an invalid line: the lowest way among those in use */
      const uint64_t *bits = &c->alloc_bits[(size_t)set * c->alloc_words];
      for (uint32_t w = 0; w * 64 < c->assoc; w++)
        if (~bits[w]) {
          uint32_t way = w * 64 + (uint32_t)__builtin_ctzll(~bits[w]);
          if (way < c->assoc) return (int32_t)(set * c->max_assoc + way);
          break;
        }
    }
    for (int32_t li = CACHE_UNLINK(o->oldest1); li >= 0; li = CACHE_UNLINK(c->lines[li].newer1))
      if (allow_reserved || !c->lines[li].mshr1) return li;
    return -1;
  }
  const cache_line *l = &c->lines[(size_t)set * c->max_assoc];
  int32_t best = -1;
  uint64_t best_stamp = 0;
  for (uint32_t w = 0; w < c->assoc; w++) {
    if (!l[w].allocated) return (int32_t)(set * c->max_assoc + w);
    if (l[w].mshr1 && !allow_reserved) continue;
    uint64_t s = c->spec.replacement == CACHE_REPL_LRU ? l[w].last_use : l[w].alloc_stamp;
    if (best < 0 || s < best_stamp) {
      best = (int32_t)w;
      best_stamp = s;
    }
  }
  return best < 0 ? -1 : (int32_t)(set * c->max_assoc + (uint32_t)best);
}


/* Line li takes `line` (whatever it held is dropped: the caller evicted or reported it). Every
 * field is set here, no clearing of the whole line first; with a map, a line that was allocated
 * moves from its old address's slot and its place in the order to the new ones (the set's
 * allocated count does not change). */
void cache_install(cache *c, int32_t li, uint64_t line) {
  cache_line *l = &c->lines[li];
  if (c->map) {
    if (l->allocated) {
      cache_map_remove(c, l->tag);
      if (l->newer1) { /* not already the newest */
        cache_order_to_newest(c, li);
      }
    } else {
      cache_order_append(c, li);
      c->order[(uint32_t)li / c->max_assoc].allocated++;
      alloc_bit_flip(c, li);
    }
    cache_map_insert(c, line, li);
  } /* without the map, older1 and newer1 stay 0 */
  cache_line_take(c, l, line);
}

static void queue_write_back(cache *c, uint64_t line, uint8_t chunks, const uint64_t bytes[2],
                             const mem_req *trigger) {
  mem_req *r = mem_req_alloc(c->pool);
  assert(r && "host out of memory");
  if (!r) return;
  uint32_t first = chunks ? (uint32_t)__builtin_ctz(chunks) : 0;
  r->addr = line + (c->sector ? (uint64_t)first * c->chunk_bytes : 0);
  r->size = popcount8(chunks) * c->chunk_bytes;
  r->kind = c->level == CACHE_LEVEL_L2 ? MEM_ACC_L2_WRBK : MEM_ACC_L1_WRBK;
  r->is_write = true;
  r->needs_reply = false;
  r->sector_mask = cache_line_sectors(c, line, chunks);
  uint64_t cm[2];
  chunk_bytes_mask(c, line, chunks, cm);
  r->byte_mask[0] = bytes[0] & cm[0];
  r->byte_mask[1] = bytes[1] & cm[1];
  if (trigger) {
    r->sm = trigger->sm;
    r->cluster = trigger->cluster;
    r->warp = trigger->warp;
    r->src_node = trigger->src_node;
  }
  r->owner_ctx = c;
  r->owner_tag = CACHE_TAG(CACHE_TAG_WRITE_BACK, 0, chunks);
  cache_list_push(&c->miss_queue, r);
  ++*c->inst.write_back;
  ++*c->group.write_back;
}

/* Removes the line, writing back its dirty chunks. */
void cache_evict(cache *c, int32_t li, const mem_req *trigger) {
  cache_line *l = &c->lines[li];
  assert(!l->mshr1);
  if (l->allocated && l->dirty) queue_write_back(c, l->tag, l->dirty, l->dirty_bytes, trigger);
  line_clear(c, li);
}

/* Forgets that the given chunks are dirty (and their dirty bytes). */
static void clear_dirty(cache *c, cache_line *l, uint8_t chunks) {
  uint64_t cm[2];
  chunk_bytes_mask(c, l->tag, chunks, cm);
  l->dirty &= (uint8_t)~chunks;
  l->dirty_bytes[0] &= ~cm[0];
  l->dirty_bytes[1] &= ~cm[1];
}

static void mark_dirty(cache *c, int32_t li, uint8_t chunks, const uint64_t bytes[2]) {
  cache_line *l = &c->lines[li];
  l->dirty |= chunks;
  uint64_t cm[2];
  chunk_bytes_mask(c, l->tag, chunks, cm);
  l->dirty_bytes[0] |= bytes[0] & cm[0];
  l->dirty_bytes[1] |= bytes[1] & cm[1];
}

/* ---- MSHRs ---------------------------------------------------------------------------------- */

static uint32_t mshr_hash(const cache *c, uint64_t line) {
  uint64_t h = (line >> c->line_log2) * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> (64 - c->bucket_bits));
}

static int32_t mshr_lookup(const cache *c, uint64_t line) {
  for (int32_t i = CACHE_UNLINK(c->bucket[mshr_hash(c, line)]); i >= 0;
       i = CACHE_UNLINK(c->mshr[i].hnext1))
    if (c->mshr[i].line == line) return i;
  return -1;
}

/* The MSHR entry of a line: the one reserving its line, or (allocate-on-fill, nothing placed
 * yet) the one found by address. */
static int32_t entry_of(const cache *c, int32_t li, uint64_t line) {
  if (li >= 0 && c->lines[li].mshr1) return CACHE_UNLINK(c->lines[li].mshr1);
  return c->on_fill ? mshr_lookup(c, line) : -1; /* on miss, an entry always holds its line */
}

static int32_t mshr_new(cache *c, uint64_t line, int32_t way) {
  int32_t i = c->mshr_free;
  if (i >= 0) c->mshr_free = CACHE_UNLINK(c->mshr[i].hnext1);
  else i = (int32_t)c->mshr_fresh++;
  assert((uint32_t)i < c->mshr_cap);
  cache_mshr *m = &c->mshr[i];
  memset(m, 0, sizeof *m);
  m->line = line;
  m->way = way;
  m->live = 1;
  m->wait_head = m->wait_tail = -1;
  uint32_t b = mshr_hash(c, line);
  m->hnext1 = c->bucket[b];
  c->bucket[b] = CACHE_LINK(i);
  c->mshr_live++;
  if (way >= 0) c->lines[way].mshr1 = CACHE_LINK(i);
  return i;
}

static void mshr_release(cache *c, int32_t i) {
  cache_mshr *m = &c->mshr[i];
  uint32_t b = mshr_hash(c, m->line);
  int32_t *link = &c->bucket[b];
  while (*link != CACHE_LINK(i)) link = &c->mshr[CACHE_UNLINK(*link)].hnext1;
  *link = m->hnext1;
  if (m->way >= 0 && c->lines[m->way].mshr1 == CACHE_LINK(i)) c->lines[m->way].mshr1 = 0;
  m->live = 0;
  m->hnext1 = CACHE_LINK(c->mshr_free);
  c->mshr_free = i;
  c->mshr_live--;
}

/* Can one more request waiting on `waits` merge into entry i (i < 0: a new entry)? */
static bool merge_ok(const cache *c, int32_t i, uint8_t waits) {
  if (i < 0) return true;
  const cache_mshr *m = &c->mshr[i];
  if (!c->sector) return m->waiters < c->spec.mshr_max_merge;
  for (uint32_t k = 0; k < c->n_chunks; k++)
    if ((waits & (1u << k)) && m->chunk_waiters[k] >= c->spec.mshr_max_merge) return false;
  return true;
}

/* MSHR capacity for `new_chunks` more chunks in flight (and a new entry when i < 0). GPGPU-Sim
 * keeps one entry per sector in a sectored cache, one per line otherwise. */
static bool mshr_room(const cache *c, int32_t i, uint8_t new_chunks) {
  if (c->sector) return c->mshr_chunks + popcount8(new_chunks) <= c->mshr_cap;
  return i >= 0 || c->mshr_live < c->mshr_cap;
}

static void merge(cache *c, int32_t i, mem_req *req, uint8_t waits) {
  cache_mshr *m = &c->mshr[i];
  int32_t w = c->waiter_free;
  if (w >= 0) {
    c->waiter_free = c->waiter[w].next;
  } else { /* none freed to reuse: the next never used (the order a full free list would give) */
    assert(c->waiter_fresh < c->waiter_cap && "waiter pool sized from MSHR entries x max merge");
    w = (int32_t)c->waiter_fresh++;
  }
  c->waiter[w].req = req;
  c->waiter[w].waits = waits;
  c->waiter[w].next = -1;
  if (m->wait_tail >= 0) c->waiter[m->wait_tail].next = w;
  else m->wait_head = w;
  m->wait_tail = w;
  m->waiters++;
  for (uint32_t k = 0; k < c->n_chunks; k++)
    if (waits & (1u << k)) m->chunk_waiters[k]++;
  c->merged++;
}

mem_req *cache_new_fetch(cache *c, uint64_t line, uint8_t chunks, uint8_t kind,
                         const mem_req *trigger, uint64_t owner_tag) {
  mem_req *r = mem_req_alloc(c->pool);
  assert(r && "host out of memory");
  if (!r) return NULL;
  uint32_t first = (uint32_t)__builtin_ctz(chunks);
  r->addr = line + (c->sector ? (uint64_t)first * c->chunk_bytes : 0);
  r->size = popcount8(chunks) * c->chunk_bytes;
  r->kind = kind;
  r->is_write = false;
  r->needs_reply = true;
  r->sector_mask = cache_line_sectors(c, line, chunks);
  chunk_bytes_mask(c, line, chunks, r->byte_mask);
  if (trigger) { /* same line, so the same partition: the route is the trigger's */
    r->sm = trigger->sm;
    r->cluster = trigger->cluster;
    r->warp = trigger->warp;
    r->src_node = trigger->src_node;
    r->dst_node = trigger->dst_node;
    r->partition = trigger->partition;
    r->sub_partition = trigger->sub_partition;
    r->aperture = trigger->aperture;
  }
  r->owner_ctx = c;
  r->owner_tag = owner_tag;
  cache_list_push(&c->miss_queue, r);
  return r;
}

static void start_fetch(cache *c, int32_t i, uint8_t chunks, uint8_t kind, const mem_req *trigger) {
  cache_mshr *m = &c->mshr[i];
  m->pending |= chunks;
  m->fetches++;
  c->mshr_chunks += popcount8(chunks);
  cache_new_fetch(c, m->line, chunks, kind, trigger, CACHE_TAG(CACHE_TAG_FETCH, i, chunks));
}

/* ---- completion ----------------------------------------------------------------------------- */

void cache_complete(cache *c, mem_req *req) {
  if (!req->needs_reply) {
    mem_req_free(req);
    return;
  }
  req->is_reply = true;
  cache_list_push(&c->released, req);
}

static void retire_hits(cache *c, uint64_t now) {
  while (c->run_n && c->run_ready[c->run_head] <= now) {
    c->hits_ready += c->run_count[c->run_head];
    c->run_head = (c->run_head + 1) % c->run_cap;
    c->run_n--;
  }
}

/* A request served from the cache: its reply is ready hit_latency cycles later. */
static void complete_hit(cache *c, mem_req *req, uint64_t now) {
  if (!req->needs_reply) {
    mem_req_free(req);
    return;
  }
  req->is_reply = true;
  cache_list_push(&c->hits, req);
  uint64_t ready = now + c->hit_latency;
  if (ready <= now) {
    c->hits_ready++;
    return;
  }
  uint32_t last = (c->run_head + c->run_n + c->run_cap - 1) % c->run_cap;
  if (c->run_n && c->run_ready[last] >= ready) { /* same cycle (or a caller's clock went back) */
    c->run_count[last]++;
    return;
  }
  if (c->run_n == c->run_cap) { /* only when `now` went backwards: join the last run */
    c->run_count[last]++;
    return;
  }
  uint32_t slot = (c->run_head + c->run_n) % c->run_cap;
  c->run_ready[slot] = ready;
  c->run_count[slot] = 1;
  c->run_n++;
}

static void use_data_port(cache *c, const mem_req *req, uint64_t now) {
  uint32_t bytes = req->size ? req->size : 1;
  if (bytes > c->spec.line_bytes) bytes = c->spec.line_bytes;
  uint32_t cycles = (bytes + c->data_port_bytes - 1) / c->data_port_bytes;
  uint64_t start = c->data_port_free_at > now ? c->data_port_free_at : now;
  c->data_port_free_at = start + cycles;
  *c->inst.data_port_busy += cycles;
  *c->group.data_port_busy += cycles;
}

void cache_use_fill_port(cache *c, uint32_t bytes, uint64_t now) {
  uint32_t cycles = (bytes + c->data_port_bytes - 1) / c->data_port_bytes;
  uint64_t start = c->fill_port_free_at > now ? c->fill_port_free_at : now;
  c->fill_port_free_at = start + cycles;
  *c->inst.fill_port_busy += cycles;
  *c->group.fill_port_busy += cycles;
}

static void forward(cache *c, mem_req *req, cache_outcome *o) {
  cache_list_push(&c->miss_queue, req);
  o->forwarded = true;
  ++*c->inst.forwarded;
  ++*c->group.forwarded;
}

static bool mq_room(const cache *c, uint32_t n) { return c->miss_queue.len + n <= c->miss_queue_cap; }

static cache_status fail(cache_outcome *o, cache_fail_reason reason) {
  o->status = CACHE_RESERVATION_FAIL;
  o->reason = reason;
  return CACHE_RESERVATION_FAIL;
}

/* ---- reads ---------------------------------------------------------------------------------- */

/* Reads and atomics (an atomic is a read that leaves its chunks dirty, GPGPU-Sim's L2). */
static cache_status read_access(cache *c, mem_req *req, uint64_t now, cache_outcome *o) {
  uint64_t line = line_of(c, req->addr);
  uint32_t set = cache_index_of(c, req->addr);
  uint8_t need = cache_req_chunks(c, req);
  bool atomic = req->kind == MEM_ACC_ATOMIC;
  int32_t li = cache_find_line(c, set, line);
  int32_t mi = entry_of(c, li, line);
  uint8_t present = li >= 0 ? c->lines[li].valid : 0;
  uint8_t pending = mi >= 0 ? c->mshr[mi].pending : 0;
  uint8_t waits = need & (uint8_t)~present;
  uint8_t missing = waits & (uint8_t)~pending;

  if (!waits) { /* hit */
    cache_touch(c, li);
    if (atomic) {
      uint64_t b[2];
      cache_req_bytes(req, b);
      mark_dirty(c, li, need, b);
    }
    use_data_port(c, req, now);
    complete_hit(c, req, now);
    return o->status = CACHE_HIT;
  }
  if (!missing) { /* every chunk it lacks is already on its way */
    if (!merge_ok(c, mi, waits)) return fail(o, CACHE_FAIL_MSHR_MERGE);
    if (li >= 0) cache_touch(c, li);
    merge(c, mi, req, waits);
    return o->status = CACHE_HIT_RESERVED;
  }

  /* miss: reserve a line (allocate-on-miss), queue a fetch of the missing chunks, merge */
  int32_t victim = -1;
  bool wb = false;
  if (li < 0 && !c->on_fill) {
    victim = cache_pick_victim(c, set, false);
    if (victim < 0) return fail(o, CACHE_FAIL_LINE_ALLOC);
    wb = c->lines[victim].allocated && c->lines[victim].dirty;
  }
  if (!mq_room(c, 1u + wb)) return fail(o, CACHE_FAIL_MISS_QUEUE_FULL);
  if (!merge_ok(c, mi, waits)) return fail(o, CACHE_FAIL_MSHR_MERGE);
  if (!mshr_room(c, mi, missing)) return fail(o, CACHE_FAIL_MSHR_ENTRY);

  o->sector_miss = li >= 0;
  if (victim >= 0) {
    cache_evict(c, victim, req);
    o->write_backs = wb;
    cache_install(c, victim, line);
    li = victim;
  } else if (li >= 0) {
    cache_touch(c, li);
  }
  if (mi < 0) mi = mshr_new(c, line, li);
  start_fetch(c, mi, missing, req->kind, req);
  o->fetches = 1;
  merge(c, mi, req, waits);
  return o->status = CACHE_MISS;
}

/* ---- writes --------------------------------------------------------------------------------- */

typedef enum { EFF_BACK, EFF_THROUGH, EFF_EVICT } eff_policy;

/* The policy that applies to this write (the manual's table): 'L' writes local memory back and
 * global memory through with eviction, as Fermi's L1 does; a read-only cache lets writes by. */
static eff_policy effective_policy(const cache *c, const mem_req *req) {
  switch (c->spec.write_policy) {
    case CACHE_WP_WRITE_BACK:
      return EFF_BACK;
    case CACHE_WP_WRITE_THROUGH:
      return EFF_THROUGH;
    case CACHE_WP_LOCAL_WB_GLOBAL_WT:
      return (req->kind == MEM_ACC_LOCAL_W || req->kind == MEM_ACC_L1_WRBK) ? EFF_BACK : EFF_EVICT;
    case CACHE_WP_WRITE_EVICT:
    case CACHE_WP_READ_ONLY:
    default:
      return EFF_EVICT;
  }
}

/* Write-evict (and read-only bypass): the write goes on, the chunks it writes leave the cache. */
static cache_status write_evict(cache *c, mem_req *req, uint64_t now, cache_outcome *o) {
  (void)now;
  uint64_t line = line_of(c, req->addr);
  uint32_t set = cache_index_of(c, req->addr);
  uint8_t need = cache_req_chunks(c, req);
  int32_t li = cache_find_line(c, set, line);
  cache_line *l = li >= 0 ? &c->lines[li] : NULL;
  uint8_t present = l ? (uint8_t)(l->valid | l->written) : 0;
  uint8_t drop_dirty = l ? (l->dirty & need) : 0;
  if (!mq_room(c, 1u + (drop_dirty != 0))) return fail(o, CACHE_FAIL_MISS_QUEUE_FULL);
  cache_status st = (need & (uint8_t)~present) == 0 ? CACHE_HIT : CACHE_MISS;
  o->sector_miss = st == CACHE_MISS && l != NULL;
  if (l && (present & need)) {
    if (drop_dirty) { /* dirty only through atomics here: write that part back first */
      queue_write_back(c, l->tag, drop_dirty, l->dirty_bytes, req);
      o->write_backs = 1;
    }
    l->valid &= (uint8_t)~need;
    l->written &= (uint8_t)~need;
    clear_dirty(c, l, need);
    if (!l->valid && !l->written && !l->dirty && !l->mshr1) cache_evict(c, li, req);
  }
  forward(c, req, o);
  return o->status = st;
}

void cache_write_bypass(cache *c, mem_req *req, uint64_t now, cache_outcome *o) {
  write_evict(c, req, now, o);
  c->epoch++;
}

/* Writes in write-back and write-through caches. */
static cache_status write_access(cache *c, mem_req *req, uint64_t now, cache_outcome *o) {
  eff_policy eff = effective_policy(c, req);
  if (eff == EFF_EVICT) return write_evict(c, req, now, o);
  bool back = eff == EFF_BACK;

  uint64_t line = line_of(c, req->addr);
  uint32_t set = cache_index_of(c, req->addr);
  uint8_t need = cache_req_chunks(c, req);
  uint64_t bytes[2];
  cache_req_bytes(req, bytes);
  int32_t li = cache_find_line(c, set, line);
  int32_t mi = entry_of(c, li, line);
  uint8_t present = li >= 0 ? (uint8_t)(c->lines[li].valid | c->lines[li].written) : 0;
  uint8_t pending = mi >= 0 ? c->mshr[mi].pending : 0;
  uint8_t absent = need & (uint8_t)~present;
  uint8_t missing = absent & (uint8_t)~pending;

  if (!absent) { /* write hit */
    if (!back && !mq_room(c, 1)) return fail(o, CACHE_FAIL_MISS_QUEUE_FULL);
    cache_touch(c, li);
    if (back) {
      mark_dirty(c, li, need, bytes);
      use_data_port(c, req, now);
      complete_hit(c, req, now);
    } else {
      use_data_port(c, req, now);
      forward(c, req, o);
    }
    return o->status = CACHE_HIT;
  }
  if (back && !missing) { /* lands on chunks being fetched: merge, dirty when they arrive */
    if (!merge_ok(c, mi, absent)) return fail(o, CACHE_FAIL_MSHR_MERGE);
    if (li >= 0) cache_touch(c, li);
    merge(c, mi, req, absent);
    return o->status = CACHE_HIT_RESERVED;
  }

  /* write miss: the write-allocate policy decides */
  cache_write_alloc wa = c->spec.write_alloc;
  o->sector_miss = li >= 0;
  if (wa == CACHE_WA_NO_WRITE_ALLOCATE || !missing) {
    /* nothing to allocate (or everything missing is already in flight, write-through) */
    if (!mq_room(c, 1)) return fail(o, CACHE_FAIL_MISS_QUEUE_FULL);
    forward(c, req, o);
    return o->status = CACHE_MISS;
  }

  uint8_t full = full_chunks(c, line, bytes, missing);
  uint8_t fetch = 0, validate = 0, written = 0;
  uint8_t waits = 0; /* chunks a write-back write must wait for before it completes */
  switch (wa) {
    case CACHE_WA_WRITE_ALLOCATE: /* GPGPU-Sim 3.x: write goes on, the line is fetched */
      fetch = missing;
      break;
    case CACHE_WA_FETCH_ON_WRITE: /* fully written chunks are validated, the rest fetched */
      validate = full;
      fetch = missing & (uint8_t)~full;
      if (back) waits = (uint8_t)(fetch | (need & pending));
      break;
    case CACHE_WA_LAZY_FETCH_ON_READ: /* no fetch: partly written chunks wait for a read */
      validate = full;
      written = missing & (uint8_t)~full;
      if (back) waits = need & pending;
      break;
    case CACHE_WA_NO_WRITE_ALLOCATE:
      break;
  }
  bool forwards = !back || wa == CACHE_WA_WRITE_ALLOCATE;

  int32_t victim = -1;
  bool wb = false;
  if (li < 0 && (!c->on_fill || !fetch)) {
    /* on-fill caches reach here only with W/N (F/L need on-miss): W's fetch places the line */
    victim = cache_pick_victim(c, set, false);
    if (victim < 0) return fail(o, CACHE_FAIL_LINE_ALLOC);
    wb = c->lines[victim].allocated && c->lines[victim].dirty;
  }
  if (!mq_room(c, (uint32_t)forwards + (fetch != 0) + wb)) return fail(o, CACHE_FAIL_MISS_QUEUE_FULL);
  if (waits && !merge_ok(c, mi, waits)) return fail(o, CACHE_FAIL_MSHR_MERGE);
  if (fetch && !mshr_room(c, mi, fetch)) return fail(o, CACHE_FAIL_MSHR_ENTRY);

  if (victim >= 0) {
    cache_evict(c, victim, req);
    o->write_backs = wb;
    cache_install(c, victim, line);
    li = victim;
  } else if (li >= 0) {
    cache_touch(c, li);
  }
  if (li >= 0) {
    cache_line *l = &c->lines[li];
    l->valid |= validate;
    l->written |= written;
    if (back && !forwards && !waits) mark_dirty(c, li, need, bytes);
  }
  const mem_req trigger = *req; /* the write may leave (forwarded) before the fetch is made */
  if (forwards) forward(c, req, o); /* the write first, then the fetch (GPGPU-Sim's order) */
  if (fetch) {
    if (mi < 0) mi = mshr_new(c, line, li);
    uint8_t kind = c->level == CACHE_LEVEL_L2 ? MEM_ACC_L2_WR_ALLOC_R : MEM_ACC_L1_WR_ALLOC_R;
    start_fetch(c, mi, fetch, kind, &trigger);
    o->fetches = 1;
  }
  if (forwards) {
    /* done: the next level acknowledges the write */
  } else if (waits) {
    merge(c, mi, req, waits);
  } else {
    use_data_port(c, req, now);
    complete_hit(c, req, now);
  }
  return o->status = CACHE_MISS;
}

/* ---- access / fill -------------------------------------------------------------------------- */

static void note_time(cache *c, uint64_t now) {
  if (now > c->last_now) c->last_now = now;
}

cache_status cache_access(cache *c, mem_req *req, uint64_t now, cache_outcome *out) {
  cache_outcome o;
  memset(&o, 0, sizeof o);
  note_time(c, now);
  retire_hits(c, now);
  /* the request may be completed (and freed) inside: keep what the statistics need */
  uint8_t kind = req->kind;
  uint64_t addr = req->addr;
  if (c->spec.disabled) { /* "none": every access goes through to the next level */
    if (!mq_room(c, 1)) {
      fail(&o, CACHE_FAIL_MISS_QUEUE_FULL);
    } else {
      forward(c, req, &o);
      o.status = CACHE_MISS;
      c->epoch++;
    }
    if (out) *out = o;
    return o.status;
  }
  if (c->tex) cache_tex_access(c, req, now, &o);
  else if (req->is_write && kind != MEM_ACC_ATOMIC) write_access(c, req, now, &o);
  else read_access(c, req, now, &o);
  if (o.status != CACHE_RESERVATION_FAIL) c->epoch++; /* a failure changes nothing */
  if (o.status != CACHE_RESERVATION_FAIL && c->n_banks > 1) c->bank_used[cache_bank(c, addr)] = now + 1;
  cache_stats_count(c, kind, o.status, o.sector_miss, o.reason);
  if (out) *out = o;
  return o.status;
}

cache_status cache_probe(const cache *c, const mem_req *req) {
  if (c->spec.disabled) return CACHE_MISS;
  uint64_t line = line_of(c, req->addr);
  uint32_t set = cache_index_of(c, req->addr);
  uint8_t need = cache_req_chunks(c, req);
  int32_t li = cache_find_line(c, set, line);
  if (c->tex) return (li >= 0 && !(need & (uint8_t)~c->lines[li].valid)) ? CACHE_HIT : CACHE_MISS;
  int32_t mi = entry_of(c, li, line);
  uint8_t pending = mi >= 0 ? c->mshr[mi].pending : 0;
  uint8_t present = 0;
  if (li >= 0) present = (req->is_write && req->kind != MEM_ACC_ATOMIC) ? (uint8_t)(c->lines[li].valid | c->lines[li].written)
                                       : c->lines[li].valid;
  uint8_t absent = need & (uint8_t)~present;
  if (!absent) return CACHE_HIT;
  bool write = req->is_write && req->kind != MEM_ACC_ATOMIC;
  bool merges = !write || effective_policy(c, req) == EFF_BACK;
  if (merges && !(absent & (uint8_t)~pending)) return CACHE_HIT_RESERVED;
  return CACHE_MISS;
}

/* A released request: reads go back; writes and atomics leave their chunks dirty. */
static void release(cache *c, int32_t li, const cache_waiter *w) {
  mem_req *req = w->req;
  if (req->is_write || req->kind == MEM_ACC_ATOMIC) { /* dirty when the data is complete */
    uint8_t need = cache_req_chunks(c, req);
    uint64_t b[2];
    cache_req_bytes(req, b);
    if (li >= 0) {
      mark_dirty(c, li, need, b);
    } else { /* no line could be placed (every way reserved): write the data straight back */
      queue_write_back(c, line_of(c, req->addr), need, b, req);
    }
  }
  cache_complete(c, req);
}

static bool fill_line(cache *c, mem_req *reply, uint64_t now) {
  uint64_t tag = reply->owner_tag;
  int32_t i = (int32_t)CACHE_TAG_SLOT(tag);
  uint8_t chunks = CACHE_TAG_CHUNKS(tag);
  assert((uint32_t)i < c->mshr_cap);
  cache_mshr *m = &c->mshr[i];
  assert(m->live && m->line == line_of(c, reply->addr) && (m->pending & chunks) == chunks);
  if ((uint32_t)i >= c->mshr_cap || !m->live || (m->pending & chunks) != chunks) return false;

  cache_use_fill_port(c, popcount8(chunks) * c->chunk_bytes, now);
  int32_t li = m->way;
  if (li < 0) { /* allocate-on-fill: place the line now */
    uint32_t set = cache_index_of(c, m->line);
    li = cache_find_line(c, set, m->line);
    if (li < 0) {
      li = cache_pick_victim(c, set, false);
      if (li >= 0) {
        cache_evict(c, li, reply);
        cache_install(c, li, m->line);
      }
    }
    if (li >= 0) {
      m->way = li;
      c->lines[li].mshr1 = CACHE_LINK(i);
    }
  }
  if (li >= 0) {
    cache_line *l = &c->lines[li];
    l->valid |= chunks;
    l->written &= (uint8_t)~chunks; /* fetched bytes merge under the written ones */
  }
  m->pending &= (uint8_t)~chunks;
  m->fetches--;
  c->mshr_chunks -= popcount8(chunks);

  /* release, in merge order, every request whose chunks have all arrived */
  int32_t prev = -1, w = m->wait_head;
  while (w >= 0) {
    cache_waiter *cw = &c->waiter[w];
    int32_t next = cw->next;
    if (!(cw->waits & m->pending)) {
      if (prev >= 0) c->waiter[prev].next = next;
      else m->wait_head = next;
      if (m->wait_tail == w) m->wait_tail = prev;
      for (uint32_t k = 0; k < c->n_chunks; k++)
        if (cw->waits & (1u << k)) m->chunk_waiters[k]--;
      m->waiters--;
      c->merged--;
      release(c, li, cw);
      cw->req = NULL;
      cw->next = c->waiter_free;
      c->waiter_free = w;
    } else {
      prev = w;
    }
    w = next;
  }
  if (m->fetches == 0) {
    assert(m->waiters == 0 && m->pending == 0);
    mshr_release(c, i);
  }
  ++*c->inst.fill;
  ++*c->group.fill;
  mem_req_free(reply);
  return true;
}

bool cache_fill(cache *c, mem_req *reply, uint64_t now) {
  if (!reply || reply->owner_ctx != (void *)c) return false;
  note_time(c, now);
  c->epoch++;
  switch (CACHE_TAG_TYPE(reply->owner_tag)) {
    case CACHE_TAG_WRITE_BACK: /* an acknowledgement nobody asked for */
      mem_req_free(reply);
      return true;
    case CACHE_TAG_TEX_FETCH:
      cache_tex_fill(c, reply, now);
      return true;
    case CACHE_TAG_FETCH:
      return fill_line(c, reply, now);
    default:
      return false;
  }
}

/* ---- outputs and time ----------------------------------------------------------------------- */

mem_req *cache_miss_peek(const cache *c) { return c->miss_queue.head; }
mem_req *cache_miss_pop(cache *c) {
  c->miss_port_blocked = false;
  mem_req *r = cache_list_pop(&c->miss_queue);
  if (r) c->epoch++;
  return r;
}

uint64_t cache_state_epoch(const cache *c) { return c->epoch; }

void cache_count_reservation_fail(cache *c, uint8_t kind, cache_fail_reason reason, uint64_t now, uint64_t n) {
  note_time(c, now);
  retire_hits(c, now);
  cache_stats_count_fails(c, kind, reason, n);
}
uint32_t cache_miss_queue_length(const cache *c) { return c->miss_queue.len; }

mem_req *cache_reply_peek(cache *c, uint64_t now) {
  note_time(c, now);
  retire_hits(c, now);
  if (c->tex) cache_tex_progress(c, now);
  if (c->released.head) return c->released.head;
  return c->hits_ready ? c->hits.head : NULL;
}

mem_req *cache_reply_pop(cache *c, uint64_t now) {
  mem_req *r = cache_reply_peek(c, now);
  if (!r) return NULL;
  if (r == c->released.head) {
    cache_list_pop(&c->released);
    if (c->tex) cache_tex_progress(c, now); /* the result FIFO has room again */
  } else {
    cache_list_pop(&c->hits);
    c->hits_ready--;
  }
  c->reply_port_blocked = false;
  return r;
}

/* The ports take the request off the queue before it is offered: once a receiver accepts it,
 * mem_req.next is the receiver's (it may queue or free the request inside send). A refused
 * request goes back to the head of the queue it came from. */
void cache_advance(cache *c, uint64_t now) {
  note_time(c, now);
  retire_hits(c, now);
  if (c->tex) {
    cache_tex_progress(c, now);
    c->epoch++;
  }
  if (c->ports.next_level.send) {
    c->miss_port_blocked = false;
    mem_req *r;
    if (c->miss_queue.head) c->epoch++;
    while ((r = cache_list_pop(&c->miss_queue))) {
      if (!c->ports.next_level.send(c->ports.next_level.ctx, r, now)) {
        list_push_front(&c->miss_queue, r);
        c->miss_port_blocked = true;
        break;
      }
    }
  }
  if (c->ports.reply.send) {
    c->reply_port_blocked = false;
    mem_req *r;
    while ((r = cache_reply_peek(c, now))) {
      bool from_released = r == c->released.head;
      cache_reply_pop(c, now);
      if (!c->ports.reply.send(c->ports.reply.ctx, r, now)) {
        if (from_released) {
          list_push_front(&c->released, r);
        } else {
          list_push_front(&c->hits, r);
          c->hits_ready++;
        }
        c->reply_port_blocked = true;
        break;
      }
    }
  }
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

uint64_t cache_next_event(const cache *c) {
  uint64_t t = CACHE_NEVER;
  if (c->miss_queue.head)
    t = min_u64(t, c->miss_port_blocked ? c->last_now + 1 : c->last_now);
  bool replies = c->released.head || c->hits_ready;
  if (replies) t = min_u64(t, c->reply_port_blocked ? c->last_now + 1 : c->last_now);
  if (c->run_n) t = min_u64(t, c->run_ready[c->run_head]);
  if (c->tex) t = min_u64(t, cache_tex_next_event(c));
  return t;
}

bool cache_data_port_free(const cache *c, uint64_t now) { return c->data_port_free_at <= now; }
uint64_t cache_data_port_free_from(const cache *c) { return c->data_port_free_at; }
bool cache_fill_port_free(const cache *c, uint64_t now) { return c->fill_port_free_at <= now; }

uint32_t cache_bank(const cache *c, uint64_t addr) {
  if (c->n_banks <= 1) return 0;
  return (uint32_t)((addr / c->bank_interleave) % c->n_banks);
}

bool cache_bank_free(const cache *c, uint64_t addr, uint64_t now) {
  if (c->n_banks <= 1) return true;
  return c->bank_used[cache_bank(c, addr)] != now + 1;
}

uint32_t cache_set_of(const cache *c, uint64_t addr) {
  return c->spec.disabled ? 0 : cache_index_of(c, addr);
}

/* ---- maintenance ---------------------------------------------------------------------------- */

static size_t n_lines(const cache *c) { return (size_t)c->spec.n_sets * c->max_assoc; }

/* Calls visit on every allocated line, in index order. With the line map the way bitmaps of the
 * sets that hold lines name them, so the lines of sets no access used are not read; visit may
 * empty the line it is given. */
static void for_each_allocated(cache *c, void (*visit)(cache *c, int32_t li, uint32_t *n),
                               uint32_t *n) {
  if (!c->map) {
    for (size_t i = 0; i < n_lines(c); i++)
      if (c->lines[i].allocated) visit(c, (int32_t)i, n);
    return;
  }
  for (uint32_t s = 0; s < c->spec.n_sets; s++) {
    if (!c->order[s].allocated) continue;
    const uint64_t *bits = &c->alloc_bits[(size_t)s * c->alloc_words];
    for (uint32_t w = 0; w < c->alloc_words; w++)
      for (uint64_t m = bits[w]; m; m &= m - 1) /* a copy: visit may clear the bit */
        visit(c, (int32_t)(s * c->max_assoc + w * 64 + (uint32_t)__builtin_ctzll(m)), n);
  }
}

/* cache_flush's visit: write back a dirty line, drop it unless a pending fill reserves it. */
static void flush_line(cache *c, int32_t li, uint32_t *n) {
  cache_line *l = &c->lines[li];
  if (l->dirty) {
    queue_write_back(c, l->tag, l->dirty, l->dirty_bytes, NULL);
    clear_dirty(c, l, l->dirty);
    n[0]++;
  }
  if (!l->mshr1) cache_evict(c, li, NULL);
  else n[1] = 1; /* kept */
}

/* cache_invalidate's visit: forget the data; a line a pending fill reserves keeps its tag. */
static void invalidate_line(cache *c, int32_t li, uint32_t *n) {
  cache_line *l = &c->lines[li];
  if (l->mshr1) {
    l->valid = l->written = l->dirty = 0;
    n[1] = 1; /* kept */
    return;
  }
  line_clear(c, li);
  n[0]++;
}

static void clear_line(cache *c, int32_t li, uint32_t *n) {
  (void)n;
  line_clear(c, li);
}

uint32_t cache_flush(cache *c, uint64_t now) {
  note_time(c, now);
  c->epoch++;
  if (!c->holds_lines) return 0;
  uint32_t n[2] = {0, 0}; /* lines written back, lines kept (reserved by a pending fill) */
  for_each_allocated(c, flush_line, n);
  c->holds_lines = n[1] != 0;
  return n[0];
}

uint32_t cache_invalidate(cache *c) {
  c->epoch++;
  if (!c->holds_lines) return 0;
  uint32_t n[2] = {0, 0}; /* lines emptied, lines kept */
  for_each_allocated(c, invalidate_line, n);
  c->holds_lines = n[1] != 0;
  return n[0];
}

bool cache_invalidate_line(cache *c, uint64_t addr) {
  if (c->spec.disabled) return false;
  int32_t li = cache_find_line(c, cache_index_of(c, addr), line_of(c, addr));
  if (li < 0) return false;
  cache_line *l = &c->lines[li];
  c->epoch++;
  if (l->mshr1) { /* keep the reservation, forget the data */
    l->valid = l->written = l->dirty = 0;
    return true;
  }
  line_clear(c, li);
  return true;
}

simtvp_status cache_set_assoc(cache *c, uint32_t assoc, simtvp_diag *diag) {
  if (c->spec.disabled) return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "cache_set_assoc: cache is disabled");
  if (assoc == 0 || assoc > c->max_assoc)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                           "cache_set_assoc: associativity %u outside 1..%u (max_assoc)", assoc,
                           c->max_assoc);
  if (c->mshr_live || c->frag_n)
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE,
                           "cache_set_assoc: %u misses still outstanding", c->mshr_live + c->frag_n);
  if (c->holds_lines) for_each_allocated(c, clear_line, NULL); /* no MSHR is live: all empty */
  c->holds_lines = false;
  c->assoc = assoc;
  c->epoch++;
  return SIMTVP_OK;
}

bool cache_line_lookup(const cache *c, uint64_t addr, cache_line_state *state) {
  if (c->spec.disabled) return false;
  uint64_t line = line_of(c, addr);
  uint32_t set = cache_index_of(c, addr);
  int32_t li = cache_find_line(c, set, line);
  if (li < 0) return false;
  const cache_line *l = &c->lines[li];
  if (state) {
    state->set = set;
    state->way = (uint32_t)li % c->max_assoc;
    state->valid = l->valid;
    state->written = l->written;
    state->dirty = l->dirty;
    state->pending = l->mshr1 ? c->mshr[CACHE_UNLINK(l->mshr1)].pending : 0;
  }
  return true;
}

void cache_get_occupancy(const cache *c, cache_occupancy *occ) {
  memset(occ, 0, sizeof *occ);
  if (c->tex) {
    occ->mshr_entries = c->frag_n;
    occ->mshr_sectors = c->rob_n;
  } else {
    occ->mshr_entries = c->mshr_live;
    occ->mshr_sectors = c->mshr_chunks;
  }
  occ->miss_queue = c->miss_queue.len;
  occ->replies = c->released.len + c->hits.len;
  occ->merged = c->merged;
}

bool cache_is_idle(const cache *c) {
  return !c->mshr_live && !c->miss_queue.len && !c->released.len && !c->hits.len && !c->frag_n &&
         !c->rob_n && !c->merged;
}

const cache_spec *cache_get_spec(const cache *c) { return &c->spec; }

const char *cache_status_name(cache_status status) {
  static const char *const names[CACHE_STATUS_COUNT] = {"HIT", "HIT_RESERVED", "MISS",
                                                        "RESERVATION_FAIL"};
  return (unsigned)status < CACHE_STATUS_COUNT ? names[status] : "UNKNOWN";
}

const char *cache_fail_reason_name(cache_fail_reason reason) {
  /* GPGPU-Sim's spelling (MSHR_ENRTY_FAIL) so existing scripts find the counters. */
  static const char *const names[CACHE_FAIL_COUNT] = {
      "NONE", "LINE_ALLOC_FAIL", "MISS_QUEUE_FULL", "MSHR_ENRTY_FAIL", "MSHR_MERGE_ENRTY_FAIL",
      "FRAGMENT_FIFO_FULL", "ROB_FULL"};
  return (unsigned)reason < CACHE_FAIL_COUNT ? names[reason] : "UNKNOWN";
}

/* ---- lifetime ------------------------------------------------------------------------------- */

static uint32_t log2_floor(uint64_t v) {
  uint32_t n = 0;
  while (v > 1) {
    v >>= 1;
    n++;
  }
  return n;
}

simtvp_status cache_create(const cache_config *cfg, cache **out, simtvp_diag *diag) {
  if (!out) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "cache_create: out is NULL");
  *out = NULL;
  if (!cfg) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "cache_create: config is NULL");
  simtvp_status st = cache_spec_validate(&cfg->spec, cfg->name, diag);
  if (st != SIMTVP_OK) return st;
  const cache_spec *sp = &cfg->spec;
  if (!sp->disabled && cfg->max_assoc && cfg->max_assoc < sp->assoc)
    return simtvp_diag_set(diag, SIMTVP_ERR_CONFIG,
                           "cache %s: max_assoc %u is below the configured associativity %u",
                           cfg->name ? cfg->name : "", cfg->max_assoc, sp->assoc);

  cache *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cache_create: out of memory");
  c->spec = *sp;
  c->level = cfg->level;
  c->ports = cfg->ports;
  c->hit_latency = cfg->hit_latency;
  c->stats = cfg->stats;
  c->pool = cfg->pool;
  if (!c->pool) {
    c->pool = mem_req_pool_create();
    c->own_pool = true;
    if (!c->pool) {
      free(c);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cache_create: out of memory");
    }
  }
  c->mshr_free = c->waiter_free = -1;
  c->miss_queue_cap = sp->miss_queue_entries;
  cache_stats_init(c, cfg);
  if (sp->disabled) {
    c->miss_queue_cap = UINT32_MAX; /* "none": the owner's port provides the back-pressure */
    *out = c;
    return SIMTVP_OK;
  }

  c->tex = sp->mshr_type == CACHE_MSHR_TEX_FIFO || sp->mshr_type == CACHE_MSHR_SECTOR_TEX_FIFO;
  c->sector = sp->type == CACHE_TYPE_SECTOR;
  c->on_fill = sp->alloc_policy != CACHE_ALLOC_ON_MISS;
  c->n_chunks = c->sector ? MEM_SECTORS_PER_LINE : 1;
  c->chunk_bytes = sp->line_bytes / c->n_chunks;
  c->all_chunks = (uint8_t)((1u << c->n_chunks) - 1);
  c->line_log2 = log2_floor(sp->line_bytes);
  c->line_mask = ~((uint64_t)sp->line_bytes - 1);
  c->sets_pow2 = (sp->n_sets & (sp->n_sets - 1)) == 0;
  c->set_bits = log2_floor(sp->n_sets);
  c->assoc = sp->assoc;
  c->max_assoc = cfg->max_assoc ? cfg->max_assoc : sp->assoc;
  c->data_port_bytes = sp->data_port_bytes ? sp->data_port_bytes : sp->line_bytes;
  c->n_banks = cfg->n_banks ? cfg->n_banks : 1;
  c->bank_interleave = cfg->bank_interleave_bytes ? cfg->bank_interleave_bytes : sp->line_bytes;
  c->index_addr = cfg->index_addr;
  c->index_ctx = cfg->index_ctx;

  /* One block for every array whose size the spec fixes: building a GPU's hundreds of caches
   * costs one allocation each, not a dozen. Every array starts as zero bytes (lines, line map,
   * set orders, MSHR hash buckets: empty, their links stored as index + 1; ready times, way
   * bitmaps, hit runs, banks, MSHRs, waiters), so nothing is written here: a large block is
   * fresh zeroed pages (simtvp_zalloc) that cost nothing until a run uses them. Offsets in
   * 8-byte units; every element is 8-byte aligned or smaller. */
  size_t lines_n = n_lines(c), slots = 0, off = 0;
  if (c->max_assoc > CACHE_MAP_MIN_ASSOC) { /* the line map, at most half full */
    slots = 1;
    while (slots < 2 * lines_n) slots <<= 1;
    c->alloc_words = (c->max_assoc + 63) / 64;
  }
  c->run_cap = c->hit_latency + 2;
  if (!c->tex) {
    c->mshr_cap = sp->mshr_entries;
    c->bucket_bits = log2_floor(c->mshr_cap) + 2;
    c->waiter_cap = c->mshr_cap * sp->mshr_max_merge;
  }
  size_t buckets = c->tex ? 0 : (size_t)1 << c->bucket_bits;
#define CACHE_PART(bytes) (off += ((bytes) + 7) / 8 * 8, off - ((bytes) + 7) / 8 * 8)
  size_t o_lines = CACHE_PART(lines_n * sizeof(cache_line));
  size_t o_map = CACHE_PART(slots * sizeof(cache_line_slot));
  size_t o_order = CACHE_PART(slots ? (size_t)sp->n_sets * sizeof(cache_set_order) : 0);
  size_t o_bucket = CACHE_PART(buckets * sizeof(int32_t));
  size_t o_ready = CACHE_PART(cfg->timed ? lines_n * c->n_chunks * sizeof(uint64_t) : 0);
  size_t o_bits = CACHE_PART((size_t)sp->n_sets * c->alloc_words * sizeof(uint64_t));
  size_t o_run_ready = CACHE_PART((size_t)c->run_cap * sizeof(uint64_t));
  size_t o_run_count = CACHE_PART((size_t)c->run_cap * sizeof(uint32_t));
  size_t o_banks = CACHE_PART(c->n_banks > 1 ? (size_t)c->n_banks * sizeof(uint64_t) : 0);
  size_t o_mshr = CACHE_PART((size_t)c->mshr_cap * sizeof(cache_mshr));
  size_t o_waiter = CACHE_PART((size_t)c->waiter_cap * sizeof(cache_waiter));
#undef CACHE_PART
  c->block = simtvp_zalloc(off); /* zeroed pages: what starts zero costs only when a run writes it */
  bool ok = c->block != NULL;
  if (ok) {
    char *b = c->block;
    c->lines = (cache_line *)(void *)(b + o_lines);
    if (cfg->timed) c->ready = (uint64_t *)(void *)(b + o_ready);
    if (slots) {
      c->map = (cache_line_slot *)(void *)(b + o_map);
      c->order = (cache_set_order *)(void *)(b + o_order);
      c->alloc_bits = (uint64_t *)(void *)(b + o_bits);
      c->map_mask = (uint32_t)(slots - 1);
    }
    c->run_ready = (uint64_t *)(void *)(b + o_run_ready);
    c->run_count = (uint32_t *)(void *)(b + o_run_count);
    if (c->n_banks > 1) c->bank_used = (uint64_t *)(void *)(b + o_banks);
    if (!c->tex) {
      c->mshr = (cache_mshr *)(void *)(b + o_mshr);
      c->bucket = (int32_t *)(void *)(b + o_bucket);
      c->waiter = (cache_waiter *)(void *)(b + o_waiter);
    }
  }
  size_t warm = 0; /* requests this cache can have out at once: pre-grow the pool to that */
  if (c->tex) {
    c->miss_queue_cap = sp->mshr_max_merge; /* the request FIFO */
    ok = ok && cache_tex_init(c) == SIMTVP_OK;
    warm = (size_t)c->rob_cap + c->miss_queue_cap;
  } else {
    warm = (size_t)c->mshr_cap * c->n_chunks + 2u * c->miss_queue_cap;
  }
  if (ok) {
    st = cache_index_init(c, diag);
    if (st != SIMTVP_OK) {
      cache_destroy(c);
      return st;
    }
  }
  if (!ok) {
    cache_destroy(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cache_create: out of memory");
  }
  if (c->own_pool) mem_req_pool_reserve(c->pool, warm); /* the steady state never reaches malloc */
  *out = c;
  return SIMTVP_OK;
}

void cache_destroy(cache *c) {
  if (!c) return;
  list_free_all(&c->miss_queue);
  list_free_all(&c->released);
  list_free_all(&c->hits);
  if (c->waiter)
    for (uint32_t i = 0; i < c->waiter_fresh; i++)
      if (c->waiter[i].req) mem_req_free(c->waiter[i].req);
  cache_tex_destroy(c);
  simtvp_zfree(c->block); /* lines, ready times, map, orders, bitmaps, runs, banks, MSHRs, waiters */
  free(c->ipoly);
  if (c->own_pool) mem_req_pool_destroy(c->pool);
  free(c);
}
