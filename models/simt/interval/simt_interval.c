/* simt_interval — the interval SIMT core ("interval" variant of simt.h; docs/simt-interval.md):
 * CTAs and warps, the per-warp timelines, throughput bins, barriers, fences, exit, faults, time
 * and statistics. The memory stage is simt_interval_mem.c.
 *
 * advance(now) runs every resident warp whose timeline t is at most now + IV_HORIZON: the warp
 * executes its next instruction in models/func and the instruction issues at
 *   t_i = max(t_{i-1} + 1, ready time of every register it reads or writes,
 *             the first cycle its scheduler's issue bin and its unit's bin have room),
 * its results ready at t_i + to_unit + L (ALU; L less 4 with -gpgpu_alu_forwarding), or when the
 * memory stage says (iv_mem_issue, entered at t_i + to_unit). The warp's interval ends when its
 * timeline passes the horizon, at a barrier, at exit, or on a replayable fault. A barrier
 * releases its warps at the cycle after the last arrival in time; a .gpu/.sys fence waits for the
 * warp's results and acknowledgements; an exited warp is finished at its last result, and a CTA
 * is reported done when the core is advanced to its last warp's finish. next_event is the
 * earliest of those finishes and the cycle the earliest running warp is IV_HORIZON / 2 ahead. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_interval_internal.h"

static simt_cta *cta_of(iv_core *c, const iv_warp *w) { return &c->base.ctas[w->cta]; }

/* A warp that may issue (not waiting, not exited). */
static inline bool runnable(const iv_warp *w) { return w->live && !w->exited && !w->wait; }

/* ---- per-pc facts ------------------------------------------------------------------------------ */

static const iv_pc *pc_info(iv_core *c, iv_warp *w) {
  iv_pc *p = &w->pcs[w->pc];
  if (p->flags & IV_KNOWN) return p;
  func_peek pk;
  if (!func_warp_peek(w->fw, &pk)) return NULL;
  iv_cta_pcs *u = &c->cta_pcs[w->cta];
  u->touched[u->n_touched++] = w->pc;
  const simt_insn_info *info = &w->prog->info[pk.pc];
  bool plain = pk.kind == FUNC_STEP_ALU || pk.kind == FUNC_STEP_SFU || pk.kind == FUNC_STEP_BRANCH ||
               pk.kind == FUNC_STEP_NOP;
  p->unit = pk.kind == FUNC_STEP_MEM ? (uint8_t)SIMT_UNIT_MEM
            : (pk.kind == FUNC_STEP_BARRIER || pk.kind == FUNC_STEP_FENCE) ? (uint8_t)IV_NO_UNIT
                                                                            : c->base.eff_unit[info->unit];
  p->flags = (uint8_t)(IV_KNOWN | (plain && p->unit < SIMT_UNIT_MEM ? IV_PLAIN : 0));
  const ptx_module *m = simt_program_module(w->prog);
  if (pk.kind == FUNC_STEP_MEM && pk.pc < m->n_insns) {
    const ptx_insn *pi = &m->insns[pk.pc];
    for (uint32_t i = 0; i < pi->nops; i++)
      if (pi->ops[i].kind == PTX_OPND_ADDR) {
        if (pi->ops[i].index == PTX_NONE) p->flags |= IV_UNIFORM;
        break;
      }
  }
  p->to_unit = (uint8_t)(IV_ISSUE_TO_UNIT - (info->n_src_rf == 0));
  p->n_deps = (uint8_t)(info->n_src + info->n_dst);
  p->n_dst = info->n_dst;
  p->fence = info->fence;
  p->regs = w->prog->regs + info->regs;
  uint32_t ii = c->base.ii[info->lat_row][info->op];
  p->ii = (uint16_t)(ii > UINT16_MAX ? UINT16_MAX : ii);
  p->lat = c->base.lat[info->lat_row][info->op];
  /* -gpgpu_alu_forwarding: SP/DP/INT results reach a dependent IV_ISSUE_TO_UNIT cycles before
   * writeback, as in the CA core */
  p->l1i_line = (pk.fetch_addr / c->base.l1i_line) + 1;
  uint64_t first_line = (pk.fetch_addr - (uint64_t)pk.pc * FUNC_INSN_BYTES) / c->base.l1i_line + 1;
  p->l1i_bit = p->l1i_line - first_line < 64 ? (uint8_t)(p->l1i_line - first_line) : (uint8_t)IV_NO_L1I_BIT;
  p->ready = c->base.cfg.alu_forwarding && p->unit <= SIMT_UNIT_INT
                 ? (p->lat > IV_ISSUE_TO_UNIT ? p->lat - IV_ISSUE_TO_UNIT : 0)
                 : p->lat;
  return p;
}

