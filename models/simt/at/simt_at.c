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

static at_cta *cta_of(at_core *c, const at_warp *w) { return &c->ctas[w->cta]; }

/* ---- reports --------------------------------------------------------------------------------- */

static void queue_report(at_core *c, uint32_t slot, const gpu_cta_result *r) {
  if (c->n_reports == c->reports_cap) {
    uint32_t n = c->reports_cap ? c->reports_cap * 2 : 8;
    void *p = realloc(c->reports, (size_t)n * sizeof *c->reports);
    if (!p) { /* cannot queue: report at once */
      c->ports.cta_done(c->ports.ctx, c->cfg.sm, slot, r, c->done_until ? c->done_until - 1 : 0);
      return;
    }
    c->reports = p;
    c->reports_cap = n;
  }
  c->reports[c->n_reports].slot = slot;
  c->reports[c->n_reports].r = *r;
  c->n_reports++;
}

/* Delivered when a call into the core ends, so the dispatcher may start CTAs from its callback. */
static void flush_reports(at_core *c, uint64_t now) {
  for (uint32_t i = 0; i < c->n_reports; i++) {
    uint32_t slot = c->reports[i].slot;
    gpu_cta_result r = c->reports[i].r;
    c->ports.cta_done(c->ports.ctx, c->cfg.sm, slot, &r, now);
  }
  c->n_reports = 0;
}

/* ---- finish heap ----------------------------------------------------------------------------- */

void at_finish_push(at_core *c, uint32_t slot, uint64_t at) {
  if (c->heap_n == c->heap_cap) {
    uint32_t n = c->heap_cap ? c->heap_cap * 2 : 64;
    at_heap_entry *h = realloc(c->heap, (size_t)n * sizeof *h);
    if (!h) { /* out of host memory: check it at once (it drains if not done yet) */
      at_warp_progress(c, slot, at);
      return;
    }
    c->heap = h;
    c->heap_cap = n;
  }
  uint32_t i = c->heap_n++;
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (c->heap[parent].at <= at) break;
    c->heap[i] = c->heap[parent];
    i = parent;
  }
  c->heap[i].at = at;
  c->heap[i].slot = slot;
}

static uint32_t heap_pop(at_core *c) {
  uint32_t top = c->heap[0].slot;
  at_heap_entry last = c->heap[--c->heap_n];
  uint32_t i = 0;
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    uint64_t at = last.at;
    if (l < c->heap_n && c->heap[l].at < at) m = l, at = c->heap[l].at;
    if (r < c->heap_n && c->heap[r].at < at) m = r;
    if (m == i) break;
    c->heap[i] = c->heap[m];
    i = m;
  }
  if (c->heap_n) c->heap[i] = last;
  return top;
}

/* ---- statistics ------------------------------------------------------------------------------ */

/* Cycles with a resident CTA: counted when the core empties (and read by the dump). */
static void count_busy(at_core *c, uint64_t last_cycle) {
  if (last_cycle + 1 > c->busy_from) *c->cycles += last_cycle + 1 - c->busy_from;
  c->busy_from = last_cycle + 1;
}

