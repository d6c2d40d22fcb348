/* mempart — one memory partition with its L2 sub-partitions (GPGPU-Sim 3.x manual §2.5); see
 * mempart.h for the model and docs/mempart.md for the long form.
 *
 * One simulated cycle runs the stages downstream first, so a request moves at most one stage per
 * cycle:
 *   partition:      DRAM latency queue → DRAM port; L2→DRAM queues → DRAM latency queue (round robin)
 *   sub-partition:  L2→ICNT → reply port; L2 replies → L2→ICNT; DRAM→L2 → L2 fill or L2→ICNT;
 *                   L2 miss queue → L2→DRAM; ICNT→L2 → L2 access (or bypass / ideal); ROP → ICNT→L2
 * Only cycles in which a stage can move are simulated (next_event is computed from the state);
 * queue occupancy is accounted per span of unchanged state, never per idle cycle. */
#include "mempart.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "dram_addrdec.h"
#include "gpu_config.h"
#include "mempart_index.h"
#include "mempart_variant.h"
#include "stats.h"

/* ---- queues ---------------------------------------------------------------------------------- */

/* A FIFO of requests linked through mem_req.next; cap 0 = unlimited. */
typedef struct mp_fifo {
  mem_req *head, *tail;
  uint32_t len, cap;
} mp_fifo;

/* A delay line: each entry leaves no earlier than its ready cycle, in arrival order. */
typedef struct mp_delay {
  mem_req **req;
  uint64_t *ready;
  uint32_t head, len, cap;
} mp_delay;

enum { Q_ROP, Q_I2L, Q_L2D, Q_D2L, Q_L2I, Q_COUNT };
static const char *const k_queue_names[Q_COUNT] = {"rop_queue", "icnt_to_l2_queue",
                                                   "l2_to_dram_queue", "dram_to_l2_queue",
                                                   "l2_to_icnt_queue"};

static bool fifo_full(const mp_fifo *q) { return q->cap && q->len >= q->cap; }

static void fifo_push(mp_fifo *q, mem_req *r) {
  r->next = NULL;
  if (q->tail) q->tail->next = r;
  else q->head = r;
  q->tail = r;
  q->len++;
}

static void fifo_push_front(mp_fifo *q, mem_req *r) {
  r->next = q->head;
  q->head = r;
  if (!q->tail) q->tail = r;
  q->len++;
}

static mem_req *fifo_pop(mp_fifo *q) {
  mem_req *r = q->head;
  if (!r) return NULL;
  q->head = r->next;
  if (!q->head) q->tail = NULL;
  r->next = NULL;
  q->len--;
  return r;
}

static void fifo_free_all(mp_fifo *q) {
  mem_req *r;
  while ((r = fifo_pop(q))) mem_req_free(r);
}

static bool delay_init(mp_delay *d, uint32_t cap) {
  d->cap = cap;
  d->req = calloc(cap, sizeof *d->req);
  d->ready = calloc(cap, sizeof *d->ready);
  return d->req && d->ready;
}

static void delay_fini(mp_delay *d) {
  while (d->len) {
    mem_req_free(d->req[d->head]);
    d->head = (d->head + 1) % d->cap;
    d->len--;
  }
  free(d->req);
  free(d->ready);
}

static bool delay_room(const mp_delay *d) { return d->len < d->cap; }

static void delay_push(mp_delay *d, mem_req *r, uint64_t ready) {
  uint32_t slot = (d->head + d->len) % d->cap;
  d->req[slot] = r;
  d->ready[slot] = ready;
  d->len++;
}

static uint64_t delay_head_ready(const mp_delay *d) { return d->ready[d->head]; }

static mem_req *delay_pop(mp_delay *d) {
  mem_req *r = d->req[d->head];
  d->head = (d->head + 1) % d->cap;
  d->len--;
  return r;
}

/* ---- the partition ----------------------------------------------------------------------------- */

typedef struct mp_sub {
  uint32_t global; /* global sub-partition (L2 slice) index */
  cache *l2;
  mp_delay rop;
  mp_fifo i2l, l2d, d2l, l2i;
  uint64_t last_accept;  /* cycle of the last request taken (one per cycle) */
  bool door_waiting;     /* a push was refused for want of room: gpu_stall_dramfull runs */
  uint64_t door_since;
  bool reply_blocked;    /* the reply port refused; waiting for mempart_reply_ready */
  bool reply_waiting;    /* gpu_stall_icnt2sh runs since reply_since */
  uint64_t reply_since;
  bool l2_stalled;       /* the L2 refused the head (reservation fail) until a fill or miss pop */
  uint64_t atomic_free;  /* first cycle the slice's atomic unit takes another atomic */
  uint64_t *occ_max[Q_COUNT], *occ_sum[Q_COUNT];
} mp_sub;

