/* mempart_at — the approximately-timed memory partition (-mempart_model at; docs/mempart.md
 * "Approximately timed"). The same partition as mempart.c — ROP delay, one request per cycle into
 * each L2 slice, the L2 (models/cache in its timed use: tags, sectors, write policies), the
 * sub-partitions' arbitration toward the DRAM latency queue, the DRAM controller behind a port —
 * but a request's path is computed when it arrives, from service times, instead of being moved
 * from queue to queue cycle by cycle. All times are L2 cycles.
 *
 * A request taken by sub-partition s at cycle t:
 *   taken     a = first free intake cycle >= t            one request per cycle per slice
 *   L2        A = first free L2 cycle >= a + rop_latency + 1   one access per cycle; a hit holds
 *                                                         the data port ceil(bytes / port) cycles;
 *                                                         an atomic of k lane operations also
 *                                                         waits for the slice's atomic unit and
 *                                                         holds it ceil(k / ops) cycles
 *                                                         (-gpgpu_l2_atomic_ops_per_cycle)
 *   hit       reply leaves at A + 2                       (a request on its way: at max(A, fill) + 2;
 *                                                         -l2_ideal: every access a hit, at A + 1)
 *   miss      fetch to the DRAM at D = the arbiter's first free cycle >= A + 2 + dram_latency,
 *             one request per cycle from the partition toward the controller; when the
 *             controller returns it at R: filled at f = the fill port's first free cycles >= R, and
 *             every request waiting for it leaves at f + 2 (a request that went around the L2
 *             or was forwarded, and needs a reply: R + 1)
 * which are the zero-load figures of the cycle-accurate partition (tests/mempart checks both
 * agree for a lone hit and a lone miss). Write-backs of evicted dirty lines, forwarded writes
 * (write-through, write-evict, no-allocate) and bypassed requests (no L2, texture-only L2) go to
 * the DRAM the same way. Every "first free" is a calendar of booked cycles (models/common/
 * simtvp_cal.h): requests are timed out of order (a reply's fill hundreds of cycles ahead) and a
 * later-timed one still takes the cycles an earlier-timed one left free. What it leaves out: the queue capacities (-gpgpu_dram_partition_queues;
 * waiting is time here, not refusal), L2 MSHR limits and the ICNT→L2 head-of-line blocking a
 * reservation failure causes. Back-pressure at the ports stays: a refused DRAM request or reply
 * waits at the port until mempart_dram_ready / mempart_reply_ready, as in the CA partition.
 *
 * Requests reach it as events (mempart_push, from a cycle-accurate interconnect) or as timed
 * calls (mempart_access_timed, from the approximately-timed interconnect's timed transport);
 * replies leave through ports.reply_timed when the neighbour takes them at once, else through
 * ports.reply at their cycle. */
#include "simtvp_bits.h"
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "dram_addrdec.h"
#include "mempart_index.h"
#include "mempart_variant.h"
#include "simtvp_cal.h"
#include "stats.h"

/* ---- a min-heap of requests by (cycle, arrival order) ------------------------------------------ */

typedef struct mpa_item {
  uint64_t at, seq;
  mem_req *req;
} mpa_item;

typedef struct mpa_heap {
  mpa_item *v;
  uint32_t n, cap;
} mpa_heap;

static bool item_before(const mpa_item *a, const mpa_item *b) {
  return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static bool heap_push(mpa_heap *h, uint64_t at, uint64_t seq, mem_req *req) {
  if (h->n == h->cap) {
    uint32_t cap = h->cap ? h->cap * 2 : 64;
    mpa_item *v = realloc(h->v, cap * sizeof *v);
    if (!v) return false;
    h->v = v;
    h->cap = cap;
  }
  mpa_item it = {at, seq, req};
  uint32_t i = h->n++;
  while (i > 0) {
    uint32_t p = (i - 1) / 2;
    if (!item_before(&it, &h->v[p])) break;
    h->v[i] = h->v[p];
    i = p;
  }
  h->v[i] = it;
  return true;
}

static mem_req *heap_pop(mpa_heap *h) {
  mem_req *top = h->v[0].req;
  mpa_item last = h->v[--h->n];
  uint32_t i = 0;
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    const mpa_item *best = &last;
    if (l < h->n && item_before(&h->v[l], best)) m = l, best = &h->v[l];
    if (r < h->n && item_before(&h->v[r], best)) m = r;
    if (m == i) break;
    h->v[i] = h->v[m];
    i = m;
  }
  if (h->n) h->v[i] = last;
  return top;
}

