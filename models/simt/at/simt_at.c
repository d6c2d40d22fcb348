/* simt_at — the approximately-timed SIMT core ("at" variant of simt.h): CTAs and warps, the
 * front end as times (one fetch buffer, fetch_throughput fetches per cycle, the L1I), the memory
 * queue into the LDST unit, barriers, fences, faults, time and statistics. The issue stage and the
 * pipeline by times are simt_at_issue.c; docs/simt-at.md is the manual.
 *
 * Time is event driven: the core visits only cycles in which something is due — a scheduler may
 * issue, a memory instruction may enter the LDST unit, the LDST unit or the L1I has work, a warp
 * finishes — and next_event is the earliest of them. In each visited cycle the order is the CA
 * core's: LDST unit (completions), finished warps, memory queue into the LDST unit, issue, L1I
 * misses out, fetches, barriers. Values come from models/func at issue, as on every variant. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_at_internal.h"

static simt_cta *cta_of(at_core *c, const at_warp *w) { return &c->base.ctas[w->cta]; }

/* ---- finish heap ----------------------------------------------------------------------------- */

void at_finish_push(at_core *c, uint32_t slot, uint64_t at) {
  /* out of host memory: check it at once (it drains if not done yet) */
  if (!simt_heap_push(&c->heap, at, slot)) at_warp_progress(c, slot, at);
}

/* ---- statistics ------------------------------------------------------------------------------ */

/* Cycles with a resident CTA: counted when the core empties (and read by the dump). */
static void count_busy(at_core *c, uint64_t last_cycle) {
  if (last_cycle + 1 > c->busy_from) *c->base.cycles += last_cycle + 1 - c->busy_from;
  c->busy_from = last_cycle + 1;
}

/* After the shared statistics (simt_base_init), in this order. */
static void register_stats(at_core *c) {
  simt_base_register_ldst_stall(&c->base);
  /* the LDST unit's name: shared accesses are timed here, their conflicts counted here */
  c->smem_conflicts = simt_base_counter(&c->base, "gpgpu_n_shmem_bkconflict", "cycles",
                                        "extra shared-memory cycles caused by bank conflicts");
}

/* ---- warps, CTAs ----------------------------------------------------------------------------- */

void at_set_drain(at_core *c, at_warp *w, bool on) {
  if (w->draining == on) return;
  w->draining = on;
  uint32_t slot = (uint32_t)(w - c->warps);
  if (on) {
    c->n_drain++;
    c->drain_mask[slot >> 6] |= 1ull << (slot & 63);
  } else {
    c->n_drain--;
    c->drain_mask[slot >> 6] &= ~(1ull << (slot & 63));
  }
}

static void finish_cta(at_core *c, simt_cta *cta, uint64_t now) {
  simt_base_finish_cta(&c->base, cta);
  if (!c->base.n_ctas) { /* the core empties: classify the schedulers' cycles up to now */
    count_busy(c, now);
    for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) at_sched_account(c, &c->sched[s], now);
  }
}

static void finish_warp(at_core *c, uint32_t slot, uint64_t now) {
  at_warp *w = &c->warps[slot];
  at_set_drain(c, w, false);
  at_sched *s = &c->sched[w->sched];
  uint32_t i = w->pos;
  memmove(&s->warps[i], &s->warps[i + 1], (s->n - i - 1) * sizeof *s->warps);
  memmove(&s->ready[i], &s->ready[i + 1], (s->n - i - 1) * sizeof *s->ready);
  memmove(&s->ibt[i], &s->ibt[i + 1], (s->n - i - 1) * sizeof *s->ibt);
  s->n--;
  if (s->rr > i) s->rr--;
  for (; i < s->n; i++) {
    at_warp *o = &c->warps[s->warps[i]];
    o->pos = i;
    o->sready = &s->ready[i];
    o->sibt = &s->ibt[i];
  }
  if (s->greedy == slot) s->greedy = AT_NONE;
  if (!s->n) { /* from now on the scheduler has no warp (CA: simt_sched_stall[no_warp]) */
    at_sched_account(c, s, now);
    s->bucket = SIMT_B_IDLE;
    s->reason = SIMT_R_NO_WARP;
    c->sched_next[w->sched] = AT_NEVER;
  }
  w->live = false;
  c->n_live_warps--;
  simt_cta *cta = cta_of(c, w);
  if (++cta->n_finished == cta->n_warps) finish_cta(c, cta, now);
}