static void register_stats(at_core *c) {
  stats *st = c->cfg.stats;
  simt_insn_counters_register(&c->n, st, c->cfg.sm, &c->scratch);
  if (!st) {
    for (int i = 0; i < 35; i++) c->distro[i] = &c->scratch;
    for (int i = 0; i < AT_R_N; i++) c->reason[i] = &c->scratch;
    for (int i = 0; i < 7; i++) c->mem_insn[i] = &c->scratch;
    c->cycles = c->ctas_done = c->ldst_stall = c->smem_conflicts = &c->scratch;
    return;
  }
  /* the CA core's names and descriptions: both variants feed the same counters */
  char name[96];
  c->distro[AT_B_IDLE] = stats_counter(st, "W0_Idle", "cycles",
                                       "scheduler cycles without issue: no warp had a decoded instruction");
  c->distro[AT_B_SCOREBOARD] = stats_counter(st, "W0_Scoreboard", "cycles",
                                             "scheduler cycles without issue: every decoded instruction "
                                             "waited for a register (scoreboard)");
  c->distro[AT_B_STALL] = stats_counter(st, "Stall", "cycles",
                                        "scheduler cycles without issue: a ready instruction found its pipeline busy");
  for (int i = 1; i <= 32; i++) {
    snprintf(name, sizeof name, "W%d", i);
    c->distro[2 + i] = stats_counter(st, name, "insn", "warp instructions issued with this many active threads");
  }
  static const char *const rn[AT_R_N] = {"no_warp", "barrier", "ibuffer_empty", "scoreboard", "pipe_busy"};
  static const char *const rd[AT_R_N] = {
      "scheduler cycles without issue: the scheduler had no live warp",
      "scheduler cycles without issue: every live warp waited at a barrier or fence or had exited",
      "scheduler cycles without issue: the best warp had no decoded instruction (fetch, L1I miss, branch)",
      "scheduler cycles without issue: the best warp waited for a register (scoreboard)",
      "scheduler cycles without issue: the best warp was ready but its pipeline was busy"};
  for (int i = 0; i < AT_R_N; i++) {
    snprintf(name, sizeof name, "simt_sched_stall[%s]", rn[i]);
    c->reason[i] = stats_counter(st, name, "cycles", rd[i]);
  }
  static const char *const mn[7] = {"gpgpu_n_load_insn",  "gpgpu_n_store_insn",     "gpgpu_n_shmem_insn",
                                    "gpgpu_n_sstarr_insn", "gpgpu_n_tex_insn",      "gpgpu_n_const_mem_insn",
                                    "gpgpu_n_param_mem_insn"};
  static const char *const md[7] = {
      "thread loads (and atomics) of global and local memory", "thread stores to global and local memory",
      "thread accesses to shared memory", "thread accesses to shared static arrays (OpenCL; always 0 here)",
      "thread texture and surface accesses", "thread constant-memory loads", "thread parameter-memory loads"};
  for (int i = 0; i < 7; i++) c->mem_insn[i] = stats_counter(st, mn[i], "insn", md[i]);
  snprintf(name, sizeof name, "simt_core[%u].cycles", c->cfg.sm);
  c->cycles = stats_counter(st, name, "cycles", "cycles this SIMT core had a resident CTA");
  snprintf(name, sizeof name, "simt_core[%u].ctas", c->cfg.sm);
  c->ctas_done = stats_counter(st, name, "CTAs", "CTAs this SIMT core completed");
  c->ldst_stall = stats_counter(st, "simt_stall_ldst_busy", "cycles",
                                "cycles a memory instruction waited in OC_EX for the LDST unit");
  /* the LDST unit's name: shared accesses are timed here, their conflicts counted here */
  c->smem_conflicts = stats_counter(st, "gpgpu_n_shmem_bkconflict", "cycles",
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

static void finish_cta(at_core *c, at_cta *cta, uint64_t now) {
  func_cta_finish(cta->fc);
  cta->fc = NULL;
  cta->live = false;
  c->n_ctas--;
  ++*c->ctas_done;
  if (!c->n_ctas) { /* the core empties: classify the schedulers' cycles up to now */
    count_busy(c, now);
    for (uint32_t s = 0; s < c->cfg.n_schedulers; s++) at_sched_account(c, &c->sched[s], now);
  }
  queue_report(c, cta->k->slot, &cta->result);
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
    s->bucket = AT_B_IDLE;
    s->reason = AT_R_NO_WARP;
    c->sched_next[w->sched] = AT_NEVER;
  }
  w->live = false;
  c->n_live_warps--;
  at_cta *cta = cta_of(c, w);
  if (++cta->n_finished == cta->n_warps) finish_cta(c, cta, now);
}

/* A warp's memory work or stores may have drained: release a fence, finish an exited warp. */
void at_warp_progress(at_core *c, uint32_t slot, uint64_t now) {
  at_warp *w = &c->warps[slot];
  if (!w->live) return;
  bool mem_idle = !w->inflight_mem && w->mem_done <= now && !c->lif->pending_stores(c->ldst, slot);
  if (w->wait == AT_WAIT_FENCE && mem_idle) {
    w->wait = AT_WAIT_NONE;
    at_wake(c, slot, now);
  }
  bool written = w->last_wb <= now;
  if (w->exited && written && mem_idle) {
    finish_warp(c, slot, now);
    return;
  }
  at_set_drain(c, w, w->wait == AT_WAIT_FENCE || (w->exited && written));
}

static void recheck_drains(at_core *c, uint64_t now) {
  for (uint32_t i = 0; i < (c->cfg.max_warps + 63) / 64 && c->n_drain; i++)
    for (uint64_t m = c->drain_mask[i]; m; m &= m - 1) at_warp_progress(c, i * 64 + (uint32_t)__builtin_ctzll(m), now);
}

/* Ends a CTA early (fault, deadlock): its warps issue nothing more; it is reported once their
 * in-flight instructions and stores have drained. */
static void abort_cta(at_core *c, at_cta *cta, const gpu_cta_result *r, uint64_t now) {
  if (cta->aborting) return;
  cta->aborting = true;
  cta->result = *r;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    uint32_t slot = cta->warp_slot[i];
    at_warp *w = &c->warps[slot];
    if (!w->live) continue;
    w->exited = true;
    w->ib_n = 0;
    w->wait = AT_WAIT_NONE;
    at_set_ready(c, w, AT_NEVER);
    at_finish_push(c, slot, at_max(w->last_wb, now));
  }
}

