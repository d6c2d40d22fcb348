/* simt_at_mem — the memory stage of the approximately-timed SIMT core (docs/simt-at.md §3): the
 * path of a memory instruction from the moment it enters the stage to the cycle its data is
 * there, computed at once.
 *
 * The accesses are the CA core's: the lanes are split by space and coalesced with the same rules
 * (models/simt/ldst/ldst_coalesce.h: sector rule or compute capability 1.3, the local-memory
 * interleaving), so both cores send the same requests for the same instruction. Then, with the
 * instruction entering the stage at m:
 *   shared   the bank-conflict cycles (simt_at_smem.c) on the shared-memory pipeline; a load's
 *            data -gpgpu_smem_latency cycles after its last phase; the stage is held meanwhile;
 *   others   one access per cycle through the L1 port from m + 1 (access i at a_i); each access
 *            looks up its cache (L1D, L1C for const and param, L1T; models/cache in timed use):
 *              hit                 data at a_i + L1 latency;
 *              on its way          at the fill (or the fill's time once it is known);
 *              miss                a request leaves for the memory system at a_i + 1; its reply
 *                                  fills the line at its arrival R + 1 and the data is there then;
 *            accesses around the L1 (no L1D, -gpgpu_gmem_skip_L1D, .cg/.cv, atomics) and writes
 *            the L1 forwards go to the memory system the same way; a store is complete when its
 *            acknowledgement is back (fences and exit wait for it).
 * The memory system behind the core is reached through the core's ports: with timed transport
 * (an approximately-timed interconnect) a request's reply cycle is known at once; otherwise — or
 * when the memory system keeps a request (an L2 miss waits for the DRAM) — the request is
 * recorded (at_fetch) with the instructions waiting for it, and its reply completes them. */
#include "simtvp_bits.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_at_internal.h"

/* ---- records ------------------------------------------------------------------------------- */

static bool grow(void **v, uint32_t *cap, size_t item) {
  uint32_t n = *cap ? *cap * 2 : 64;
  void *p = realloc(*v, (size_t)n * item);
  if (!p) return false;
  *v = p;
  *cap = n;
  return true;
}

static uint32_t mop_new(at_core *c, uint32_t warp, const func_step *st, uint64_t done) {
  if (c->mop_free == AT_NONE) {
    uint32_t old = c->n_mops;
    if (!grow((void **)&c->mops, &c->n_mops, sizeof *c->mops)) return AT_NONE;
    for (uint32_t i = old; i < c->n_mops; i++) c->mops[i].next = i + 1 < c->n_mops ? i + 1 : AT_NONE;
    c->mop_free = old;
  }
  uint32_t id = c->mop_free;
  at_mop *m = &c->mops[id];
  c->mop_free = m->next;
  const at_warp *w = &c->warps[warp];
  const simt_insn_info *info = &w->prog->info[st->pc];
  m->warp = warp;
  m->pieces = 0;
  m->done = done;
  m->dst = w->prog->regs + info->regs + info->n_src;
  m->n_dst = info->n_dst;
  m->next = AT_NONE;
  m->measure_from = c->sample.stage_from;
  if (m->measure_from != AT_NEVER) { /* -at_sample: waits for the memory system (simt_at.c) */
    c->sample.out_n++;
    c->sample.out_from_sum += m->measure_from;
  }
  return id;
}

static void mop_release(at_core *c, uint32_t id) {
  at_mop *m = &c->mops[id];
  if (m->measure_from != AT_NEVER) { /* -at_sample: no longer waiting (at_result_known counted it) */
    c->sample.out_n--;
    c->sample.out_from_sum -= m->measure_from;
    m->measure_from = AT_NEVER;
  }
  c->mops[id].next = c->mop_free;
  c->mop_free = id;
}

static uint32_t fetch_new(at_core *c, uint8_t cache, uint64_t line, uint8_t chunks) {
  if (c->fetch_free == AT_NONE) {
    uint32_t old = c->n_fetches;
    if (!grow((void **)&c->fetches, &c->n_fetches, sizeof *c->fetches)) return AT_NONE;
    for (uint32_t i = old; i < c->n_fetches; i++) {
      c->fetches[i].live = false;
      c->fetches[i].next_free = i + 1 < c->n_fetches ? i + 1 : AT_NONE;
    }
    c->fetch_free = old;
  }
  uint32_t id = c->fetch_free;
  at_fetch *f = &c->fetches[id];
  c->fetch_free = f->next_free;
  f->live = true;
  f->cache = cache;
  f->line = line;
  f->chunks = chunks;
  f->waiters = f->warps = AT_NONE;
  c->live_fetches++;
  return id;
}