static inline uint64_t deps_ready(const iv_warp *w, const iv_pc *p) {
  uint64_t t = 0;
  for (uint32_t i = 0; i < p->n_deps; i++) {
    uint64_t x = w->rr[p->regs[i]];
    t = x > t ? x : t;
  }
  return t;
}

/* ---- warps ------------------------------------------------------------------------------------ */

static void count_busy(iv_core *c, uint64_t last_cycle) {
  if (last_cycle + 1 > c->busy_from) *c->base.cycles += last_cycle + 1 - c->busy_from;
  c->busy_from = last_cycle + 1;
}

/* The scheduler's cycles [from, now) without an issue, split by why its warps waited (an
 * estimate: the waits its warps reported, scaled to the cycles it did not issue in; the AT core's
 * rule, docs/simt-at.md §4). */
static void count_stalls(iv_core *c, iv_sched *s, uint64_t now) {
  if (now <= s->from) return;
  uint64_t span = now - s->from, idle = span > s->issued ? span - s->issued : 0, sum = 0;
  for (int r = 0; r < SIMT_R_N; r++) sum += s->gap[r];
  uint64_t given = 0;
  int last = SIMT_R_NO_WARP;
  for (int r = 0; r < SIMT_R_N && sum; r++) {
    if (!s->gap[r]) continue;
    uint64_t n = (uint64_t)((double)idle * (double)s->gap[r] / (double)sum);
    uint8_t bucket = r == SIMT_R_PIPE ? SIMT_B_STALL : r == SIMT_R_SCOREBOARD ? SIMT_B_SCOREBOARD : SIMT_B_IDLE;
    *c->base.distro[bucket] += n;
    *c->base.reason[r] += n;
    given += n;
    last = r;
  }
  if (idle > given) {
    uint8_t bucket = last == SIMT_R_PIPE ? SIMT_B_STALL : last == SIMT_R_SCOREBOARD ? SIMT_B_SCOREBOARD : SIMT_B_IDLE;
    *c->base.distro[bucket] += idle - given;
    *c->base.reason[last] += idle - given;
  }
  memset(s->gap, 0, sizeof s->gap);
  s->issued = 0;
  s->from = now;
}

static void finish_warp(iv_core *c, uint32_t slot, uint64_t now) {
  iv_warp *w = &c->warps[slot];
  w->live = false;
  c->n_live_warps--;
  simt_base_finish_warp(&c->base, cta_of(c, w), w->index);
  if (!c->base.n_ctas) { /* the core empties: its schedulers' stalls are counted */
    count_busy(c, now);
    for (uint32_t i = 0; i < c->base.cfg.n_schedulers; i++) count_stalls(c, &c->sched[i], now);
  }
}

/* The warp exited (or its CTA ended): finished at its last result. */
static void retire(iv_core *c, uint32_t slot, uint64_t t) {
  iv_warp *w = &c->warps[slot];
  w->exited = true;
  w->wait = SIMT_WAIT_NONE;
  simt_heap_push(&c->finish, iv_max(w->last_done, t), slot);
}

/* Barriers of the CTA that completed release their warps the cycle after the last arrival in
 * time: t (the instruction just issued) or a waiting warp's arrival (its timeline − 1). */