enum {
  C_CYCLES, C_REQUESTS, C_REPLIES, C_DRAM_READS, C_DRAM_WRITES, C_BYPASSED, C_STALL_DRAMFULL,
  C_STALL_ICNT2SH, C_STALL_DRAM_PORT, C_MISROUTED, C_LAT_MAX, C_LAT_SUM, C_ATOMIC_OPS, C_COUNT
};

typedef struct mp_ca mp_ca;

struct mp_ca {
  mempart_config cfg;
  mempart_index index;
  bool has_l2;
  mem_req_pool *pool;
  bool own_pool;
  mp_sub *sub;
  mp_delay lat;        /* DRAM latency queue */
  uint32_t last_grant; /* sub-partition granted last by the DRAM-side arbiter */
  bool dram_blocked;
  bool dram_waiting;
  uint64_t dram_since;
  uint64_t t;     /* first cycle not yet simulated */
  uint64_t next;  /* cached next event */
  uint64_t acc_t; /* occupancy accounted for cycles < acc_t */
  uint64_t *c[C_COUNT];
  uint64_t *local; /* counters when there is no stats sink */
  uint64_t *shared_dramfull, *shared_icnt2sh; /* GPU-wide gpu_stall_* counters, NULL without a sink */
  bool misroute_reported;
};

static void ca_destroy(mp_ca *mp);

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* gpu_stall_dramfull / gpu_stall_icnt2sh: GPU-wide names in the sink (every partition adds to the
 * same counter); the partition keeps its own share too. */
static void add_stall(mp_ca *mp, int which, uint64_t cycles) {
  *mp->c[which] += cycles;
  uint64_t *shared = which == C_STALL_DRAMFULL ? mp->shared_dramfull : mp->shared_icnt2sh;
  if (shared) *shared += cycles;
}

static uint32_t queue_len(const mp_sub *s, int q) {
  switch (q) {
    case Q_ROP: return s->rop.len;
    case Q_I2L: return s->i2l.len;
    case Q_L2D: return s->l2d.len;
    case Q_D2L: return s->d2l.len;
    default: return s->l2i.len;
  }
}

static void note_len(mp_sub *s, int q) {
  uint32_t len = queue_len(s, q);
  if (len > *s->occ_max[q]) *s->occ_max[q] = len;
}

/* Adds the occupancy of cycles [acc_t, upto) with the current queue lengths. */
static void account(mp_ca *mp, uint64_t upto) {
  if (upto <= mp->acc_t) return;
  uint64_t span = upto - mp->acc_t;
  *mp->c[C_CYCLES] += span;
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++) {
    mp_sub *s = &mp->sub[i];
    for (int q = 0; q < Q_COUNT; q++) *s->occ_sum[q] += span * queue_len(s, q);
  }
  *mp->c[C_LAT_SUM] += span * mp->lat.len;
  mp->acc_t = upto;
}

/* ---- next event -------------------------------------------------------------------------------- */

static bool sub_can_take_from_icnt(const mp_ca *mp, const mp_sub *s, uint64_t at) {
  (void)mp;
  return s->last_accept != at && delay_room(&s->rop) && !fifo_full(&s->i2l);
}

static bool l2_has_replies(const cache *l2) {
  cache_occupancy occ;
  cache_get_occupancy(l2, &occ);
  return occ.replies > 0;
}

/* The slice's atomic unit (-gpgpu_l2_atomic_ops_per_cycle) has not finished the previous atomic
 * by cycle c, so the atomic r at the head waits. */
static bool atomic_unit_busy(const mp_ca *mp, const mp_sub *s, const mem_req *r, uint64_t c) {
  return mp->cfg.atomic_ops && r->kind == MEM_ACC_ATOMIC && c < s->atomic_free;
}

/* Can the head of ICNT→L2 move on at the next cycle (ignoring data-port timing, which is polled)? */
static bool l2_stage_ready(const mp_ca *mp, const mp_sub *s) {
  const mem_req *r = s->i2l.head;
  if (!r || s->l2_stalled) return false;
  if (mp->cfg.l2_ideal) return !r->needs_reply || !fifo_full(&s->l2i);
  if (mempart_bypasses_l2(&mp->cfg, s->l2 != NULL, r)) return !fifo_full(&s->l2d);
  if (atomic_unit_busy(mp, s, r, mp->t)) return false; /* compute_next wakes it */
  return !fifo_full(&s->l2i);
}

static uint64_t compute_next(const mp_ca *mp) {
  uint64_t t = mp->t, ev = MEMPART_NEVER;
  if (mp->lat.len && !mp->dram_blocked) ev = max_u64(t, delay_head_ready(&mp->lat));
  if (delay_room(&mp->lat))
    for (uint32_t i = 0; i < mp->cfg.n_sub; i++)
      if (mp->sub[i].l2d.len) return t;
  for (uint32_t i = 0; i < mp->cfg.n_sub && ev > t; i++) {
    const mp_sub *s = &mp->sub[i];
    if (s->l2i.len && !s->reply_blocked) return t;
    if (s->l2 && !fifo_full(&s->l2i) && l2_has_replies(s->l2)) return t;
    if (s->d2l.len) {
      const mem_req *r = s->d2l.head;
      if ((s->l2 && r->owner_ctx == (void *)s->l2) || !fifo_full(&s->l2i)) return t;
    }
    if (s->l2 && cache_miss_queue_length(s->l2) && !fifo_full(&s->l2d)) return t;
    if (l2_stage_ready(mp, s)) return t;
    if (s->i2l.head && !s->l2_stalled && atomic_unit_busy(mp, s, s->i2l.head, t))
      ev = min_u64(ev, s->atomic_free);
    if (s->rop.len && !fifo_full(&s->i2l)) ev = min_u64(ev, max_u64(t, delay_head_ready(&s->rop)));
  }
  return ev;
}