static void warp_line(at_core *c, const at_warp *w, uint32_t slot, char *buf, size_t n) {
  const ptx_module *m = simt_program_module(at_prog(c, w));
  func_peek pk;
  const char *state = !w->live ? "finished" : w->exited ? "exited" : w->wait == AT_WAIT_BARRIER ? "barrier"
                      : w->wait == AT_WAIT_FENCE ? "fence" : w->imiss ? "imiss" : w->fetch_queued ? "fetch" : "ready";
  char text[160] = "";
  int k = snprintf(buf, n, "  warp %u (slot %u, sched %u): %s", w->index, slot, w->sched, state);
  if (k > 0 && (size_t)k < n && w->wait == AT_WAIT_BARRIER && w->bar_pc < m->n_insns) {
    ptx_insn_format(m, &m->insns[w->bar_pc], text, sizeof text);
    k += snprintf(buf + k, n - (size_t)k, " %u (pc %u `%s`)", w->bar_id, w->bar_pc, text);
  }
  uint32_t pc = func_warp_peek(w->fw, &pk) ? pk.pc : (w->ib_n ? w->ib_pc : w->fetch_pc);
  text[0] = 0;
  if (pc < m->n_insns) ptx_insn_format(m, &m->insns[pc], text, sizeof text);
  if (k > 0 && (size_t)k < n) {
    char when[64] = "waiting";
    if (w->ready != AT_NEVER) snprintf(when, sizeof when, "ready at %" PRIu64, w->ready);
    snprintf(buf + k, n - (size_t)k,
             ", next pc %u (%s:%u) `%s`, %s, ibuffer %u, memory in flight %u, stores %u", pc,
             m->source_name ? m->source_name : "?", pc < m->n_insns ? m->insns[pc].ptx_line : 0u, text, when,
             w->ib_n, w->inflight_mem, c->lif->pending_stores(c->ldst, slot));
  }
}

/* Every live warp of the CTA waits at a barrier that nothing can complete any more. */
static void check_deadlock(at_core *c, at_cta *cta, uint64_t now) {
  if (cta->aborting || !cta->live) return;
  uint32_t waiting = 0, running = 0, first = AT_NONE;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    const at_warp *w = &c->warps[cta->warp_slot[i]];
    if (!w->live || w->exited) continue;
    if (w->wait == AT_WAIT_BARRIER) {
      waiting++;
      if (first == AT_NONE) first = cta->warp_slot[i];
    } else {
      running++;
    }
  }
  if (running || !waiting) return;
  char line[512];
  snprintf(line, sizeof line,
           "SIMT core %u: kernel %s CTA (%u,%u,%u): barrier deadlock at cycle %" PRIu64
           ": every live warp waits at a barrier that cannot complete",
           c->cfg.sm, cta->k->name ? cta->k->name : "?", cta->id[0], cta->id[1], cta->id[2], now);
  /* the report names the barrier the first waiting warp waits at */
  gpu_cta_result r = {SIMTVP_ERR_DEADLOCK, 0, c->warps[first].bar_pc};
  simt_report_deadlock(&c->ports, c->cfg.sm, cta->k, cta->id, c->warps[first].bar_pc, line, true, now);
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    uint32_t slot = cta->warp_slot[i];
    warp_line(c, &c->warps[slot], slot, line, sizeof line);
    simtvp_msg(&c->ports.messages, SIMTVP_ERROR, "%s", line);
  }
  abort_cta(c, cta, &r, now);
}

/* Barriers of the CTA that completed in this cycle release their warps: they issue from the next
 * cycle, however long they waited (the hardware releases every warp when the last arrives). */
static void settle_barriers(at_core *c, at_cta *cta, uint64_t now) {
  cta->check_bars = false;
  if (!cta->live || cta->aborting) return;
  uint32_t ids = 0;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    const at_warp *w = &c->warps[cta->warp_slot[i]];
    if (w->live && w->wait == AT_WAIT_BARRIER) ids |= 1u << w->bar_id;
  }
  while (ids) {
    uint32_t id = (uint32_t)__builtin_ctz(ids);
    ids &= ids - 1;
    func_cta_release_barrier(cta->fc, id);
  }
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    uint32_t slot = cta->warp_slot[i];
    at_warp *w = &c->warps[slot];
    if (w->live && w->wait == AT_WAIT_BARRIER && func_warp_get_state(w->fw) != FUNC_WARP_BARRIER) {
      w->wait = AT_WAIT_NONE;
      at_wake(c, slot, now + 1);
    }
  }
  check_deadlock(c, cta, now);
}

