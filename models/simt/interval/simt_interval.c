/* simt_interval — the interval SIMT core ("interval" variant of simt.h; docs/simt-interval.md):
 * CTAs and warps, the per-warp timelines, throughput bins, barriers, fences, exit, faults, time
 * and statistics. The memory stage is simt_interval_mem.c.
 *
 * advance(now) runs every resident warp whose timeline t is at most now + horizon: the warp
 * executes its next instruction in models/func and the instruction issues at
 *   t_i = max(t_{i-1} + 1, ready time of every register it reads or writes,
 *             the first cycle its scheduler's issue bin and its unit's bin have room),
 * its results ready at t_i + to_unit + L (ALU; L less 4 with -gpgpu_alu_forwarding), or when the
 * memory stage says (iv_mem_issue, entered at t_i + to_unit). The warp's interval ends when its
 * timeline passes the horizon, at a barrier, at exit, or on a replayable fault. A barrier
 * releases its warps at the cycle after the last arrival in time; a .gpu/.sys fence waits for the
 * warp's results and acknowledgements; an exited warp is finished at its last result, and a CTA
 * is reported done when the core is advanced to its last warp's finish. next_event is the
 * earliest of those finishes and the cycle the earliest running warp is half a horizon ahead
 * (-interval_horizon, docs/simt-interval.md §1). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_interval_internal.h"
#include "simtvp_zalloc.h"

static simt_cta *cta_of(iv_core *c, const iv_warp *w) { return &c->base.ctas[w->cta]; }

/* A warp that may issue (not waiting, not exited). */
static inline bool runnable(const iv_warp *w) { return w->live && !w->exited && !w->wait && !w->folded; }

/* The runnable bit of warp slot `slot` (c->runnable) after its state changed. */
static inline void mark(iv_core *c, uint32_t slot) {
  uint64_t bit = 1ull << (slot & 63u);
  if (runnable(&c->warps[slot])) c->runnable[slot >> 6] |= bit;
  else c->runnable[slot >> 6] &= ~bit;
}

/* The first runnable warp slot ≥ from, or max_warps. */
static inline uint32_t next_runnable(const iv_core *c, uint32_t from) {
  uint32_t n = c->base.cfg.max_warps, i = from >> 6;
  if (from >= n) return n;
  uint64_t m = c->runnable[i] & (~0ull << (from & 63u));
  for (;;) {
    if (m) return i * 64u + (uint32_t)__builtin_ctzll(m);
    if (++i * 64u >= n) return n;
    m = c->runnable[i];
  }
}

/* ---- per-pc facts ------------------------------------------------------------------------------ */