static void fetch_release(at_core *c, uint32_t id) {
  at_fetch *f = &c->fetches[id];
  f->live = false;
  f->next_free = c->fetch_free;
  c->fetch_free = id;
  c->live_fetches--;
}

/* The live fetch of `cache` for `line` covering one of `chunks`, AT_NONE when none. */
static uint32_t fetch_find(const at_core *c, uint8_t cache, uint64_t line, uint8_t chunks) {
  for (uint32_t i = 0; i < c->n_fetches; i++) {
    const at_fetch *f = &c->fetches[i];
    if (f->live && f->cache == cache && f->line == line && (f->chunks & chunks)) return i;
  }
  return AT_NONE;
}

static void fetch_wait(at_core *c, uint32_t fetch, uint32_t mop) {
  if (c->waiter_free == AT_NONE) {
    uint32_t old = c->n_waiters;
    if (!grow((void **)&c->waiters, &c->n_waiters, sizeof *c->waiters)) return;
    for (uint32_t i = old; i < c->n_waiters; i++) c->waiters[i].next = i + 1 < c->n_waiters ? i + 1 : AT_NONE;
    c->waiter_free = old;
  }
  uint32_t id = c->waiter_free;
  c->waiter_free = c->waiters[id].next;
  c->waiters[id].mop = mop;
  c->waiters[id].next = c->fetches[fetch].waiters;
  c->fetches[fetch].waiters = id;
  c->mops[mop].pieces++;
}

/* ---- the port ------------------------------------------------------------------------------ */