void at_fault_cta(at_core *c, at_cta *cta, at_warp *w, simtvp_status st, const simtvp_diag *d, uint64_t now) {
  /* the warp that faulted reports; others of the launch only see the launch's fault again */
  if (func_warp_get_state(w->fw) == FUNC_WARP_FAULTED) {
    char text[SIMTVP_DIAG_MESSAGE_MAX + 64];
    snprintf(text, sizeof text, "SIMT core %u, cycle %" PRIu64 ": %s", c->cfg.sm, now, d->message);
    simt_report_fault(&c->ports, c->cfg.sm, cta->k->slot, st, d, text, now);
  }
  gpu_cta_result r = {st, (d->where & SIMTVP_WHERE_ADDRESS) ? d->address : 0, d->pc};
  abort_cta(c, cta, &r, now);
}

/* ---- fetch ----------------------------------------------------------------------------------- */

/* One fetch buffer: fetch_throughput fetch+decode steps per cycle, first come first served (the
 * CA core serves warps round robin; the rate is the same). A fetch at f issues from f + 2, or
 * f + 1 when a later step of the same cycle decodes it. */
static uint64_t fetch_slot(at_core *c, uint64_t t, uint8_t *decode) {
  if (t > c->fetch_cycle) {
    c->fetch_cycle = t;
    c->fetch_used = 0;
  }
  if (c->fetch_used == c->cfg.fetch_throughput) {
    c->fetch_cycle++;
    c->fetch_used = 0;
  }
  c->fetch_used++;
  *decode = c->fetch_used < c->cfg.fetch_throughput ? 1 : 2;
  return c->fetch_cycle;
}