static iv_pc *pc_info(iv_core *c, iv_warp *w) {
  iv_pc *p = &w->pcs[w->pc];
  if (p->flags & IV_KNOWN) return p;
  func_peek pk;
  if (!func_warp_peek(w->fw, &pk)) return NULL;
  iv_launch_pcs *u = w->lp;
  if (!p->flags) u->touched[u->n_touched++] = w->pc; /* (IV_FF_KNOWN alone: listed already) */
  const simt_insn_info *info = &w->prog->info[pk.pc];
  bool plain = pk.kind == FUNC_STEP_ALU || pk.kind == FUNC_STEP_SFU || pk.kind == FUNC_STEP_BRANCH ||
               pk.kind == FUNC_STEP_NOP;
  p->unit = pk.kind == FUNC_STEP_MEM ? (uint8_t)SIMT_UNIT_MEM
            : (pk.kind == FUNC_STEP_BARRIER || pk.kind == FUNC_STEP_FENCE) ? (uint8_t)IV_NO_UNIT
                                                                            : c->base.eff_unit[info->unit];
  p->flags = (uint8_t)((p->flags & IV_FF_KNOWN) | IV_KNOWN | (plain && p->unit < SIMT_UNIT_MEM ? IV_PLAIN : 0));
  const ptx_module *m = simt_program_module(w->prog);
  if (plain && pk.pc < m->n_insns) { /* a clock read issues in record_step, which gives it the warp's time */
    const ptx_insn *pi = &m->insns[pk.pc];
    for (uint32_t i = 0; i < pi->nops; i++)
      if (pi->ops[i].kind == PTX_OPND_SREG && pi->ops[i].index >= PTX_SREG_CLOCK &&
          pi->ops[i].index <= PTX_SREG_GLOBALTIMER_HI)
        p->flags &= (uint8_t)~IV_PLAIN;
  }
  if (pk.kind == FUNC_STEP_MEM && pk.pc < m->n_insns) {
    const ptx_insn *pi = &m->insns[pk.pc];
    if (pi->space != PTX_SPACE_SHARED && pi->space != PTX_SPACE_SHARED_CLUSTER) p->flags |= IV_FF_MEM;
    for (uint32_t i = 0; i < pi->nops; i++)
      if (pi->ops[i].kind == PTX_OPND_ADDR) {
        if (pi->ops[i].index == PTX_NONE) p->flags |= IV_UNIFORM;
        break;
      }
  }
  p->to_unit = (uint8_t)(IV_ISSUE_TO_UNIT - (info->n_src_rf == 0));
  p->n_deps = (uint8_t)(info->n_src + info->n_dst);
  p->n_src = info->n_src;
  p->fence = info->fence;
  p->mi_space = IV_NO_SPACE;
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

/* ---- warps ------------------------------------------------------------------------------------ */

static void finish_warp(iv_core *c, uint32_t slot, uint64_t now) {
  iv_warp *w = &c->warps[slot];
  w->live = false;
  mark(c, slot);
  c->n_live_warps--;
  simt_base_finish_warp(&c->base, cta_of(c, w), w->index);
  if (!c->base.n_ctas) { /* the core empties: its schedulers' stalls are counted */
    simt_base_count_busy(&c->base, &c->busy_from, now);
    for (uint32_t i = 0; i < c->base.cfg.n_schedulers; i++) {
      iv_sched *s = &c->sched[i];
      simt_base_count_stalls(&c->base, &s->from, &s->issued, s->gap, now);
    }
  }
}

/* The warp exited (or its CTA ended): finished at its last result. */
static void retire(iv_core *c, uint32_t slot, uint64_t t) {
  iv_warp *w = &c->warps[slot];
  w->exited = true;
  w->wait = SIMT_WAIT_NONE;
  mark(c, slot);
  simt_heap_push(&c->finish, iv_max(w->last_done, t), slot);
}

/* Barriers of the CTA that completed release their warps the cycle after the last arrival in
 * time: t (the instruction just issued) or a waiting warp's arrival (its timeline − 1). An arrival
 * that completed no barrier (may_complete false) while a warp of the CTA still runs, or any event
 * while no warp waits, releases nothing and cannot be a deadlock: simt_base_settle_barriers is
 * not asked (its answer would be the same: func releases only completed barriers, and a deadlock
 * needs every warp waiting). */
static void settle_barriers(iv_core *c, simt_cta *cta, uint64_t t, bool may_complete) {
  /* a warp that waits here waits in models/func too (its step said barrier_wait; func releases
   * only through simt_base_settle_barriers, which releases the warp here as well): when no warp
   * waits there, none waits here (the usual exit of a warp of a kernel without barriers) */
  if (!cta->fc || !func_cta_barrier_waits(cta->fc)) {
    cta->check_bars = false;
    return;
  }
  uint32_t waiting = 0;
  /* the CTA's warps not finished (a finished warp's slot may be another CTA's), by their bits */
  uint32_t held = ~cta->finished & (cta->n_warps >= 32 ? ~0u : (1u << cta->n_warps) - 1u);
  while (held) {
    uint32_t i = (uint32_t)__builtin_ctz(held);
    held &= held - 1;
    const iv_warp *x = &c->warps[cta->warp_slot[i]];
    if (!x->live || x->exited) continue;
    if (x->wait != SIMT_WAIT_BARRIER) {
      if (!may_complete) { /* a warp runs: this arrival completed nothing, whatever waits */
        cta->check_bars = false;
        return;
      }
    } else {
      waiting++;
      if (x->t - 1 > t) t = x->t - 1;
    }
  }
  if (!waiting) {
    cta->check_bars = false;
    return;
  }
  simt_base_settle_barriers(&c->base, cta, t);
  if (c->fold) c->fold_pending |= 1ull << (cta - c->base.ctas); /* (released warps may form a group: §13) */
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

/* What a warp's run counts, kept here and added to the core's counters when the run ends: its
 * instructions while their active lanes stay the same, and its scheduler's issues and waits
 * (iv_sched: read only when the core empties, after every run). */
typedef struct iv_counts {
  simt_issue_batch b;
  uint64_t issued, scoreboard, pipe, ibuffer;
} iv_counts;

static inline __attribute__((always_inline)) void count_issue(iv_core *c, iv_counts *k, uint32_t slot, uint32_t pc,
                                                             uint32_t active, uint64_t t) {
  simt_batch_issue(&c->base, &k->b, slot, pc, active, t);
}

/* issue_at when the usual case fails: the first cycle from t0 on at which the issue bin and the
 * unit's bin (to_unit later) both have room. */
static __attribute__((noinline)) uint64_t issue_search(iv_bins *is, iv_bins *u, const iv_pc *p, uint64_t t0) {
  uint32_t *ui = iv_bins_slot(is, t0), *uu = iv_bins_slot(u, t0 + p->to_unit);
  if (ui && uu && *ui + 1 <= is->cap && *uu + p->ii <= u->cap) { /* (a recycled bin has room) */
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

/* The cycle the instruction issues from t0 on: its scheduler's issue bin, then its unit's (the
 * first cycle both have room, to_unit apart). The usual case — both bins are the ring's current
 * ones and have room — is one test. */
static inline uint64_t issue_at(const iv_warp *w, const iv_pc *p, uint64_t t0) {
  iv_bins *is = w->issue;
  if (p->unit >= SIMT_UNIT_MEM) return iv_bins_take(is, t0, 1);
  iv_bins *u = w->units[p->unit];
  uint64_t bi = t0 / IV_BIN, bu = (t0 + p->to_unit) / IV_BIN;
  uint32_t si = (uint32_t)(bi % IV_RING), su = (uint32_t)(bu % IV_RING);
  if (is->id[si] != bi || u->id[su] != bu) { /* a slot of an older bin is recycled (iv_bins_slot) */
    if (is->id[si] > bi || u->id[su] > bu) return issue_search(is, u, p, t0);
    if (is->id[si] != bi) is->id[si] = bi, is->used[si] = 0;
    if (u->id[su] != bu) u->id[su] = bu, u->used[su] = 0;
  }
  if (is->used[si] < is->cap && u->used[su] + p->ii <= u->cap) {
    is->used[si]++;
    u->used[su] += p->ii;
    return t0;
  }
  return issue_search(is, u, p, t0);
}

/* The warp issued pc at t and goes on at next_pc: the I-buffer holds two instructions per fetch,
 * a control hazard (next_pc ≠ pc + 1) empties it, and an empty one fetches in the same cycle on
 * the core's fetch port (-gpgpu_inst_fetch_throughput per cycle), decoded the cycle after: the
 * next instruction issues from the fetch + 2 (docs/simt-interval.md §2). The cycle the warp may
 * issue next. */
static inline uint64_t after_issue(iv_core *c, uint32_t *ib, iv_counts *k, uint32_t pc, uint32_t next_pc,
                                   uint64_t t) {
  if (next_pc == pc + 1 && *ib > 1) {
    --*ib;
    return t + 1;
  }
  *ib = 2;
  uint64_t next = iv_bins_take(&c->fetch, t, 1) + 2;
  k->ibuffer += next - t - 1; /* the front end's wait */
  return next;
}

/* The latest of t and the ready times of the n registers regs[] (unrolled: most instructions
 * name a few). */
static inline uint64_t deps_ready(const uint64_t *rr, const uint32_t *regs, uint32_t n, uint64_t t) {
  uint64_t x;
  switch (n) {
  default:
    for (uint32_t i = 6; i < n; i++) x = rr[regs[i]], t = x > t ? x : t;
    /* fall through */
  case 6: x = rr[regs[5]], t = x > t ? x : t; /* fall through */
  case 5: x = rr[regs[4]], t = x > t ? x : t; /* fall through */
  case 4: x = rr[regs[3]], t = x > t ? x : t; /* fall through */
  case 3: x = rr[regs[2]], t = x > t ? x : t; /* fall through */
  case 2: x = rr[regs[1]], t = x > t ? x : t; /* fall through */
  case 1: x = rr[regs[0]], t = x > t ? x : t; /* fall through */
  case 0: break;
  }
  return t;
}

/* The n registers dst[] are ready at `ready`. */
static inline void set_ready(uint64_t *rr, const uint32_t *dst, uint32_t n, uint64_t ready) {
  if (n == 1) {
    rr[dst[0]] = ready;
    return;
  }
  for (uint32_t i = 0; i < n; i++) rr[dst[i]] = ready;
}

/* The warp's next instruction is in another L1I line than its last: a line it fetched before is
 * there (no lookup, §6); a new one is looked up (a miss waits). The cycle it may issue from. */
static __attribute__((noinline)) uint64_t enter_line(iv_core *c, iv_warp *w, const iv_pc *p, uint64_t t, iv_counts *k) {
  if (!c->base.l1i) { /* a perfect L1I: nothing to look up */
    w->line = p->l1i_line;
    return t;
  }
  uint64_t bit = p->l1i_bit < 64 ? 1ull << p->l1i_bit : 0;
  if (w->l1i_seen & bit) { /* a line the warp fetched before: there, no lookup (§6) */
    w->line = p->l1i_line;
    return t;
  }
  uint64_t f = iv_mem_fetch(c, w, p, t > 2 ? t - 2 : 0) + 2;
  if (f > t) k->ibuffer += f - t, t = f;
  if (w->line) w->l1i_seen |= bit; /* (no L1I: iv_mem_fetch leaves 0, every fetch looks up) */
  return t;
}

/* gpgpu_n_*_insn of a memory instruction (simt_base_count_mem_insn): the class its pc had the
 * last time when its space is the same (an instruction's opcode, hence texture or store, is its
 * pc's; only the space of a generic access varies). */
static inline void count_mem_insn(iv_core *c, iv_pc *p, const func_step *rec) {
  if (rec->space == p->mi_space) {
    uint32_t m = rec->mem_mask;
    *c->base.mem_insn[p->mi] += m == ~0u ? 32u : (uint64_t)simtvp_popcount32(m); /* (most: every lane) */
    return;
  }
  int mi = simt_base_mem_insn_class(rec);
  if (mi < 0) {
    simt_base_count_mem_insn(&c->base, rec);
    return;
  }
  p->mi_space = rec->space;
  p->mi = (uint8_t)mi;
  *c->base.mem_insn[mi] += (uint64_t)simtvp_popcount32(rec->mem_mask);
}

/* A warp instruction with a step record (memory, barrier, fence, exit, calls), executed at pc
 * (func_warp_step answered st, the record and diag), timed: it issues at t. w->t, w->pc, w->ib_n
 * and w->last_done are the warp's. false: the warp stops running (it waits, exited or faulted). */
static __attribute__((noinline)) bool step_done(iv_core *c, uint32_t slot, iv_warp *w, iv_pc *p, iv_counts *k,
                                                uint64_t t, uint32_t pc, simtvp_status st, const func_step *rec,
                                                simtvp_diag *dg) {
  /* (a step that waits on a replayable fault did nothing: its record says FUNC_STEP_NOP) */
  if (st == SIMTVP_OK && rec->kind == FUNC_STEP_NOP && func_warp_get_state(w->fw) == FUNC_WARP_FAULT_WAIT) {
    /* a replayable fault (unified memory): nothing issued; the warp waits for the replay */
    k->issued--;
    w->t = t;
    if (fault_wait(c, w, t)) return false;
    st = SIMTVP_ERR_FAULT;
    simtvp_diag_set(dg, st, "kernel %s: global access at 0x%" PRIx64 " faults replayably (the page is not "
                    "resident) but the GPU has no fault buffer", cta_of(c, w)->k->name, w->fault_since);
    simtvp_diag_at_address(dg, w->fault_since);
    simt_report_fault(&c->base.ports, c->base.cfg.sm, cta_of(c, w)->k->slot, st, dg, dg->message, t);
    gpu_cta_result r = {st, w->fault_since, pc};
    c->base.hooks->abort_cta(&c->base, cta_of(c, w), &r, t);
    return false;
  }
  if (st != SIMTVP_OK) {
    simt_base_fault_cta(&c->base, cta_of(c, w), w->fw, st, dg, t);
    return false;
  }
  count_issue(c, k, slot, pc, rec->active, t);
  if (rec->warp_done) {
    w->t = t + 1;
  } else {
    uint32_t ib = w->ib_n;
    w->t = after_issue(c, &ib, k, pc, rec->next_pc, t);
    w->ib_n = (uint8_t)ib;
  }
  w->pc = rec->next_pc;
  const uint32_t *dst = p->regs + p->n_src;
  uint32_t n_dst = (uint32_t)p->n_deps - p->n_src;
  switch (rec->kind) {
  case FUNC_STEP_MEM:
    if (p->unit == SIMT_UNIT_MEM) {
      count_mem_insn(c, p, rec);
      uint64_t done;
      if (!iv_mem_shared_fast(c, w->prog, rec, t + p->to_unit, &done))
        done = iv_mem_issue(c, slot, rec, p->flags & IV_UNIFORM, t + p->to_unit);
      set_ready(w->rr, dst, n_dst, done);
      if (done > w->last_done) w->last_done = done;
      if (c->sample.period) p->s_lat += done - t, p->s_ln++, p->s_mlat = (uint32_t)(p->s_lat / p->s_ln); /* (§10) */
    }
    if (!rec->warp_done && !cta_of(c, w)->check_bars) { /* the usual end of a memory instruction */
      if (w->fence_hold > w->t) w->t = w->fence_hold;
      return !w->exited && !w->wait;
    }
    break;
  case FUNC_STEP_BARRIER:
    if (rec->barrier_wait) {
      w->wait = SIMT_WAIT_BARRIER;
      w->bar_id = rec->barrier_id;
      w->bar_pc = rec->pc;
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
      set_ready(w->rr, dst, n_dst, e + p->ready);
      if (e + p->lat > w->last_done) w->last_done = e + p->lat;
    }
    break;
  }
  }
  if (w->fence_hold > w->t) w->t = w->fence_hold;
  simt_cta *cta = cta_of(c, w);
  if (rec->warp_done) { /* every thread exited: may complete a barrier the others wait at */
    retire(c, slot, t);
    cta->check_bars = true;
  }
  if (cta->check_bars)
    settle_barriers(c, cta, t, rec->warp_done || rec->kind != FUNC_STEP_BARRIER || rec->barrier_complete);
  return !w->exited && !w->wait; /* (live: it is running) */
}

/* An instruction with a step record other than a memory one's: executed, then step_done. */
/* The warp, at its timeline t, is t − now cycles ahead of the GPU's time, which the clock ports
 * answer: a %clock* or %globaltimer* read the step makes reads the warp's own time. */
static inline void time_ahead(const iv_core *c, iv_warp *w, uint64_t t) {
  int64_t d = (int64_t)t - (int64_t)c->now;
  int64_t khz = c->base.cfg.core_khz ? (int64_t)c->base.cfg.core_khz : 1000000;
  func_warp_set_time_ahead(w->fw, d, d * 1000000 / khz);
}

static __attribute__((noinline)) bool record_step(iv_core *c, uint32_t slot, iv_warp *w, iv_pc *p, iv_counts *k,
                                                  uint64_t t) {
  func_step rec;
  simtvp_diag dg;
  uint32_t pc = w->pc;
  time_ahead(c, w, t); /* (clock reads are never plain: they come here) */
  simtvp_status st = func_warp_step(w->fw, &rec, &dg);
  return step_done(c, slot, w, p, k, t, pc, st, &rec, &dg);
}

/* -interval_runs (§11): a shared access at pc remembers the pipeline cycles the memory stage
 * found for it (its memo entry's). */
static void run_learn_smem(iv_core *c, const iv_warp *w, iv_pc *p, uint32_t pc) {
  const iv_smem_memo *e = &c->smem_memo[pc % IV_SMEM_MEMO];
  if (e->pc != pc || e->prog != w->prog) return;
  uint32_t cyc = e->cost.cycles ? e->cost.cycles : 1u;
  p->sm_cyc = (uint16_t)(cyc > UINT16_MAX ? UINT16_MAX : cyc);
  p->sm_extra = (uint16_t)(cyc - e->cost.phases > UINT16_MAX ? UINT16_MAX : cyc - e->cost.phases);
}

/* A memory instruction (its pc's unit is the memory stage) issuing at t: step_done's usual case
 * as a straight path — a memory step that leaves the warp running, with no barrier of its CTA to
 * settle; anything else (a fault, a replayable wait, the warp's end, a barrier to settle) goes on
 * in step_done. */
static __attribute__((noinline)) bool mem_step(iv_core *c, uint32_t slot, iv_warp *w, iv_pc *p, iv_counts *k,
                                               uint64_t t) {
  func_step rec;
  simtvp_diag dg;
  uint32_t pc = w->pc;
  simtvp_status st = func_warp_step_lean(w->fw, &rec, &dg); /* (func_step_fill_addr before a lane read) */
  if (__builtin_expect(st != SIMTVP_OK || rec.kind != FUNC_STEP_MEM || rec.warp_done || cta_of(c, w)->check_bars, 0)) {
    func_step_fill_addr(&rec);
    return step_done(c, slot, w, p, k, t, pc, st, &rec, &dg);
  }
  count_issue(c, k, slot, pc, rec.active, t);
  uint32_t ib = w->ib_n;
  uint64_t next = after_issue(c, &ib, k, pc, rec.next_pc, t);
  w->ib_n = (uint8_t)ib;
  w->pc = rec.next_pc;
  count_mem_insn(c, p, &rec);
  uint64_t done;
  if (!iv_mem_shared_fast(c, w->prog, &rec, t + p->to_unit, &done)) {
    func_step_fill_addr(&rec);
    done = iv_mem_issue(c, slot, &rec, p->flags & IV_UNIFORM, t + p->to_unit);
  }
  if (c->runs && rec.space == PTX_SPACE_SHARED) run_learn_smem(c, w, p, rec.pc);
  set_ready(w->rr, p->regs + p->n_src, (uint32_t)p->n_deps - p->n_src, done);
  if (done > w->last_done) w->last_done = done;
  if (c->sample.period) p->s_lat += done - t, p->s_ln++, p->s_mlat = (uint32_t)(p->s_lat / p->s_ln); /* (§10) */
  w->t = iv_max(next, w->fence_hold);
  return true; /* (a memory step changes neither its waiting nor its exit) */
}

/* The cost of warp w's last detailed instruction (from its issue to the next, at t) joins its pc's
 * measurement, and is counted for its launch's. */
static inline void measure(iv_warp *w, uint64_t t) {
  iv_pc *p = w->last_p;
  p->s_cyc += t - w->last_issue;
  p->s_n++;
  p->s_q = (uint32_t)iv_max(IV_FF_ONE, p->s_cyc * IV_FF_ONE / p->s_n);
  w->lp->s_n++;
}

/* ---- runs (-interval_runs, docs/simt-interval.md §11) ------------------------------------------ */

/* Whether the instruction at pc may be in a run: known, of pc's block, register-only but not a
 * control transfer or a clock read (their timing is the warp's own), or a shared-memory load or
 * store whose bank-conflict cost a detailed issue found. */
static bool run_member(const iv_warp *w, const ptx_module *m, uint32_t pc, uint32_t block) {
  if (pc >= m->n_insns) return false;
  const iv_pc *p = &w->pcs[pc];
  const ptx_insn *pi = &m->insns[pc];
  if (!(p->flags & IV_KNOWN) || pi->block != block) return false;
  if (pi->opcode == PTX_OP_BRA || pi->opcode == PTX_OP_BRX || pi->opcode == PTX_OP_CALL ||
      pi->opcode == PTX_OP_RET || pi->opcode == PTX_OP_EXIT)
    return false;
  if (p->flags & IV_PLAIN) return true; /* (a clock read is never plain: pc_info) */
  return p->unit == SIMT_UNIT_MEM && !(p->flags & IV_FF_MEM) && p->sm_cyc &&
         (pi->opcode == PTX_OP_LD || pi->opcode == PTX_OP_ST) && pi->space == PTX_SPACE_SHARED &&
         p->mi_space == PTX_SPACE_SHARED;
}

/* Builds the run that starts at warp w's pc (§11): true with p0->run set, or p0 marked IV_RUN_NO;
 * false when an instruction of its block after it is not known yet (a later warp tries again). */
static __attribute__((noinline)) bool run_build(iv_core *c, iv_warp *w, iv_pc *p0) {
  const ptx_module *m = simt_program_module(w->prog);
  uint32_t pc0 = w->pc, n = 0;
  if (pc0 >= m->n_insns) {
    p0->flags |= IV_RUN_NO;
    return true;
  }
  uint32_t block = m->insns[pc0].block;
  while (n < IV_RUN_MAX && run_member(w, m, pc0 + n, block)) n++;
  if (n < IV_RUN_MAX && pc0 + n < m->n_insns && m->insns[pc0 + n].block == block &&
      !(w->pcs[pc0 + n].flags & IV_KNOWN)) {
    p0->run_wait = (uint16_t)n; /* (not issued yet: the run may grow; tried again once it is) */
    return false;
  }
  if (n < IV_RUN_MIN) {
    p0->flags |= IV_RUN_NO;
    return true;
  }
  /* scratch per register id (only the run's are reset): last writer / ready offset, + 1 */
  uint32_t R = w->prog->n_reg_ids;
  if (R > c->run_scratch_n) {
    uint32_t *a = realloc(c->run_ready, (size_t)R * sizeof *a);
    if (a) c->run_ready = a;
    uint32_t *b = a ? realloc(c->run_seen, (size_t)R * sizeof *b) : NULL;
    if (b) c->run_seen = b;
    if (!a || !b) {
      p0->flags |= IV_RUN_NO; /* (out of host memory: timed in detail) */
      return true;
    }
    c->run_scratch_n = R;
  }
  uint32_t *last = c->run_ready, *seen = c->run_seen, regs = 0;
  for (uint32_t i = 0; i < n; i++) {
    const iv_pc *p = &w->pcs[pc0 + i];
    regs += p->n_deps;
    for (uint32_t j = 0; j < p->n_deps; j++) last[p->regs[j]] = 0, seen[p->regs[j]] = 0;
  }
  iv_launch_pcs *u = w->lp;
  size_t words = (sizeof(iv_run) + 2u * regs * sizeof(iv_run_reg) + n * sizeof(iv_run_smem) + 7u) / 8u;
  if ((size_t)u->runs_used + words > u->runs_cap) {
    size_t cap = u->runs_cap ? 2u * (size_t)u->runs_cap : 4096u;
    while (cap < u->runs_used + words) cap *= 2;
    uint64_t *a = cap <= UINT32_MAX ? realloc(u->runs, cap * sizeof *a) : NULL;
    if (!a) {
      p0->flags |= IV_RUN_NO;
      return true;
    }
    u->runs = a;
    u->runs_cap = (uint32_t)cap;
  }
  iv_run *r = (iv_run *)(u->runs + u->runs_used);
  memset(r, 0, sizeof *r);
  r->n = (uint16_t)n;
  /* live-ins in first-touch order (instruction index in off[0] until the schedule is known);
   * each instruction's destinations' last writer */
  iv_run_reg *in = r->regs;
  uint32_t n_in = 0;
  const uint32_t *touch_prev = w->prog->touch_prev;
  for (uint32_t i = 0; i < n; i++) {
    const iv_pc *p = &w->pcs[pc0 + i];
    const uint32_t *tp = touch_prev + (p->regs - w->prog->regs);
    for (uint32_t j = 0; j < p->n_deps; j++) {
      uint32_t g = p->regs[j];
      if (last[g] || seen[g]) continue;
      /* (off[1], until the schedule: 1 when no pc of the function outside the run touches it) */
      bool inside = tp[j] != SIMT_TOUCH_ANY && tp[j] >= pc0 && tp[j] < pc0 + n;
      seen[g] = inside ? 2u : 1u;
      in[n_in].reg = g;
      in[n_in].off[1] = inside;
      in[n_in++].off[0] = (uint16_t)i;
    }
    for (uint32_t j = p->n_src; j < p->n_deps; j++) last[p->regs[j]] = i + 1;
  }
  iv_run_reg *out = in + n_in;
  uint32_t n_out = 0;
  for (uint32_t i = 0; i < n; i++) {
    const iv_pc *p = &w->pcs[pc0 + i];
    for (uint32_t j = p->n_src; j < p->n_deps; j++) {
      uint32_t g = p->regs[j];
      if (last[g] != i + 1) continue;
      last[g] = UINT32_MAX; /* (listed) */
      out[n_out].reg = g;
      out[n_out].off[1] = seen[g] == 2u;
      out[n_out++].off[0] = (uint16_t)i;
    }
  }
  /* the schedule, for either I-buffer fill at entry */
  uint32_t issue[2][IV_RUN_MAX], ready[2][IV_RUN_MAX];
  bool ok = true;
  for (uint32_t v = 0; v < 2; v++) {
    for (uint32_t i = 0; i < n; i++) {
      const iv_pc *p = &w->pcs[pc0 + i];
      for (uint32_t j = 0; j < p->n_deps; j++) seen[p->regs[j]] = 0;
    }
    uint64_t t = 0, done = 0;
    uint32_t ib = v + 1, stall = 0, fetches = 0;
    for (uint32_t i = 0; i < n; i++) {
      const iv_pc *p = &w->pcs[pc0 + i];
      uint64_t t0 = t;
      for (uint32_t j = 0; j < p->n_deps; j++) {
        uint32_t x = seen[p->regs[j]];
        if (x && x - 1u > t0) t0 = x - 1u;
      }
      stall += (uint32_t)(t0 - t);
      uint64_t rd, res;
      if (p->unit == SIMT_UNIT_MEM) { /* a shared access (iv_mem_shared_fast, uncontended) */
        uint64_t mm = t0 + p->to_unit, end = mm + p->sm_cyc;
        res = rd = iv_max(mm + 1, w->pcs[pc0 + i].n_deps > p->n_src ? end + c->base.cfg.ldst.smem_latency : end);
      } else {
        rd = t0 + p->to_unit + p->ready;
        res = t0 + p->to_unit + p->lat;
      }
      if (res > done) done = res;
      issue[v][i] = (uint32_t)t0;
      ready[v][i] = (uint32_t)rd;
      for (uint32_t j = p->n_src; j < p->n_deps; j++) seen[p->regs[j]] = (uint32_t)rd + 1u;
      if (ib > 1) { /* after_issue, sequential */
        ib--;
        t = t0 + 1;
      } else {
        ib = 2;
        fetches++;
        t = t0 + 2;
      }
      if (t > 60000u || done > 60000u) ok = false;
    }
    r->len[v] = (uint16_t)(ok ? t : 0);
    r->stall[v] = (uint16_t)(ok ? stall : 0);
    r->fetches[v] = (uint16_t)fetches;
    r->done[v] = (uint16_t)(ok ? done : 0);
    r->ib_out[v] = (uint8_t)ib;
  }
  if (!ok) { /* (absurd latencies: timed in detail) */
    p0->flags |= IV_RUN_NO;
    return true;
  }
  /* Registers no pc of the function outside the run touches, whose last write in it is ready by
   * the run's end (either fill), are left out of the take's checks and writes: what the warp's
   * ready time for one says is never later than its timeline once a take is over (at most t +
   * len + stretch), and the run's own pcs are the only ones that read it, each at or after its
   * timeline, so whether it holds this take's time or an older one changes nothing. Written
   * ones are kept after the others (a take a debugger cut short writes them all). last[g]: 1
   * left out, 2 kept (written registers); 0 not written in the run. */
  uint32_t kept_out = 0;
  for (uint32_t k = 0; k < n_out; k++) {
    uint32_t i = out[k].off[0];
    bool drop = out[k].off[1] && ready[0][i] <= r->len[0] && ready[1][i] <= r->len[1];
    last[out[k].reg] = drop ? 1u : 2u;
    out[k].off[0] = (uint16_t)ready[0][i], out[k].off[1] = (uint16_t)ready[1][i];
    kept_out += !drop;
    if (drop) out[k].reg |= IV_RUN_REG_DROP; /* (until the partition below) */
  }
  uint32_t kept_in = 0;
  for (uint32_t k = 0; k < n_in; k++) {
    uint32_t i = in[k].off[0];
    if (in[k].off[1] && last[in[k].reg] != 2u) continue;
    in[kept_in].reg = in[k].reg;
    in[kept_in].off[0] = (uint16_t)issue[0][i], in[kept_in++].off[1] = (uint16_t)issue[1][i];
  }
  /* the live-outs after the kept live-ins, the kept ones first (the others through the scratch
   * arrays, in order) */
  out = (iv_run_reg *)memmove(in + kept_in, out, (size_t)n_out * sizeof *out);
  uint32_t a = 0, d = 0;
  for (uint32_t k = 0; k < n_out; k++) {
    if (!(out[k].reg & IV_RUN_REG_DROP)) {
      out[a++] = out[k];
      continue;
    }
    last[d] = out[k].reg & ~IV_RUN_REG_DROP;
    seen[d++] = (uint32_t)out[k].off[0] | (uint32_t)out[k].off[1] << 16;
  }
  for (uint32_t k = 0; k < d; k++, a++) {
    out[a].reg = last[k];
    out[a].off[0] = (uint16_t)seen[k], out[a].off[1] = (uint16_t)(seen[k] >> 16);
  }
  n_in = kept_in;
  /* its work: units, shared-memory pipeline, memory-stage dispatches, gpgpu_n_*_insn classes,
   * L1I lines */
  for (uint32_t i = 0; i < n; i++) {
    const iv_pc *p = &w->pcs[pc0 + i];
    if (p->l1i_bit >= 64) {
      p0->flags |= IV_RUN_NO;
      return true;
    }
    r->l1i_mask |= 1ull << p->l1i_bit;
    r->last_line = p->l1i_line;
    if (p->unit == SIMT_UNIT_MEM) {
      iv_run_smem *sm = (iv_run_smem *)(r->regs + n_in + n_out) + r->n_shared++;
      sm->at = (uint16_t)i, sm->cyc = p->sm_cyc, sm->extra = p->sm_extra;
      r->smem_cycles += p->sm_cyc;
      r->smem_extra += p->sm_extra;
      uint32_t k = 0;
      while (k < r->n_mi && r->mi[k] != p->mi) k++;
      if (k == 2) {
        p0->flags |= IV_RUN_NO;
        return true;
      }
      if (k == r->n_mi) r->mi[r->n_mi++] = p->mi;
      r->mi_n[k]++;
    } else {
      uint32_t k = 0;
      while (k < r->n_units && r->unit[k] != p->unit) k++;
      if (k == r->n_units) r->unit[r->n_units++] = p->unit;
      r->work[k] += p->ii;
    }
  }
  r->n_in = (uint16_t)n_in;
  r->n_out = (uint16_t)kept_out;
  r->n_out_all = (uint16_t)n_out;
  p0->run = u->runs_used + 1;
  u->runs_used += (uint32_t)((sizeof(iv_run) + (size_t)(n_in + n_out) * sizeof(iv_run_reg) +
                               (size_t)r->n_shared * sizeof(iv_run_smem) + 7u) / 8u);
  return true;
}

/* Warp w at the start of run r (§11): timed as one step and executed in models/func. 1: done (the
 * warp goes on), 0: not taken (nothing changed: timed in detail), −1: the warp stopped (a fault). */
static __attribute__((noinline)) int run_take(iv_core *c, uint32_t slot, iv_warp *w, iv_run *r, iv_counts *k) {
  uint32_t v = w->ib_n > 1 ? 1u : 0u, len = r->len[v];
  uint64_t s = w->t, d = 0;
  if (c->base.l1i && (w->l1i_seen & r->l1i_mask) != r->l1i_mask) /* lines not looked up yet: at its start (§6) */
    for (uint32_t i = 0; i < r->n; i++) {
      const iv_pc *p = &w->pcs[w->pc + i];
      if (!(w->l1i_seen >> p->l1i_bit & 1u)) s = enter_line(c, w, p, s, k);
    }
  if (w->last_done > s) /* (no register is ready later than its latest result) */
    for (uint32_t i = 0; i < r->n_in; i++) {
      uint64_t x = w->rr[r->regs[i].reg], at = s + r->regs[i].off[v];
      if (x > at && x - at > d) d = x - at;
    }
  uint64_t t = s + d;
  c->take_start = t;
  uint32_t active = func_warp_active(w->fw), ran = 0;
  func_run_end e;
  simtvp_diag dg;
  simtvp_status st = SIMTVP_OK;
  /* a shared access due for a check executes as a step and its bank pattern's cost is this
   * warp's; the others cost what the schedule says (their pc's cost when the run was built; §11) */
  const iv_run_smem *sm = (const iv_run_smem *)(r->regs + r->n_in + r->n_out_all);
  bool check = false;
  if (r->n_shared) {
    if (r->takes != IV_SM_VARIES && ++r->takes == IV_SM_VARIES) r->takes = IV_SM_TRUSTED + 1; /* (wraps) */
    check = r->takes == IV_SM_VARIES || r->takes <= IV_SM_TRUSTED || r->takes % IV_SM_RECHECK == 0;
  }
  int64_t dcyc = 0;
  uint64_t conflicts = r->smem_extra;
  if (!check) {
    st = func_warp_run(w->fw, r->n, &ran, &e, &dg);
  } else {
    for (uint32_t i = 0; i <= r->n_shared && st == SIMTVP_OK; i++) {
      uint32_t to = i < r->n_shared ? sm[i].at : r->n, got = 0;
      if (to > ran) {
        st = func_warp_run(w->fw, to - ran, &got, &e, &dg);
        ran += got;
        if (st != SIMTVP_OK || ran != to) break;
      }
      if (i == r->n_shared) break;
      func_step rec;
      st = func_warp_step_lean(w->fw, &rec, &dg);
      if (st != SIMTVP_OK) break;
      ran++;
      func_step_fill_addr(&rec);
      ldst_smem_cost cost = iv_mem_smem_cost(c, slot, &rec);
      uint32_t extra = cost.cycles - cost.phases;
      if (cost.cycles != sm[i].cyc || extra != sm[i].extra) r->takes = IV_SM_VARIES;
      dcyc += (int64_t)cost.cycles - sm[i].cyc;
      conflicts += extra;
      conflicts -= sm[i].extra;
    }
  }
  if (st != SIMTVP_OK) {
    simt_base_fault_cta(&c->base, cta_of(c, w), w->fw, st, &dg, t);
    return -1;
  }
  /* its work booked at its pace; full bins stretch it (every offset by its share of the delay) */
  iv_bins *const *units = w->units;
  uint64_t end = iv_bins_fill(w->issue, t, len, r->n);
  for (uint32_t i = 0; i < r->n_units; i++) end = iv_max(end, iv_bins_fill(units[r->unit[i]], t, len, r->work[i]));
  uint32_t smem = dcyc < 0 && (uint64_t)-dcyc >= r->smem_cycles ? 1u : (uint32_t)((int64_t)r->smem_cycles + dcyc);
  if (r->smem_cycles) end = iv_max(end, iv_bins_fill(&c->smem, t, len, smem));
  if (r->fetches[v]) iv_bins_fill(&c->fetch, t, len, r->fetches[v]);
  if (r->n_shared) iv_bins_fill(&c->dispatch, t, len, r->n_shared);
  /* (0: nothing waited; shared accesses dearer than the schedule's stretch it as well) */
  uint64_t S = end - (t + len) + (dcyc > 0 ? (uint64_t)dcyc : 0u);
  if (k->b.on) {
    simt_batch_add(&c->base, &k->b, active, ran);
  } else {
    for (uint32_t i = 0; i < ran; i++) simt_base_count_issue(&c->base, slot, w->pc + i, active, t + i);
  }
  k->issued += ran;
  k->scoreboard += d + r->stall[v];
  k->pipe += S;
  k->ibuffer += r->fetches[v];
  *c->run_insns += ran;
  uint64_t lanes = (uint64_t)simtvp_popcount32(active);
  for (uint32_t i = 0; i < r->n_mi; i++) *c->base.mem_insn[r->mi[i]] += lanes * r->mi_n[i];
  *c->smem_conflicts += conflicts;
  const iv_run_reg *out = r->regs + r->n_in;
  const uint32_t n_out = ran < r->n ? r->n_out_all : r->n_out; /* (cut short: its detailed rest reads them) */
  if (!S) {
    for (uint32_t i = 0; i < n_out; i++) w->rr[out[i].reg] = t + out[i].off[v];
  } else {
    for (uint32_t i = 0; i < n_out; i++) {
      uint32_t o = out[i].off[v];
      w->rr[out[i].reg] = t + o + S * (o < len ? o : len) / len;
    }
  }
  if (t + S + r->done[v] > w->last_done) w->last_done = t + S + r->done[v];
  w->t = t + len + S;
  if (ran < r->n) /* (a debugger's stop ended it early: the rest is timed in detail) */
    w->t = t + (uint64_t)(len + S) * ran / r->n;
  w->ib_n = r->ib_out[v];
  w->line = r->last_line;
  w->pc = func_warp_pc(w->fw); /* (pc + n: none of a run's instructions ends the warp or waits) */
  return 1;
}

/* ---- folded warps (-interval_fold, docs/simt-interval.md §13) ------------------------------------ */

/* A group's pace: the most of its warps on one scheduler (n_on). */
static void group_pace(const iv_core *c, iv_warp *w) {
  uint8_t pace = 1;
  for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++)
    if (w->n_on[s] > pace) pace = w->n_on[s];
  w->pace = pace;
}

/* Follower i of leader w leaves the group: it takes the leader's timing state (its timeline
 * fold_off cycles later, the registers' ready times, the I-buffer and L1I state) and its own pc,
 * and is runnable again. */
static void fold_split(iv_core *c, iv_warp *w, uint32_t i) {
  uint32_t fs = w->fol[i];
  iv_warp *f = &c->warps[fs];
  w->fol[i] = w->fol[--w->n_fol];
  w->n_on[f->sched]--;
  group_pace(c, w);
  f->folded = false;
  f->t = w->t + f->fold_off;
  f->pc = func_warp_pc(f->fw);
  f->ib_n = w->ib_n;
  f->line = w->line;
  f->l1i_seen = w->l1i_seen;
  f->last_done = iv_max(w->last_done, f->last_done);
  f->fence_hold = w->fence_hold;
  memcpy(f->rr, w->rr, c->rr_stride * sizeof *c->rr);
  f->fold_off = 0;
  mark(c, fs);
}

/* Every follower of leader `slot` leaves its group. */
static void unfold(iv_core *c, uint32_t slot) {
  iv_warp *w = &c->warps[slot];
  while (w->n_fol) fold_split(c, w, w->n_fol - 1u);
}

/* The runnable warps of CTA ci at one pc (its first such warp's, in warp order) form a group —
 * joining the group of one of them that leads one, else led by the first: it goes on from the
 * latest of their timelines, each register ready at the latest of theirs (a warp whose results
 * are all in by then adds none). Only warps whose issues are counted in batches (no issue trace
 * or per-pc profile: a follower's issues go into its leader's batch). */
static void fold_cta(iv_core *c, uint32_t ci) {
  simt_cta *cta = &c->base.ctas[ci];
  if (!cta->live || cta->aborting) return;
  uint32_t cand[SIMT_MAX_CTA_WARPS], n = 0, pc = 0, lead = SIMT_MAX_CTA_WARPS;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    if (!simt_cta_holds(cta, i)) continue;
    uint32_t slot = cta->warp_slot[i];
    const iv_warp *x = &c->warps[slot];
    if (!runnable(x) || !simt_base_issue_batchable(&c->base, slot) || func_warp_get_state(x->fw) != FUNC_WARP_READY)
      continue;
    if (n && x->pc != pc) continue;
    if (x->n_fol) {
      if (lead != SIMT_MAX_CTA_WARPS) continue; /* (another group: left as it is) */
      lead = n;
    }
    pc = x->pc;
    cand[n++] = slot;
  }
  if (n < 2) return;
  if (lead == SIMT_MAX_CTA_WARPS) lead = 0;
  iv_warp *w = &c->warps[cand[lead]];
  if (!w->n_fol) {
    memset(w->n_on, 0, sizeof w->n_on);
    w->n_on[w->sched] = 1;
    w->fold_off = 0;
  }
  uint64_t t = w->t;
  for (uint32_t j = 0; j < n; j++) t = iv_max(t, c->warps[cand[j]].t);
  const uint32_t R = c->rr_stride;
  for (uint32_t j = 0; j < n; j++) {
    if (j == lead) continue;
    iv_warp *f = &c->warps[cand[j]];
    if (f->last_done > t) /* (no register of its is ready later than its latest result) */
      for (uint32_t g = 0; g < R; g++)
        if (f->rr[g] > w->rr[g]) w->rr[g] = f->rr[g];
    w->last_done = iv_max(w->last_done, f->last_done);
    w->fence_hold = iv_max(w->fence_hold, f->fence_hold);
    w->l1i_seen &= f->l1i_seen;
    f->folded = true;
    f->fold_off = w->n_on[f->sched]++;
    w->fol[w->n_fol++] = (uint16_t)cand[j];
    mark(c, cand[j]);
  }
  w->t = t;
  group_pace(c, w);
}

/* The cycle a group's instruction issues from t0 on: on each scheduler holding warps of the
 * group, the first cycle its issue bin has room for them and its unit's bin (to_unit later) for
 * their work; the latest of those. */
static uint64_t group_issue_at(iv_core *c, const iv_warp *w, const iv_pc *p, uint64_t t0) {
  uint64_t t = t0;
  for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) {
    uint32_t m = w->n_on[s];
    if (!m) continue;
    iv_bins *is = &c->issue[s];
    uint64_t ts;
    if (p->unit >= SIMT_UNIT_MEM) {
      ts = iv_bins_take(is, t0, m);
    } else {
      iv_bins *u = c->unit[c->base.cfg.sub_core ? s : 0][p->unit];
      uint32_t cost = (uint32_t)p->ii * m;
      uint64_t x = t0;
      for (;;) {
        ts = iv_bins_find(is, x, m);
        uint64_t e = iv_bins_find(u, ts + p->to_unit, cost);
        if (e == ts + p->to_unit) break;
        x = e - p->to_unit;
      }
      iv_bins_book(is, ts, m);
      iv_bins_book(u, ts + p->to_unit, cost);
    }
    if (ts > t) t = ts;
  }
  return t;
}