static uint64_t heap_top(const mpa_heap *h) { return h->n ? h->v[0].at : MEMPART_NEVER; }

static void heap_free(mpa_heap *h) {
  for (uint32_t i = 0; i < h->n; i++) mem_req_free(h->v[i].req);
  free(h->v);
  memset(h, 0, sizeof *h);
}

/* ---- state -------------------------------------------------------------------------------------- */

/* An L2 fetch on its way to or from the DRAM, and the requests waiting for it. */
typedef struct mpa_fetch {
  uint64_t line;
  uint32_t sub;
  uint8_t chunks;
  bool live;
  int32_t hnext;        /* hash chain; free-list link when free */
  mem_req *wait_head, *wait_tail;
} mpa_fetch;

typedef struct mpa_sub {
  uint32_t global;
  cache *l2;
  uint32_t port_bytes;  /* data/fill port width of the slice */
  simtvp_cal accept, l2port, fill; /* booked cycles: intake, L2 access/data port, fill port */
  uint64_t atomic_free; /* first cycle the atomic unit takes another atomic (in arrival order) */
  mpa_heap replies;     /* replies waiting for their cycle (or for the port) */
  bool reply_blocked;
  uint64_t blocked_since;
} mpa_sub;

enum {
  C_CYCLES, C_REQUESTS, C_REPLIES, C_DRAM_READS, C_DRAM_WRITES, C_BYPASSED, C_STALL_DRAM_PORT,
  C_MISROUTED, C_STALL_ICNT2SH, C_COUNT
};

typedef struct mp_at {
  mempart_config cfg;
  mempart_index index;
  bool has_l2;
  mem_req_pool *pool;
  bool own_pool;
  mpa_sub *sub;
  mpa_heap dram;        /* requests for the DRAM controller, by departure cycle */
  simtvp_cal dram_arb;  /* the arbiter passes one request per cycle */
  bool dram_blocked;
  uint64_t dram_blocked_since;
  uint64_t seq;
  mpa_fetch *fetch;
  uint32_t fetch_cap;
  int32_t fetch_free;
  int32_t *bucket;
  uint32_t bucket_mask;
  uint32_t live_fetches;
  uint64_t acc_t;       /* L2 cycles accounted up to here */
  uint64_t now;         /* the latest cycle seen */
  uint64_t *c[C_COUNT];
  uint64_t local[C_COUNT];
  uint64_t *shared_icnt2sh;
  bool misroute_reported;
} mp_at;

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void note_now(mp_at *mp, uint64_t now) {
  if (now > mp->now) mp->now = now;
  if (now > mp->acc_t) {
    *mp->c[C_CYCLES] += now - mp->acc_t;
    mp->acc_t = now;
  }
}

/* ---- fetch records ------------------------------------------------------------------------------ */

static uint32_t line_hash(const mp_at *mp, uint64_t line) {
  return (uint32_t)(((line >> 7) * 0x9E3779B97F4A7C15ull) >> 40) & mp->bucket_mask;
}

static bool grow_fetches(mp_at *mp) {
  uint32_t cap = mp->fetch_cap ? mp->fetch_cap * 2 : 256;
  mpa_fetch *f = realloc(mp->fetch, cap * sizeof *f);
  if (!f) return false;
  mp->fetch = f;
  for (uint32_t i = mp->fetch_cap; i < cap; i++) {
    f[i].live = false;
    f[i].hnext = i + 1 < cap ? (int32_t)(i + 1) : mp->fetch_free;
  }
  mp->fetch_free = (int32_t)mp->fetch_cap;
  mp->fetch_cap = cap;
  return true;
}