/* A warp's memory work or stores may have drained: release a fence, finish an exited warp. */
void at_warp_progress(at_core *c, uint32_t slot, uint64_t now) {
  at_warp *w = &c->warps[slot];
  if (!w->live) return;
  bool mem_idle = !w->inflight_mem && w->mem_done <= now && !c->base.lif->pending_stores(c->base.ldst, slot);
  if (w->wait == SIMT_WAIT_FENCE && mem_idle) {
    w->wait = SIMT_WAIT_NONE;
    at_wake(c, slot, now);
  }
  bool written = w->last_wb <= now;
  if (w->exited && written && mem_idle) {
    finish_warp(c, slot, now);
    return;
  }
  at_set_drain(c, w, w->wait == SIMT_WAIT_FENCE || (w->exited && written));
}

static void recheck_drains(at_core *c, uint64_t now) {
  for (uint32_t i = 0; i < (c->base.cfg.max_warps + 63) / 64 && c->n_drain; i++)
    for (uint64_t m = c->drain_mask[i]; m; m &= m - 1) at_warp_progress(c, i * 64 + (uint32_t)__builtin_ctzll(m), now);
}

/* Ends a CTA early (fault, deadlock): its warps issue nothing more; it is reported once their
 * in-flight instructions and stores have drained. */
static void abort_cta(simt_core_base *b, simt_cta *cta, const gpu_cta_result *r, uint64_t now) {
  at_core *c = (at_core *)b;
  if (cta->aborting) return;
  cta->aborting = true;
  cta->result = *r;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    uint32_t slot = cta->warp_slot[i];
    at_warp *w = &c->warps[slot];
    if (!w->live) continue;
    w->exited = true;
    w->ib_n = 0;
    w->wait = SIMT_WAIT_NONE;
    at_set_ready(c, w, AT_NEVER);
    at_finish_push(c, slot, at_max(w->last_wb, now));
  }
}

/* ---- hooks of the shared code (simt_core_base.h) -------------------------------------------- */

static void warp_view(const simt_core_base *b, uint32_t slot, simt_warp_view *v) {
  const at_warp *w = &((const at_core *)b)->warps[slot];
  *v = (simt_warp_view){w->live, w->exited, w->wait, w->bar_id, w->bar_pc, w->fw};
}

static void warp_line(const simt_core_base *b, uint32_t slot, char *buf, size_t n) {
  const at_core *c = (const at_core *)b;
  const at_warp *w = &c->warps[slot];
  const ptx_module *m = simt_program_module(w->prog);
  func_peek pk;
  const char *state = !w->live ? "finished" : w->exited ? "exited" : w->wait == SIMT_WAIT_BARRIER ? "barrier"
                      : w->wait == SIMT_WAIT_FENCE ? "fence" : w->imiss ? "imiss" : w->fetch_queued ? "fetch" : "ready";
  simt_warp_view v;
  warp_view(b, slot, &v);
  uint32_t pc = func_warp_peek(w->fw, &pk) ? pk.pc : (w->ib_n ? w->ib_pc : w->fetch_pc);
  int k = simt_warp_line_head(buf, n, m, w->index, slot, w->sched, state, &v, pc);
  if (k > 0 && (size_t)k < n) {
    char when[64] = "waiting";
    if (w->ready != AT_NEVER) snprintf(when, sizeof when, "ready at %" PRIu64, w->ready);
    snprintf(buf + k, n - (size_t)k, ", %s, ibuffer %u, memory in flight %u, stores %u", when, w->ib_n,
             w->inflight_mem, c->base.lif->pending_stores(c->base.ldst, slot));
  }
}

/* Released warps issue from the next cycle, however long they waited (the hardware releases every
 * warp when the last arrives). */