/* Instructions one fetch reads at pc: two, one when the second is in another function or line. */
static uint32_t fetch_group(const at_core *c, const at_cta *cta, uint32_t pc) {
  const ptx_module *m = simt_program_module(cta->k->program);
  uint64_t addr = cta->code_base + (uint64_t)pc * FUNC_INSN_BYTES;
  return pc + 1 < m->n_insns && m->insns[pc + 1].function == m->insns[pc].function &&
                 (addr % c->l1i_line) + 2 * FUNC_INSN_BYTES <= c->l1i_line
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
  const at_cta *cta = cta_of(c, w);
  uint64_t line = (cta->code_base + (uint64_t)w->fetch_pc * FUNC_INSN_BYTES) / c->l1i_line + 1;
  if (!c->l1i || w->fill_ready || (c->l1i_enabled && line == w->line)) {
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
  if (slot >= c->cfg.max_warps) return;
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
    const at_cta *cta = cta_of(c, w);
    uint32_t pc = w->fetch_pc;
    mem_req *req = mem_req_alloc(c->pool);
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
    req->sm = (uint16_t)c->cfg.sm;
    req->cluster = (uint16_t)c->cfg.cluster;
    req->warp = (uint16_t)q.slot;
    req->owner_tag = pc;
    cache_status st = cache_access(c->l1i, req, t, NULL);
    if (st == CACHE_RESERVATION_FAIL) { /* retried at the next fetch step */
      mem_req_free(req);
      uint8_t decode;
      uint64_t f = fetch_slot(c, t + 1, &decode);
      fetchq_push(c, q.slot, f, decode);
      continue;
    }
    if (st == CACHE_HIT) {
      mem_req *r;
      while ((r = cache_reply_pop(c->l1i, t))) {
        if (r != req) {
          fetch_returned(c, r, false, t);
          continue;
        }
        mem_req_free(r);
        w->line = (cta->code_base + (uint64_t)pc * FUNC_INSN_BYTES) / c->l1i_line + 1;
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
  while ((r = cache_miss_peek(c->l1i))) {
    if (!c->ports.send(c->ports.ctx, r, t)) return;
    cache_miss_pop(c->l1i);
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
  uint64_t done = (st->is_load || st->is_atomic) ? end + c->cfg.ldst.smem_latency : end;
  for (uint32_t i = 0; i < m->n_dst; i++) w->rr[m->dst[i]] = done;
  if (done > w->mem_done) w->mem_done = done;
  w->inflight_mem--;
  uint32_t slot = m->warp;
  at_mop_release(c, id);
  at_wake(c, slot, t);
  if (w->wait == AT_WAIT_FENCE || w->exited) at_finish_push(c, slot, done);
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
    if (held == c->n_smem_slots || !c->lif->can_issue(c->ldst, t)) {
      ++*c->ldst_stall;
      c->memq_retry = held == c->n_smem_slots ? c->smem_slot[first] : t + 1;
      break;
    }
    if (!smem && !*advanced) {
      c->lif->advance(c->ldst, t);
      *advanced = true;
    }
    c->memq_head = m->next;
    if (m->next != AT_NONE) c->mops[m->next].prev = AT_NONE;
    else c->memq_tail = AT_NONE;
    c->memq_n--;
    if (c->memq_part[m->part]-- == c->mem_slots) /* room again: its schedulers may issue */
      for (uint32_t s = 0; s < c->cfg.n_schedulers; s++)
        if ((c->cfg.sub_core ? s : 0u) == m->part && c->sched_next[s] > t) c->sched_next[s] = t;
    at_count_mem_insn(c, &c->steps[id]);
    if (smem) {
      c->smem_slot[first] = smem_access(c, id, t);
      continue;
    }
    /* may complete at once (ports.complete): m is not touched after */
    c->lif->issue(c->ldst, m->warp, &c->steps[id], id, t);
  }
}

static void cycle(at_core *c, uint64_t t) {
  bool advanced = c->ldst_next <= t;
  if (advanced) c->lif->advance(c->ldst, t);
  while (c->heap_n && c->heap[0].at <= t) at_warp_progress(c, heap_pop(c), t);
  if (advanced && c->n_drain) recheck_drains(c, t);
  if (memq_due(c) <= t) memq_stage(c, t, &advanced);
  if (advanced) c->ldst_next = c->lif->next_event(c->ldst);
  for (uint32_t s = 0; s < c->cfg.n_schedulers; s++)
    if (c->sched_next[s] <= t) at_sched_cycle(c, s, t);
  /* after issue, as the CA core's fetch stage: fetches requested this cycle are made this cycle */
  if (c->l1i && (c->fetchq_n || c->l1i_next <= t || c->l1i_missq)) {
    if (c->l1i_missq) send_l1i_misses(c, t);
    if (c->fetchq_n) fetch_stage(c, t);
    c->l1i_next = cache_next_event(c->l1i);
  }
  if (c->any_check_bars) {
    c->any_check_bars = false;
    for (uint32_t i = 0; i < c->cfg.max_ctas; i++)
      if (c->ctas[i].check_bars) settle_barriers(c, &c->ctas[i], t);
  }
}

/* The earliest cycle ≥ done_until with something to do. */
static uint64_t compute_next(const at_core *c) {
  uint64_t t = AT_NEVER;
  if (c->cfg.every_cycle && c->n_ctas) return c->done_until;
  for (uint32_t s = 0; s < c->cfg.n_schedulers; s++) t = at_min(t, c->sched_next[s]);
  t = at_min(t, memq_due(c));
  t = at_min(t, c->ldst_next);
  if (c->heap_n) t = at_min(t, c->heap[0].at);
  if (c->fetchq_n) t = at_min(t, c->fetchq[c->fetchq_head].at);
  if (c->l1i_missq) return c->done_until;
  t = at_min(t, c->l1i_next);
  return t == AT_NEVER ? AT_NEVER : at_max(t, c->done_until);
}

static void run_until(at_core *c, uint64_t end) {
  for (;;) {
    uint64_t t = compute_next(c);
    if (t > end) break;
    cycle(c, t);
    c->done_until = t + 1;
  }
  if (c->done_until < end + 1) c->done_until = end + 1;
}

/* Everything before now is done; calls that hand the core something at now come after. */
static void catch_up(at_core *c, uint64_t now) {
  if (now > 0) run_until(c, now - 1);
}

/* ---- LDST ports ------------------------------------------------------------------------------ */

static bool ldst_send(void *ctx, mem_req *req, uint64_t now) {
  at_core *c = ctx;
  return c->ports.send(c->ports.ctx, req, now);
}

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
  if (cfg->warp_size != FUNC_WARP_SIZE) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: warp size %u: the functional engine runs %u-thread warps",
                    cfg->sm, cfg->warp_size, FUNC_WARP_SIZE);
    simtvp_diag_at_option(diag, "-gpgpu_shader_core_pipeline");
    return SIMTVP_ERR_CONFIG;
  }
  if (cfg->n_schedulers < 1 || cfg->n_schedulers > SIMT_MAX_SCHEDULERS || cfg->max_warps < 1) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: %u schedulers: expected 1 to %u (and at least one warp slot)",
                    cfg->sm, cfg->n_schedulers, SIMT_MAX_SCHEDULERS);
    simtvp_diag_at_option(diag, "-gpgpu_num_sched_per_core");
    return SIMTVP_ERR_CONFIG;
  }
  if (cfg->max_ctas < 1 || cfg->fetch_throughput < 1 || cfg->max_issue_per_warp < 1 || cfg->max_issue_per_warp > 2) {
    const char *opt = cfg->max_ctas < 1 ? "-gpgpu_shader_cta" : cfg->fetch_throughput < 1
                      ? "-gpgpu_inst_fetch_throughput" : "-gpgpu_max_insn_issue_per_warp";
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: %s must be at least 1 (issue per warp: 1 or 2)",
                    cfg->sm, opt);
    simtvp_diag_at_option(diag, opt);
    return SIMTVP_ERR_CONFIG;
  }
  const simt_ldst_iface *lif = cfg->ldst_iface ? cfg->ldst_iface : simt_ldst_default_iface();
  if (!lif) {
    simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                    "SIMT core %u: this build has no LDST unit (models/simt/ldst); give simt_core_config.ldst_iface",
                    cfg->sm);
    return SIMTVP_ERR_UNSUPPORTED;
  }
  at_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  c->cfg = *cfg;
  c->ports = ports;
  c->lif = lif;
  if (c->cfg.reg_ports == 0) c->cfg.reg_ports = 1;
  c->n_parts = cfg->sub_core ? cfg->n_schedulers : 1;
  c->next = c->ldst_next = c->l1i_next = AT_NEVER;
  register_stats(c);
  simtvp_status st = at_pipe_init(c, diag);
  if (st == SIMTVP_OK) st = at_smem_init(c, diag);
  c->n_smem_slots = cfg->ldst.mem_unit_ports < 1 ? 1u
                    : cfg->ldst.mem_unit_ports > (int32_t)AT_MAX_ITEMS ? AT_MAX_ITEMS : (uint32_t)cfg->ldst.mem_unit_ports;
  if (st != SIMTVP_OK) {
    at_destroy(c);
    return st;
  }
  c->pool = cfg->pool;
  if (!c->pool) {
    c->pool = mem_req_pool_create();
    c->own_pool = true;
  }
  c->warps = calloc(cfg->max_warps, sizeof *c->warps);
  c->ctas = calloc(cfg->max_ctas, sizeof *c->ctas);
  c->drain_mask = calloc((cfg->max_warps + 63) / 64, sizeof *c->drain_mask);
  bool ok = c->pool && c->warps && c->ctas && c->drain_mask;
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
  c->l1i_line = 128;
  if (!cfg->perfect_l1i) {
    char name[64];
    cache_config cc;
    memset(&cc, 0, sizeof cc);
    st = cache_spec_parse(cfg->l1i ? cfg->l1i : "none", "-gpgpu_cache:il1", &cc.spec, diag);
    if (st == SIMTVP_OK) {
      snprintf(name, sizeof name, "L1I_cache_core[%u]", cfg->sm);
      cc.level = CACHE_LEVEL_L1;
      cc.hit_latency = 0; /* a hit fills the fetch buffer at once (decode next cycle) */
      cc.stats = cfg->stats;
      cc.name = name;
      cc.stats_group = "L1I";
      cc.pool = c->pool;
      st = cache_create(&cc, &c->l1i, diag);
      if (st == SIMTVP_OK && !cc.spec.disabled) {
        c->l1i_line = cc.spec.line_bytes;
        c->l1i_enabled = true;
      }
    }
    if (st != SIMTVP_OK) {
      at_destroy(c);
      return st;
    }
  }
  simt_ldst_config lc = cfg->ldst;
  lc.sm = cfg->sm;
  lc.cluster = cfg->cluster;
  lc.warp_size = cfg->warp_size;
  lc.max_warps = cfg->max_warps;
  lc.max_threads = cfg->max_threads;
  lc.stats = cfg->stats;
  lc.pool = c->pool;
  simt_ldst_ports lp = {c, ldst_send, ldst_complete};
  c->ldst = lif->create(&lc, lp, diag);
  if (!c->ldst) {
    at_destroy(c);
    return diag && diag->status != SIMTVP_OK ? diag->status : SIMTVP_ERR_CONFIG;
  }
  c->ldst_next = lif->next_event(c->ldst);
  *state = c;
  return SIMTVP_OK;
}