static int32_t fetch_new(mp_at *mp, uint32_t sub, uint64_t line, uint8_t chunks) {
  if (mp->fetch_free < 0 && !grow_fetches(mp)) return -1;
  int32_t i = mp->fetch_free;
  mpa_fetch *f = &mp->fetch[i];
  mp->fetch_free = f->hnext;
  f->line = line;
  f->sub = sub;
  f->chunks = chunks;
  f->live = true;
  f->wait_head = f->wait_tail = NULL;
  uint32_t b = line_hash(mp, line);
  f->hnext = mp->bucket[b];
  mp->bucket[b] = i;
  mp->live_fetches++;
  return i;
}

static void fetch_release(mp_at *mp, int32_t i) {
  mpa_fetch *f = &mp->fetch[i];
  int32_t *p = &mp->bucket[line_hash(mp, f->line)];
  while (*p != i) p = &mp->fetch[*p].hnext;
  *p = f->hnext;
  f->live = false;
  f->hnext = mp->fetch_free;
  mp->fetch_free = i;
  mp->live_fetches--;
}

/* The newest live fetch of `line` covering one of `chunks`, -1 when none. */
static int32_t fetch_find(const mp_at *mp, uint64_t line, uint8_t chunks) {
  for (int32_t i = mp->bucket[line_hash(mp, line)]; i >= 0; i = mp->fetch[i].hnext)
    if (mp->fetch[i].line == line && (mp->fetch[i].chunks & chunks)) return i;
  return -1;
}

static void fetch_wait(mpa_fetch *f, mem_req *req) {
  req->next = NULL;
  if (f->wait_tail) f->wait_tail->next = req;
  else f->wait_head = req;
  f->wait_tail = req;
}

/* ---- ports -------------------------------------------------------------------------------------- */

static void to_dram(mp_at *mp, mem_req *req, uint64_t at) {
  uint64_t d = simtvp_cal_take(&mp->dram_arb, at, 1);
  if (!heap_push(&mp->dram, d, mp->seq++, req)) {
    assert(!"host out of memory");
    mem_req_free(req);
  }
}

/* The reply of req leaves sub-partition i at cycle `at`. */
static void reply(mp_at *mp, uint32_t i, mem_req *req, uint64_t at) {
  req->is_reply = true;
  req->dst_node = req->src_node;
  ++*mp->c[C_REPLIES];
  if (mp->cfg.ports.reply_timed && mp->cfg.ports.reply_timed(mp->cfg.ports.ctx, i, req, at, mp->now)) return;
  if (!heap_push(&mp->sub[i].replies, at, mp->seq++, req)) {
    assert(!"host out of memory");
    mem_req_free(req);
  }
}

static uint32_t port_cycles(const mpa_sub *s, uint32_t bytes) {
  if (!bytes) bytes = 1;
  return (bytes + s->port_bytes - 1) / s->port_bytes;
}

/* ---- the request path --------------------------------------------------------------------------- */

static void check_route(mp_at *mp, const mpa_sub *s, const mem_req *req) {
  if (!mp->cfg.addrmap) return;
  dram_addr a;
  dram_addrmap_decode(mp->cfg.addrmap, mem_req_route_addr(req), &a);
  if (a.channel == mp->cfg.partition && a.sub_partition == s->global) return;
  ++*mp->c[C_MISROUTED];
  if (mp->misroute_reported) return;
  mp->misroute_reported = true;
  simtvp_msg(&mp->cfg.msg, SIMTVP_ERROR,
             "memory partition %u, sub-partition %u: request %llu for address 0x%llx (kind %s, SM %u) belongs to "
             "partition %u, sub-partition %u; served here anyway (mem_partition[%u].misrouted counts them)",
             mp->cfg.partition, s->global, (unsigned long long)req->id, (unsigned long long)req->addr,
             mem_access_kind_name((mem_access_kind)req->kind), (unsigned)req->sm, a.channel, a.sub_partition,
             mp->cfg.partition);
}