static void out_push(at_core *c, uint64_t at, mem_req *req) {
  if (c->n_out == c->out_cap && !grow((void **)&c->out, &c->out_cap, sizeof *c->out)) {
    mem_req_free(req);
    return;
  }
  uint32_t i = c->n_out++;
  while (i > 0 && c->out[(i - 1) / 2].at > at) {
    c->out[i] = c->out[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  c->out[i] = (at_out){at, req};
}

static void out_pop(at_core *c) {
  at_out last = c->out[--c->n_out];
  uint32_t i = 0;
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    uint64_t at = last.at;
    if (l < c->n_out && c->out[l].at < at) m = l, at = c->out[l].at;
    if (r < c->n_out && c->out[r].at < at) m = r;
    if (m == i) break;
    c->out[i] = c->out[m];
    i = m;
  }
  if (c->n_out) c->out[i] = last;
}

/* Sends req into the memory system at cycle `at`: the cycle its reply is back (or, for a request
 * that needs none, the cycle it was taken), or SIMT_MEM_DEFERRED when the reply will come through
 * at_mem_reply (owner_tag names the fetch record). */
static uint64_t send(at_core *c, mem_req *req, uint64_t at) {
  if (c->base.ports.send_timed && (!c->timed_known || c->timed_memory)) {
    uint64_t r = c->base.ports.send_timed(c->base.ports.ctx, req, at);
    if (!c->timed_known) {
      c->timed_known = true;
      c->timed_memory = r != SIMT_MEM_UNTIMED;
    }
    if (r != SIMT_MEM_UNTIMED) return r;
  }
  out_push(c, at, req);
  return SIMT_MEM_DEFERRED;
}

static mem_req *new_req(at_core *c, uint32_t slot, uint8_t kind, bool write, uint64_t addr, uint32_t size,
                        uint8_t sectors, const uint64_t bytes[2]) {
  mem_req *r = mem_req_alloc(c->base.pool);
  if (!r) return NULL;
  r->addr = addr;
  r->size = size;
  r->kind = kind;
  r->is_write = write;
  r->needs_reply = true; /* reads want data, writes an acknowledgement (fences, exit) */
  r->sector_mask = sectors;
  if (bytes) {
    r->byte_mask[0] = bytes[0];
    r->byte_mask[1] = bytes[1];
  }
  r->sm = (uint16_t)c->base.cfg.sm;
  r->cluster = (uint16_t)c->base.cfg.cluster;
  r->warp = (uint16_t)slot;
  r->owner_ctx = c;
  r->owner_tag = AT_NONE;
  return r;
}

/* A request whose reply a memory instruction waits for: its reply cycle, or AT_NEVER with the
 * instruction (*mop, created on demand) waiting for it. */
static uint64_t request(at_core *c, uint32_t slot, const func_step *st, uint32_t *mop, mem_req *r, uint64_t at,
                        uint8_t cache, uint64_t line, uint8_t chunks) {
  uint32_t f = fetch_new(c, cache, line, chunks);
  if (f == AT_NONE) { /* no host memory: time it as an immediate reply rather than hang */
    mem_req_free(r);
    return at;
  }
  r->owner_tag = f;
  uint64_t back = send(c, r, at);
  if (back != SIMT_MEM_DEFERRED) {
    fetch_release(c, f);
    return back;
  }
  if (*mop == AT_NONE) *mop = mop_new(c, slot, st, 0);
  if (*mop != AT_NONE) fetch_wait(c, f, *mop);
  return AT_NEVER;
}

/* ---- the memory stage ----------------------------------------------------------------------- */

static cache *cache_of(at_core *c, uint8_t path) {
  return path == LDST_PATH_L1D ? c->l1d : path == LDST_PATH_L1C ? c->l1c : path == LDST_PATH_L1T ? c->l1t : NULL;
}

static uint32_t latency_of(const at_core *c, uint8_t path) {
  return path == LDST_PATH_L1D ? c->l1d_latency : path == LDST_PATH_L1C ? c->l1c_latency : c->l1t_latency;
}

static uint8_t cache_index(uint8_t path) {
  return path == LDST_PATH_L1D ? AT_L1D : path == LDST_PATH_L1C ? AT_L1C : path == LDST_PATH_L1T ? AT_L1T : AT_BYPASS;
}

static uint32_t port_cycles(const at_core *c, uint8_t ci, uint32_t bytes) {
  uint32_t w = c->port_bytes[ci] ? c->port_bytes[ci] : MEM_LINE_BYTES;
  return bytes ? (bytes + w - 1) / w : 1;
}

/* The cycle a request the L1 ci sends out (a fill, a forwarded write, a write-back) leaves from
 * the miss queue, at `from` at the earliest: one per cycle. */
static uint64_t miss_out(at_core *c, uint8_t ci, uint64_t from) {
  return simtvp_cal_take(&c->miss_cal[ci], from, 1);
}

/* A reply that reached the core at cycle `at`: the response buffer hands over one per cycle,
 * from the cycle after it arrived; a fill of cache ci waits for its fill port. The cycle its
 * data is there. */
static uint64_t reply_taken(at_core *c, uint8_t ci, uint32_t bytes, uint64_t at) {
  uint64_t r = simtvp_cal_find(&c->resp_cal, at + 1, 1);
  bool fill = ci != AT_BYPASS && ci != AT_L1I;
  if (fill) { /* the head of the response buffer waits for the fill port (the buffer behind it too) */
    uint32_t n = port_cycles(c, ci, bytes);
    r = simtvp_cal_find(&c->fill_cal[ci], r, n);
    simtvp_cal_book(&c->fill_cal[ci], r, n);
  }
  simtvp_cal_book(&c->resp_cal, r, 1);
  return r;
}

/* One access through its path at cycle a: the cycle its data (or acknowledgement) is there, or
 * AT_NEVER when it waits for an event-driven memory system (*mop then waits for it). */
static uint64_t access(at_core *c, uint32_t slot, const func_step *st, uint32_t *mop, const ldst_access *x,
                       uint64_t a) {
  simt_mem_count_request(c->acc_stats, x->kind);
  cache *cc = cache_of(c, x->path);
  if (!cc) { /* around the L1 */
    mem_req *r = new_req(c, slot, x->kind, x->is_write, x->addr, x->size, x->sector_mask, x->byte_mask);
    if (!r) return a;
    if (x->kind == MEM_ACC_ATOMIC) r->n_ops = x->lanes; /* the L2's atomic unit */
    uint64_t back = request(c, slot, st, mop, r, a + 1, AT_BYPASS, 0, 0);
    return back == AT_NEVER ? back : reply_taken(c, AT_BYPASS, 0, back);
  }
  uint8_t ci = cache_index(x->path);
  bool port_limited = x->path != LDST_PATH_L1D || c->n_banks <= 1;
  uint32_t port_n = port_cycles(c, ci, x->size);
  if (port_limited) a = simtvp_cal_find(&c->data_cal[ci], a, port_n); /* the data port */
  mem_req q;
  memset(&q, 0, sizeof q);
  q.addr = x->addr;
  q.size = x->size;
  q.kind = x->kind;
  q.is_write = x->is_write;
  q.sector_mask = x->sector_mask;
  q.byte_mask[0] = x->byte_mask[0];
  q.byte_mask[1] = x->byte_mask[1];
  cache_timed_result r;
  cache_timed_access(cc, &q, a, &r);
  if (r.data_port) simtvp_cal_book(&c->data_cal[ci], a, port_n);
  if (r.wb_chunks) { /* a dirty line leaves: written back, nobody waits for it */
    uint32_t first = (uint32_t)__builtin_ctz(r.wb_chunks);
    mem_req *wb = new_req(c, slot, MEM_ACC_L1_WRBK, true, r.wb_line + (uint64_t)first * MEM_SECTOR_BYTES,
                          (uint32_t)simtvp_popcount32(r.wb_chunks) * MEM_SECTOR_BYTES, r.wb_chunks, NULL);
    if (wb) {
      wb->needs_reply = false;
      send(c, wb, miss_out(c, ci, a + 1));
    }
  }
  uint64_t done = a + latency_of(c, x->path);
  if (r.fetch) { /* a line fill the L1 asks for */
    uint8_t kind = x->is_write ? MEM_ACC_L1_WR_ALLOC_R : x->kind;
    uint32_t first = (uint32_t)__builtin_ctz(r.fetch);
    mem_req *f = new_req(c, slot, kind, false, r.line + (uint64_t)first * MEM_SECTOR_BYTES,
                         (uint32_t)simtvp_popcount32(r.fetch) * MEM_SECTOR_BYTES, r.fetch, NULL);
    uint64_t back = f ? request(c, slot, st, mop, f, miss_out(c, ci, a + 1), ci, r.line, r.fetch) : a;
    if (back != AT_NEVER) {
      uint64_t fill = reply_taken(c, ci, (uint32_t)simtvp_popcount32(r.fetch) * MEM_SECTOR_BYTES, back);
      cache_timed_fill(cc, r.line, r.fetch, fill);
      if (!x->is_write || !r.forward) done = at_max(done, fill);
    } else if (!x->is_write) {
      done = AT_NEVER;
    }
    if (r.pending_ready == CACHE_NEVER) done = AT_NEVER; /* also needs another fill on its way */
    else if (done != AT_NEVER) done = at_max(done, r.pending_ready);
  } else if (r.status == CACHE_HIT_RESERVED && !x->is_write) {
    if (r.ready == CACHE_NEVER) { /* on its way, not timed yet: wait for that fetch */
      uint32_t f = fetch_find(c, cache_index(x->path), r.line, cache_req_chunks_of(cc, &q));
      if (f != AT_NONE) {
        if (*mop == AT_NONE) *mop = mop_new(c, slot, st, 0);
        if (*mop != AT_NONE) fetch_wait(c, f, *mop);
        done = AT_NEVER;
      }
    } else {
      done = at_max(done, r.ready);
    }
  }
  if (r.forward) { /* the access itself goes on (write-through, write-evict, no allocation, "none") */
    mem_req *w = new_req(c, slot, x->kind, x->is_write, x->addr, x->size, x->sector_mask, x->byte_mask);
    if (w && x->kind == MEM_ACC_ATOMIC) w->n_ops = x->lanes;
    uint64_t back = w ? request(c, slot, st, mop, w, miss_out(c, ci, a + 1), AT_BYPASS, 0, 0) : a;
    if (back != AT_NEVER) back = reply_taken(c, AT_BYPASS, 0, back);
    done = back == AT_NEVER || done == AT_NEVER ? AT_NEVER : at_max(done, back);
  }
  return done;
}

/* The shape of a warp's lane addresses, found while they are gathered into c->ranges (in lane
 * order, `bytes` each): the sector rule then needs no second pass over them. */
static ldst_shape shape_of(uint32_t k, uint64_t not_uniform, uint64_t not_span) {
  if (k < 2) return LDST_SHAPE_ANY;
  return !not_uniform ? LDST_SHAPE_UNIFORM : !not_span ? LDST_SHAPE_SPAN : LDST_SHAPE_ANY;
}

static uint32_t coalesce(at_core *c, uint32_t n_ranges, ldst_shape shape, uint32_t block, uint32_t bytes,
                         bool gt200, uint8_t kind, uint8_t path, bool write, uint32_t n) {
  uint32_t first = n;
  if (!ldst_coalesce_shaped(c->ranges, n_ranges, shape, block, bytes, gt200, c->base.cfg.warp_size / 2, c->acc, &n,
                            LDST_MAX_ACCESSES))
    ldst_coalesce_blocks(c->ranges, n_ranges, block, c->acc, &n, LDST_MAX_ACCESSES);
  ldst_tag_accesses(c->acc, first, n, kind, path, write);
  return n;
}

/* The dispatch slot free first from t on, and that cycle. */
static uint32_t first_slot(at_core *c, uint64_t t, uint64_t *at) {
  uint32_t best = 0;
  uint64_t bt = simtvp_cal_find(&c->slot_cal[0], t, 1);
  for (uint32_t k = 1; k < c->n_slots; k++) {
    uint64_t x = simtvp_cal_find(&c->slot_cal[k], t, 1);
    if (x < bt) bt = x, best = k;
  }
  *at = bt;
  return best;
}

uint64_t at_mem_hold(at_core *c, uint64_t t, uint32_t cycles) {
  uint64_t m;
  uint32_t ks = first_slot(c, t, &m);
  if (m > t) ++*c->base.ldst_stall;
  simtvp_cal_book(&c->slot_cal[ks], m, cycles ? cycles : 1u);
  return m;
}

static uint32_t bank_of(const at_core *c, uint64_t addr) {
  if (c->n_banks <= 1) return 0;
  uint64_t idx = addr / c->bank_interleave;
  if (c->bank_hash == 1) { /* fold the whole index onto the bank bits with XOR */
    uint64_t b = 0;
    for (; idx; idx >>= c->bank_bits) b ^= idx & (c->n_banks - 1);
    return (uint32_t)b;
  }
  return (uint32_t)(idx % c->n_banks);
}

/* The port an access takes, and the first cycle from `from` on that it is free (then taken). */
static uint64_t take_port(at_core *c, const ldst_access *x, uint64_t from) {
  simtvp_cal *p = x->path == LDST_PATH_L1D ? &c->bank_cal[bank_of(c, x->addr)] : &c->port_cal[cache_index(x->path)];
  return simtvp_cal_take(p, from, 1);
}

uint64_t at_mem_issue(at_core *c, uint32_t slot, const func_step *st, uint64_t t) {
  uint64_t m;
  uint32_t ks = first_slot(c, t, &m);
  if (m > t) ++*c->base.ldst_stall; /* every dispatch slot was busy: it waited at the stage */
  if (c->sample.stage_from != AT_NEVER) c->sample.stage_from = m; /* (measured from the slot on) */
  c->stage_at = m;
  uint64_t held = m + 1; /* the slot is free again once the instruction's work is through */
  simt_space_masks sm;
  simt_space_masks_of(st, &sm);
  const simt_ldst_config *lc = &c->base.cfg.ldst;
  bool load = st->is_load || st->is_atomic, store = st->is_store && !st->is_load && !st->is_atomic;
  bool atomic = st->is_atomic;
  uint32_t bytes = st->access_bytes ? st->access_bytes : 4;
  uint64_t done = m;
  uint32_t mop = AT_NONE;
  bool gt200 = lc->coalesce_arch == 13;

  if (sm.shared) {
    uint32_t conflicts;
    uint32_t cycles = at_smem_cycles(c, st, &conflicts);
    *c->smem_conflicts += conflicts;
    uint64_t start = simtvp_cal_take(&c->smem_cal, m + 1, cycles), end = start + cycles - 1;
    held = at_max(held, end); /* the slot holds it until its last phase */
    done = at_max(done, load ? end + lc->smem_latency : end);
  }
  uint32_t n = 0;
  if (sm.local) {
    uint32_t k = ldst_local_warp_ranges(lc->local_base, c->base.cfg.max_threads, slot * c->base.cfg.warp_size,
                                        sm.local, st->addr, bytes, c->ranges, LDST_MAX_RANGES);
    uint8_t kind = atomic ? MEM_ACC_ATOMIC : store ? MEM_ACC_LOCAL_W : MEM_ACC_LOCAL_R;
    uint8_t path = (atomic || !c->l1d) ? LDST_PATH_BYPASS : LDST_PATH_L1D;
    n = coalesce(c, k, LDST_SHAPE_ANY, c->l1d_block, bytes, gt200, kind, path, !load || atomic, n);
  }
  if (sm.global) {
    uint32_t k = 0;
    uint64_t a0 = st->addr[__builtin_ctz(sm.global)], not_uniform = 0, not_span = 0;
    for (uint32_t l = sm.global; l; l &= l - 1) {
      uint32_t lane = (uint32_t)__builtin_ctz(l);
      uint64_t a = st->addr[lane];
      not_uniform |= a ^ a0;
      not_span |= a ^ (a0 + (uint64_t)k * bytes);
      c->ranges[k++] = (ldst_range){a, bytes, lane};
    }
    bool l2_only = load && !atomic && ldst_load_bypasses_l1(st->insn); /* as the CA LDST unit */
    uint8_t kind = atomic ? MEM_ACC_ATOMIC : store ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
    uint8_t path = (atomic || !c->l1d || lc->gmem_skip_l1d || l2_only) ? LDST_PATH_BYPASS : LDST_PATH_L1D;
    n = coalesce(c, k, shape_of(k, not_uniform, not_span), c->l1d_block, bytes, gt200, kind, path,
                 !load || atomic, n);
  }
  uint32_t kp = sm.konst | sm.param, same = 0;
  if (kp && (kp == sm.param || !sm.param)) { /* one space: a kernel parameter or a constant every lane reads? */
    uint64_t a0 = st->addr[__builtin_ctz(kp)];
    uint32_t l = kp & (kp - 1);
    while (l && st->addr[__builtin_ctz(l)] == a0) l &= l - 1;
    if (!l) {
      same = (uint32_t)simtvp_popcount32(kp);
      c->ranges[0] = (ldst_range){sm.param ? c->param_of[slot] + a0 : a0, bytes, (uint32_t)__builtin_ctz(kp)};
      n = coalesce(c, same, same > 1 ? LDST_SHAPE_UNIFORM : LDST_SHAPE_ANY, c->l1c_block, bytes, false, MEM_ACC_CONST_R,
                   c->l1c ? LDST_PATH_L1C : LDST_PATH_BYPASS, false, n);
    }
  }
  if (kp && !same) {
    uint32_t k = 0;
    uint64_t a0 = 0, not_uniform = 0, not_span = 0;
    for (uint32_t l = sm.konst | sm.param; l; l &= l - 1) {
      uint32_t lane = (uint32_t)__builtin_ctz(l);
      uint64_t a = ((sm.param >> lane) & 1u) ? c->param_of[slot] + st->addr[lane] : st->addr[lane];
      if (!k) a0 = a;
      not_uniform |= a ^ a0;
      not_span |= a ^ (a0 + (uint64_t)k * bytes);
      c->ranges[k++] = (ldst_range){a, bytes, lane};
    }
    n = coalesce(c, k, shape_of(k, not_uniform, not_span), c->l1c_block, bytes, false, MEM_ACC_CONST_R,
                 c->l1c ? LDST_PATH_L1C : LDST_PATH_BYPASS, false, n);
  }
  if (sm.tex) {
    uint32_t k = 0;
    for (uint32_t l = sm.tex; l; l &= l - 1) {
      uint32_t lane = (uint32_t)__builtin_ctz(l);
      c->ranges[k++] = (ldst_range){st->addr[lane], bytes, lane};
    }
    n = coalesce(c, k, LDST_SHAPE_ANY, c->l1t_block, bytes, false, MEM_ACC_TEXTURE_R,
                 c->l1t ? LDST_PATH_L1T : LDST_PATH_BYPASS, false, n);
  }
  /* the accesses, in order, each when its port takes it */
  uint64_t from = m + 1;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t a = take_port(c, &c->acc[i], from);
    from = a; /* in order: none before the previous one */
    if (a > held) held = a;
    uint64_t d = access(c, slot, st, &mop, &c->acc[i], a);
    if (d == AT_NEVER) continue;
    if (d > done) done = d;
  }
  c->stage_held = held > m ? (uint32_t)(held - m) : 1u;
  simtvp_cal_book(&c->slot_cal[ks], m, c->stage_held);
  if (mop != AT_NONE) {
    at_mop *x = &c->mops[mop];
    if (x->pieces) {
      x->done = at_max(x->done, done);
      c->warps[slot].deferred++;
      return AT_NEVER;
    }
    mop_release(c, mop);
  }
  (void)store;
  return done;
}