static void at_destroy(void *state) {
  at_core *c = state;
  if (!c) return;
  for (uint32_t i = 0; c->ctas && i < c->cfg.max_ctas; i++)
    if (c->ctas[i].live && c->ctas[i].fc) func_cta_finish(c->ctas[i].fc);
  if (c->ldst) c->lif->destroy(c->ldst);
  if (c->l1i) cache_destroy(c->l1i);
  at_pipe_free(c);
  at_smem_free(c);
  for (uint32_t s = 0; s < SIMT_MAX_SCHEDULERS; s++) {
    free(c->sched[s].warps);
    free(c->sched[s].ready);
    free(c->sched[s].ibt);
  }
  free(c->warps);
  free(c->drain_mask);
  for (uint32_t i = 0; c->ctas && i < c->cfg.max_ctas; i++) free(c->ctas[i].unit_of);
  free(c->ctas);
  free(c->rr);
  free(c->fetchq);
  free(c->heap);
  free(c->reports);
  if (c->own_pool) mem_req_pool_destroy(c->pool);
  free(c);
}

static bool grow_rr(at_core *c, uint32_t stride) {
  uint64_t *rr = calloc((size_t)c->cfg.max_warps * stride, sizeof *rr);
  if (!rr) return false;
  for (uint32_t w = 0; w < c->cfg.max_warps && c->rr; w++)
    memcpy(rr + (size_t)w * stride, c->rr + (size_t)w * c->rr_stride, c->rr_stride * sizeof *rr);
  free(c->rr);
  c->rr = rr;
  c->rr_stride = stride;
  for (uint32_t w = 0; w < c->cfg.max_warps; w++) c->warps[w].rr = rr + (size_t)w * stride;
  return true;
}