/* A line fetch (or write-back) the L2 sends to the DRAM. */
static mem_req *l2_request(mp_at *mp, const mpa_sub *s, const mem_req *trigger, uint64_t line, uint8_t chunks,
                           uint8_t kind, bool write) {
  mem_req *r = mem_req_alloc(mp->pool);
  if (!r) return NULL;
  uint32_t first = chunks ? (uint32_t)__builtin_ctz(chunks) : 0;
  r->addr = line + (uint64_t)first * MEM_SECTOR_BYTES;
  r->size = (uint32_t)simtvp_popcount32(chunks) * MEM_SECTOR_BYTES;
  r->sector_mask = chunks;
  r->kind = kind;
  r->is_write = write;
  r->needs_reply = !write;
  r->partition = mp->cfg.partition;
  r->sub_partition = s->global;
  r->sm = trigger ? trigger->sm : UINT16_MAX;
  r->cluster = trigger ? trigger->cluster : UINT16_MAX;
  r->warp = trigger ? trigger->warp : UINT16_MAX;
  r->src_node = trigger ? trigger->src_node : 0;
  r->owner_ctx = mp;
  return r;
}

/* Chunks (sectors) of a normal-line cache are the whole line. */
static uint8_t fetch_sectors(const mpa_sub *s, uint8_t chunks) {
  const cache_spec *sp = cache_get_spec(s->l2);
  return sp->type == CACHE_TYPE_SECTOR ? chunks : (uint8_t)((1u << MEM_SECTORS_PER_LINE) - 1);
}

static mempart_timed_status serve(mp_at *mp, uint32_t i, mem_req *req, uint64_t now, uint64_t *reply_at) {
  mpa_sub *s = &mp->sub[i];
  uint64_t a = simtvp_cal_take(&s->accept, now, 1);
  ++*mp->c[C_REQUESTS];
  check_route(mp, s, req);
  req->partition = mp->cfg.partition;
  req->sub_partition = s->global;
  uint64_t A = a + mp->cfg.rop_latency + 1;
  uint32_t ops = req->kind == MEM_ACC_ATOMIC ? (req->n_ops ? req->n_ops : 1u) : 0u;
  if (ops && mp->cfg.atomic_ops && A < s->atomic_free) A = s->atomic_free; /* the atomic unit */
  A = simtvp_cal_find(&s->l2port, A, 1);
  if (ops && mp->cfg.atomic_ops) s->atomic_free = A + (ops + mp->cfg.atomic_ops - 1) / mp->cfg.atomic_ops;
  uint64_t dram_at = A + 2 + mp->cfg.dram_latency;
  bool reply_wanted = req->needs_reply;

  if (mp->cfg.l2_ideal) { /* every access hits; no data port, as in the CA partition */
    if (!reply_wanted) {
      mem_req_free(req);
      *reply_at = A;
      return MEMPART_DONE;
    }
    *reply_at = A + 1;
    return MEMPART_DONE;
  }
  if (mempart_bypasses_l2(&mp->cfg, s->l2 != NULL, req)) { /* around the L2 */
    if (s->l2 && mempart_bypass_invalidates(&mp->cfg, req)) cache_invalidate_line(s->l2, req->addr);
    simtvp_cal_book(&s->l2port, A, 1);
    ++*mp->c[C_BYPASSED];
    to_dram(mp, req, dram_at);
    *reply_at = A;
    return reply_wanted ? MEMPART_DEFERRED : MEMPART_DONE;
  }

  cache_timed_result r;
  cache_timed_access(s->l2, req, A, &r);
  bool hit = r.status != CACHE_MISS;
  simtvp_cal_book(&s->l2port, A, hit && !r.forward ? port_cycles(s, req->size) : 1);
  if (r.wb_chunks) {
    mem_req *wb = l2_request(mp, s, req, r.wb_line, r.wb_chunks, MEM_ACC_L2_WRBK, true);
    if (wb) to_dram(mp, wb, dram_at);
  }
  int32_t fi = -1;
  if (r.fetch) {
    uint8_t kind = req->is_write && req->kind != MEM_ACC_ATOMIC ? MEM_ACC_L2_WR_ALLOC_R : req->kind;
    mem_req *f = l2_request(mp, s, req, r.line, fetch_sectors(s, r.fetch), kind, false);
    fi = f ? fetch_new(mp, i, r.line, r.fetch) : -1;
    if (fi < 0) {
      if (f) mem_req_free(f);
      cache_timed_fill(s->l2, r.line, r.fetch, dram_at); /* no host memory: never leave it pending */
    } else {
      f->owner_tag = (uint64_t)fi;
      to_dram(mp, f, dram_at);
    }
  }
  if (r.forward) { /* the request itself goes on to the DRAM */
    to_dram(mp, req, dram_at);
    *reply_at = A;
    return reply_wanted ? MEMPART_DEFERRED : MEMPART_DONE;
  }
  if (!reply_wanted) {
    mem_req_free(req);
    *reply_at = A;
    return MEMPART_DONE;
  }
  bool reads = !req->is_write || req->kind == MEM_ACC_ATOMIC;
  if (reads && (r.status == CACHE_MISS || r.ready == CACHE_NEVER)) { /* waits for a fill */
    int32_t w = fi >= 0 ? fi : fetch_find(mp, r.line, cache_req_chunks_of(s->l2, req));
    if (w >= 0) {
      fetch_wait(&mp->fetch[w], req);
      return MEMPART_DEFERRED;
    }
  }
  /* a hit, a pending hit whose fill is timed, or a write the L2 absorbed (acknowledged as a hit) */
  *reply_at = max64(A, reads && r.ready != CACHE_NEVER ? r.ready : A) + 2;
  return MEMPART_DONE;
}