/* ---- stages ------------------------------------------------------------------------------------ */

static void stage_dram_send(mp_ca *mp, uint64_t c) {
  if (!mp->lat.len || mp->dram_blocked || delay_head_ready(&mp->lat) > c) return;
  mem_req *r = mp->lat.req[mp->lat.head];
  r->next = NULL;
  bool to_dram;
  if (!mempart_send_down(&mp->cfg, r, c, &to_dram)) {
    mp->dram_blocked = true;
    if (!mp->dram_waiting) {
      mp->dram_waiting = true;
      mp->dram_since = c;
    }
    return;
  }
  delay_pop(&mp->lat);
  if (mp->dram_waiting) {
    *mp->c[C_STALL_DRAM_PORT] += c - mp->dram_since;
    mp->dram_waiting = false;
  }
  if (to_dram) ++*mp->c[r->is_write ? C_DRAM_WRITES : C_DRAM_READS];
}

static void stage_arbitrate(mp_ca *mp, uint64_t c) {
  if (!delay_room(&mp->lat)) return;
  uint32_t n = mp->cfg.n_sub;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = (mp->last_grant + 1 + k) % n;
    mp_sub *s = &mp->sub[i];
    if (!s->l2d.len) continue;
    delay_push(&mp->lat, fifo_pop(&s->l2d), c + mp->cfg.dram_latency);
    if (mp->lat.len > *mp->c[C_LAT_MAX]) *mp->c[C_LAT_MAX] = mp->lat.len;
    mp->last_grant = i;
    return; /* one request per cycle toward the DRAM */
  }
}

static void stage_reply_out(mp_ca *mp, uint32_t i, mp_sub *s, uint64_t c) {
  if (!s->l2i.head || s->reply_blocked) return;
  mem_req *r = fifo_pop(&s->l2i); /* unlinked first: the receiver may use r->next */
  r->is_reply = true;
  r->dst_node = r->src_node; /* back to whoever injected it */
  if (!mp->cfg.ports.reply(mp->cfg.ports.ctx, i, r, c)) {
    fifo_push_front(&s->l2i, r);
    s->reply_blocked = true;
    if (!s->reply_waiting) {
      s->reply_waiting = true;
      s->reply_since = c;
    }
    return;
  }
  ++*mp->c[C_REPLIES];
  if (s->reply_waiting) {
    add_stall(mp, C_STALL_ICNT2SH, c - s->reply_since);
    s->reply_waiting = false;
  }
}

static void stage_l2_replies(mp_sub *s, uint64_t c) {
  if (!s->l2 || fifo_full(&s->l2i)) return;
  mem_req *r = cache_reply_pop(s->l2, c);
  if (!r) return;
  fifo_push(&s->l2i, r);
  note_len(s, Q_L2I);
}

static void stage_dram_to_l2(mp_sub *s, uint64_t c) {
  mem_req *r = s->d2l.head;
  if (!r) return;
  if (s->l2 && r->owner_ctx == (void *)s->l2) { /* a fetch of this slice: fill */
    if (!cache_fill_port_free(s->l2, c)) return;
    fifo_pop(&s->d2l);
    bool filled = cache_fill(s->l2, r, c);
    assert(filled && "a request the L2 allocated is one of its fills");
    (void)filled;
    s->l2_stalled = false; /* MSHRs and lines may have been released */
    return;
  }
  if (fifo_full(&s->l2i)) return; /* around the L2: straight toward the interconnect */
  fifo_pop(&s->d2l);
  fifo_push(&s->l2i, r);
  note_len(s, Q_L2I);
}

static void stage_miss_out(mp_ca *mp, mp_sub *s) {
  if (!s->l2 || fifo_full(&s->l2d) || !cache_miss_peek(s->l2)) return;
  mem_req *r = cache_miss_pop(s->l2);
  r->partition = mp->cfg.partition; /* write-backs carry no route of their own */
  r->sub_partition = s->global;
  fifo_push(&s->l2d, r);
  note_len(s, Q_L2D);
  s->l2_stalled = false; /* the miss queue has room again */
}