static void settle_barriers(iv_core *c, simt_cta *cta, uint64_t t) {
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    const iv_warp *x = &c->warps[cta->warp_slot[i]];
    if (simt_cta_holds(cta, i) && x->live && x->wait == SIMT_WAIT_BARRIER && x->t - 1 > t) t = x->t - 1;
  }
  simt_base_settle_barriers(&c->base, cta, t);
}

static bool fault_wait(iv_core *c, iv_warp *w, uint64_t t) {
  uint64_t va;
  if (!simt_base_report_replayable_fault(&c->base, cta_of(c, w)->k, w->fw, t, &c->fault_stall,
                                         &c->fault_stall_scratch, &va)) {
    w->fault_since = va;
    return false;
  }
  w->wait = SIMT_WAIT_FAULT;
  w->fault_since = t;
  return true;
}

/* Counts of a warp's instructions while their active lanes stay the same. */
typedef struct iv_counts {
  bool batch;
  uint32_t active;
  uint64_t n;
} iv_counts;

static inline void count_issue(iv_core *c, iv_counts *k, uint32_t slot, uint32_t pc, uint32_t active, uint64_t t) {
  if (!k->batch) {
    simt_base_count_issue(&c->base, slot, pc, active, t);
    return;
  }
  if (active != k->active) {
    if (k->n) simt_base_count_issues(&c->base, k->active, k->n);
    k->active = active;
    k->n = 0;
  }
  k->n++;
}

/* The cycle the instruction issues from t0 on: its scheduler's issue bin, then its unit's (the
 * first cycle both have room, to_unit apart). */
static inline uint64_t issue_at(iv_core *c, const iv_warp *w, const iv_pc *p, uint64_t t0) {
  iv_bins *is = &c->issue[w->sched];
  if (p->unit >= SIMT_UNIT_MEM) return iv_bins_take(is, t0, 1);
  iv_bins *u = c->unit[w->part][p->unit];
  uint32_t *ui = iv_bins_slot(is, t0), *uu = iv_bins_slot(u, t0 + p->to_unit);
  if (ui && uu && *ui + 1 <= is->cap && *uu + p->ii <= u->cap) { /* the usual case: room in both */
    ++*ui;
    *uu += p->ii;
    return t0;
  }
  uint64_t t;
  for (;;) {
    t = iv_bins_find(is, t0, 1);
    uint64_t e = iv_bins_find(u, t + p->to_unit, p->ii);
    if (e == t + p->to_unit) break;
    t0 = e - p->to_unit;
  }
  iv_bins_book(is, t, 1);
  iv_bins_book(u, t + p->to_unit, p->ii);
  return t;
}

/* The warp issued pc at t and goes on at next_pc: the I-buffer holds two instructions per fetch,
 * a control hazard (next_pc ≠ pc + 1) empties it, and an empty one fetches in the same cycle on
 * the core's fetch port (-gpgpu_inst_fetch_throughput per cycle), decoded the cycle after: the
 * next instruction issues from the fetch + 2 (docs/simt-interval.md §2). The cycle the warp may
 * issue next. */
static inline uint64_t after_issue(iv_core *c, iv_warp *w, uint32_t pc, uint32_t next_pc, uint64_t t) {
  if (next_pc == pc + 1 && w->ib_n > 1) {
    w->ib_n--;
    return t + 1;
  }
  w->ib_n = 2;
  uint64_t next = iv_bins_take(&c->fetch, t, 1) + 2;
  c->sched[w->sched].gap[SIMT_R_IBUFFER] += next - t - 1; /* the front end's wait */
  return next;
}