/* ---- replies -------------------------------------------------------------------------------- */

void at_mem_reply(at_core *c, mem_req *r, uint64_t now) {
  uint32_t id = (uint32_t)r->owner_tag;
  if (r->owner_ctx != c || id >= c->n_fetches || !c->fetches[id].live) {
    mem_req_free(r); /* not ours (a reply of a request that needed none) */
    return;
  }
  at_fetch *f = &c->fetches[id];
  cache *cc = f->cache == AT_L1D ? c->l1d : f->cache == AT_L1C ? c->l1c : f->cache == AT_L1T ? c->l1t
              : f->cache == AT_L1I ? c->base.l1i : NULL;
  /* an L1I fill goes straight to the L1I; the fetch is made again in the cycle it arrives */
  uint64_t ready = f->cache == AT_L1I ? now : reply_taken(c, f->cache, r->size, now);
  if (cc) cache_timed_fill(cc, f->line, f->chunks, ready);
  mem_req_free(r);
  for (uint32_t w = f->warps; w != AT_NONE;) { /* L1I: warps waiting for the fetch */
    uint32_t next = c->fetch_wait[w];
    at_fetch_known(c, w, ready + 2);
    w = next;
  }
  uint32_t wi = f->waiters;
  fetch_release(c, id);
  while (wi != AT_NONE) {
    at_waiter *x = &c->waiters[wi];
    uint32_t next = x->next, mi = x->mop;
    x->next = c->waiter_free;
    c->waiter_free = wi;
    at_mop *m = &c->mops[mi];
    if (ready > m->done) m->done = ready;
    if (--m->pieces == 0) {
      at_result_known(c, m, m->done);
      mop_release(c, mi);
    }
    wi = next;
  }
}