static void stage_l2_access(mp_ca *mp, mp_sub *s, uint64_t c) {
  mem_req *r = s->i2l.head;
  if (!r || s->l2_stalled) return;
  if (mp->cfg.l2_ideal) { /* every access hits */
    if (r->needs_reply && fifo_full(&s->l2i)) return;
    fifo_pop(&s->i2l);
    if (!r->needs_reply) {
      mem_req_free(r);
      return;
    }
    r->is_reply = true;
    fifo_push(&s->l2i, r);
    note_len(s, Q_L2I);
    return;
  }
  if (mempart_bypasses_l2(&mp->cfg, s->l2 != NULL, r)) {
    if (fifo_full(&s->l2d)) return;
    if (s->l2 && mempart_bypass_invalidates(&mp->cfg, r)) cache_invalidate_line(s->l2, r->addr);
    fifo_pop(&s->i2l);
    fifo_push(&s->l2d, r);
    note_len(s, Q_L2D);
    ++*mp->c[C_BYPASSED];
    return;
  }
  if (atomic_unit_busy(mp, s, r, c)) return; /* compute_next wakes it at atomic_free */
  /* GPGPU-Sim's rule: the L2 is accessed only while its output toward the interconnect has room
   * and its data port is free. */
  if (fifo_full(&s->l2i) || !cache_data_port_free(s->l2, c)) return;
  fifo_pop(&s->i2l);
  uint32_t ops = r->kind == MEM_ACC_ATOMIC ? (r->n_ops ? r->n_ops : 1u) : 0u;
  cache_status st = cache_access(s->l2, r, c, NULL); /* r may be gone unless it failed */
  if (st == CACHE_RESERVATION_FAIL) {
    fifo_push_front(&s->i2l, r);
    s->l2_stalled = true;
  } else if (ops) {
    *mp->c[C_ATOMIC_OPS] += ops;
    if (mp->cfg.atomic_ops) s->atomic_free = c + (ops + mp->cfg.atomic_ops - 1) / mp->cfg.atomic_ops;
  }
}

static void stage_rop(mp_sub *s, uint64_t c) {
  if (!s->rop.len || delay_head_ready(&s->rop) > c || fifo_full(&s->i2l)) return;
  fifo_push(&s->i2l, delay_pop(&s->rop));
  note_len(s, Q_I2L);
}

static void run_cycle(mp_ca *mp, uint64_t c) {
  account(mp, c);
  stage_dram_send(mp, c);
  stage_arbitrate(mp, c);
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++) {
    mp_sub *s = &mp->sub[i];
    stage_reply_out(mp, i, s, c);
    stage_l2_replies(s, c);
    stage_dram_to_l2(s, c);
    stage_miss_out(mp, s);
    stage_l2_access(mp, s, c);
    stage_rop(s, c);
  }
}

static void ca_advance(mp_ca *mp, uint64_t now) {
  if (now == MEMPART_NEVER) now = MEMPART_NEVER - 1;
  while (mp->next <= now) {
    uint64_t c = mp->next;
    run_cycle(mp, c);
    mp->t = c + 1;
    mp->next = compute_next(mp);
  }
  if (mp->t <= now) mp->t = now + 1;
  account(mp, mp->t);
  mp->next = compute_next(mp);
}

static uint64_t ca_next_event(const mp_ca *mp) { return mp->next; }

/* An input at cycle `now`: completes every cycle before it; returns the cycle it acts at. */
static uint64_t catch_up(mp_ca *mp, uint64_t now) {
  if (now > mp->t) ca_advance(mp, now - 1);
  uint64_t at = max_u64(now, mp->t);
  account(mp, at);
  return at;
}

/* ---- inputs ------------------------------------------------------------------------------------ */

static bool ca_can_accept(const mp_ca *mp, uint32_t sub, uint64_t now) {
  if (sub >= mp->cfg.n_sub) return false;
  return sub_can_take_from_icnt(mp, &mp->sub[sub], max_u64(now, mp->t));
}

static void check_route(mp_ca *mp, const mp_sub *s, const mem_req *req) {
  if (!mp->cfg.addrmap) return;
  dram_addr a;
  dram_addrmap_decode(mp->cfg.addrmap, mem_req_route_addr(req), &a);
  if (a.channel == mp->cfg.partition && a.sub_partition == s->global) return;
  ++*mp->c[C_MISROUTED];
  if (mp->misroute_reported) return;
  mp->misroute_reported = true; /* once per partition: the counter says how many */
  simtvp_msg(&mp->cfg.msg, SIMTVP_ERROR,
             "memory partition %u, sub-partition %u: request %llu for address 0x%llx (kind %s, "
             "SM %u) belongs to partition %u, sub-partition %u; served here anyway "
             "(mem_partition[%u].misrouted counts them)",
             mp->cfg.partition, s->global, (unsigned long long)req->id,
             (unsigned long long)req->addr, mem_access_kind_name((mem_access_kind)req->kind),
             (unsigned)req->sm, a.channel, a.sub_partition, mp->cfg.partition);
}