/* Runs warp `slot` while its timeline is at most `limit`. */
static void run_warp_body(iv_core *c, uint32_t slot, uint64_t limit, iv_counts *k) {
  iv_warp *w = &c->warps[slot];
  simtvp_diag dg;
  while (w->t <= limit) {
    const iv_pc *p = pc_info(c, w);
    if (!p) { /* nothing left to run: the warp is done */
      retire(c, slot, w->t);
      return;
    }
    if (p->l1i_line != w->line && c->base.l1i) {
      uint64_t bit = p->l1i_bit < 64 ? 1ull << p->l1i_bit : 0;
      if (w->l1i_seen & bit) { /* a line the warp fetched before: there, no lookup (§2) */
        w->line = p->l1i_line;
      } else { /* a new L1I line: looked up (a miss waits) */
        uint64_t f = iv_mem_fetch(c, w, p, w->t > 2 ? w->t - 2 : 0) + 2;
        if (f > w->t) c->sched[w->sched].gap[SIMT_R_IBUFFER] += f - w->t, w->t = f;
        if (w->line) w->l1i_seen |= bit; /* (no L1I: iv_mem_fetch leaves 0, every fetch looks up) */
      }
    }
    iv_sched *sc = &c->sched[w->sched];
    uint64_t d = deps_ready(w, p), t0 = w->t;
    if (d > t0) sc->gap[SIMT_R_SCOREBOARD] += d - t0, t0 = d;
    uint64_t t = issue_at(c, w, p, t0);
    sc->gap[SIMT_R_PIPE] += t - t0;
    sc->issued++;
    uint32_t pc = w->pc;
    const uint32_t *dst = p->regs + (p->n_deps - p->n_dst);
    if (p->flags & IV_PLAIN) {
      uint32_t active = func_warp_active(w->fw);
      simtvp_status st = func_warp_step(w->fw, NULL, &dg);
      if (st != SIMTVP_OK) {
        simt_base_fault_cta(&c->base, cta_of(c, w), w->fw, st, &dg, t);
        return;
      }
      count_issue(c, k, slot, pc, active, t);
      uint64_t e = t + p->to_unit, ready = e + p->ready, wb = e + p->lat;
      for (uint32_t i = 0; i < p->n_dst; i++) w->rr[dst[i]] = ready;
      if (wb > w->last_done) w->last_done = wb;
      uint32_t next_pc = func_warp_pc(w->fw);
      w->t = after_issue(c, w, pc, next_pc, t);
      w->pc = next_pc;
      continue;
    }
    func_step rec;
    simtvp_status st = func_warp_step(w->fw, &rec, &dg);
    if (st == SIMTVP_OK && func_warp_get_state(w->fw) == FUNC_WARP_FAULT_WAIT) {
      /* a replayable fault (unified memory): nothing issued; the warp waits for the replay */
      sc->issued--;
      w->t = t;
      if (fault_wait(c, w, t)) return;
      st = SIMTVP_ERR_FAULT;
      simtvp_diag_set(&dg, st, "kernel %s: global access at 0x%" PRIx64 " faults replayably (the page is not "
                      "resident) but the GPU has no fault buffer", cta_of(c, w)->k->name, w->fault_since);
      simtvp_diag_at_address(&dg, w->fault_since);
      simt_report_fault(&c->base.ports, c->base.cfg.sm, cta_of(c, w)->k->slot, st, &dg, dg.message, t);
      gpu_cta_result r = {st, w->fault_since, pc};
      c->base.hooks->abort_cta(&c->base, cta_of(c, w), &r, t);
      return;
    }
    if (st != SIMTVP_OK) {
      simt_base_fault_cta(&c->base, cta_of(c, w), w->fw, st, &dg, t);
      return;
    }
    count_issue(c, k, slot, pc, rec.active, t);
    w->t = rec.warp_done ? t + 1 : after_issue(c, w, pc, rec.next_pc, t);
    w->pc = rec.next_pc;
    switch (rec.kind) {
    case FUNC_STEP_MEM:
      if (p->unit == SIMT_UNIT_MEM) {
        simt_base_count_mem_insn(&c->base, &rec);
        uint64_t done = iv_mem_issue(c, slot, &rec, p->flags & IV_UNIFORM, t + p->to_unit);
        for (uint32_t i = 0; i < p->n_dst; i++) w->rr[dst[i]] = done;
        if (done > w->last_done) w->last_done = done;
      }
      break;
    case FUNC_STEP_BARRIER:
      if (rec.barrier_wait) {
        w->wait = SIMT_WAIT_BARRIER;
        w->bar_id = rec.barrier_id;
        w->bar_pc = rec.pc;
      }
      cta_of(c, w)->check_bars = true;
      break;
    case FUNC_STEP_FENCE:
      /* -gpgpu_fence_latency: the next issue no sooner than the scope's latency; .gpu and .sys
       * fences (and the waits without a scope) also wait for the warp's results and acks */
      if (p->fence < GPU_FENCE_N) w->fence_hold = t + c->base.cfg.fence_latency[p->fence];
      if (p->fence >= GPU_FENCE_GPU) w->t = iv_max(w->t, w->last_done);
      break;
    default: {
      /* other step records (ALU work with a record): timed like register-only work */
      uint64_t e = t + p->to_unit;
      if (p->unit < SIMT_UNIT_MEM) {
        for (uint32_t i = 0; i < p->n_dst; i++) w->rr[dst[i]] = e + p->ready;
        if (e + p->lat > w->last_done) w->last_done = e + p->lat;
      }
      break;
    }
    }
    if (w->fence_hold > w->t) w->t = w->fence_hold;
    simt_cta *cta = cta_of(c, w);
    if (rec.warp_done) { /* every thread exited: may complete a barrier the others wait at */
      retire(c, slot, t);
      cta->check_bars = true;
    }
    if (cta->check_bars) settle_barriers(c, cta, t);
    if (!runnable(w)) return;
  }
}