void at_mem_send_due(at_core *c, uint64_t now) {
  if (c->out_retry > now) return;
  while (c->n_out && c->out[0].at <= now) {
    mem_req *r = c->out[0].req;
    if (!c->base.ports.send(c->base.ports.ctx, r, now)) {
      c->out_retry = now + 1;
      return;
    }
    out_pop(c);
  }
}

uint64_t at_mem_next(const at_core *c) { return c->n_out ? at_max(c->out[0].at, c->out_retry) : AT_NEVER; }

bool at_mem_idle(const at_core *c) { return !c->n_out && !c->live_fetches; }

uint32_t at_mem_waiting(const at_core *c) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < c->base.cfg.max_warps; i++) n += c->warps[i].live ? c->warps[i].deferred : 0;
  return n;
}

/* ---- instruction fetch ---------------------------------------------------------------------- */

uint64_t at_mem_fetch(at_core *c, uint32_t slot, uint64_t t) {
  at_warp *w = &c->warps[slot];
  const simt_cta *cta = &c->base.ctas[w->cta];
  uint64_t addr = cta->code_base + (uint64_t)w->pc * FUNC_INSN_BYTES;
  uint64_t line = addr / c->base.l1i_line + 1;
  if (line == w->line) return t; /* within the line of its last fetch: no lookup */
  mem_req q;
  memset(&q, 0, sizeof q);
  q.addr = addr;
  q.size = FUNC_INSN_BYTES;
  q.kind = MEM_ACC_INST_R;
  cache_timed_result r;
  cache_timed_access(c->base.l1i, &q, t, &r);
  w->line = line;
  if (r.status == CACHE_HIT) return t;
  if (r.status == CACHE_HIT_RESERVED && r.ready != CACHE_NEVER) return at_max(t, r.ready);
  uint32_t f;
  if (r.fetch || r.forward) {
    uint8_t chunks = r.fetch ? r.fetch : 1;
    mem_req *m = new_req(c, slot, MEM_ACC_INST_R, false, r.fetch ? r.line : addr,
                         r.fetch ? (uint32_t)simtvp_popcount32(r.fetch) * MEM_SECTOR_BYTES : FUNC_INSN_BYTES,
                         r.fetch, NULL);
    if (!m) return t;
    f = fetch_new(c, AT_L1I, r.line, chunks);
    if (f == AT_NONE) {
      mem_req_free(m);
      return t;
    }
    m->owner_tag = f;
    uint64_t back = send(c, m, t + 1);
    if (back != SIMT_MEM_DEFERRED) {
      fetch_release(c, f);
      if (r.fetch) cache_timed_fill(c->base.l1i, r.line, r.fetch, back);
      else w->line = 0; /* no L1I: every new line fetches again */
      return back; /* the fetch is made again when the fill is there */
    }
  } else {
    f = fetch_find(c, AT_L1I, r.line, cache_req_chunks_of(c->base.l1i, &q));
    if (f == AT_NONE) return t;
  }
  c->fetch_wait[slot] = c->fetches[f].warps;
  c->fetches[f].warps = slot;
  return AT_NEVER;
}