static bool ca_push(mp_ca *mp, uint32_t sub, mem_req *req, uint64_t now) {
  assert(sub < mp->cfg.n_sub && "sub-partition index out of range");
  if (sub >= mp->cfg.n_sub) return false;
  uint64_t at = catch_up(mp, now);
  mp_sub *s = &mp->sub[sub];
  if (!sub_can_take_from_icnt(mp, s, at)) {
    bool full = !delay_room(&s->rop) || fifo_full(&s->i2l);
    if (full && !s->door_waiting) {
      s->door_waiting = true;
      s->door_since = at;
    }
    return false;
  }
  if (s->door_waiting) {
    add_stall(mp, C_STALL_DRAMFULL, at - s->door_since);
    s->door_waiting = false;
  }
  check_route(mp, s, req);
  req->partition = mp->cfg.partition;
  req->sub_partition = s->global;
  delay_push(&s->rop, req, at + mp->cfg.rop_latency);
  note_len(s, Q_ROP);
  s->last_accept = at;
  ++*mp->c[C_REQUESTS];
  mp->next = compute_next(mp);
  return true;
}

static bool ends_at_dram(const mem_req *req) {
  return req->is_write && (!req->needs_reply || req->kind == MEM_ACC_L2_WRBK);
}

static mp_sub *return_sub(const mp_ca *mp, const mem_req *req) {
  uint32_t first = mp->cfg.partition * mp->cfg.n_sub;
  assert(req->sub_partition >= first && req->sub_partition < first + mp->cfg.n_sub);
  uint32_t i = req->sub_partition - first;
  return &mp->sub[i < mp->cfg.n_sub ? i : 0];
}

static bool ca_can_return(const mp_ca *mp, const mem_req *req) {
  return ends_at_dram(req) || !fifo_full(&return_sub(mp, req)->d2l);
}

static bool ca_dram_return(mp_ca *mp, mem_req *req, uint64_t now) {
  catch_up(mp, now);
  if (ends_at_dram(req)) {
    mem_req_free(req); /* written: nobody waits for it */
    return true;
  }
  mp_sub *s = return_sub(mp, req);
  if (fifo_full(&s->d2l)) return false;
  fifo_push(&s->d2l, req);
  note_len(s, Q_D2L);
  mp->next = compute_next(mp);
  return true;
}

static void ca_reply_ready(mp_ca *mp, uint32_t sub, uint64_t now) {
  if (sub >= mp->cfg.n_sub) return;
  catch_up(mp, now);
  mp->sub[sub].reply_blocked = false;
  mp->next = compute_next(mp);
}

static void ca_dram_ready(mp_ca *mp, uint64_t now) {
  catch_up(mp, now);
  mp->dram_blocked = false;
  mp->next = compute_next(mp);
}

/* ---- maintenance and inspection ----------------------------------------------------------------- */

static uint32_t ca_flush_l2(mp_ca *mp, uint64_t now) {
  uint64_t at = catch_up(mp, now);
  uint32_t n = 0;
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++)
    if (mp->sub[i].l2) n += cache_flush(mp->sub[i].l2, at);
  mp->next = compute_next(mp);
  return n;
}

static uint32_t ca_invalidate_l2(mp_ca *mp) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++)
    if (mp->sub[i].l2) n += cache_invalidate(mp->sub[i].l2);
  return n;
}

static uint64_t ca_index_addr(const mp_ca *mp, uint64_t addr) {
  return mempart_index_apply(&mp->index, addr);
}

static const cache *ca_l2(const mp_ca *mp, uint32_t sub) {
  return sub < mp->cfg.n_sub ? mp->sub[sub].l2 : NULL;
}

static void ca_get_occupancy(const mp_ca *mp, uint32_t sub, mempart_occupancy *occ) {
  memset(occ, 0, sizeof *occ);
  occ->dram_latency = mp->lat.len;
  if (sub >= mp->cfg.n_sub) return;
  const mp_sub *s = &mp->sub[sub];
  occ->rop = s->rop.len;
  occ->icnt_to_l2 = s->i2l.len;
  occ->l2_to_dram = s->l2d.len;
  occ->dram_to_l2 = s->d2l.len;
  occ->l2_to_icnt = s->l2i.len;
}

static bool ca_is_idle(const mp_ca *mp) {
  if (mp->lat.len) return false;
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++) {
    const mp_sub *s = &mp->sub[i];
    for (int q = 0; q < Q_COUNT; q++)
      if (queue_len(s, q)) return false;
    if (s->l2 && !cache_is_idle(s->l2)) return false;
  }
  return true;
}

static void ca_get_stats(const mp_ca *mp, mempart_stats *o) {
  o->cycles = *mp->c[C_CYCLES];
  o->requests = *mp->c[C_REQUESTS];
  o->replies = *mp->c[C_REPLIES];
  o->dram_reads = *mp->c[C_DRAM_READS];
  o->dram_writes = *mp->c[C_DRAM_WRITES];
  o->l2_bypassed = *mp->c[C_BYPASSED];
  o->stall_dramfull = *mp->c[C_STALL_DRAMFULL];
  o->stall_icnt2sh = *mp->c[C_STALL_ICNT2SH];
  o->stall_dram_port = *mp->c[C_STALL_DRAM_PORT];
  o->misrouted = *mp->c[C_MISROUTED];
}