static simtvp_status at_launch_cta(void *state, const simt_kernel *k, const uint32_t id[3], uint64_t now,
                                   simtvp_diag *diag) {
  at_core *c = state;
  catch_up(c, now);
  simtvp_status st = SIMTVP_OK;
  uint32_t ci = 0;
  while (ci < c->cfg.max_ctas && c->ctas[ci].live) ci++;
  uint32_t first = 0;
  while (first < c->cfg.max_warps && c->warps[first].live) first++;
  if (ci == c->cfg.max_ctas || first == c->cfg.max_warps) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_STATE, "SIMT core %u: no free %s slot for CTA (%u,%u,%u) of %s", c->cfg.sm,
                         ci == c->cfg.max_ctas ? "CTA" : "warp", id[0], id[1], id[2], k->name ? k->name : "?");
  } else if (k->program->n_reg_ids > c->rr_stride && !grow_rr(c, k->program->n_reg_ids)) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->cfg.sm);
  }
  func_cta *fc = NULL;
  if (st == SIMTVP_OK) st = func_cta_start(k->launch, id, c->cfg.sm, first, &fc, diag);
  uint32_t nw = fc ? func_cta_warp_count(fc) : 0, slots[AT_MAX_CTA_WARPS], got = 0;
  for (uint32_t s = first; st == SIMTVP_OK && s < c->cfg.max_warps && got < nw; s++)
    if (!c->warps[s].live) slots[got++] = s;
  if (st == SIMTVP_OK && got < nw) {
    func_cta_finish(fc);
    st = simtvp_diag_set(diag, SIMTVP_ERR_STATE, "SIMT core %u: CTA (%u,%u,%u) of %s needs %u warp slots, %u are free",
                         c->cfg.sm, id[0], id[1], id[2], k->name ? k->name : "?", nw, got);
  }
  if (st != SIMTVP_OK) return st;
  if (!c->n_ctas) { /* the core fills: cycles count from now */
    c->busy_from = at_max(c->busy_from, now);
    for (uint32_t s = 0; s < c->cfg.n_schedulers; s++) {
      c->sched[s].acct_from = at_max(c->sched[s].acct_from, now);
      c->sched[s].bucket = AT_B_IDLE;
      c->sched[s].reason = AT_R_NO_WARP;
    }
  }
  at_cta *cta = &c->ctas[ci];
  const ptx_module *mod = simt_program_module(k->program);
  uint32_t n_insns = mod->n_insns ? mod->n_insns : 1;
  if (cta->unit_cap < n_insns) {
    uint8_t *u = realloc(cta->unit_of, n_insns);
    if (!u) {
      func_cta_finish(fc);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->cfg.sm);
    }
    cta->unit_of = u;
    cta->unit_cap = n_insns;
  }
  memset(cta->unit_of, AT_UNIT_UNKNOWN, n_insns);
  uint8_t *unit_of = cta->unit_of;
  uint32_t unit_cap = cta->unit_cap;
  memset(cta, 0, sizeof *cta);
  cta->unit_of = unit_of;
  cta->unit_cap = unit_cap;
  cta->live = true;
  cta->k = k;
  cta->fc = fc;
  memcpy(cta->id, id, sizeof cta->id);
  cta->n_warps = nw;
  cta->result.status = SIMTVP_OK;
  c->n_ctas++;
  for (uint32_t i = 0; i < nw; i++) {
    uint32_t slot = slots[i];
    at_warp *w = &c->warps[slot];
    uint64_t *rr = w->rr;
    memset(w, 0, sizeof *w);
    w->rr = rr;
    memset(rr, 0, c->rr_stride * sizeof *rr);
    w->live = true;
    w->fw = func_cta_warp(fc, i);
    w->prog = k->program;
    w->unit_of = cta->unit_of;
    w->cta = ci;
    w->index = i;
    w->sched = slot % c->cfg.n_schedulers;
    w->part = c->cfg.sub_core ? w->sched : 0;
    w->age = c->next_age++;
    w->unit = AT_NO_UNIT;
    w->ib_time = AT_NEVER;
    w->ready = AT_NEVER;
    cta->warp_slot[i] = slot;
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
    if (c->lif->set_param_base) c->lif->set_param_base(c->ldst, slot, FUNC_WINDOW_PARAM + (uint64_t)k->slot * 0x10000u);
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
  flush_reports(c, now);
  c->next = compute_next(c);
  return SIMTVP_OK;
}