static void barrier_released(simt_core_base *b, uint32_t slot, uint64_t now) {
  at_core *c = (at_core *)b;
  c->warps[slot].wait = SIMT_WAIT_NONE;
  at_wake(c, slot, now + 1);
}

static bool grow_rr(at_core *c, uint32_t stride);

/* Register ready times for the kernel's registers; the CTA slot's pipeline-per-instruction table,
 * unknown until first needed. */
static bool fit_kernel(simt_core_base *b, uint32_t cta_slot, const simt_kernel *k) {
  at_core *c = (at_core *)b;
  if (k->program->n_reg_ids > c->rr_stride && !grow_rr(c, k->program->n_reg_ids)) return false;
  at_cta_units *u = &c->cta_units[cta_slot];
  const ptx_module *mod = simt_program_module(k->program);
  uint32_t n_insns = mod->n_insns ? mod->n_insns : 1;
  if (u->cap < n_insns) {
    uint8_t *p = realloc(u->unit_of, n_insns);
    if (!p) return false;
    u->unit_of = p;
    u->cap = n_insns;
  }
  memset(u->unit_of, AT_UNIT_UNKNOWN, n_insns);
  return true;
}

static const simt_variant_hooks at_hooks = {warp_view, fit_kernel, barrier_released, abort_cta, warp_line};

/* ---- fetch ----------------------------------------------------------------------------------- */

/* One fetch buffer: fetch_throughput fetch+decode steps per cycle, first come first served (the
 * CA core serves warps round robin; the rate is the same). A fetch at f issues from f + 2, or
 * f + 1 when a later step of the same cycle decodes it. */
static uint64_t fetch_slot(at_core *c, uint64_t t, uint8_t *decode) {
  if (t > c->fetch_cycle) {
    c->fetch_cycle = t;
    c->fetch_used = 0;
  }
  if (c->fetch_used == c->base.cfg.fetch_throughput) {
    c->fetch_cycle++;
    c->fetch_used = 0;
  }
  c->fetch_used++;
  *decode = c->fetch_used < c->base.cfg.fetch_throughput ? 1 : 2;
  return c->fetch_cycle;
}

/* Instructions one fetch reads at pc: two, one when the second is in another function or line. */
static uint32_t fetch_group(const at_core *c, const simt_cta *cta, uint32_t pc) {
  const ptx_module *m = simt_program_module(cta->k->program);
  uint64_t addr = cta->code_base + (uint64_t)pc * FUNC_INSN_BYTES;
  return pc + 1 < m->n_insns && m->insns[pc + 1].function == m->insns[pc].function &&
                 (addr % c->base.l1i_line) + 2 * FUNC_INSN_BYTES <= c->base.l1i_line
             ? 2u
             : 1u;
}

static void fetched(at_core *c, at_warp *w, uint64_t f, uint8_t decode) {
  w->ib_n = (uint8_t)fetch_group(c, cta_of(c, w), w->fetch_pc);
  w->ib_pc = w->fetch_pc;
  w->ib_time = f + decode;
}

static void fetchq_push(at_core *c, uint32_t slot, uint64_t f, uint8_t decode) {
  if (c->fetchq_n == c->fetchq_cap) {
    uint32_t n = c->fetchq_cap ? c->fetchq_cap * 2 : 64;
    at_fetch *q = malloc((size_t)n * sizeof *q);
    if (!q) { /* out of host memory: serve it without the L1I rather than lose the warp */
      fetched(c, &c->warps[slot], f, decode);
      return;
    }
    for (uint32_t i = 0; i < c->fetchq_n; i++) q[i] = c->fetchq[(c->fetchq_head + i) % c->fetchq_cap];
    free(c->fetchq);
    c->fetchq = q;
    c->fetchq_head = 0;
    c->fetchq_cap = n;
  }
  c->fetchq[(c->fetchq_head + c->fetchq_n) % c->fetchq_cap] = (at_fetch){f, slot, decode};
  c->fetchq_n++;
  c->warps[slot].fetch_queued = true;
}