static void run_warp(iv_core *c, uint32_t slot, uint64_t limit) {
  iv_counts k = {simt_base_issue_batchable(&c->base, slot), 0, 0};
  run_warp_body(c, slot, limit, &k);
  if (k.n) simt_base_count_issues(&c->base, k.active, k.n);
}

/* ---- time --------------------------------------------------------------------------------------- */

static uint64_t compute_next(const iv_core *c) {
  uint64_t t = simt_heap_top(&c->finish);
  uint64_t run = IV_NEVER;
  for (uint32_t i = 0; i < c->base.cfg.max_warps; i++) {
    const iv_warp *w = &c->warps[i];
    if (runnable(w) && w->t < run) run = w->t;
  }
  if (run != IV_NEVER) t = iv_min(t, run > IV_HORIZON / 2 ? run - IV_HORIZON / 2 : 0);
  return t;
}

/* Runs every warp up to now + IV_HORIZON, and finishes the warps (and CTAs) due by now. */
static void run_until(iv_core *c, uint64_t now) {
  uint64_t limit = now + IV_HORIZON;
  bool again = c->n_live_warps != 0;
  while (again) { /* a barrier released late in the pass lets earlier warps go on */
    again = false;
    for (uint32_t i = 0; i < c->base.cfg.max_warps; i++) {
      iv_warp *w = &c->warps[i];
      if (!runnable(w) || w->t > limit) continue;
      run_warp(c, i, limit);
      again = true;
    }
  }
  while (simt_heap_top(&c->finish) <= now) {
    uint64_t at = simt_heap_top(&c->finish);
    uint32_t slot = simt_heap_pop(&c->finish);
    if (c->warps[slot].live) finish_warp(c, slot, at);
  }
  if (c->base.done_until <= now) c->base.done_until = now + 1;
}

/* ---- hooks of the shared code (simt_core_base.h) ------------------------------------------------ */

static void warp_view(const simt_core_base *b, uint32_t slot, simt_warp_view *v) {
  const iv_warp *w = &((const iv_core *)b)->warps[slot];
  *v = (simt_warp_view){w->live, w->exited, w->wait, w->bar_id, w->bar_pc, w->fw};
}