/* ---- configuration ------------------------------------------------------------------------------ */

void mempart_config_default(mempart_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->n_sub = 1;
  cfg->l2 = "64:128:8,L:B:m:N,A:16:4,4";
  cfg->queue_icnt_to_l2 = cfg->queue_l2_to_dram = cfg->queue_dram_to_l2 =
      cfg->queue_l2_to_icnt = 8;
  cfg->rop_latency = 85;
  cfg->dram_latency = 30;
  cfg->n_channels = 1;
}

static uint32_t core_to_l2_cycles(uint32_t core_cycles, double core_mhz, double l2_mhz) {
  /* ceil(core_cycles × l2 / core) in exact integer arithmetic on kHz */
  uint64_t core_khz = (uint64_t)(core_mhz * 1000.0 + 0.5), l2_khz = (uint64_t)(l2_mhz * 1000.0 + 0.5);
  return (uint32_t)(((uint64_t)core_cycles * l2_khz + core_khz - 1) / core_khz);
}

simtvp_status mempart_config_from_gpu(const gpu_config *g, uint32_t partition,
                                      mempart_config *cfg, simtvp_diag *diag) {
  const gpu_config_derived *d = &g->derived;
  if (!(d->core_mhz > 0.0) || !(d->l2_mhz > 0.0)) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG,
                    "-gpgpu_clock_domains: core and L2 clocks must be positive (got %g and %g MHz)",
                    d->core_mhz, d->l2_mhz);
    simtvp_diag_at_option(diag, "-gpgpu_clock_domains");
    return SIMTVP_ERR_CONFIG;
  }
  if (partition >= g->mem.n_channels) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "-gpgpu_n_mem: partition %u of %u", partition,
                    g->mem.n_channels);
    simtvp_diag_at_option(diag, "-gpgpu_n_mem");
    return SIMTVP_ERR_ARG;
  }
  cfg->partition = partition;
  cfg->n_sub = g->mem.sub_partitions_per_channel;
  cfg->l2 = g->mem.l2;
  cfg->l2_texture_only = g->mem.l2_texture_only;
  cfg->l2_ideal = g->mem.l2_ideal;
  cfg->queue_icnt_to_l2 = d->queue_icnt_to_l2;
  cfg->queue_l2_to_dram = d->queue_l2_to_dram;
  cfg->queue_dram_to_l2 = d->queue_dram_to_l2;
  cfg->queue_l2_to_icnt = d->queue_l2_to_icnt;
  cfg->rop_latency = core_to_l2_cycles(g->mem.rop_latency, d->core_mhz, d->l2_mhz);
  cfg->atomic_ops = g->mem.l2_atomic_ops;
  cfg->dram_latency = core_to_l2_cycles(g->mem.dram_latency, d->core_mhz, d->l2_mhz);
  cfg->addr_mapping = g->mem.addr_mapping[0] ? g->mem.addr_mapping : NULL;
  cfg->n_channels = g->mem.n_channels;
  return SIMTVP_OK;
}

/* ---- create / destroy --------------------------------------------------------------------------- */

static uint64_t index_hook(void *ctx, uint64_t addr) {
  return mempart_index_apply(&((const mp_ca *)ctx)->index, addr);
}

static simtvp_status config_error(simtvp_diag *diag, const char *option, const char *why) {
  return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, option, "%s", why);
}

static uint64_t *counter(mp_ca *mp, uint32_t slot, const char *name, const char *unit,
                         const char *desc) {
  if (!mp->cfg.stats) return &mp->local[slot];
  return stats_counter(mp->cfg.stats, name, unit, desc);
}