/* The warp's I-buffer is empty at cycle t: fetch fetch_pc. Within the line of its last fetch the
 * L1I hits (it is not touched again: 128 KiB hold any kernel's working set); a new line is an L1I
 * access at the fetch cycle (the fetch queue). */
void at_fetch_request(at_core *c, uint32_t slot, uint64_t t) {
  at_warp *w = &c->warps[slot];
  uint8_t decode;
  uint64_t f = fetch_slot(c, t, &decode);
  const simt_cta *cta = cta_of(c, w);
  uint64_t line = (cta->code_base + (uint64_t)w->fetch_pc * FUNC_INSN_BYTES) / c->base.l1i_line + 1;
  if (!c->base.l1i || w->fill_ready || (c->base.l1i_enabled && line == w->line)) {
    w->fill_ready = false;
    fetched(c, w, f, decode);
    return;
  }
  w->ib_n = 0;
  w->ib_time = AT_NEVER;
  fetchq_push(c, slot, f, decode);
}

/* An L1I fill (or, around a disabled L1I, the fetch itself) came back for the warp. */
static void fetch_returned(at_core *c, mem_req *r, bool served, uint64_t now) {
  uint32_t slot = r->warp;
  mem_req_free(r);
  if (slot >= c->base.cfg.max_warps) return;
  at_warp *w = &c->warps[slot];
  if (!w->live || w->exited || !w->imiss) return;
  w->imiss = false;
  if (served) w->fill_ready = true;
  at_fetch_request(c, slot, now);
  at_wake(c, slot, now);
}

/* The fetches of cycle t that access the L1I. */
static void fetch_stage(at_core *c, uint64_t t) {
  while (c->fetchq_n && c->fetchq[c->fetchq_head].at <= t) {
    at_fetch q = c->fetchq[c->fetchq_head];
    c->fetchq_head = (c->fetchq_head + 1) % c->fetchq_cap;
    c->fetchq_n--;
    at_warp *w = &c->warps[q.slot];
    w->fetch_queued = false;
    if (!w->live || w->exited) continue;
    const simt_cta *cta = cta_of(c, w);
    uint32_t pc = w->fetch_pc;
    mem_req *req = mem_req_alloc(c->base.pool);
    if (!req) {
      fetched(c, w, t, q.decode);
      at_wake(c, q.slot, t);
      continue;
    }
    uint32_t n = fetch_group(c, cta, pc);
    req->addr = cta->code_base + (uint64_t)pc * FUNC_INSN_BYTES;
    req->size = n * FUNC_INSN_BYTES;
    req->kind = MEM_ACC_INST_R;
    req->needs_reply = true;
    req->sm = (uint16_t)c->base.cfg.sm;
    req->cluster = (uint16_t)c->base.cfg.cluster;
    req->warp = (uint16_t)q.slot;
    req->owner_tag = pc;
    cache_status st = cache_access(c->base.l1i, req, t, NULL);
    if (st == CACHE_RESERVATION_FAIL) { /* retried at the next fetch step */
      mem_req_free(req);
      uint8_t decode;
      uint64_t f = fetch_slot(c, t + 1, &decode);
      fetchq_push(c, q.slot, f, decode);
      continue;
    }
    if (st == CACHE_HIT) {
      mem_req *r;
      while ((r = cache_reply_pop(c->base.l1i, t))) {
        if (r != req) {
          fetch_returned(c, r, false, t);
          continue;
        }
        mem_req_free(r);
        w->line = (cta->code_base + (uint64_t)pc * FUNC_INSN_BYTES) / c->base.l1i_line + 1;
        fetched(c, w, t, q.decode);
        at_wake(c, q.slot, t);
      }
    } else {
      w->imiss = true; /* the fill (or the fetch itself) comes back through mem_reply */
      c->l1i_missq = true;
    }
  }
}

static void send_l1i_misses(at_core *c, uint64_t t) {
  mem_req *r;
  while ((r = cache_miss_peek(c->base.l1i))) {
    if (!c->base.ports.send(c->base.ports.ctx, r, t)) return;
    cache_miss_pop(c->base.l1i);
  }
  c->l1i_missq = false;
}