static void warp_line(const simt_core_base *b, uint32_t slot, char *buf, size_t n) {
  const iv_core *c = (const iv_core *)b;
  const iv_warp *w = &c->warps[slot];
  const ptx_module *m = simt_program_module(w->prog);
  const char *state = !w->live ? "finished" : w->exited ? "exited" : w->wait == SIMT_WAIT_BARRIER ? "barrier"
                      : w->wait == SIMT_WAIT_FAULT ? "page fault" : "ready";
  simt_warp_view v;
  warp_view(b, slot, &v);
  int k = simt_warp_line_head(buf, n, m, w->index, slot, w->sched, state, &v, w->pc);
  if (k > 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, ", timeline at %" PRIu64 ", last result at %" PRIu64, w->t, w->last_done);
}

static void barrier_released(simt_core_base *b, uint32_t slot, uint64_t now) {
  iv_core *c = (iv_core *)b;
  iv_warp *w = &c->warps[slot];
  /* the wait from its arrival (its timeline) to the release is a barrier stall of its scheduler */
  if (now + 1 > w->t) c->sched[w->sched].gap[SIMT_R_BARRIER] += now + 1 - w->t;
  w->wait = SIMT_WAIT_NONE;
  if (now + 1 > w->t) w->t = now + 1;
}

static bool grow_rr(iv_core *c, uint32_t stride) {
  uint64_t *rr = calloc((size_t)c->base.cfg.max_warps * stride, sizeof *rr);
  if (!rr) return false;
  free(c->rr);
  c->rr = rr;
  c->rr_stride = stride;
  for (uint32_t w = 0; w < c->base.cfg.max_warps; w++) c->warps[w].rr = rr + (size_t)w * stride;
  return true;
}

static bool fit_kernel(simt_core_base *b, uint32_t cta_slot, const simt_kernel *k) {
  iv_core *c = (iv_core *)b;
  /* (registers are only grown between CTAs' lives when no warp is live: a resident warp's ready
   * times would be lost) */
  if (k->program->n_reg_ids > c->rr_stride) {
    if (c->n_live_warps) {
      uint64_t *rr = calloc((size_t)c->base.cfg.max_warps * k->program->n_reg_ids, sizeof *rr);
      if (!rr) return false;
      for (uint32_t w = 0; w < c->base.cfg.max_warps; w++)
        memcpy(rr + (size_t)w * k->program->n_reg_ids, c->rr + (size_t)w * c->rr_stride, c->rr_stride * sizeof *rr);
      free(c->rr);
      c->rr = rr;
      c->rr_stride = k->program->n_reg_ids;
      for (uint32_t w = 0; w < c->base.cfg.max_warps; w++) c->warps[w].rr = rr + (size_t)w * c->rr_stride;
    } else if (!grow_rr(c, k->program->n_reg_ids)) {
      return false;
    }
  }
  iv_cta_pcs *u = &c->cta_pcs[cta_slot];
  uint32_t n_insns = simt_program_module(k->program)->n_insns;
  if (!n_insns) n_insns = 1;
  if (u->cap < n_insns) {
    iv_pc *p = realloc(u->pcs, (size_t)n_insns * sizeof *p);
    if (p) u->pcs = p;
    uint32_t *t = p ? realloc(u->touched, (size_t)n_insns * sizeof *t) : NULL;
    if (t) u->touched = t;
    if (!p || !t) return false;
    memset(u->pcs, 0, (size_t)n_insns * sizeof *u->pcs);
    u->cap = n_insns;
    u->n_touched = 0;
  }
  for (uint32_t i = 0; i < u->n_touched; i++) memset(&u->pcs[u->touched[i]], 0, sizeof *u->pcs);
  u->n_touched = 0;
  return true;
}

/* Ends a CTA early (fault, deadlock): its warps issue nothing more; it is reported when their
 * last results are in. */
static void abort_cta(simt_core_base *b, simt_cta *cta, const gpu_cta_result *r, uint64_t now) {
  iv_core *c = (iv_core *)b;
  if (cta->aborting) return;
  cta->aborting = true;
  cta->result = *r;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    uint32_t slot = cta->warp_slot[i];
    iv_warp *w = &c->warps[slot];
    if (!simt_cta_holds(cta, i) || !w->live || w->exited) continue;
    retire(c, slot, now);
  }
}