/* ---- ops ---------------------------------------------------------------------------------------- */

static bool at_can_accept(const void *impl, uint32_t sub, uint64_t now) {
  (void)now;
  const mp_at *mp = impl;
  return sub < mp->cfg.n_sub;
}

static bool at_push(void *impl, uint32_t sub, mem_req *req, uint64_t now) {
  mp_at *mp = impl;
  if (sub >= mp->cfg.n_sub) return false;
  note_now(mp, now);
  uint64_t at;
  if (serve(mp, sub, req, now, &at) == MEMPART_DONE && req->needs_reply) reply(mp, sub, req, at);
  return true;
}

static mempart_timed_status at_access_timed(void *impl, uint32_t sub, mem_req *req, uint64_t now,
                                            uint64_t *reply_at) {
  mp_at *mp = impl; /* `now` may lie ahead of the partition's time: nothing is sent before it */
  assert(sub < mp->cfg.n_sub);
  mempart_timed_status st = serve(mp, sub < mp->cfg.n_sub ? sub : 0, req, now, reply_at);
  if (st == MEMPART_DONE && req->needs_reply) {
    req->is_reply = true;
    req->dst_node = req->src_node;
    ++*mp->c[C_REPLIES];
  }
  return st;
}

static bool ends_at_dram(const mem_req *req) {
  return req->is_write && (!req->needs_reply || req->kind == MEM_ACC_L2_WRBK);
}

static uint32_t local_sub(const mp_at *mp, const mem_req *req) {
  uint32_t i = req->sub_partition - mp->cfg.partition * mp->cfg.n_sub;
  return i < mp->cfg.n_sub ? i : 0;
}

static bool at_can_return(const void *impl, const mem_req *req) {
  (void)impl, (void)req;
  return true;
}