/* ---- time ------------------------------------------------------------------------------------ */

static uint64_t memq_due(const at_core *c) {
  return c->memq_n ? at_max(c->mops[c->memq_head].ready, c->memq_retry) : AT_NEVER;
}

/* A shared-memory access entering the memory stage at t (a dispatch slot is free): timed at once
 * (simt_at_smem.c). The LDST unit's rule: its phases start at t + 1 or when the pipeline is free;
 * it leaves the stage after its last phase (a store is then complete); a load's data follows
 * smem_latency cycles later. */
static uint64_t smem_access(at_core *c, uint32_t id, uint64_t t) {
  at_mop *m = &c->mops[id];
  at_warp *w = &c->warps[m->warp];
  uint32_t conflicts;
  uint32_t cycles = at_smem_cycles(c, &c->steps[id], &conflicts);
  *c->smem_conflicts += conflicts;
  uint64_t start = at_max(t + 1, c->smem_free), end = start + cycles - 1;
  c->smem_free = end + 1;
  const func_step *st = &c->steps[id];
  uint64_t done = (st->is_load || st->is_atomic) ? end + c->base.cfg.ldst.smem_latency : end;
  for (uint32_t i = 0; i < m->n_dst; i++) w->rr[m->dst[i]] = done;
  if (done > w->mem_done) w->mem_done = done;
  w->inflight_mem--;
  uint32_t slot = m->warp;
  at_mop_release(c, id);
  at_wake(c, slot, t);
  if (w->wait == SIMT_WAIT_FENCE || w->exited) at_finish_push(c, slot, done);
  return end;
}

/* Memory instructions enter the LDST unit in order, as it accepts them. */
static void memq_stage(at_core *c, uint64_t t, bool *advanced) {
  while (c->memq_n) {
    uint32_t id = c->memq_head;
    at_mop *m = &c->mops[id];
    if (m->ready > t || c->memq_retry > t) break;
    /* a dispatch slot: the LDST unit's, less those shared accesses hold (the LDST unit keeps a
     * shared access in its slot until its last phase) */
    uint32_t held = 0, first = 0;
    for (uint32_t k = 0; k < c->n_smem_slots; k++) {
      if (c->smem_slot[k] > t) held++;
      if (c->smem_slot[k] < c->smem_slot[first]) first = k;
    }
    bool smem = at_smem_only(&c->steps[id]);
    if (held == c->n_smem_slots || !c->base.lif->can_issue(c->base.ldst, t)) {
      ++*c->base.ldst_stall;
      c->memq_retry = held == c->n_smem_slots ? c->smem_slot[first] : t + 1;
      break;
    }
    if (!smem && !*advanced) {
      c->base.lif->advance(c->base.ldst, t);
      *advanced = true;
    }
    c->memq_head = m->next;
    if (m->next != AT_NONE) c->mops[m->next].prev = AT_NONE;
    else c->memq_tail = AT_NONE;
    c->memq_n--;
    if (c->memq_part[m->part]-- == c->mem_slots) /* room again: its schedulers may issue */
      for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++)
        if ((c->base.cfg.sub_core ? s : 0u) == m->part && c->sched_next[s] > t) c->sched_next[s] = t;
    simt_base_count_mem_insn(&c->base, &c->steps[id]);
    if (smem) {
      c->smem_slot[first] = smem_access(c, id, t);
      continue;
    }
    /* may complete at once (ports.complete): m is not touched after */
    c->base.lif->issue(c->base.ldst, m->warp, &c->steps[id], id, t);
  }
}