/* after_issue for a group: every warp of it refills its I-buffer when the leader does (one fetch
 * each); the group's next issue no sooner than `pace` cycles after this one. */
static inline uint64_t group_after_issue(iv_core *c, iv_warp *w, iv_counts *k, uint32_t pc, uint32_t next_pc,
                                         uint64_t t) {
  uint64_t next;
  if (next_pc == pc + 1 && w->ib_n > 1) {
    w->ib_n--;
    next = t + 1;
  } else {
    w->ib_n = 2;
    next = iv_bins_take(&c->fetch, t, 1u + w->n_fol) + 2;
    k->ibuffer += next - t - 1;
  }
  return iv_max(next, t + w->pace);
}

/* Counts a group instruction's issues on the followers' schedulers (the leader's go through k). */
static inline void group_count_sched(iv_core *c, const iv_warp *w, uint64_t n) {
  for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++)
    if (w->n_on[s]) c->sched[s].issued += n * (w->n_on[s] - (s == w->sched));
}

/* Run r taken by group leader w (run_take for the leader, then the followers executed and their
 * work booked from the run's start at its pace). 1 taken, 0 not, -1 the CTA faulted. */
static int group_take(iv_core *c, uint32_t slot, iv_warp *w, iv_run *r, iv_counts *k) {
  uint32_t v = w->ib_n > 1 ? 1u : 0u, len = r->len[v], pc0 = w->pc;
  int x = run_take(c, slot, w, r, k);
  if (x <= 0) return x;
  if (func_warp_pc(w->fw) != pc0 + r->n) { /* (cut short: the followers run it themselves) */
    unfold(c, slot);
    return 1;
  }
  const uint64_t t = c->take_start;
  uint32_t split = 0;
  for (uint32_t i = 0; i < w->n_fol; i++) {
    iv_warp *f = &c->warps[w->fol[i]];
    uint32_t active = func_warp_active(f->fw), ran = 0;
    func_run_end e;
    simtvp_diag dg;
    simtvp_status st = func_warp_run(f->fw, r->n, &ran, &e, &dg);
    if (st != SIMTVP_OK) {
      simt_base_fault_cta(&c->base, cta_of(c, f), f->fw, st, &dg, t); /* (abort_cta unfolds the group) */
      return -1;
    }
    simt_batch_add(&c->base, &k->b, active, ran);
    *c->run_insns += ran;
    *c->fold_insns += ran;
    uint64_t lanes = (uint64_t)simtvp_popcount32(active);
    for (uint32_t j = 0; j < r->n_mi; j++) *c->base.mem_insn[r->mi[j]] += lanes * r->mi_n[j];
    if (ran != r->n || func_warp_pc(f->fw) != pc0 + r->n) split |= 1u << i;
  }
  *c->smem_conflicts += (uint64_t)r->smem_extra * w->n_fol;
  /* the followers' work at the run's pace from its start: the group ends when the last of it is
   * booked (full bins stretch it), and issues no faster than its pace */
  uint64_t end = w->t;
  for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) {
    uint32_t m = w->n_on[s] - (s == w->sched);
    if (!m) continue;
    end = iv_max(end, iv_bins_fill(&c->issue[s], t, len, r->n * m));
    iv_bins *const *units = c->unit[c->base.cfg.sub_core ? s : 0];
    for (uint32_t i = 0; i < r->n_units; i++)
      end = iv_max(end, iv_bins_fill(units[r->unit[i]], t, len, r->work[i] * m));
  }
  if (r->smem_cycles) end = iv_max(end, iv_bins_fill(&c->smem, t, len, r->smem_cycles * w->n_fol));
  if (r->fetches[v]) iv_bins_fill(&c->fetch, t, len, (uint32_t)r->fetches[v] * w->n_fol);
  if (r->n_shared) iv_bins_fill(&c->dispatch, t, len, (uint32_t)r->n_shared * w->n_fol);
  group_count_sched(c, w, r->n);
  w->t = iv_max(end, t + (uint64_t)r->n * w->pace);
  for (uint32_t i = w->n_fol; i-- > 0;)
    if (split >> i & 1u) fold_split(c, w, i);
  return 1;
}