static void register_stats(mp_ca *mp, uint32_t n_local) {
  char n[160], d[160];
  uint32_t p = mp->cfg.partition;
  stats *st = mp->cfg.stats;
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
      {C_STALL_DRAM_PORT, "dram_port_stall", "cycles",
       "L2 cycles the DRAM latency queue's head waited for the controller"},
      {C_MISROUTED, "misrouted", "requests", "requests that belonged to another partition"},
      {C_LAT_MAX, "dram_latency_queue.max", "requests", "largest DRAM latency queue occupancy"},
      {C_LAT_SUM, "dram_latency_queue.sum", "request-cycles",
       "DRAM latency queue occupancy summed over L2 cycles"},
      /* only with an atomic unit (-gpgpu_l2_atomic_ops_per_cycle): the last entry */
      {C_ATOMIC_OPS, "l2_atomic_ops", "operations", "atomic lane operations executed at the L2"},
  };
  size_t n_always = sizeof k / sizeof k[0] - 1;
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    snprintf(n, sizeof n, "mem_partition[%u].%s", p, k[i].name);
    mp->c[k[i].slot] = i < n_always || mp->cfg.atomic_ops
                           ? counter(mp, (uint32_t)k[i].slot, n, k[i].unit, k[i].desc)
                           : &mp->local[k[i].slot];
  }
  if (st) {
    char num[160], den[160];
    snprintf(n, sizeof n, "mem_partition[%u].dram_latency_queue.avg", p);
    snprintf(num, sizeof num, "mem_partition[%u].dram_latency_queue.sum", p);
    snprintf(den, sizeof den, "mem_partition[%u].cycles", p);
    stats_ratio(st, n, "average DRAM latency queue occupancy", num, den);
  }
  /* gpu_stall_* are GPU-wide (every partition adds to one counter, printed cumulatively as
   * GPGPU-Sim does); the partition keeps its own share in local slots. */
  mp->c[C_STALL_DRAMFULL] = &mp->local[C_COUNT + 0];
  mp->c[C_STALL_ICNT2SH] = &mp->local[C_COUNT + 1];
  if (st) {
    mp->shared_dramfull = stats_counter(st, "gpu_stall_dramfull", "cycles",
                                        "L2 cycles requests waited at a full memory sub-partition");
    mp->shared_icnt2sh = stats_counter(st, "gpu_stall_icnt2sh", "cycles",
                                       "L2 cycles replies waited for the interconnect");
    stats_mark_cumulative(st, "gpu_stall_dramfull");
    stats_mark_cumulative(st, "gpu_stall_icnt2sh");
  }
  uint32_t slot = C_COUNT + 2;
  for (uint32_t i = 0; i < mp->cfg.n_sub; i++) {
    mp_sub *s = &mp->sub[i];
    for (int q = 0; q < Q_COUNT; q++) {
      snprintf(n, sizeof n, "mem_sub_partition[%u].%s.max", s->global, k_queue_names[q]);
      snprintf(d, sizeof d, "largest occupancy of the %s", k_queue_names[q]);
      s->occ_max[q] = counter(mp, slot++, n, "requests", d);
      snprintf(n, sizeof n, "mem_sub_partition[%u].%s.sum", s->global, k_queue_names[q]);
      snprintf(d, sizeof d, "occupancy of the %s summed over L2 cycles", k_queue_names[q]);
      s->occ_sum[q] = counter(mp, slot++, n, "request-cycles", d);
      if (st) {
        char avg[160], den[160];
        snprintf(avg, sizeof avg, "mem_sub_partition[%u].%s.avg", s->global, k_queue_names[q]);
        snprintf(den, sizeof den, "mem_partition[%u].cycles", p);
        stats_ratio(st, avg, "average occupancy (sum / L2 cycles)", n, den);
      }
    }
  }
  assert(slot <= n_local);
  (void)n_local;
}

static simtvp_status ca_create(const mempart_config *cfg, void **impl, simtvp_diag *diag) {
  mp_ca **out = (mp_ca **)impl;
  *out = NULL;
  if (!cfg) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "mempart_create: no configuration");
  if (!cfg->ports.reply || !cfg->ports.dram)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                           "mempart_create: partition %u needs both a reply and a DRAM port",
                           cfg->partition);
  if (cfg->n_sub == 0 || (cfg->n_sub & (cfg->n_sub - 1)) || cfg->n_sub > 64)
    return config_error(diag, "-gpgpu_n_sub_partition_per_mchannel",
                        "sub-partitions per channel must be a power of two from 1 to 64");
  if (cfg->rop_latency > (1u << 20) || cfg->dram_latency > (1u << 20))
    return config_error(diag, cfg->rop_latency > (1u << 20) ? "-gpgpu_l2_rop_latency" : "-dram_latency",
                        "latency above 2^20 cycles");

  cache_spec spec;
  bool has_l2 = cfg->l2 && strcmp(cfg->l2, "none") != 0;
  if (has_l2) {
    simtvp_status st = cache_spec_parse(cfg->l2, "-gpgpu_cache:dl2", &spec, diag);
    if (st != SIMTVP_OK) return st;
    if (spec.disabled) has_l2 = false;
    else if (spec.mshr_type == CACHE_MSHR_TEX_FIFO || spec.mshr_type == CACHE_MSHR_SECTOR_TEX_FIFO)
      return config_error(diag, "-gpgpu_cache:dl2",
                          "an L2 slice needs associative MSHRs (A or S), not the texture FIFO");
  }

  mp_ca *mp = calloc(1, sizeof *mp);
  if (!mp) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  mp->cfg = *cfg;
  mp->has_l2 = has_l2;
  mp->next = MEMPART_NEVER;
  mp->last_grant = cfg->n_sub - 1; /* sub-partition 0 is served first */
  simtvp_status st = mempart_index_init(&mp->index, cfg->addr_mapping, cfg->n_channels,
                                        cfg->n_sub, diag);
  if (st != SIMTVP_OK) {
    free(mp);
    return st;
  }
  uint32_t n_local = C_COUNT + 2 + cfg->n_sub * Q_COUNT * 2;
  mp->local = calloc(n_local, sizeof *mp->local);
  mp->sub = calloc(cfg->n_sub, sizeof *mp->sub);
  bool ok = mp->local && mp->sub &&
            delay_init(&mp->lat, cfg->dram_latency + 2); /* one entry enters per cycle */
  if (ok && !cfg->pool) {
    mp->pool = mem_req_pool_create();
    mp->own_pool = true;
    ok = mp->pool != NULL;
  } else {
    mp->pool = cfg->pool;
  }
  for (uint32_t i = 0; ok && i < cfg->n_sub; i++) {
    mp_sub *s = &mp->sub[i];
    s->global = cfg->partition * cfg->n_sub + i;
    s->last_accept = UINT64_MAX;
    s->i2l.cap = cfg->queue_icnt_to_l2;
    s->l2d.cap = cfg->queue_l2_to_dram;
    s->d2l.cap = cfg->queue_dram_to_l2;
    s->l2i.cap = cfg->queue_l2_to_icnt;
    ok = delay_init(&s->rop, cfg->rop_latency + 2); /* one request enters per cycle */
  }
  if (!ok) {
    ca_destroy(mp);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  register_stats(mp, n_local);
  for (uint32_t i = 0; i < cfg->n_sub && has_l2; i++) {
    mp_sub *s = &mp->sub[i];
    char name[64];
    snprintf(name, sizeof name, "L2_cache_bank[%u]", s->global);
    cache_config cc;
    memset(&cc, 0, sizeof cc);
    cc.spec = spec;
    cc.level = CACHE_LEVEL_L2;
    cc.hit_latency = 0; /* the ROP delay is the L2's latency, as in GPGPU-Sim */
    cc.stats = cfg->stats;
    cc.name = name;
    cc.stats_group = "L2";
    cc.pool = mp->pool;
    cc.index_addr = index_hook;
    cc.index_ctx = mp;
    st = cache_create(&cc, &s->l2, diag);
    if (st != SIMTVP_OK) {
      ca_destroy(mp);
      return st;
    }
  }
  *out = mp;
  return SIMTVP_OK;
}