static void cycle(at_core *c, uint64_t t) {
  bool advanced = c->ldst_next <= t;
  if (advanced) c->base.lif->advance(c->base.ldst, t);
  while (c->heap.n && c->heap.v[0].at <= t) at_warp_progress(c, simt_heap_pop(&c->heap), t);
  if (advanced && c->n_drain) recheck_drains(c, t);
  if (memq_due(c) <= t) memq_stage(c, t, &advanced);
  if (advanced) c->ldst_next = c->base.lif->next_event(c->base.ldst);
  for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++)
    if (c->sched_next[s] <= t) at_sched_cycle(c, s, t);
  /* after issue, as the CA core's fetch stage: fetches requested this cycle are made this cycle */
  if (c->base.l1i && (c->fetchq_n || c->l1i_next <= t || c->l1i_missq)) {
    if (c->l1i_missq) send_l1i_misses(c, t);
    if (c->fetchq_n) fetch_stage(c, t);
    c->l1i_next = cache_next_event(c->base.l1i);
  }
  if (c->any_check_bars) {
    c->any_check_bars = false;
    for (uint32_t i = 0; i < c->base.cfg.max_ctas; i++)
      if (c->base.ctas[i].check_bars) simt_base_settle_barriers(&c->base, &c->base.ctas[i], t);
  }
}

/* The earliest cycle ≥ done_until with something to do. */
static uint64_t compute_next(const at_core *c) {
  uint64_t t = AT_NEVER;
  if (c->base.cfg.every_cycle && c->base.n_ctas) return c->base.done_until;
  for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) t = at_min(t, c->sched_next[s]);
  t = at_min(t, memq_due(c));
  t = at_min(t, c->ldst_next);
  if (c->heap.n) t = at_min(t, c->heap.v[0].at);
  if (c->fetchq_n) t = at_min(t, c->fetchq[c->fetchq_head].at);
  if (c->l1i_missq) return c->base.done_until;
  t = at_min(t, c->l1i_next);
  return t == AT_NEVER ? AT_NEVER : at_max(t, c->base.done_until);
}

static void run_until(at_core *c, uint64_t end) {
  for (;;) {
    uint64_t t = compute_next(c);
    if (t > end) break;
    cycle(c, t);
    c->base.done_until = t + 1;
  }
  if (c->base.done_until < end + 1) c->base.done_until = end + 1;
}

/* Everything before now is done; calls that hand the core something at now come after. */
static void catch_up(at_core *c, uint64_t now) {
  if (now > 0) run_until(c, now - 1);
}

/* ---- LDST port ------------------------------------------------------------------------------- */

/* Memory instruction `tag` completed in the LDST unit: its destinations are written now. */
static void ldst_complete(void *ctx, uint32_t warp, uint64_t tag, uint64_t now) {
  at_core *c = ctx;
  (void)warp;
  if (tag >= c->n_mops_cap) return;
  at_mop *m = &c->mops[tag];
  at_warp *w = &c->warps[m->warp];
  for (uint32_t i = 0; i < m->n_dst; i++) w->rr[m->dst[i]] = now;
  w->inflight_mem--;
  uint32_t slot = m->warp;
  at_mop_release(c, (uint32_t)tag);
  at_wake(c, slot, now);
  at_warp_progress(c, slot, now);
}

/* ---- ops ------------------------------------------------------------------------------------- */

static void at_destroy(void *state);