/* Mask m with bit `to` taken from bit `from` (cleared): a follower's marks when fold_split moves
 * the group's last follower into the place of one that left. */
static inline uint32_t bit_moved(uint32_t m, uint32_t from, uint32_t to) {
  return (m & ~(1u << from) & ~(1u << to)) | (m >> from & 1u) << to;
}

/* A group's memory instruction issuing at t: as mem_step for the leader and each follower, each
 * follower's accesses fold_off cycles after the leader's; the group's destination registers are
 * ready when the last warp's data is back (less its offset). An unusual step of the leader (a
 * fault, a replayable wait, the end, a barrier to settle) unfolds the group first; a follower's
 * leaves the group and goes on in step_done. false: the group stops running here. */
static bool group_mem(iv_core *c, uint32_t slot, iv_warp *w, iv_pc *p, iv_counts *k, uint64_t t) {
  func_step rec;
  simtvp_diag dg;
  uint32_t pc = w->pc;
  simtvp_status st = func_warp_step_lean(w->fw, &rec, &dg);
  if (st != SIMTVP_OK || rec.kind != FUNC_STEP_MEM || rec.warp_done || cta_of(c, w)->check_bars) {
    unfold(c, slot);
    func_step_fill_addr(&rec);
    step_done(c, slot, w, p, k, t, pc, st, &rec, &dg);
    return false;
  }
  simt_batch_add(&c->base, &k->b, rec.active, 1);
  count_mem_insn(c, p, &rec);
  const bool uniform = p->flags & IV_UNIFORM;
  uint64_t done;
  if (!iv_mem_shared_fast(c, w->prog, &rec, t + p->to_unit, &done)) {
    func_step_fill_addr(&rec);
    done = iv_mem_issue(c, slot, &rec, uniform, t + p->to_unit);
  }
  const uint64_t lead_done = done;
  uint64_t last = done;
  uint32_t late = 0;
  uint64_t late_done[SIMT_MAX_CTA_WARPS];
  if (c->runs && rec.space == PTX_SPACE_SHARED) run_learn_smem(c, w, p, rec.pc);
  /* followers last to first: one that leaves the group takes the last's place, done already */
  uint32_t split = 0;
  for (uint32_t i = w->n_fol; i-- > 0;) {
    uint32_t fs = w->fol[i];
    iv_warp *f = &c->warps[fs];
    func_step fr;
    simtvp_diag fd;
    uint64_t ft = t + f->fold_off;
    st = func_warp_step_lean(f->fw, &fr, &fd);
    if (st != SIMTVP_OK || fr.kind != FUNC_STEP_MEM || fr.warp_done) {
      /* out of the group with the state the group had before this instruction: its step goes on
       * in step_done (a fault ends the CTA: abort_cta unfolds the group) */
      uint32_t last_i = w->n_fol - 1u; /* (the last takes its place, marks and all) */
      split = bit_moved(split, last_i, i);
      late = bit_moved(late, last_i, i);
      late_done[i] = late_done[last_i];
      fold_split(c, w, i);
      func_step_fill_addr(&fr);
      step_done(c, fs, f, p, k, ft, pc, st, &fr, &fd);
      if (!w->live || w->exited || cta_of(c, w)->aborting) return false;
      continue;
    }
    simt_batch_add(&c->base, &k->b, fr.active, 1);
    *c->fold_insns += 1;
    count_mem_insn(c, p, &fr);
    uint64_t fdone;
    if (!iv_mem_shared_fast(c, w->prog, &fr, ft + p->to_unit, &fdone)) {
      func_step_fill_addr(&fr);
      fdone = iv_mem_issue(c, fs, &fr, uniform, ft + p->to_unit);
    }
    last = iv_max(last, fdone);
    if (fdone - f->fold_off > lead_done + (lead_done - t)) { /* (its data twice as late: it falls behind) */
      late |= 1u << i;
      late_done[i] = fdone;
    } else {
      done = iv_max(done, fdone - f->fold_off);
    }
    if (fr.next_pc != rec.next_pc) split |= 1u << i;
  }
  group_count_sched(c, w, 1);
  set_ready(w->rr, p->regs + p->n_src, (uint32_t)p->n_deps - p->n_src, done);
  if (last > w->last_done) w->last_done = last;
  w->t = iv_max(group_after_issue(c, w, k, pc, rec.next_pc, t), w->fence_hold);
  w->pc = rec.next_pc;
  /* followers whose path differs from here: out of the group (last to first, so that the
   * indices of those before stay) */
  for (uint32_t i = w->n_fol; i-- > 0;) {
    if (late >> i & 1u) { /* (out of the group, waiting for its own data) */
      iv_warp *f = &c->warps[w->fol[i]];
      fold_split(c, w, i);
      set_ready(f->rr, p->regs + p->n_src, (uint32_t)p->n_deps - p->n_src, late_done[i]);
    } else if (split >> i & 1u) {
      fold_split(c, w, i);
    }
  }
  return true;
}