typedef struct flush_ctx {
  at_core *c;
  uint64_t now;
} flush_ctx;

static void flush_write_back(void *ctx, uint64_t line, uint8_t chunks) {
  flush_ctx *f = ctx;
  uint32_t first = (uint32_t)__builtin_ctz(chunks);
  mem_req *wb = new_req(f->c, 0, MEM_ACC_L1_WRBK, true, line + (uint64_t)first * MEM_SECTOR_BYTES,
                        (uint32_t)simtvp_popcount32(chunks) * MEM_SECTOR_BYTES, chunks, NULL);
  if (!wb) return;
  wb->needs_reply = false;
  wb->warp = UINT16_MAX;
  send(f->c, wb, f->now);
}

/* -gpgpu_flush_l1_cache at a kernel boundary: dirty lines written back, the L1D emptied. */
uint32_t at_mem_flush(at_core *c, uint64_t now) {
  if (!c->l1d) return 0;
  flush_ctx f = {c, now};
  return cache_timed_flush(c->l1d, flush_write_back, &f);
}

/* ---- setup ---------------------------------------------------------------------------------- */

static simtvp_status make_cache(at_core *c, cache **out, const char *text, const char *option, const char *group,
                                const char *alias, uint32_t *block, simtvp_diag *diag) {
  cache_spec spec;
  simtvp_status st = simt_base_make_timed_l1(&c->base, out, text, option, group, alias, block, &spec, diag);
  if (st == SIMTVP_OK && *out) {
    uint8_t ci = out == &c->l1d ? AT_L1D : out == &c->l1c ? AT_L1C : AT_L1T;
    c->port_bytes[ci] = spec.data_port_bytes ? spec.data_port_bytes : spec.line_bytes;
  }
  return st;
}