static simtvp_status at_create(const simt_core_config *cfg, simt_core_ports ports, void **state,
                               simtvp_diag *diag) {
  *state = NULL;
  at_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  simtvp_status st = simt_base_init(&c->base, cfg, ports, &at_hooks, diag);
  if (st != SIMTVP_OK) {
    free(c);
    return st;
  }
  c->next = c->ldst_next = c->l1i_next = AT_NEVER;
  register_stats(c);
  st = at_pipe_init(c, diag);
  if (st == SIMTVP_OK) st = at_smem_init(c, diag);
  c->n_smem_slots = cfg->ldst.mem_unit_ports < 1 ? 1u
                    : cfg->ldst.mem_unit_ports > (int32_t)AT_MAX_ITEMS ? AT_MAX_ITEMS : (uint32_t)cfg->ldst.mem_unit_ports;
  if (st != SIMTVP_OK) {
    at_destroy(c);
    return st;
  }
  c->warps = calloc(cfg->max_warps, sizeof *c->warps);
  c->cta_units = calloc(cfg->max_ctas, sizeof *c->cta_units);
  c->drain_mask = calloc((cfg->max_warps + 63) / 64, sizeof *c->drain_mask);
  bool ok = c->warps && c->cta_units && c->drain_mask;
  for (uint32_t s = 0; ok && s < cfg->n_schedulers; s++) {
    c->sched[s].warps = calloc(cfg->max_warps, sizeof *c->sched[s].warps);
    c->sched[s].ready = calloc(cfg->max_warps, sizeof *c->sched[s].ready);
    c->sched[s].ibt = calloc(cfg->max_warps, sizeof *c->sched[s].ibt);
    c->sched[s].greedy = AT_NONE;
    c->sched_next[s] = AT_NEVER;
    ok = c->sched[s].warps && c->sched[s].ready && c->sched[s].ibt;
  }
  if (!ok) {
    at_destroy(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  }
  st = simt_base_attach(&c->base, ldst_complete, diag);
  if (st != SIMTVP_OK) {
    at_destroy(c);
    return st;
  }
  c->ldst_next = c->base.lif->next_event(c->base.ldst);
  *state = c;
  return SIMTVP_OK;
}

static void at_destroy(void *state) {
  at_core *c = state;
  if (!c) return;
  simt_base_destroy(&c->base);
  at_pipe_free(c);
  at_smem_free(c);
  for (uint32_t s = 0; s < SIMT_MAX_SCHEDULERS; s++) {
    free(c->sched[s].warps);
    free(c->sched[s].ready);
    free(c->sched[s].ibt);
  }
  free(c->warps);
  free(c->drain_mask);
  for (uint32_t i = 0; c->cta_units && i < c->base.cfg.max_ctas; i++) free(c->cta_units[i].unit_of);
  free(c->cta_units);
  free(c->rr);
  free(c->fetchq);
  free(c->heap.v);
  free(c);
}

static bool grow_rr(at_core *c, uint32_t stride) {
  uint64_t *rr = calloc((size_t)c->base.cfg.max_warps * stride, sizeof *rr);
  if (!rr) return false;
  for (uint32_t w = 0; w < c->base.cfg.max_warps && c->rr; w++)
    memcpy(rr + (size_t)w * stride, c->rr + (size_t)w * c->rr_stride, c->rr_stride * sizeof *rr);
  free(c->rr);
  c->rr = rr;
  c->rr_stride = stride;
  for (uint32_t w = 0; w < c->base.cfg.max_warps; w++) c->warps[w].rr = rr + (size_t)w * stride;
  return true;
}

static simtvp_status at_launch_cta(void *state, const simt_kernel *k, const uint32_t id[3], uint64_t now,
                                   simtvp_diag *diag) {
  at_core *c = state;
  catch_up(c, now);
  uint32_t ci, nw, slots[SIMT_MAX_CTA_WARPS];
  simtvp_status st = simt_base_start_cta(&c->base, k, id, &ci, slots, &nw, diag);
  if (st != SIMTVP_OK) return st;
  if (c->base.n_ctas == 1) { /* the core fills: cycles count from now */
    c->busy_from = at_max(c->busy_from, now);
    for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) {
      c->sched[s].acct_from = at_max(c->sched[s].acct_from, now);
      c->sched[s].bucket = SIMT_B_IDLE;
      c->sched[s].reason = SIMT_R_NO_WARP;
    }
  }
  simt_cta *cta = &c->base.ctas[ci];
  for (uint32_t i = 0; i < nw; i++) {
    uint32_t slot = slots[i];
    at_warp *w = &c->warps[slot];
    uint64_t *rr = w->rr;
    memset(w, 0, sizeof *w);
    w->rr = rr;
    memset(rr, 0, c->rr_stride * sizeof *rr);
    w->live = true;
    w->fw = func_cta_warp(cta->fc, i);
    w->prog = k->program;
    w->unit_of = c->cta_units[ci].unit_of;
    w->cta = ci;
    w->index = i;
    w->sched = slot % c->base.cfg.n_schedulers;
    w->part = c->base.cfg.sub_core ? w->sched : 0;
    w->age = c->next_age++;
    w->unit = AT_NO_UNIT;
    w->ib_time = AT_NEVER;
    w->ready = AT_NEVER;
    at_sched *s = &c->sched[w->sched];
    w->pos = s->n;
    w->sready = &s->ready[s->n];
    w->sibt = &s->ibt[s->n];
    s->warps[s->n] = slot;
    s->ibt[s->n] = AT_NEVER - 1;
    s->ready[s->n++] = AT_NEVER;
    if (c->sched_next[w->sched] > now) c->sched_next[w->sched] = now; /* classify its cycles from now */
    c->n_live_warps++;
    func_peek pk;
    if (func_warp_peek(w->fw, &pk)) {
      w->fetch_pc = w->pc = pk.pc;
      cta->code_base = pk.fetch_addr - (uint64_t)pk.pc * FUNC_INSN_BYTES;
    } else {
      w->exited = true; /* nothing to run */
      at_finish_push(c, slot, now);
    }
    /* each running kernel's parameters get their own 64 KiB of the parameter window */
    if (c->base.lif->set_param_base)
      c->base.lif->set_param_base(c->base.ldst, slot, FUNC_WINDOW_PARAM + (uint64_t)k->slot * 0x10000u);
  }
  for (uint32_t i = 0; i < nw; i++) {
    at_warp *w = &c->warps[slots[i]];
    if (w->exited) {
      at_set_ready(c, w, AT_NEVER);
      continue;
    }
    at_fetch_request(c, slots[i], now);
    at_warp_refresh(c, slots[i]);
  }
  simt_base_flush_reports(&c->base, now);
  c->next = compute_next(c);
  return SIMTVP_OK;
}