static void ca_destroy(mp_ca *mp) {
  if (!mp) return;
  if (mp->sub) {
    for (uint32_t i = 0; i < mp->cfg.n_sub; i++) {
      mp_sub *s = &mp->sub[i];
      if (s->rop.req) delay_fini(&s->rop);
      fifo_free_all(&s->i2l);
      fifo_free_all(&s->l2d);
      fifo_free_all(&s->d2l);
      fifo_free_all(&s->l2i);
    }
  }
  if (mp->lat.req) delay_fini(&mp->lat);
  if (mp->sub)
    for (uint32_t i = 0; i < mp->cfg.n_sub; i++)
      if (mp->sub[i].l2) cache_destroy(mp->sub[i].l2);
  if (mp->own_pool) mem_req_pool_destroy(mp->pool);
  free(mp->sub);
  free(mp->local);
  free(mp);
}

/* ---- the ops table ------------------------------------------------------------------------------ */

static void w_destroy(void *i) { ca_destroy(i); }
static bool w_can_accept(const void *i, uint32_t sub, uint64_t now) { return ca_can_accept(i, sub, now); }
static bool w_push(void *i, uint32_t sub, mem_req *r, uint64_t now) { return ca_push(i, sub, r, now); }
static bool w_dram_return(void *i, mem_req *r, uint64_t now) { return ca_dram_return(i, r, now); }
static bool w_can_return(const void *i, const mem_req *r) { return ca_can_return(i, r); }
static void w_reply_ready(void *i, uint32_t sub, uint64_t now) { ca_reply_ready(i, sub, now); }
static void w_dram_ready(void *i, uint64_t now) { ca_dram_ready(i, now); }
static void w_advance(void *i, uint64_t now) { ca_advance(i, now); }
static uint64_t w_next_event(const void *i) { return ca_next_event(i); }
static uint32_t w_flush_l2(void *i, uint64_t now) { return ca_flush_l2(i, now); }
static uint32_t w_invalidate_l2(void *i) { return ca_invalidate_l2(i); }
static uint64_t w_index_addr(const void *i, uint64_t a) { return ca_index_addr(i, a); }
static const cache *w_l2(const void *i, uint32_t sub) { return ca_l2(i, sub); }
static void w_get_occupancy(const void *i, uint32_t sub, mempart_occupancy *o) { ca_get_occupancy(i, sub, o); }
static bool w_is_idle(const void *i) { return ca_is_idle(i); }
static void w_get_stats(const void *i, mempart_stats *o) { ca_get_stats(i, o); }

const mempart_ops mempart_ca_ops = {"ca",          ca_create,      w_destroy,    w_can_accept, w_push,
                                    w_dram_return, w_can_return,   w_reply_ready, w_dram_ready, w_advance,
                                    w_next_event,  w_flush_l2,     w_invalidate_l2, w_index_addr, w_l2,
                                    w_get_occupancy, w_is_idle,    w_get_stats,  NULL};