static const simt_variant_hooks iv_hooks = {warp_view, fit_kernel, barrier_released, abort_cta, warp_line};

/* ---- ops ------------------------------------------------------------------------------------------ */

static void iv_destroy(void *state);

static simtvp_status iv_create(const simt_core_config *cfg, simt_core_ports ports, void **state, simtvp_diag *diag) {
  *state = NULL;
  iv_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  simtvp_status st = simt_base_init(&c->base, cfg, ports, &iv_hooks, diag);
  if (st != SIMTVP_OK) {
    free(c);
    return st;
  }
  c->next = IV_NEVER;
  c->fault_stall = &c->fault_stall_scratch;
  simt_base_register_ldst_stall(&c->base);
  c->smem_conflicts = simt_base_counter(&c->base, "gpgpu_n_shmem_bkconflict", "cycles",
                                        "extra shared-memory cycles caused by bank conflicts");
  st = simt_base_init_pipeline(&c->base, diag);
  if (st != SIMTVP_OK) {
    iv_destroy(c);
    return st;
  }
  uint32_t P = c->base.n_parts;
  c->warps = calloc(cfg->max_warps, sizeof *c->warps);
  c->cta_pcs = calloc(cfg->max_ctas, sizeof *c->cta_pcs);
  bool ok = c->warps && c->cta_pcs;
  for (uint32_t s = 0; s < SIMT_MAX_SCHEDULERS; s++) c->issue[s].cap = IV_BIN; /* one issue per cycle */
  c->fetch.cap = IV_BIN * (cfg->fetch_throughput ? cfg->fetch_throughput : 1u);
  for (int u = 0; ok && u < SIMT_UNIT_MEM; u++) {
    uint32_t lo[SIMT_MAX_SCHEDULERS], hi[SIMT_MAX_SCHEDULERS];
    simt_base_share(cfg->n_units[u] ? cfg->n_units[u] : 1, P, lo, hi);
    for (uint32_t part = 0; ok && part < P; part++) {
      uint32_t n = hi[part] > lo[part] ? hi[part] - lo[part] : 1;
      c->unit[part][u] = calloc(1, sizeof(iv_bins));
      ok = c->unit[part][u] != NULL;
      if (ok) c->unit[part][u]->cap = IV_BIN * n;
    }
  }
  if (!ok) {
    iv_destroy(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  }
  st = simt_base_attach(&c->base, NULL, diag); /* the memory path is this variant's own */
  if (st == SIMTVP_OK) st = iv_mem_init(c, diag);
  if (st != SIMTVP_OK) {
    iv_destroy(c);
    return st;
  }
  *state = c;
  return SIMTVP_OK;
}

static void iv_destroy(void *state) {
  iv_core *c = state;
  if (!c) return;
  iv_mem_free(c);
  simt_base_destroy(&c->base);
  free(c->warps);
  for (uint32_t i = 0; c->cta_pcs && i < c->base.cfg.max_ctas; i++) {
    free(c->cta_pcs[i].pcs);
    free(c->cta_pcs[i].touched);
  }
  free(c->cta_pcs);
  for (uint32_t part = 0; part < SIMT_MAX_SCHEDULERS; part++)
    for (int u = 0; u < SIMT_UNIT_MEM; u++) free(c->unit[part][u]);
  free(c->rr);
  free(c->finish.v);
  free(c);
}

static void end_call(iv_core *c, uint64_t now) {
  simt_base_flush_reports(&c->base, now);
  c->next = compute_next(c);
}

static simtvp_status iv_launch_cta(void *state, const simt_kernel *k, const uint32_t id[3], uint64_t now,
                                   simtvp_diag *diag) {
  iv_core *c = state;
  uint32_t ci, nw, slots[SIMT_MAX_CTA_WARPS];
  simtvp_status st = simt_base_start_cta(&c->base, k, id, &ci, slots, &nw, diag);
  if (st != SIMTVP_OK) return st;
  if (c->base.n_ctas == 1) {
    c->busy_from = iv_max(c->busy_from, now);
    for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) c->sched[s].from = iv_max(c->sched[s].from, now);
  }
  simt_cta *cta = &c->base.ctas[ci];
  for (uint32_t i = 0; i < nw; i++) {
    uint32_t slot = slots[i];
    iv_warp *w = &c->warps[slot];
    uint64_t *rr = w->rr;
    memset(w, 0, sizeof *w);
    w->rr = rr;
    memset(rr, 0, c->rr_stride * sizeof *rr);
    w->live = true;
    w->fw = func_cta_warp(cta->fc, i);
    w->prog = k->program;
    w->pcs = c->cta_pcs[ci].pcs;
    w->cta = ci;
    w->index = i;
    w->sched = slot % c->base.cfg.n_schedulers;
    w->part = c->base.cfg.sub_core ? w->sched : 0;
    /* the first fetch (the core's fetch port) and decode */
    w->ib_n = 2;
    w->t = iv_bins_take(&c->fetch, now, 1) + 2;
    c->n_live_warps++;
    /* each running kernel's parameters get their own 64 KiB of the parameter window */
    c->param_of[slot] = FUNC_WINDOW_PARAM + (uint64_t)k->slot * 0x10000u;
    func_peek pk;
    if (!func_warp_peek(w->fw, &pk)) { /* nothing to run */
      retire(c, slot, now);
      continue;
    }
    w->pc = pk.pc;
  }
  end_call(c, now);
  return SIMTVP_OK;
}