static bool at_dram_return(void *impl, mem_req *req, uint64_t now) {
  mp_at *mp = impl;
  note_now(mp, now);
  if (ends_at_dram(req)) {
    mem_req_free(req);
    return true;
  }
  uint32_t i = local_sub(mp, req);
  mpa_sub *s = &mp->sub[i];
  if (req->owner_ctx != mp) { /* a bypassed or forwarded request: straight toward the interconnect */
    reply(mp, i, req, now + 1);
    return true;
  }
  int32_t fi = (int32_t)req->owner_tag;
  mpa_fetch *f = &mp->fetch[fi];
  uint64_t fill = simtvp_cal_take(&s->fill, now, port_cycles(s, req->size));
  cache_timed_fill(s->l2, f->line, f->chunks, fill);
  mem_req *w = f->wait_head;
  uint64_t line = f->line;
  fetch_release(mp, fi);
  mem_req_free(req);
  while (w) {
    mem_req *next = w->next;
    w->next = NULL;
    uint8_t need = cache_req_chunks_of(s->l2, w);
    uint64_t ready = cache_timed_ready(s->l2, w->addr, need);
    int32_t other = ready == CACHE_NEVER ? fetch_find(mp, line, need) : -1;
    if (other >= 0) fetch_wait(&mp->fetch[other], w); /* it needs another fetch's sectors too */
    else reply(mp, i, w, max64(fill, ready == CACHE_NEVER ? fill : ready) + 2);
    w = next;
  }
  return true;
}

static void at_reply_ready(void *impl, uint32_t sub, uint64_t now) {
  mp_at *mp = impl;
  if (sub >= mp->cfg.n_sub) return;
  note_now(mp, now);
  mpa_sub *s = &mp->sub[sub];
  if (s->reply_blocked) {
    uint64_t cycles = now > s->blocked_since ? now - s->blocked_since : 0;
    *mp->c[C_STALL_ICNT2SH] += cycles;
    if (mp->shared_icnt2sh) *mp->shared_icnt2sh += cycles;
  }
  s->reply_blocked = false;
}

static void at_dram_ready(void *impl, uint64_t now) {
  mp_at *mp = impl;
  note_now(mp, now);
  if (mp->dram_blocked) *mp->c[C_STALL_DRAM_PORT] += now > mp->dram_blocked_since ? now - mp->dram_blocked_since : 0;
  mp->dram_blocked = false;
}

static void at_advance(void *impl, uint64_t now) {
  mp_at *mp = impl;
  if (now == MEMPART_NEVER) now = MEMPART_NEVER - 1;
  note_now(mp, now);
  now = mp->now; /* time never goes back (a ready note may have come later than an event) */
  while (!mp->dram_blocked && heap_top(&mp->dram) <= now) {
    mem_req *r = mp->dram.v[0].req;
    r->next = NULL;
    bool to_dram;
    if (!mempart_send_down(&mp->cfg, r, now, &to_dram)) {
      mp->dram_blocked = true;
      mp->dram_blocked_since = now;
      break;
    }
    heap_pop(&mp->dram);
    if (to_dram) ++*mp->c[r->is_write ? C_DRAM_WRITES : C_DRAM_READS];
  }
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++) {
    mpa_sub *s = &mp->sub[i];
    while (!s->reply_blocked && heap_top(&s->replies) <= now) {
      mem_req *r = s->replies.v[0].req;
      r->next = NULL;
      if (!mp->cfg.ports.reply(mp->cfg.ports.ctx, i, r, now)) {
        s->reply_blocked = true;
        s->blocked_since = now;
        break;
      }
      heap_pop(&s->replies);
    }
  }
}

static uint64_t at_next_event(const void *impl) {
  const mp_at *mp = impl;
  uint64_t t = mp->dram_blocked ? MEMPART_NEVER : heap_top(&mp->dram);
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++) {
    const mpa_sub *s = &mp->sub[i];
    if (!s->reply_blocked && heap_top(&s->replies) < t) t = heap_top(&s->replies);
  }
  return t == MEMPART_NEVER ? t : max64(t, mp->now);
}

typedef struct flush_ctx {
  mp_at *mp;
  uint32_t sub;
  uint64_t at;
} flush_ctx;

static void flush_write_back(void *ctx, uint64_t line, uint8_t chunks) {
  flush_ctx *fc = ctx;
  mpa_sub *s = &fc->mp->sub[fc->sub];
  mem_req *wb = l2_request(fc->mp, s, NULL, line, chunks, MEM_ACC_L2_WRBK, true);
  if (wb) to_dram(fc->mp, wb, fc->at);
}