static bool at_mem_reply(void *state, mem_req *reply, uint64_t now) {
  at_core *c = state;
  catch_up(c, now);
  bool taken = true;
  if (reply->kind == MEM_ACC_INST_R) {
    if (c->base.l1i && cache_fill(c->base.l1i, reply, now)) {
      mem_req *r;
      while ((r = cache_reply_pop(c->base.l1i, now))) fetch_returned(c, r, false, now);
      c->l1i_next = cache_next_event(c->base.l1i);
    } else {
      fetch_returned(c, reply, true, now);
    }
  } else {
    taken = c->base.lif->reply(c->base.ldst, reply, now);
    if (taken) {
      c->ldst_next = c->base.lif->next_event(c->base.ldst);
      if (c->n_drain) recheck_drains(c, now);
    }
  }
  simt_base_flush_reports(&c->base, now);
  c->next = compute_next(c);
  return taken;
}

static void at_advance(void *state, uint64_t now) {
  at_core *c = state;
  run_until(c, now);
  simt_base_flush_reports(&c->base, now);
  c->next = compute_next(c);
}

static uint64_t at_next_event(const void *state) { return ((const at_core *)state)->next; }

static bool at_idle(const void *state) {
  const at_core *c = state;
  return !c->base.n_ctas && !c->memq_n && !c->fetchq_n && simt_base_memory_idle(&c->base);
}

static uint32_t at_resident(const void *state) { return ((const at_core *)state)->base.n_ctas; }

static uint32_t at_flush(void *state, uint64_t now) {
  at_core *c = state;
  catch_up(c, now);
  uint32_t n = c->base.lif->flush_l1(c->base.ldst, now);
  c->ldst_next = c->base.lif->next_event(c->base.ldst);
  c->next = compute_next(c);
  return n;
}

static void at_dump(const void *state, void (*line)(void *ctx, const char *text), void *ctx) {
  const at_core *c = state;
  char buf[512];
  snprintf(buf, sizeof buf,
           "SIMT core %u (at) at cycle %" PRIu64 ": %u CTAs, %u warps; %u memory instructions waiting for the "
           "LDST unit, %u fetches queued",
           c->base.cfg.sm, c->base.done_until ? c->base.done_until - 1 : 0, c->base.n_ctas, c->n_live_warps,
           c->memq_n, c->fetchq_n);
  simt_base_dump(&c->base, buf, line, ctx);
}

const simt_core_ops simt_at_ops = {"at",       at_create,     at_destroy, at_launch_cta, at_mem_reply,
                                   at_advance, at_next_event, at_idle,    at_resident,   at_flush,
                                   at_dump};