/* A group's instruction with another step record, issuing at t: a barrier every warp of the
 * group arrives at (each executes it; those that wait, wait — followers too, so that the CTA's
 * barrier sees them — and a release lets the group go on as one); anything else unfolds the group
 * and the leader's step goes on in step_done (the followers execute theirs alone). false: the
 * group stops running here. */
static bool group_record(iv_core *c, uint32_t slot, iv_warp *w, iv_pc *p, iv_counts *k, uint64_t t) {
  func_step rec;
  simtvp_diag dg;
  uint32_t pc = w->pc;
  time_ahead(c, w, t);
  simtvp_status st = func_warp_step(w->fw, &rec, &dg);
  if (st != SIMTVP_OK || rec.kind != FUNC_STEP_BARRIER || rec.warp_done) {
    unfold(c, slot);
    return step_done(c, slot, w, p, k, t, pc, st, &rec, &dg);
  }
  simt_batch_add(&c->base, &k->b, rec.active, 1);
  simt_cta *cta = cta_of(c, w);
  bool complete = rec.barrier_complete;
  for (uint32_t i = w->n_fol; i-- > 0;) {
    uint32_t fs = w->fol[i];
    iv_warp *f = &c->warps[fs];
    func_step fr;
    simtvp_diag fd;
    uint64_t ft = t + f->fold_off;
    time_ahead(c, f, ft);
    st = func_warp_step(f->fw, &fr, &fd);
    if (st != SIMTVP_OK || fr.kind != FUNC_STEP_BARRIER || fr.warp_done) {
      fold_split(c, w, i);
      f->t = ft;
      step_done(c, fs, f, p, k, ft, pc, st, &fr, &fd);
      if (!w->live || w->exited || cta->aborting) return false;
      continue;
    }
    simt_batch_add(&c->base, &k->b, fr.active, 1);
    *c->fold_insns += 1;
    complete |= fr.barrier_complete;
    f->t = ft + 1; /* (its arrival, for the release: the cycle after the last arrival) */
    if (fr.barrier_wait) {
      f->wait = SIMT_WAIT_BARRIER;
      f->bar_id = fr.barrier_id;
      f->bar_pc = fr.pc;
    }
  }
  group_count_sched(c, w, 1);
  w->t = group_after_issue(c, w, k, pc, rec.next_pc, t);
  w->pc = rec.next_pc;
  if (rec.barrier_wait) {
    w->wait = SIMT_WAIT_BARRIER;
    w->bar_id = rec.barrier_id;
    w->bar_pc = rec.pc;
  }
  cta->check_bars = true;
  settle_barriers(c, cta, t, complete);
  return !w->exited && !w->wait && w->live;
}