simtvp_status at_mem_init(at_core *c, simtvp_diag *diag) {
  const simt_ldst_config *lc = &c->base.cfg.ldst;
  c->acc_stats = calloc(1, sizeof *c->acc_stats);
  if (!c->acc_stats) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->base.cfg.sm);
  simt_base_mem_counters(&c->base, c->acc_stats);
  simtvp_status st = make_cache(c, &c->l1d, lc->l1d, "-gpgpu_cache:dl1", "L1D", "dl1", &c->l1d_block, diag);
  if (st == SIMTVP_OK) st = make_cache(c, &c->l1c, lc->l1c, "-gpgpu_const_cache:l1", "L1C", NULL, &c->l1c_block, diag);
  if (st == SIMTVP_OK) st = make_cache(c, &c->l1t, lc->l1t, "-gpgpu_tex_cache:l1", "L1T", NULL, &c->l1t_block, diag);
  if (st != SIMTVP_OK) return st;
  c->n_slots = lc->mem_unit_ports < 1 ? 1u : lc->mem_unit_ports > (int32_t)AT_MAX_ITEMS ? AT_MAX_ITEMS
                                                                                          : (uint32_t)lc->mem_unit_ports;
  c->n_banks = lc->l1d_banks ? lc->l1d_banks : 1;
  c->bank_interleave = lc->l1d_bank_interleave ? lc->l1d_bank_interleave : MEM_SECTOR_BYTES;
  c->bank_hash = lc->l1d_bank_hash;
  while ((1u << c->bank_bits) < c->n_banks) c->bank_bits++;
  c->bank_cal = calloc(c->n_banks, sizeof *c->bank_cal);
  if (!c->bank_cal) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->base.cfg.sm);
  c->l1d_latency = lc->l1d_latency;
  c->l1c_latency = lc->l1c_latency;
  c->l1t_latency = lc->l1t_latency;
  c->param_of = calloc(c->base.cfg.max_warps, sizeof *c->param_of);
  c->ranges = calloc(LDST_MAX_RANGES, sizeof *c->ranges);
  c->acc = calloc(LDST_MAX_ACCESSES, sizeof *c->acc);
  c->mop_free = c->waiter_free = c->fetch_free = AT_NONE;
  if (!c->param_of || !c->ranges || !c->acc)
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->base.cfg.sm);
  return SIMTVP_OK;
}

void at_mem_free(at_core *c) {
  for (uint32_t i = 0; i < c->n_out; i++) mem_req_free(c->out[i].req);
  if (c->l1d) cache_destroy(c->l1d);
  if (c->l1c) cache_destroy(c->l1c);
  if (c->l1t) cache_destroy(c->l1t);
  free(c->out);
  free(c->mops);
  free(c->waiters);
  free(c->fetches);
  free(c->param_of);
  free(c->ranges);
  free(c->acc);
  free(c->acc_stats);
  free(c->bank_cal);
}