static bool iv_mem_reply_op(void *state, mem_req *reply, uint64_t now) {
  (void)state, (void)now;
  mem_req_free(reply); /* the core sends nothing through the memory ports: never asked for */
  return true;
}

/* MMU_REPLAY: the warps waiting on replayable faults go on from the next cycle (cancel: their
 * CTAs end with a fault). */
static void iv_replay(void *state, bool cancel, uint64_t now) {
  iv_core *c = state;
  for (uint32_t slot = 0; slot < c->base.cfg.max_warps; slot++) {
    iv_warp *w = &c->warps[slot];
    if (!w->live || w->wait != SIMT_WAIT_FAULT) continue;
    *c->fault_stall += now > w->fault_since ? now - w->fault_since : 0;
    w->wait = SIMT_WAIT_NONE;
    func_warp_retry(w->fw);
    if (cancel) {
      simt_base_cancel_replay(&c->base, cta_of(c, w), now);
      continue;
    }
    if (now + 1 > w->t) w->t = now + 1;
  }
  end_call(c, now);
}

static void iv_advance(void *state, uint64_t now) {
  iv_core *c = state;
  run_until(c, now);
  end_call(c, now);
}

static uint64_t iv_next_event(const void *state) {
  const iv_core *c = state;
  return c->next == IV_NEVER ? IV_NEVER : iv_max(c->next, c->base.done_until);
}

static bool iv_idle(const void *state) {
  const iv_core *c = state;
  return !c->base.n_ctas && simt_base_memory_idle(&c->base);
}

static uint32_t iv_resident(const void *state) { return ((const iv_core *)state)->base.n_ctas; }

static uint32_t iv_flush(void *state, uint64_t now) { return iv_mem_flush((iv_core *)state, now); }

static void iv_dump(const void *state, void (*line)(void *ctx, const char *text), void *ctx) {
  const iv_core *c = state;
  char buf[256];
  snprintf(buf, sizeof buf, "SIMT core %u (interval) at cycle %" PRIu64 ": %u CTAs, %u warps", c->base.cfg.sm,
           c->base.done_until ? c->base.done_until - 1 : 0, c->base.n_ctas, c->n_live_warps);
  simt_base_dump(&c->base, buf, line, ctx);
}

const simt_core_ops simt_interval_ops = {"interval",  iv_create,     iv_destroy, iv_launch_cta, iv_mem_reply_op,
                                         iv_advance,  iv_next_event, iv_idle,    iv_resident,   iv_flush,
                                         iv_dump,     NULL,          iv_replay};