/* The followers of group leader w execute the register-only instruction the leader executed at
 * pc (next_pc after it, issued at t), each counted in k's batch: a bit per follower whose next pc
 * differs (they leave the group once the leader's timing is done), or ~0u when one faulted (its
 * CTA ends: abort_cta unfolds the group). */
static uint32_t group_plain(iv_core *c, iv_warp *w, iv_counts *k, uint32_t next_pc, uint64_t t) {
  uint32_t split = 0;
  for (uint32_t i = 0; i < w->n_fol; i++) {
    iv_warp *f = &c->warps[w->fol[i]];
    uint32_t active;
    simtvp_diag dg;
    simtvp_status st;
    uint32_t fnext = func_warp_step_plain(f->fw, &active, &st, &dg);
    if (st != SIMTVP_OK) {
      simt_base_fault_cta(&c->base, cta_of(c, f), f->fw, st, &dg, t + f->fold_off);
      return ~0u;
    }
    simt_batch_add(&c->base, &k->b, active, 1);
    if (fnext != next_pc) split |= 1u << i;
  }
  *c->fold_insns += w->n_fol;
  group_count_sched(c, w, 1);
  return split;
}

/* Runs warp `slot` while its timeline is at most `limit`. Register-only instructions are timed
 * here; the rest (record_step), a new L1I line (enter_line) and a full bin (issue_search) out of
 * line, so that the loop stays small. sampled (-at_sample, a constant of each caller): every
 * issue ends the cost of the warp's last instruction (cycles from its issue to this one), which
 * `window` adds to that pc's and its launch's measurement (§10). group (-interval_fold, §13): the
 * warp leads a group, whose instructions it times once for all of its warps (group_*) until the
 * group comes apart; then it returns, and its warps go on alone. */
static inline __attribute__((always_inline)) void run_body(iv_core *c, uint32_t slot, uint64_t limit, iv_counts *k,
                                                           const bool sampled, bool window, const bool runs,
                                                           const bool group) {
  iv_warp *w = &c->warps[slot];
  while (w->t <= limit) {
    if (group && !w->n_fol) return;
    iv_pc *p = &w->pcs[w->pc];
    if (!(p->flags & IV_KNOWN)) {
      p = pc_info(c, w);
      if (!p) { /* nothing left to run: the warp is done (a group's warps each find that alone) */
        if (group) unfold(c, slot);
        else retire(c, slot, w->t);
        return;
      }
    }
    if (runs && !(p->flags & IV_RUN_NO) && /* (a run needs the pc after it known: §11) */
        (p->run || ((w->pcs[w->pc + (p->run_wait ? p->run_wait : 1u)].flags & IV_KNOWN) && run_build(c, w, p))) &&
        p->run) {
      iv_run *r = (iv_run *)(w->lp->runs + p->run - 1);
      int x = group ? group_take(c, slot, w, r, k) : run_take(c, slot, w, r, k);
      if (x > 0) continue;
      if (x < 0) return;
    }
    if (p->l1i_line != w->line) { /* a line it fetched before is there (§6): the usual case inline */
      if (p->l1i_bit < 64 && (w->l1i_seen >> p->l1i_bit & 1u)) w->line = p->l1i_line;
      else w->t = enter_line(c, w, p, w->t, k);
    }
    uint64_t t0 = deps_ready(w->rr, p->regs, p->n_deps, w->t);
    k->scoreboard += t0 - w->t;
    uint64_t t = group ? group_issue_at(c, w, p, t0) : issue_at(w, p, t0);
    if (t != t0) k->pipe += t - t0;
    k->issued++;
    if (sampled) {
      /* (a fast-forward sends this instruction to the memory stage once its registers are ready,
       * ff_mem: its scoreboard wait is not the last instruction's cost) */
      if (window && w->last_p) measure(w, p->flags & IV_FF_MEM ? t - (t0 - w->t) : t);
      w->last_p = p;
      w->last_issue = t;
    }
    if (!(p->flags & IV_PLAIN)) {
      bool live = group ? (p->unit == SIMT_UNIT_MEM ? group_mem(c, slot, w, p, k, t) : group_record(c, slot, w, p, k, t))
                        : (p->unit == SIMT_UNIT_MEM ? mem_step(c, slot, w, p, k, t) : record_step(c, slot, w, p, k, t));
      if (!live) return;
      continue;
    }
    /* register-only: executed without a step record */
    uint32_t active;
    simtvp_diag dg;
    simtvp_status st;
    uint32_t next_pc = func_warp_step_plain(w->fw, &active, &st, &dg);
    if (st != SIMTVP_OK) {
      simt_base_fault_cta(&c->base, cta_of(c, w), w->fw, st, &dg, t); /* (a group: abort_cta unfolds it) */
      return;
    }
    uint32_t pc = w->pc, split = 0;
    count_issue(c, k, slot, pc, active, t);
    if (group && (split = group_plain(c, w, k, next_pc, t)) == ~0u) return;
    uint64_t e = t + p->to_unit, wb = e + p->lat;
    set_ready(w->rr, p->regs + p->n_src, (uint32_t)p->n_deps - p->n_src, e + p->ready);
    if (wb > w->last_done) w->last_done = wb;
    if (group) {
      w->t = group_after_issue(c, w, k, pc, next_pc, t);
    } else {
      uint32_t ib = w->ib_n;
      w->t = after_issue(c, &ib, k, pc, next_pc, t);
      w->ib_n = (uint8_t)ib;
    }
    w->pc = next_pc;
    for (uint32_t i = group ? w->n_fol : 0; i-- > 0;)
      if (split >> i & 1u) fold_split(c, w, i);
  }
}

static void run_warp_body(iv_core *c, uint32_t slot, uint64_t limit, iv_counts *k) {
  run_body(c, slot, limit, k, false, false, false, false);
}

/* run_warp_body with -interval_runs (§11). */
static void run_warp_runs(iv_core *c, uint32_t slot, uint64_t limit, iv_counts *k) {
  run_body(c, slot, limit, k, false, false, true, false);
}

/* run_warp_body for a group leader (-interval_fold, §13), with or without runs. */
static void run_group(iv_core *c, uint32_t slot, uint64_t limit, iv_counts *k) {
  if (c->runs) run_body(c, slot, limit, k, false, false, true, true);
  else run_body(c, slot, limit, k, false, false, false, true);
}

/* ---- sampled timing (-at_sample DETAIL,PERIOD; docs/simt-interval.md §10) ---------------------- */

/* How many instructions from pc on a fast-forward runs in one func_warp_run call, all with the
 * lanes active at pc: a warp's active lanes change only after a branch, an exit or a call, and
 * where it reconverges (the first instruction of a basic block, ptx_insn.block) — so to the end
 * of pc's block (blocks end after branches and exits) or its first call, whichever is first.
 * Learnt once per pc and launch (IV_FF_KNOWN). */
static uint32_t ff_len(iv_warp *w, uint32_t pc) {
  iv_pc *p = &w->pcs[pc];
  if (p->flags & IV_FF_KNOWN) return p->ff_len;
  const ptx_module *m = simt_program_module(w->prog);
  uint32_t n = 1;
  if (pc < m->n_insns) {
    uint32_t b = m->insns[pc].block;
    while (n < UINT16_MAX && pc + n < m->n_insns && m->insns[pc + n].block == b &&
           m->insns[pc + n - 1].opcode != PTX_OP_CALL)
      n++;
  }
  if (!p->flags) w->lp->touched[w->lp->n_touched++] = pc;
  p->flags |= IV_FF_KNOWN;
  p->ff_len = (uint16_t)n;
  return n;
}

/* Whether warp w may fast-forward: its core measured enough of its launch (§10). */
static inline bool may_ff(const iv_warp *w) { return w->lp->s_n >= IV_FF_MIN_INSNS; }

/* A measured instruction's fast-forward cost (cycles × IV_FF_ONE from its issue to its warp's
 * next): its pc's mean over the windows (at least a cycle: a warp issues once per cycle). */
static inline uint64_t ff_cost(const iv_pc *p) { return p->s_q; /* (measure keeps it) */ }

/* A fast-forwarded instruction at t waits on a replayable fault (as step_done): the warp parks
 * until the replay, or its CTA ends when the GPU has no fault buffer. */
static void ff_fault_wait(iv_core *c, iv_warp *w, uint64_t t) {
  if (fault_wait(c, w, t)) return;
  simtvp_diag dg;
  simtvp_status st = SIMTVP_ERR_FAULT;
  simtvp_diag_set(&dg, st, "kernel %s: global access at 0x%" PRIx64 " faults replayably (the page is not "
                  "resident) but the GPU has no fault buffer", cta_of(c, w)->k->name, w->fault_since);
  simtvp_diag_at_address(&dg, w->fault_since);
  simt_report_fault(&c->base.ports, c->base.cfg.sm, cta_of(c, w)->k->slot, st, &dg, dg.message, t);
  gpu_cta_result r = {st, w->fault_since, w->pc};
  c->base.hooks->abort_cta(&c->base, cta_of(c, w), &r, t);
}

/* A fast-forwarded memory instruction of warp w whose accesses leave the core (IV_FF_MEM, its pc
 * measured), its timeline at *tq: executed as mem_step executes it and its accesses issued
 * through the memory stage at its fast-forwarded issue time, so that the L1, the miss queue and
 * the memory port (memiv) see the load the warp puts on them; its destination registers are ready
 * when its data is back (for the detailed instructions after the fast-forward). The timeline then
 * advances by the pc's measured cost: the fast-forwarded instructions after it do not wait for
 * their registers — the windows after a loaded fast-forward measure the loaded latencies, and
 * waiting as well made the bench kernels no closer to CA (docs §10). An instruction
 * that turns out to access shared memory (through a generic address) stays on the SM as in
 * ff_run: ready at its measured latency. Anything unusual (a fault, a replayable wait, the
 * warp's end, a barrier to settle) goes on in step_done, timed in detail. false: the warp stops
 * running here, or step_done timed it (w->t is the warp's; the caller returns). */