static bool at_mem_reply(void *state, mem_req *reply, uint64_t now) {
  at_core *c = state;
  catch_up(c, now);
  bool taken = true;
  if (reply->kind == MEM_ACC_INST_R) {
    if (c->l1i && cache_fill(c->l1i, reply, now)) {
      mem_req *r;
      while ((r = cache_reply_pop(c->l1i, now))) fetch_returned(c, r, false, now);
      c->l1i_next = cache_next_event(c->l1i);
    } else {
      fetch_returned(c, reply, true, now);
    }
  } else {
    taken = c->lif->reply(c->ldst, reply, now);
    if (taken) {
      c->ldst_next = c->lif->next_event(c->ldst);
      if (c->n_drain) recheck_drains(c, now);
    }
  }
  flush_reports(c, now);
  c->next = compute_next(c);
  return taken;
}

static void at_advance(void *state, uint64_t now) {
  at_core *c = state;
  run_until(c, now);
  flush_reports(c, now);
  c->next = compute_next(c);
}

static uint64_t at_next_event(const void *state) { return ((const at_core *)state)->next; }

static bool at_idle(const void *state) {
  const at_core *c = state;
  return !c->n_ctas && !c->memq_n && !c->fetchq_n && c->lif->idle(c->ldst) && (!c->l1i || cache_is_idle(c->l1i));
}

static uint32_t at_resident(const void *state) { return ((const at_core *)state)->n_ctas; }

static uint32_t at_flush(void *state, uint64_t now) {
  at_core *c = state;
  catch_up(c, now);
  uint32_t n = c->lif->flush_l1(c->ldst, now);
  c->ldst_next = c->lif->next_event(c->ldst);
  c->next = compute_next(c);
  return n;
}

static void at_dump(const void *state, void (*line)(void *ctx, const char *text), void *ctx) {
  at_core *c = (at_core *)state;
  char buf[512];
  snprintf(buf, sizeof buf,
           "SIMT core %u (at) at cycle %" PRIu64 ": %u CTAs, %u warps; %u memory instructions waiting for the "
           "LDST unit, %u fetches queued",
           c->cfg.sm, c->done_until ? c->done_until - 1 : 0, c->n_ctas, c->n_live_warps, c->memq_n, c->fetchq_n);
  line(ctx, buf);
  for (uint32_t i = 0; i < c->cfg.max_ctas; i++) {
    const at_cta *cta = &c->ctas[i];
    if (!cta->live) continue;
    snprintf(buf, sizeof buf, " CTA (%u,%u,%u) of %s (slot %u)%s: %u/%u warps finished", cta->id[0], cta->id[1],
             cta->id[2], cta->k->name ? cta->k->name : "?", i, cta->aborting ? " aborting" : "", cta->n_finished,
             cta->n_warps);
    line(ctx, buf);
    for (uint32_t j = 0; j < cta->n_warps; j++) {
      uint32_t slot = cta->warp_slot[j];
      if (!c->warps[slot].live) continue;
      warp_line(c, &c->warps[slot], slot, buf, sizeof buf);
      line(ctx, buf);
    }
  }
  if (c->l1i) {
    cache_occupancy o;
    cache_get_occupancy(c->l1i, &o);
    snprintf(buf, sizeof buf, " L1I: %u MSHR entries, %u in the miss queue", o.mshr_entries, o.miss_queue);
    line(ctx, buf);
  }
  c->lif->dump(c->ldst, line, ctx);
}

const simt_core_ops simt_at_ops = {"at",       at_create,     at_destroy, at_launch_cta, at_mem_reply,
                                   at_advance, at_next_event, at_idle,    at_resident,   at_flush,
                                   at_dump};