static uint32_t at_flush_l2(void *impl, uint64_t now) {
  mp_at *mp = impl;
  note_now(mp, now);
  uint32_t n = 0;
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++) {
    if (!mp->sub[i].l2) continue;
    flush_ctx fc = {mp, i, now + 2 + mp->cfg.dram_latency};
    n += cache_timed_flush(mp->sub[i].l2, flush_write_back, &fc);
  }
  return n;
}

static uint32_t at_invalidate_l2(void *impl) {
  mp_at *mp = impl;
  uint32_t n = 0;
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++)
    if (mp->sub[i].l2) n += cache_invalidate(mp->sub[i].l2);
  return n;
}

static uint64_t at_index_addr(const void *impl, uint64_t addr) {
  return mempart_index_apply(&((const mp_at *)impl)->index, addr);
}

static const cache *at_l2(const void *impl, uint32_t sub) {
  const mp_at *mp = impl;
  return sub < mp->cfg.n_sub ? mp->sub[sub].l2 : NULL;
}

static void at_get_occupancy(const void *impl, uint32_t sub, mempart_occupancy *occ) {
  const mp_at *mp = impl;
  memset(occ, 0, sizeof *occ);
  occ->dram_latency = mp->dram.n;
  if (sub < mp->cfg.n_sub) occ->l2_to_icnt = mp->sub[sub].replies.n;
}

static bool at_is_idle(const void *impl) {
  const mp_at *mp = impl;
  if (mp->dram.n || mp->live_fetches) return false;
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++)
    if (mp->sub[i].replies.n) return false;
  return true;
}

static void at_get_stats(const void *impl, mempart_stats *o) {
  const mp_at *mp = impl;
  memset(o, 0, sizeof *o);
  o->cycles = *mp->c[C_CYCLES];
  o->requests = *mp->c[C_REQUESTS];
  o->replies = *mp->c[C_REPLIES];
  o->dram_reads = *mp->c[C_DRAM_READS];
  o->dram_writes = *mp->c[C_DRAM_WRITES];
  o->l2_bypassed = *mp->c[C_BYPASSED];
  o->stall_icnt2sh = *mp->c[C_STALL_ICNT2SH];
  o->stall_dram_port = *mp->c[C_STALL_DRAM_PORT];
  o->misrouted = *mp->c[C_MISROUTED];
}

/* ---- create / destroy --------------------------------------------------------------------------- */

static uint64_t index_hook(void *ctx, uint64_t addr) { return mempart_index_apply(&((const mp_at *)ctx)->index, addr); }

static void register_stats(mp_at *mp) {
  static const struct {
    int slot;
    const char *name, *unit, *desc;
  } k[] = {
      {C_CYCLES, "cycles", "cycles", "L2 cycles accounted"},
      {C_REQUESTS, "requests", "requests", "requests accepted from the interconnect"},
      {C_REPLIES, "replies", "requests", "replies handed to the interconnect"},
      {C_DRAM_READS, "dram_reads", "requests", "reads handed to the DRAM controller"},
      {C_DRAM_WRITES, "dram_writes", "requests", "writes handed to the DRAM controller"},
      {C_BYPASSED, "l2_bypassed", "requests", "requests that went around the L2"},
      {C_STALL_DRAM_PORT, "dram_port_stall", "cycles", "L2 cycles the DRAM requests waited for the controller"},
      {C_MISROUTED, "misrouted", "requests", "requests that belonged to another partition"},
  };
  for (int i = 0; i < C_COUNT; i++) mp->c[i] = &mp->local[i];
  if (!mp->cfg.stats) return;
  char n[160];
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    snprintf(n, sizeof n, "mem_partition[%u].%s", mp->cfg.partition, k[i].name);
    mp->c[k[i].slot] = stats_counter(mp->cfg.stats, n, k[i].unit, k[i].desc);
  }
  mp->shared_icnt2sh = stats_counter(mp->cfg.stats, "gpu_stall_icnt2sh", "cycles",
                                     "L2 cycles replies waited for the interconnect");
  stats_mark_cumulative(mp->cfg.stats, "gpu_stall_icnt2sh");
}