static __attribute__((noinline)) bool ff_mem(iv_core *c, uint32_t slot, iv_warp *w, iv_pc *p, uint64_t *tq,
                                             iv_counts *k) {
  uint64_t t = *tq / IV_FF_ONE;
  func_step rec;
  simtvp_diag dg;
  uint32_t pc = w->pc;
  k->issued++;
  simtvp_status st = func_warp_step_lean(w->fw, &rec, &dg);
  if (__builtin_expect(st != SIMTVP_OK || rec.kind != FUNC_STEP_MEM || rec.warp_done || cta_of(c, w)->check_bars, 0)) {
    func_step_fill_addr(&rec);
    w->ff_frac = 0;
    step_done(c, slot, w, p, k, t, pc, st, &rec, &dg);
    return false;
  }
  count_issue(c, k, slot, pc, rec.active, t);
  w->pc = rec.next_pc;
  uint64_t done;
  if ((rec.space == PTX_SPACE_SHARED || rec.space == PTX_SPACE_SHARED_CLUSTER) && !simt_texture_op(&rec)) {
    done = t + p->s_mlat;
  } else {
    count_mem_insn(c, p, &rec);
    done = iv_mem_issue(c, slot, &rec, p->flags & IV_UNIFORM, t + p->to_unit);
  }
  set_ready(w->rr, p->regs + p->n_src, (uint32_t)p->n_deps - p->n_src, done);
  if (done > w->last_done) w->last_done = done;
  ++*c->sample.ff_insn;
  *tq += ff_cost(p);
  return true;
}

/* Fast-forward: warp `slot` runs in models/func without step records (func_warp_run) while its
 * timeline is at most `end`, its timeline advancing by each instruction's measured cost (ff_cost);
 * no bins, L1I or fetch. Memory instructions outside shared memory are runs of their own, issued
 * once their registers are ready, their accesses through the memory stage (ff_mem). Barriers,
 * exit, faults and replayable faults as in detail. false: it ran nothing (the caller times it in detail). */
static bool ff_run(iv_core *c, uint32_t slot, iv_warp *w, uint64_t end, iv_counts *k) {
  const uint64_t endq = (end + 1) * IV_FF_ONE;
  uint64_t tq = w->t * IV_FF_ONE + w->ff_frac;
  bool ran = false;
  while (tq < endq) {
    uint32_t pc = w->pc, len = ff_len(w, pc), max = 0, n;
    iv_pc *p0 = &w->pcs[pc];
    time_ahead(c, w, tq / IV_FF_ONE); /* (a clock read inside the run reads its start) */
    if ((p0->flags & IV_FF_MEM) && p0->s_n) { /* a memory instruction whose accesses leave the core */
      w->last_p = NULL;
      ran = true;
      /* it issues once its registers are ready (the windows leave that wait out of the costs) */
      uint64_t r = deps_ready(w->rr, p0->regs, p0->n_deps, 0) * IV_FF_ONE;
      if (r > tq) {
        tq = r;
        w->t = tq / IV_FF_ONE;
        w->ff_frac = 0;
        if (tq >= endq) return true; /* (after this phase: timed in the next) */
      }
      if (!ff_mem(c, slot, w, p0, &tq, k)) return true;
      w->t = tq / IV_FF_ONE;
      w->ff_frac = (uint32_t)(tq % IV_FF_ONE);
      continue;
    }
    /* the run: from pc on while its lanes stay the same, its pcs are measured, none leaves the
     * core (ff_mem) and they issue by `end` */
    for (uint64_t q = tq; max < len && q < endq && w->pcs[pc + max].s_n && !(w->pcs[pc + max].flags & IV_FF_MEM);
         max++)
      q += ff_cost(&w->pcs[pc + max]);
    if (!max) return ran; /* an instruction not measured yet: timed in detail */
    w->last_p = NULL; /* (the next detailed issue measures nothing from a fast-forwarded one) */
    uint32_t active = func_warp_active(w->fw);
    func_run_end e;
    simtvp_diag dg;
    simtvp_status st = func_warp_run(w->fw, max, &n, &e, &dg);
    bool parked = st == SIMTVP_OK && n && e.kind == FUNC_STEP_NOP && func_warp_get_state(w->fw) == FUNC_WARP_FAULT_WAIT;
    uint32_t done = n - parked; /* (the waiting instruction did nothing) */
    if (!n && st == SIMTVP_OK) return ran;
    ran = true;
    uint64_t last = tq / IV_FF_ONE; /* the last one's issue */
    for (uint32_t i = 0; i < done; i++) {
      const iv_pc *p = &w->pcs[pc + i];
      last = tq / IV_FF_ONE;
      if (!k->b.on) simt_base_count_issue(&c->base, slot, pc + i, active, last);
      /* its results (a store's acknowledgement) are in its measured latency later, an ALU
       * instruction's to_unit + L: what the warp's exit and its next detailed instructions wait
       * for (a pc measured is known: its registers are) */
      if (p->flags & IV_KNOWN) {
        /* the wait for its sources was in the measured cost before it: read, they are ready for
         * whatever reads them next — a fast-forwarded memory instruction waits only for data no
         * fast-forwarded instruction waited for (a write after write, §10) */
        for (uint32_t r = 0; r < p->n_src; r++)
          if (w->rr[p->regs[r]] > last) w->rr[p->regs[r]] = last;
        uint64_t res = last, ready = last;
        if (p->unit == SIMT_UNIT_MEM) res = ready = last + p->s_mlat;
        else if (p->unit < SIMT_UNIT_MEM) res = last + p->to_unit + p->lat, ready = last + p->to_unit + p->ready;
        set_ready(w->rr, p->regs + p->n_src, (uint32_t)p->n_deps - p->n_src, ready);
        if (res > w->last_done) w->last_done = res;
      }
      tq += ff_cost(p);
    }
    if (k->b.on) simt_batch_add(&c->base, &k->b, active, done);
    *c->sample.ff_insn += done;
    k->issued += done;
    w->t = tq / IV_FF_ONE;
    w->ff_frac = (uint32_t)(tq % IV_FF_ONE);
    w->pc = func_warp_pc(w->fw);
    if (w->t > w->last_done) w->last_done = w->t;
    simt_cta *cta = cta_of(c, w);
    if (st != SIMTVP_OK) {
      simt_base_fault_cta(&c->base, cta, w->fw, st, &dg, last);
      return true;
    }
    if (parked) {
      ff_fault_wait(c, w, w->t);
      return true;
    }
    if (e.warp_done) { /* every thread exited: may complete a barrier the others wait at */
      retire(c, slot, last);
      cta->check_bars = true;
      settle_barriers(c, cta, last, true);
      return true;
    }
    if (e.kind == FUNC_STEP_BARRIER) {
      if (e.barrier_wait) {
        w->wait = SIMT_WAIT_BARRIER;
        w->bar_id = e.barrier_id;
        w->bar_pc = e.pc;
      }
      cta->check_bars = true;
      settle_barriers(c, cta, last, e.barrier_complete);
      if (w->exited || w->wait || !w->live) return true;
      if (w->t * IV_FF_ONE > tq) tq = w->t * IV_FF_ONE; /* released later */
    }
  }
  return ran;
}

/* run_warp_body under -at_sample: by the warp's own timeline, the detail phase of each period
 * runs in detail (measured over its second half, the window, from the launch's second period on:
 * the first is its warm-up), the rest fast-forwards once the core has measured the warp's launch
 * (ff_run). */
static void run_sampled(iv_core *c, uint32_t slot, uint64_t limit, iv_counts *k) {
  iv_warp *w = &c->warps[slot];
  const uint64_t D = c->sample.detail, P = c->sample.period, o = w->lp->s_origin;
  while (w->t <= limit && runnable(w)) {
    uint64_t t0 = w->t, ps = t0 - (t0 - o) % P, ws = ps + D / 2, de = ps + D;
    if (t0 >= de) { /* the fast-forward phase, up to the next period */
      uint64_t end = iv_min(limit, ps + P - 1);
      if (ps == o || !may_ff(w)) run_body(c, slot, end, k, true, false, false, false); /* (the first period: warm-up) */
      else if (!ff_run(c, slot, w, end, k) && runnable(w) && w->t <= end) /* a stretch in detail, measured */
        run_body(c, slot, iv_min(end, w->t + IV_FF_STRETCH), k, true, true, false, false);
    } else if (t0 >= ws) { /* the window (none in the warm-up period: its costs are the cold start's) */
      run_body(c, slot, iv_min(limit, de - 1), k, true, ps != o, false, false);
    } else {
      run_body(c, slot, iv_min(limit, ws - 1), k, true, false, false, false);
    }
  }
}

/* The CTAs a barrier released warps of since the last call form their groups (§13). */
static void fold_pending(iv_core *c) {
  uint64_t m = c->fold_pending;
  c->fold_pending = 0;
  while (m) {
    uint32_t ci = (uint32_t)__builtin_ctzll(m);
    m &= m - 1;
    fold_cta(c, ci);
  }
}

static void run_warp(iv_core *c, uint32_t slot, uint64_t limit) {
  iv_counts k = {{simt_base_issue_batchable(&c->base, slot), 0, 0}, 0, 0, 0, 0};
  iv_warp *w = &c->warps[slot];
  uint8_t on[SIMT_MAX_SCHEDULERS]; /* a group's warps per scheduler: they all waited as it did */
  const bool group = w->n_fol != 0;
  if (group) {
    memcpy(on, w->n_on, sizeof on);
    run_group(c, slot, limit, &k);
  }
  if (!w->n_fol && runnable(w) && w->t <= limit) { /* (else a group at the horizon, or stopped) */
    if (c->sample.period) run_sampled(c, slot, limit, &k);
    else if (c->runs) run_warp_runs(c, slot, limit, &k);
    else run_warp_body(c, slot, limit, &k);
  }
  simt_batch_flush(&c->base, &k.b);
  iv_sched *sc = &c->sched[w->sched];
  sc->issued += k.issued;
  sc->gap[SIMT_R_SCOREBOARD] += k.scoreboard;
  sc->gap[SIMT_R_PIPE] += k.pipe;
  sc->gap[SIMT_R_IBUFFER] += k.ibuffer;
  if (group) /* (the followers' issues were counted on their schedulers as they went) */
    for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) {
      uint64_t m = (uint64_t)on[s] - (s == w->sched);
      if (!on[s] || !m) continue;
      c->sched[s].gap[SIMT_R_SCOREBOARD] += k.scoreboard * m;
      c->sched[s].gap[SIMT_R_PIPE] += k.pipe * m;
      c->sched[s].gap[SIMT_R_IBUFFER] += k.ibuffer * m;
    }
  mark(c, slot);
}

/* ---- time --------------------------------------------------------------------------------------- */

static uint64_t compute_next(const iv_core *c) {
  uint64_t t = simt_heap_top(&c->finish);
  uint64_t run = IV_NEVER;
  for (uint32_t i = next_runnable(c, 0); i < c->base.cfg.max_warps; i = next_runnable(c, i + 1))
    if (c->warps[i].t < run) run = c->warps[i].t;
  if (run != IV_NEVER) t = iv_min(t, run > c->horizon / 2 ? run - c->horizon / 2 : 0);
  return t;
}

/* -interval_horizon_ramp (§1): the horizon at `now`, IV_HORIZON_RAMP_START at the ramp's start
 * doubled every ramp_step cycles, at most -interval_horizon. */
static uint32_t ramped_horizon(const iv_core *c, uint64_t now) {
  uint64_t steps = now > c->ramp_from ? (now - c->ramp_from) / c->ramp_step : 0;
  uint32_t h = iv_min(IV_HORIZON_RAMP_START, c->horizon_max);
  while (steps-- && h < c->horizon_max) h *= 2;
  return h < c->horizon_max ? h : c->horizon_max;
}