static void at_destroy(void *impl) {
  mp_at *mp = impl;
  if (!mp) return;
  for (uint32_t i = 0; mp->sub && i < mp->cfg.n_sub; i++) {
    heap_free(&mp->sub[i].replies);
    if (mp->sub[i].l2) cache_destroy(mp->sub[i].l2);
  }
  heap_free(&mp->dram);
  for (uint32_t i = 0; i < mp->fetch_cap; i++)
    if (mp->fetch[i].live)
      for (mem_req *w = mp->fetch[i].wait_head, *next; w; w = next) {
        next = w->next;
        mem_req_free(w);
      }
  if (mp->own_pool) mem_req_pool_destroy(mp->pool);
  free(mp->fetch);
  free(mp->bucket);
  free(mp->sub);
  free(mp);
}

static simtvp_status at_create(const mempart_config *cfg, void **impl, simtvp_diag *diag) {
  *impl = NULL;
  cache_spec spec;
  bool has_l2 = cfg->l2 && strcmp(cfg->l2, "none") != 0;
  if (has_l2) {
    simtvp_status st = cache_spec_parse(cfg->l2, "-gpgpu_cache:dl2", &spec, diag);
    if (st != SIMTVP_OK) return st;
    has_l2 = !spec.disabled;
  }
  mp_at *mp = calloc(1, sizeof *mp);
  if (!mp) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  mp->cfg = *cfg;
  mp->has_l2 = has_l2;
  mp->fetch_free = -1;
  simtvp_status st = mempart_index_init(&mp->index, cfg->addr_mapping, cfg->n_channels, cfg->n_sub, diag);
  if (st != SIMTVP_OK) {
    free(mp);
    return st;
  }
  mp->bucket_mask = 1023;
  mp->bucket = malloc((mp->bucket_mask + 1) * sizeof *mp->bucket);
  mp->sub = calloc(cfg->n_sub, sizeof *mp->sub);
  bool ok = mp->bucket && mp->sub && grow_fetches(mp);
  if (ok) memset(mp->bucket, 0xff, (mp->bucket_mask + 1) * sizeof *mp->bucket);
  if (ok && !cfg->pool) {
    mp->pool = mem_req_pool_create();
    mp->own_pool = ok = mp->pool != NULL;
  } else {
    mp->pool = cfg->pool;
  }
  if (!ok) {
    at_destroy(mp);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  register_stats(mp);
  for (uint32_t i = 0; i < cfg->n_sub; i++) {
    mpa_sub *s = &mp->sub[i];
    s->global = cfg->partition * cfg->n_sub + i;
    s->port_bytes = 32;
    if (!has_l2) continue;
    char name[64];
    snprintf(name, sizeof name, "L2_cache_bank[%u]", s->global);
    cache_config cc;
    memset(&cc, 0, sizeof cc);
    cc.spec = spec;
    cc.level = CACHE_LEVEL_L2;
    cc.stats = cfg->stats;
    cc.name = name;
    cc.stats_group = "L2";
    cc.pool = mp->pool;
    cc.index_addr = index_hook;
    cc.index_ctx = mp;
    cc.timed = true;
    st = cache_create(&cc, &s->l2, diag);
    if (st != SIMTVP_OK) {
      at_destroy(mp);
      return st;
    }
    s->port_bytes = spec.data_port_bytes ? spec.data_port_bytes : spec.line_bytes;
  }
  *impl = mp;
  return SIMTVP_OK;
}

const mempart_ops mempart_at_ops = {"at",           at_create,        at_destroy,     at_can_accept,  at_push,
                                    at_dram_return, at_can_return,    at_reply_ready, at_dram_ready,  at_advance,
                                    at_next_event,  at_flush_l2,      at_invalidate_l2, at_index_addr, at_l2,
                                    at_get_occupancy, at_is_idle,     at_get_stats,   at_access_timed};