/* Runs every warp up to now + the horizon, and finishes the warps (and CTAs) due by now. */
static void run_until(iv_core *c, uint64_t now) {
  if (c->ramp_step && c->horizon < c->horizon_max) c->horizon = ramped_horizon(c, now);
  uint64_t limit = now + c->horizon;
  c->now = now;
  bool again = c->n_live_warps != 0;
  while (again) { /* a barrier released late in the pass lets earlier warps go on */
    again = false;
    for (uint32_t i = next_runnable(c, 0); i < c->base.cfg.max_warps; i = next_runnable(c, i + 1)) {
      if (c->warps[i].t > limit) continue;
      run_warp(c, i, limit);
      if (c->fold_pending) fold_pending(c);
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
                      : w->wait == SIMT_WAIT_FAULT ? "page fault" : w->folded ? "in a group" : "ready";
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
  mark(c, slot);
  if (now + 1 > w->t) w->t = now + 1;
}

static bool fit_kernel(simt_core_base *b, uint32_t cta_slot, const simt_kernel *k) {
  iv_core *c = (iv_core *)b;
  /* the registers' ready times grown for the kernel: a resident warp's kept, else not zeroed (a
   * warp launched later has its own cleared) */
  if (k->program->n_reg_ids > c->rr_stride) {
    uint64_t *rr = simt_base_regrow_ready(&c->base, c->rr, c->rr_stride, k->program->n_reg_ids,
                                          c->n_live_warps != 0);
    if (!rr) return false;
    c->rr = rr;
    c->rr_stride = k->program->n_reg_ids;
    for (uint32_t w = 0; w < c->base.cfg.max_warps; w++) c->warps[w].rr = rr + (size_t)w * c->rr_stride;
  }
  /* the launch's per-pc table: the one its resident CTAs use, else one no resident CTA uses (a
   * table is matched only while a CTA of its launch is resident: a launch that ended may share
   * its address and uid with a later one) */
  uint32_t n = c->base.cfg.max_ctas, t = n;
  for (uint32_t s = 0; s < n; s++) { /* the usual case: a resident CTA of the same launch */
    const simt_cta *o = &c->base.ctas[s];
    if (s != cta_slot && o->live && o->k->launch == k->launch && o->k->launch_uid == k->launch_uid) {
      c->lpcs_of[cta_slot] = c->lpcs_of[s];
      return true;
    }
  }
  for (uint32_t i = 0; i < n; i++) c->lpcs[i].used = false;
  for (uint32_t s = 0; s < n; s++)
    if (s != cta_slot && c->base.ctas[s].live) c->lpcs[c->lpcs_of[s]].used = true;
  for (uint32_t i = 0; i < n && t == n; i++)
    if (c->lpcs[i].used && c->lpcs[i].launch == k->launch && c->lpcs[i].uid == k->launch_uid) t = i;
  if (t == n) {
    t = 0;
    while (c->lpcs[t].used) t++; /* max_ctas tables, fewer than max_ctas other CTAs */
    iv_launch_pcs *u = &c->lpcs[t];
    void *pcs = u->pcs;
    /* (one entry past the last instruction: a run's test of the pc after it, §11) */
    bool ok = simt_pc_table_fit(&pcs, &u->touched, &u->n_touched, &u->cap,
                                simt_program_module(k->program)->n_insns + 1, sizeof *u->pcs);
    u->pcs = pcs;
    if (!ok) return false;
    u->launch = k->launch;
    u->uid = k->launch_uid;
    u->s_n = 0;
    u->runs_used = 0; /* (its pcs' run words were cleared with them) */
    u->s_origin = IV_NEVER; /* (set by iv_launch_cta: the launch's first CTA here) */
  }
  c->lpcs_of[cta_slot] = t;
  return true;
}

/* Ends a CTA early (fault, deadlock): its warps issue nothing more; it is reported when their
 * last results are in. */
static void abort_cta(simt_core_base *b, simt_cta *cta, const gpu_cta_result *r, uint64_t now) {
  iv_core *c = (iv_core *)b;
  if (cta->aborting) return;
  cta->aborting = true;
  cta->result = *r;
  for (uint32_t i = 0; i < cta->n_warps; i++) /* (its groups' warps each retire on their own) */
    if (simt_cta_holds(cta, i) && c->warps[cta->warp_slot[i]].n_fol) unfold(c, cta->warp_slot[i]);
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
  /* the core (its bins: ~100 KB) and its unit bins are zeroed pages, paid for as a run touches them */
  iv_core *c = simtvp_zalloc(sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  simtvp_status st = simt_base_init(&c->base, cfg, ports, &iv_hooks, diag);
  if (st != SIMTVP_OK) {
    simtvp_zfree(c);
    return st;
  }
  c->next = IV_NEVER;
  c->fault_stall = &c->fault_stall_scratch;
  /* -at_sample (checked by gpu_config; a core configured directly is checked here) */
  if (cfg->sample_period) {
    if (cfg->sample_detail < 2 || cfg->sample_period <= cfg->sample_detail) {
      iv_destroy(c);
      return simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: -at_sample %u,%u: the detail phase must be "
                             "at least 2 core cycles and shorter than the period", cfg->sm, cfg->sample_detail,
                             cfg->sample_period);
    }
    c->sample.detail = cfg->sample_detail;
    c->sample.period = cfg->sample_period;
    c->sample.ff_insn = simt_base_counter(&c->base, "iv_sample_ff_warp_insn", "warp insns",
                                          "warp instructions fast-forwarded on interval cores (-at_sample): "
                                          "executed, timed at the measured cycles per warp instruction");
  }
  /* -interval_horizon (checked by gpu_config; a core configured directly is checked here) */
  c->horizon = cfg->interval_horizon ? cfg->interval_horizon : IV_HORIZON_DEFAULT;
  c->horizon_max = c->horizon;
  c->ramp_step = cfg->sample_period ? 0 : cfg->interval_horizon_ramp; /* (sampling: its periods decide) */
  c->ramp_uid = UINT64_MAX;
  if (c->horizon < IV_HORIZON_MIN || c->horizon > IV_HORIZON_MAX) {
    uint32_t h = c->horizon;
    iv_destroy(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: -interval_horizon %u: outside %u to %u core cycles",
                           cfg->sm, h, IV_HORIZON_MIN, IV_HORIZON_MAX);
  }
  c->runs = cfg->interval_runs && !cfg->sample_period; /* (sampling fast-forwards instead) */
  c->fold = cfg->interval_fold && !cfg->sample_period && cfg->max_ctas <= 64;
  if (c->fold)
    c->fold_insns = simt_base_counter(&c->base, "iv_fold_warp_insn", "warp insns",
                                      "warp instructions of followers timed by their group's leader on "
                                      "interval cores (-interval_fold): executed, timed once per group");
  if (c->runs)
    c->run_insns = simt_base_counter(&c->base, "iv_run_warp_insn", "warp insns",
                                     "warp instructions timed in straight runs on interval cores "
                                     "(-interval_runs): executed, timed from the run's schedule");
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
  c->runnable = calloc((cfg->max_warps + 63) / 64, sizeof *c->runnable);
  c->lpcs = calloc(cfg->max_ctas, sizeof *c->lpcs);
  c->lpcs_of = calloc(cfg->max_ctas, sizeof *c->lpcs_of);
  c->unit_block = simtvp_zalloc((size_t)P * SIMT_UNIT_MEM * sizeof *c->unit_block);
  bool ok = c->warps && c->runnable && c->lpcs && c->lpcs_of && c->unit_block;
  for (uint32_t s = 0; s < SIMT_MAX_SCHEDULERS; s++) c->issue[s].cap = IV_BIN; /* one issue per cycle */
  c->fetch.cap = IV_BIN * (cfg->fetch_throughput ? cfg->fetch_throughput : 1u);
  for (int u = 0; ok && u < SIMT_UNIT_MEM; u++) {
    uint32_t lo[SIMT_MAX_SCHEDULERS], hi[SIMT_MAX_SCHEDULERS];
    simt_base_share(cfg->n_units[u] ? cfg->n_units[u] : 1, P, lo, hi);
    for (uint32_t part = 0; ok && part < P; part++) {
      uint32_t n = hi[part] > lo[part] ? hi[part] - lo[part] : 1;
      c->unit[part][u] = &c->unit_block[part * SIMT_UNIT_MEM + (uint32_t)u];
      c->unit[part][u]->cap = IV_BIN * n;
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
  free(c->runnable);
  for (uint32_t i = 0; c->lpcs && i < c->base.cfg.max_ctas; i++) {
    free(c->lpcs[i].pcs);
    free(c->lpcs[i].touched);
    free(c->lpcs[i].runs);
  }
  free(c->lpcs);
  free(c->lpcs_of);
  simtvp_zfree(c->unit_block);
  free(c->rr);
  free(c->run_ready);
  free(c->run_seen);
  free(c->finish.v);
  simtvp_zfree(c);
}

static void end_call(iv_core *c, uint64_t now) {
  if (c->base.n_reports) simt_base_flush_reports(&c->base, now); /* (most calls finish no CTA) */
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
  if (c->ramp_step && k->launch_uid != c->ramp_uid) { /* a launch's first CTA here: its ramp starts (§1) */
    c->ramp_uid = k->launch_uid;
    c->ramp_from = now;
    c->horizon = ramped_horizon(c, now);
  }
  iv_launch_pcs *lp = &c->lpcs[c->lpcs_of[ci]];
  if (lp->s_origin == IV_NEVER) lp->s_origin = now;
  const uint32_t n_sched = c->base.cfg.n_schedulers;
  const bool sub_core = c->base.cfg.sub_core;
  const size_t rr_bytes = c->rr_stride * sizeof *c->rr;
  /* each running kernel's parameters get their own 64 KiB of the parameter window */
  const uint64_t param = FUNC_WINDOW_PARAM + (uint64_t)k->slot * 0x10000u;
  uint64_t run = IV_NEVER; /* the earliest timeline of the warps that may issue */
  for (uint32_t i = 0; i < nw; i++) {
    uint32_t slot = slots[i];
    iv_warp *w = &c->warps[slot];
    uint64_t *rr = w->rr;
    memset(w, 0, sizeof *w);
    w->rr = rr;
    memset(rr, 0, rr_bytes);
    w->live = true;
    w->fw = func_cta_warp(cta->fc, i);
    w->prog = k->program;
    w->lp = lp;
    w->pcs = lp->pcs;
    w->cta = ci;
    w->index = i;
    w->sched = slot % n_sched;
    w->part = sub_core ? w->sched : 0;
    w->issue = &c->issue[w->sched];
    w->units = c->unit[w->part];
    /* the first fetch (the core's fetch port) and decode */
    w->ib_n = 2;
    w->t = iv_bins_take(&c->fetch, now, 1) + 2;
    c->n_live_warps++;
    c->param_of[slot] = param;
    /* (what func_warp_peek would say: a warp that is not READY has nothing to run) */
    if (func_warp_get_state(w->fw) != FUNC_WARP_READY) {
      retire(c, slot, now);
      continue;
    }
    w->pc = func_warp_pc(w->fw);
    mark(c, slot);
    run = iv_min(run, w->t);
  }
  if (c->fold) fold_cta(c, ci); /* (§13) */
  /* c->next is compute_next's answer before the launch (every op ends in end_call), and a launch
   * only adds runnable warps and finishes: the earliest of it and theirs is its answer now,
   * without its pass over every runnable warp */
  if (c->base.n_reports) simt_base_flush_reports(&c->base, now);
  uint64_t next = iv_min(c->next, simt_heap_top(&c->finish));
  if (run != IV_NEVER) next = iv_min(next, run > c->horizon / 2 ? run - c->horizon / 2 : 0);
  c->next = next;
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
    mark(c, slot);
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
