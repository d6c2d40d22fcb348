/* simt_at — the approximately-timed SIMT core ("at" variant of simt.h; docs/simt-at.md): CTAs and
 * warps, the schedulers, issue and the execution units as times, barriers, fences, exit, faults,
 * time and statistics. The memory stage (shared memory, coalescing, the L1 caches, requests to
 * the memory system) is simt_at_mem.c; shared-memory bank conflicts simt_at_smem.c.
 *
 * Warps advance by intervals. The warp whose next instruction may issue first runs: instruction
 * after instruction, each issues at the first cycle t its scheduler has a free issue slot with
 *   t >= the previous issue + 1 (the next one when the I-buffer still holds it; after a fetch,
 *        fetch + 2: one fetch of two instructions per warp, -gpgpu_inst_fetch_throughput fetches
 *        per core and cycle, a new L1I line looked up, a control hazard refetching),
 *   t >= the ready time of every register it reads or writes (RAW, WAW),
 *   t + to_unit free at its unit for II cycles (to_unit = 4: operand collector, register read
 *        and OC_EX, plus the cycles its own reads lose to register-bank conflicts; 3 without
 *        register reads),
 * and its completion is computed at once:
 *   ALU     result at t + to_unit + L (a dependent chain costs L + 4 per instruction; L with
 *           -gpgpu_alu_forwarding for SP/DP/INT, whose dependents may issue at t + L);
 *   memory  enters the memory stage at t + to_unit (simt_at_mem.c), which returns when its data
 *           is there, or AT_NEVER when it waits for an event-driven memory system;
 *   barrier the warp waits; when the last warp arrives every waiting warp issues again from the
 *           cycle after the last arrival; fence: the warp waits until its memory results are in;
 *           exit: the warp is finished when its last result is.
 * A warp's interval ends when its next instruction could not issue before the core's time plus
 * AT_WINDOW, when it needs a result not timed yet, or at a barrier, fence or exit; its scheduler
 * heap then holds it at the cycle it may go on. Every resource is a calendar of booked cycles
 * (models/common/simtvp_cal.h): a warp handled after another may still take a cycle the other left free, so
 * running ahead changes arbitration order only, within the window. The instructions of the
 * interval execute in models/func as they issue (values never depend on timing); register-only
 * ones without a step record.
 * advance(now) runs every warp that may issue by now; next_event is the earliest such cycle. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_at_internal.h"

static simt_cta *cta_of(at_core *c, const at_warp *w) { return &c->base.ctas[w->cta]; }

/* ---- scheduler heaps (warp slots by next, then age) ------------------------------------------- */

static inline bool warp_before(const at_core *c, uint32_t a, uint32_t b) {
  const at_warp *x = &c->warps[a], *y = &c->warps[b];
  return x->next < y->next || (x->next == y->next && x->age < y->age);
}

static void heap_set(at_core *c, at_sched *s, uint32_t i, uint32_t slot) {
  s->heap[i] = slot;
  c->warps[slot].heap_pos = i;
}

static void heap_up(at_core *c, at_sched *s, uint32_t i) {
  uint32_t slot = s->heap[i];
  while (i > 0) {
    uint32_t p = (i - 1) / 2;
    if (!warp_before(c, slot, s->heap[p])) break;
    heap_set(c, s, i, s->heap[p]);
    i = p;
  }
  heap_set(c, s, i, slot);
}

static void heap_down(at_core *c, at_sched *s, uint32_t i) {
  uint32_t slot = s->heap[i];
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = l;
    if (l >= s->n) break;
    if (r < s->n && warp_before(c, s->heap[r], s->heap[l])) m = r;
    if (!warp_before(c, s->heap[m], slot)) break;
    heap_set(c, s, i, s->heap[m]);
    i = m;
  }
  heap_set(c, s, i, slot);
}

static void heap_remove(at_core *c, uint32_t slot) {
  at_warp *w = &c->warps[slot];
  if (w->heap_pos == AT_NONE) return;
  at_sched *s = &c->sched[w->sched];
  uint32_t i = w->heap_pos, last = s->heap[--s->n];
  w->heap_pos = AT_NONE;
  if (i == s->n) return;
  heap_set(c, s, i, last);
  heap_up(c, s, i);
  heap_down(c, s, c->warps[last].heap_pos);
}

/* The warp may issue from `t` on (its heap entry is placed or moved); `why` it waits until then. */
static void heap_put(at_core *c, uint32_t slot, uint64_t t, uint8_t why) {
  at_warp *w = &c->warps[slot];
  w->why = why;
  at_sched *s = &c->sched[w->sched];
  w->next = t;
  if (w->heap_pos == AT_NONE) {
    w->heap_pos = s->n++;
    s->heap[w->heap_pos] = slot;
    heap_up(c, s, w->heap_pos);
    return;
  }
  heap_up(c, s, w->heap_pos);
  heap_down(c, s, w->heap_pos);
}

/* ---- warps --------------------------------------------------------------------------------- */

/* Cycles an instruction's own register reads lose to bank conflicts: reads beyond a bank's ports
 * wait a cycle each round. Which reads share a bank does not depend on the warp's offset. */
static uint8_t bank_extra(const at_core *c, const simt_insn_info *info, const uint32_t *src) {
  uint32_t n = info->n_src_rf, worst = 0, ports = c->base.cfg.reg_ports ? c->base.cfg.reg_ports : 1;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t same = 0;
    for (uint32_t j = 0; j < n; j++) same += src[j] % c->banks_per_part == src[i] % c->banks_per_part;
    if (same > worst) worst = same;
  }
  return (uint8_t)(worst > ports ? (worst + ports - 1) / ports - 1 : 0);
}

/* The warp's pc gets an entry in its CTA slot's facts (cleared when the next CTA starts). */
static void touch(at_core *c, const at_warp *w) {
  at_cta_units *u = &c->cta_units[w->cta];
  u->touched[u->n_touched++] = w->pc;
}

/* What the core needs to know of the instruction at the warp's pc: learnt once per pc. */
static const at_pc *pc_info(at_core *c, at_warp *w) {
  at_pc *p = &w->pcs[w->pc];
  if (p->flags & AT_KNOWN) return p;
  func_peek pk;
  if (!func_warp_peek(w->fw, &pk)) return NULL;
  if (!p->fetch_n) touch(c, w); /* (a fetch fills fetch_n first, and records the pc then) */
  const simt_insn_info *info = &w->prog->info[pk.pc];
  bool plain = pk.kind == FUNC_STEP_ALU || pk.kind == FUNC_STEP_SFU || pk.kind == FUNC_STEP_BRANCH ||
               pk.kind == FUNC_STEP_NOP;
  p->unit = pk.kind == FUNC_STEP_MEM ? (uint8_t)SIMT_UNIT_MEM
            : (pk.kind == FUNC_STEP_BARRIER || pk.kind == FUNC_STEP_FENCE) ? (uint8_t)AT_NO_UNIT
                                                                            : c->base.eff_unit[info->unit];
  p->flags = (uint8_t)(AT_KNOWN | (plain && p->unit < SIMT_UNIT_MEM ? AT_PLAIN : 0));
  p->bank_extra = bank_extra(c, info, w->prog->regs + info->regs);
  p->to_unit = (uint8_t)(AT_ISSUE_TO_UNIT - (info->n_src_rf == 0));
  p->n_deps = (uint8_t)(info->n_src + info->n_dst);
  p->n_dst = info->n_dst;
  p->fence = info->fence;
  p->regs = w->prog->regs + info->regs;
  p->ii = c->base.ii[info->lat_row][info->op];
  p->lat = c->base.lat[info->lat_row][info->op];
  /* -gpgpu_alu_forwarding: SP/DP/INT results reach a dependent AT_ISSUE_TO_UNIT cycles before
   * writeback, as in the CA core (simt_ca_pipe.c) */
  p->ready = c->base.cfg.alu_forwarding && p->unit <= SIMT_UNIT_INT
                 ? (p->lat > AT_ISSUE_TO_UNIT ? p->lat - AT_ISSUE_TO_UNIT : 0)
                 : p->lat;
  return p;
}

/* deps_ready for an instruction whose facts are known. */
static inline uint64_t deps_ready_at(const at_warp *w, const at_pc *p) {
  const uint32_t *r = p->regs;
  uint64_t t = 0;
  for (uint32_t i = 0; i < p->n_deps; i++) {
    uint64_t x = w->rr[r[i]];
    t = x > t ? x : t;
  }
  return t;
}

/* Ready time of every register the warp's next instruction reads or writes; AT_NEVER when one
 * is not known yet. */
static uint64_t deps_ready(const at_warp *w) {
  const simt_insn_info *info = &w->prog->info[w->pc];
  const uint32_t *r = w->prog->regs + info->regs;
  uint32_t n = (uint32_t)info->n_src + info->n_dst;
  uint64_t t = 0;
  for (uint32_t i = 0; i < n; i++)
    if (w->rr[r[i]] > t) t = w->rr[r[i]];
  return t;
}

/* The warp's next instruction may issue from `floor` on (waiting until then for reason `why`),
 * once its registers are ready: it goes into its scheduler's heap. */
static void schedule(at_core *c, uint32_t slot, uint64_t floor, uint8_t why) {
  at_warp *w = &c->warps[slot];
  if (!w->live || w->exited || w->wait || w->fetching) return;
  uint64_t d = deps_ready(w);
  if (d == AT_NEVER) { /* a result still on its way: at_result_known schedules it again */
    w->blocked = true;
    w->next = floor;
    heap_remove(c, slot);
    return;
  }
  w->blocked = false;
  heap_put(c, slot, at_max(floor, d), d > floor ? SIMT_R_SCOREBOARD : why);
}

static void finish_warp(at_core *c, uint32_t slot, uint64_t now) {
  at_warp *w = &c->warps[slot];
  heap_remove(c, slot);
  at_sched *s = &c->sched[w->sched];
  s->n_live--;
  w->live = false;
  c->n_live_warps--;
  simt_cta *cta = cta_of(c, w);
  simt_base_finish_warp(&c->base, cta, w->index);
  if (!cta->live) {
    if (!c->base.n_ctas) { /* the core empties: its schedulers' stalls are counted */
      simt_base_count_busy(&c->base, &c->busy_from, now);
      for (uint32_t i = 0; i < c->base.cfg.n_schedulers; i++) {
        at_sched *s = &c->sched[i];
        simt_base_count_stalls(&c->base, &s->from, &s->issued, s->gap, now);
      }
    }
  }
}

/* An exited warp is finished when its last result is in; a fenced warp goes on then. */
static void progress(at_core *c, uint32_t slot, uint64_t now) {
  at_warp *w = &c->warps[slot];
  if (!w->live || w->deferred) return; /* at_result_known calls again */
  if (w->last_done > now) {
    simt_heap_push(&c->finish, w->last_done, slot);
    return;
  }
  if (w->exited) {
    finish_warp(c, slot, now);
  } else if (w->wait == SIMT_WAIT_FENCE) {
    if (now > w->next) c->sched[w->sched].gap[SIMT_R_BARRIER] += now - w->next; /* the fence's wait */
    w->wait = SIMT_WAIT_NONE;
    schedule(c, slot, at_max(now, w->next), SIMT_R_BARRIER);
  }
}

void at_result_known(at_core *c, const at_mop *m, uint64_t at) {
  if (m->measure_from != AT_NEVER) { /* -at_sample: a measured access of the global kind */
    c->sample.lat_sum[AT_SK_GLOBAL] += at > m->measure_from ? at - m->measure_from : 0;
    c->sample.lat_n[AT_SK_GLOBAL]++;
  }
  at_warp *w = &c->warps[m->warp];
  if (!w->live) return;
  for (uint32_t i = 0; i < m->n_dst; i++) w->rr[m->dst[i]] = at;
  if (at > w->last_done) w->last_done = at;
  if (w->deferred) w->deferred--;
  if (w->blocked) schedule(c, m->warp, at_max(w->next, at), SIMT_R_SCOREBOARD);
  if (!w->deferred && (w->exited || w->wait == SIMT_WAIT_FENCE)) simt_heap_push(&c->finish, at_max(at, w->last_done), m->warp);
}

void at_fetch_known(at_core *c, uint32_t slot, uint64_t at) {
  at_warp *w = &c->warps[slot];
  if (!w->live || w->exited) return;
  w->fetching = false;
  schedule(c, slot, at_max(at, w->fence_hold), SIMT_R_IBUFFER);
}

/* ---- fetch ----------------------------------------------------------------------------------- */

/* The warp's I-buffer is empty after cycle t: a fetch of its pc (two instructions, one at the end
 * of a function or an L1I line) on the fetch port (one of -gpgpu_inst_fetch_throughput per cycle,
 * from t on), decoded the cycle after, issuing from the one after that (from the cycle after the
 * fetch when another fetch+decode step of that cycle is free to decode it). The cycle its instruction
 * may issue, AT_NEVER while the L1I waits for an event-driven memory system (at_fetch_known
 * schedules the warp then). */
static uint64_t fetch(at_core *c, uint32_t slot, uint64_t t, bool ff) {
  at_warp *w = &c->warps[slot];
  uint64_t f;
  uint32_t decode = 2;
  if (c->n_fetch == 1) {
    f = simtvp_cal_take1(&c->fetch_cal[0], t);
  } else {
    uint32_t best = 0;
    f = simtvp_cal_find(&c->fetch_cal[0], t, 1);
    for (uint32_t k = 1; k < c->n_fetch; k++) {
      uint64_t x = simtvp_cal_find(&c->fetch_cal[k], t, 1);
      if (x < f) f = x, best = k;
    }
    simtvp_cal_book(&c->fetch_cal[best], f, 1);
    /* another fetch+decode step free in the same cycle decodes it at once (issue from f + 1) */
    for (uint32_t k = 0; k < c->n_fetch && decode == 2; k++)
      if (k != best && !simtvp_cal_busy(&c->fetch_cal[k], f) && f >= c->fetch_cal[k].base) decode = 1;
  }
  at_pc *p = &w->pcs[w->pc];
  if (!p->fetch_n) { /* learnt once per pc (the CTA's code does not move) */
    if (!(p->flags & AT_KNOWN)) touch(c, w);
    uint64_t addr = cta_of(c, w)->code_base + (uint64_t)w->pc * FUNC_INSN_BYTES;
    const ptx_module *m = simt_program_module(w->prog);
    bool two = w->pc + 1 < m->n_insns && m->insns[w->pc + 1].function == m->insns[w->pc].function &&
               (addr % c->base.l1i_line) + 2 * FUNC_INSN_BYTES <= c->base.l1i_line;
    p->fetch_n = two ? 2 : 1;
    p->l1i_line = addr / c->base.l1i_line + 1;
  }
  w->ib_n = p->fetch_n;
  /* within the L1I line of its last lookup: no lookup (at_mem_fetch's own rule, without the call);
   * fast-forward (-at_sample): the L1I is not looked up (its port is still booked) */
  if (!c->base.l1i || p->l1i_line == w->line || ff) return f + decode;
  uint64_t got = at_mem_fetch(c, slot, f);
  return got == AT_NEVER ? AT_NEVER : got + decode;
}

/* ---- issue ----------------------------------------------------------------------------------- */

/* The unit of pipeline u in the warp's sub-core that takes an instruction first from cycle e on
 * for ii cycles: its index, and that cycle in *at. */
static inline uint32_t first_unit(at_core *c, uint32_t part, uint8_t u, uint64_t e, uint32_t ii, uint64_t *at) {
  simtvp_cal *cal = c->unit_cal[part][u];
  uint32_t best = 0;
  uint64_t bt = simtvp_cal_find(&cal[0], e, ii);
  for (uint32_t k = 1; k < c->n_unit[u] && bt > e; k++) {
    uint64_t x = simtvp_cal_find(&cal[k], e, ii);
    if (x < bt) bt = x, best = k;
  }
  *at = bt;
  return best;
}

/* Releases the CTA's warps waiting at barriers that completed: they go on the cycle after the
 * last arrival (their `next` holds their arrival). */
static void settle_barriers(at_core *c, simt_cta *cta, uint64_t t) {
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    const at_warp *x = &c->warps[cta->warp_slot[i]];
    if (simt_cta_holds(cta, i) && x->live && x->wait == SIMT_WAIT_BARRIER && x->next > t) t = x->next;
  }
  simt_base_settle_barriers(&c->base, cta, t);
}

/* The warp's instruction found pages not resident: each goes to the MMU through the kernel's
 * recorder; true = the warp waits (SIMT_WAIT_FAULT), false = no fault buffer (fatal; fault_since
 * then holds the address). */
static bool fault_wait(at_core *c, at_warp *w, uint64_t t) {
  uint64_t va;
  if (!simt_base_report_replayable_fault(&c->base, cta_of(c, w)->k, w->fw, t, &c->fault_stall, &c->fault_stall_scratch,
                                         &va)) {
    w->fault_since = va;
    return false;
  }
  w->wait = SIMT_WAIT_FAULT;
  w->fault_since = t;
  w->next = t + 1;
  return true;
}

/* Counts of the interval's instructions (simt_issue_batch: counted in runs when the warp has no
 * issue trace or per-pc profile). */
typedef simt_issue_batch at_counts;

static inline void count_issue(at_core *c, at_counts *k, uint32_t slot, uint32_t pc, uint32_t active, uint64_t t) {
  simt_batch_issue(&c->base, k, slot, pc, active, t);
}

/* The cycle the warp's next instruction issues (its scheduler's slot booked, its unit booked
 * and its results' ready times set for register-only work), from t0 on: §2's rules. */
static inline uint64_t issue_at(at_core *c, at_warp *w, at_sched *s, const at_pc *p, const uint32_t *dst,
                                uint64_t t0) {
  if (p->unit >= SIMT_UNIT_MEM) return simtvp_cal_take1(&s->issue, t0);
  uint32_t to_unit = p->to_unit + p->bank_extra, ii = p->ii;
  uint64_t e;
  uint32_t k = first_unit(c, w->part, p->unit, t0 + to_unit, ii, &e);
  uint64_t unit_wait = e - to_unit - t0, t = simtvp_cal_take1(&s->issue, e - to_unit);
  if (t + to_unit != e) k = first_unit(c, w->part, p->unit, t + to_unit, ii, &e);
  simtvp_cal_book(&c->unit_cal[w->part][p->unit][k], e, ii);
  if (p->bank_extra) *c->reg_bank_stalls += p->bank_extra;
  uint64_t wb = e + p->lat, ready = e + p->ready; /* ready: forwarding (pc_info) */
  for (uint32_t i = 0; i < p->n_dst; i++) w->rr[dst[i]] = ready;
  if (wb > w->last_done) w->last_done = wb;
  /* a wait for a unit booked by other instructions (the stall estimate, §4) */
  s->gap[SIMT_R_PIPE] += unit_wait;
  return t;
}

/* ---- sampled timing (-at_sample; docs/simt-at.md §6a) --------------------------------------- */

/* The period of cycle t (its index), and t's offset in it in *off. */
static inline uint64_t phase_of(at_sample *sp, uint64_t t, uint32_t *off) {
  if (t < sp->cached_start || t - sp->cached_start >= sp->period) {
    sp->cached_k = t / sp->period;
    sp->cached_start = sp->cached_k * sp->period;
  }
  *off = (uint32_t)(t - sp->cached_start);
  return sp->cached_k;
}

/* A warp instruction issued in detail at t: counted when t is in its period's measured window
 * (true then). */
static inline bool sample_count(at_core *c, uint64_t t) {
  at_sample *sp = &c->sample;
  uint32_t off;
  uint64_t k = phase_of(sp, t, &off);
  if (off < sp->win_from || off >= sp->win_to) return false;
  if (sp->meas_k != AT_NEVER && k < sp->meas_k) return false; /* (a straggler of an older window) */
  if (k != sp->meas_k) {
    sp->meas_k = k;
    sp->meas_insns = 0;
  }
  sp->meas_insns++;
  return true;
}

/* The kind of a memory instruction whose latency is measured (AT_SK_*). */
static int sample_kind(const func_step *st) {
  if (at_smem_only(st)) return AT_SK_SHARED;
  if (st->space == PTX_SPACE_CONST || st->space == PTX_SPACE_PARAM || st->space == PTX_SPACE_TEX) return AT_SK_CONST;
  return AT_SK_GLOBAL;
}

/* Whether an instruction that may issue at t fast-forwards: t is in a fast-forward phase whose
 * period's window measured the kernel now resident. Decided once per period, at its first
 * fast-forward instruction, which also fixes the memory latencies of the phase. */
static bool fast_forward(at_core *c, uint64_t t) {
  at_sample *sp = &c->sample;
  uint32_t off;
  uint64_t k = phase_of(sp, t, &off);
  if (off < sp->detail) return false;
  if (k != sp->ff_k) {
    sp->ff_k = k;
    uint64_t start = k * (uint64_t)sp->period;
    sp->ff_valid = sp->meas_k == k && sp->meas_insns >= AT_SAMPLE_MIN_INSNS &&
                   sp->resident_since <= start + sp->win_from;
    for (int i = 0; i < AT_SAMPLE_KINDS; i++) {
      uint64_t sum = sp->lat_sum[i], n = sp->lat_n[i];
      if (i == AT_SK_GLOBAL && sp->out_n && t * sp->out_n >= sp->out_from_sum) { /* as far as they got */
        sum += t * sp->out_n - sp->out_from_sum;
        n += sp->out_n;
      }
      sp->lat[i] = n ? (sum + n / 2) / n : 0;
      sp->hold[i] = sp->hold_n[i] ? (uint32_t)((sp->hold_sum[i] + sp->hold_n[i] / 2) / sp->hold_n[i]) : 0;
    }
    if (sp->ff_valid) ++*sp->ff_phases;
  }
  return sp->ff_valid;
}

/* Runs warp `slot` from its `next` cycle: instruction after instruction while each may issue by
 * `limit`. */
static void run_warp_body(at_core *c, uint32_t slot, uint64_t limit, at_counts *k) {
  at_warp *w = &c->warps[slot];
  at_sched *s = &c->sched[w->sched];
  heap_remove(c, slot);
  for (;;) {
    const at_pc *p = pc_info(c, w);
    if (!p) return;
    uint64_t d = deps_ready_at(w, p);
    if (d == AT_NEVER) {
      w->blocked = true;
      return;
    }
    uint8_t why = w->why;
    uint64_t t0 = w->next;
    if (d > t0) t0 = d, why = SIMT_R_SCOREBOARD;
    if (t0 > limit) {
      heap_put(c, slot, t0, why);
      return;
    }
    const uint32_t *dst = p->regs + (p->n_deps - p->n_dst);
    uint32_t pc = w->pc;
    /* Why the warp waited (the stall estimate, §4): until t0 for its registers or its front end /
     * barrier, then for a busy unit (issue_at). Cycles it lost to other warps issuing are none of
     * the scheduler's stalls. */
    if (t0 > w->next) s->gap[why] += t0 - w->next;
    /* -at_sample: in a fast-forward phase, no L1I lookups and no memory system */
    bool ff = c->sample.period && fast_forward(c, t0);
    uint64_t t = issue_at(c, w, s, p, dst, t0);
    s->issued++;
    simtvp_diag dg;
    if (p->flags & AT_PLAIN) {
      /* register-only work: no step record, no barrier, fence, exit or page fault (those come
       * from memory accesses) */
      uint32_t active = func_warp_active(w->fw);
      simtvp_status st = func_warp_step(w->fw, NULL, &dg);
      if (st != SIMTVP_OK) {
        simt_base_fault_cta(&c->base, cta_of(c, w), w->fw, st, &dg, t);
        return;
      }
      count_issue(c, k, slot, pc, active, t);
      uint32_t next_pc = func_warp_pc(w->fw);
      w->pc = next_pc;
      w->why = SIMT_R_IBUFFER;
      if (ff) {
        ++*c->sample.ff_insn;
      } else if (c->sample.period) {
        sample_count(c, t);
      }
      /* the I-buffer: the next instruction is there the next cycle; a control hazard flushes it */
      if (next_pc != pc + 1 || w->ib_n <= 1) w->ib_n = 0;
      else w->ib_n--;
      w->next = t + 1;
      if (!w->ib_n) { /* an empty I-buffer fetches (in this cycle, after issue) */
        uint64_t dec = fetch(c, slot, t, ff);
        if (dec == AT_NEVER) {
          w->fetching = true;
          return;
        }
        w->next = dec;
      }
      if (w->heap_pos != AT_NONE) return;
      continue;
    }
    func_step rec;
    simtvp_status st = func_warp_step(w->fw, &rec, &dg);
    uint32_t active = rec.active;
    if (st == SIMTVP_OK && func_warp_get_state(w->fw) == FUNC_WARP_FAULT_WAIT) {
      /* a replayable fault (unified memory): nothing issued (the issue slot was spent finding
       * it); the warp waits, unscheduled, for the replay and then issues the instruction again */
      s->issued--;
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
    count_issue(c, k, slot, pc, active, t);
    bool measure = false;
    if (ff) ++*c->sample.ff_insn;
    else if (c->sample.period) measure = sample_count(c, t);
    if (p->unit == SIMT_UNIT_MEM && rec.kind == FUNC_STEP_MEM) {
      simt_base_count_mem_insn(&c->base, &rec);
      at_sample *sp = &c->sample;
      int kind = sp->period ? sample_kind(&rec) : 0;
      uint64_t done;
      if (ff && sp->hold[kind] && (sp->lat[kind] || !p->n_dst)) {
        /* the measured stage occupancy and latency of its kind; nothing is sent */
        done = at_mem_hold(c, t + p->to_unit, sp->hold[kind]) + sp->lat[kind];
      } else {
        bool timed = measure && p->n_dst; /* loads and atomics: their latency */
        sp->stage_from = timed ? t + p->to_unit : AT_NEVER; /* (a deferred one: at_result_known) */
        done = at_mem_issue(c, slot, &rec, t + p->to_unit);
        sp->stage_from = AT_NEVER;
        if (measure) {
          sp->hold_sum[kind] += c->stage_held;
          sp->hold_n[kind]++;
        }
        if (timed && done != AT_NEVER) {
          sp->lat_sum[kind] += done - c->stage_at;
          sp->lat_n[kind]++;
        }
      }
      /* AT_NEVER: its result is not timed yet; at_result_known releases the registers */
      for (uint32_t i = 0; i < p->n_dst; i++) w->rr[dst[i]] = done;
      if (done != AT_NEVER && done > w->last_done) w->last_done = done;
    }
    w->pc = rec.next_pc;
    w->why = SIMT_R_IBUFFER;
    if (rec.next_pc != pc + 1 || w->ib_n <= 1) w->ib_n = 0;
    else w->ib_n--;
    w->next = t + 1;
    switch (rec.kind) {
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
       * fences (and SIMT_FENCE_DRAIN waits) also wait for the warp's results and acks */
      if (p->fence < GPU_FENCE_N) w->fence_hold = t + c->base.cfg.fence_latency[p->fence];
      if (p->fence >= GPU_FENCE_GPU && (w->deferred || w->last_done > t)) w->wait = SIMT_WAIT_FENCE;
      break;
    default:
      break;
    }
    if (rec.warp_done) { /* every thread exited: may complete a barrier the others wait at */
      w->exited = true;
      cta_of(c, w)->check_bars = true;
      progress(c, slot, t);
    } else if (w->wait) {
      if (w->wait == SIMT_WAIT_FENCE) progress(c, slot, t);
    } else if (!w->ib_n) { /* an empty I-buffer fetches (in this cycle, after issue) */
      uint64_t dec = fetch(c, slot, t, ff);
      if (dec == AT_NEVER) w->fetching = true;
      else w->next = dec;
    }
    if (w->fence_hold > w->next) w->next = w->fence_hold; /* a fence's scope latency */
    simt_cta *cta = cta_of(c, w);
    if (cta->check_bars) settle_barriers(c, cta, t);
    if (!w->live || w->exited || w->wait || w->fetching || w->heap_pos != AT_NONE) return;
  }
}

static void run_warp(at_core *c, uint32_t slot, uint64_t limit) {
  at_counts k = {simt_base_issue_batchable(&c->base, slot), 0, 0};
  run_warp_body(c, slot, limit, &k);
  simt_batch_flush(&c->base, &k);
}

/* ---- time ------------------------------------------------------------------------------------ */

static uint64_t compute_next(const at_core *c) {
  uint64_t t = at_min(simt_heap_top(&c->finish), simt_heap_top(&c->wake));
  for (uint32_t i = 0; i < c->base.cfg.n_schedulers; i++)
    if (c->sched[i].n) t = at_min(t, c->warps[c->sched[i].heap[0]].next);
  return at_min(t, at_mem_next(c));
}

static void run_until(at_core *c, uint64_t end) {
  uint64_t limit = end + AT_WINDOW;
  for (;;) {
    uint64_t tf = simt_heap_top(&c->finish), tw = simt_heap_top(&c->wake), t = at_min(tf, tw);
    uint32_t best = AT_NONE;
    for (uint32_t i = 0; i < c->base.cfg.n_schedulers; i++) {
      const at_sched *s = &c->sched[i];
      if (s->n && c->warps[s->heap[0]].next < t) t = c->warps[s->heap[0]].next, best = i;
    }
    if (t > end || t == AT_NEVER) break;
    if (tw == t) { /* released from a barrier or fence */
      uint32_t slot = simt_heap_pop(&c->wake);
      at_warp *w = &c->warps[slot];
      if (w->live && !w->exited && !w->wait) {
        uint64_t dec = w->ib_n ? t : fetch(c, slot, t > 0 ? t - 1 : 0, false);
        if (dec == AT_NEVER) w->fetching = true;
        else schedule(c, slot, at_max(t, dec), SIMT_R_BARRIER);
      }
    } else if (tf == t) {
      progress(c, simt_heap_pop(&c->finish), t);
    } else {
      run_warp(c, c->sched[best].heap[0], limit);
    }
  }
  if (c->base.done_until <= end) c->base.done_until = end + 1;
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
  const char *state = !w->live ? "finished" : w->exited ? "exited" : w->wait == SIMT_WAIT_BARRIER ? "barrier"
                      : w->wait == SIMT_WAIT_FENCE ? "fence" : w->wait == SIMT_WAIT_FAULT ? "page fault"
                      : w->fetching ? "fetching"
                      : w->blocked ? "waiting for memory" : "ready";
  simt_warp_view v;
  warp_view(b, slot, &v);
  int k = simt_warp_line_head(buf, n, m, w->index, slot, w->sched, state, &v, w->pc);
  if (k > 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, ", %s%" PRIu64 ", %u memory results outstanding",
             w->heap_pos == AT_NONE ? "not scheduled, last ready at " : "ready at ", w->next, w->deferred);
}

static void barrier_released(simt_core_base *b, uint32_t slot, uint64_t now) {
  at_core *c = (at_core *)b;
  at_warp *w = &c->warps[slot];
  /* the wait from its arrival (its `next`) to the release is a barrier stall of its scheduler */
  if (now + 1 > w->next) c->sched[w->sched].gap[SIMT_R_BARRIER] += now + 1 - w->next;
  c->warps[slot].wait = SIMT_WAIT_NONE;
  c->warps[slot].why = SIMT_R_BARRIER;
  simt_heap_push(&c->wake, now + 1, slot);
}

static bool grow_rr(at_core *c, uint32_t stride);

static bool fit_kernel(simt_core_base *b, uint32_t cta_slot, const simt_kernel *k) {
  at_core *c = (at_core *)b;
  if (k->program->n_reg_ids > c->rr_stride && !grow_rr(c, k->program->n_reg_ids)) return false;
  at_cta_units *u = &c->cta_units[cta_slot];
  void *pcs = u->pcs;
  bool ok = simt_pc_table_fit(&pcs, &u->touched, &u->n_touched, &u->cap, simt_program_module(k->program)->n_insns,
                              sizeof *u->pcs);
  u->pcs = pcs;
  return ok;
}

/* Ends a CTA early (fault, deadlock): its warps issue nothing more; it is reported when their
 * results are in. */
static void abort_cta(simt_core_base *b, simt_cta *cta, const gpu_cta_result *r, uint64_t now) {
  at_core *c = (at_core *)b;
  if (cta->aborting) return;
  cta->aborting = true;
  cta->result = *r;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    uint32_t slot = cta->warp_slot[i];
    at_warp *w = &c->warps[slot];
    if (!simt_cta_holds(cta, i) || !w->live) continue; /* finished: the slot may be another CTA's */
    w->exited = true;
    w->wait = SIMT_WAIT_NONE;
    heap_remove(c, slot);
    simt_heap_push(&c->finish, at_max(w->last_done, now), slot);
  }
}

static const simt_variant_hooks at_hooks = {warp_view, fit_kernel, barrier_released, abort_cta, warp_line};

/* ---- ops ------------------------------------------------------------------------------------- */

static void at_destroy(void *state);

static bool grow_rr(at_core *c, uint32_t stride) {
  uint64_t *rr = simt_base_regrow_ready(&c->base, c->rr, c->rr_stride, stride, true);
  if (!rr) return false;
  c->rr = rr;
  c->rr_stride = stride;
  for (uint32_t w = 0; w < c->base.cfg.max_warps; w++) c->warps[w].rr = rr + (size_t)w * stride;
  return true;
}

static simtvp_status at_create(const simt_core_config *cfg, simt_core_ports ports, void **state,
                               simtvp_diag *diag) {
  *state = NULL;
  /* (-at_sample is checked by gpu_config; a core configured directly is checked here) */
  if (cfg->sample_period && (cfg->sample_detail < 4 * AT_WINDOW || cfg->sample_period <= cfg->sample_detail))
    return simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: -at_sample %u,%u: the detail phase must be at "
                           "least %u core cycles and shorter than the period", cfg->sm, cfg->sample_detail,
                           cfg->sample_period, 4 * AT_WINDOW);
  at_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  simtvp_status st = simt_base_init(&c->base, cfg, ports, &at_hooks, diag);
  if (st != SIMTVP_OK) {
    free(c);
    return st;
  }
  c->next = AT_NEVER;
  c->fault_stall = &c->fault_stall_scratch;
  at_sample *sp = &c->sample;
  sp->meas_k = sp->ff_k = sp->kernel_uid = sp->stage_from = AT_NEVER;
  if (cfg->sample_period) {
    sp->detail = cfg->sample_detail;
    sp->period = cfg->sample_period;
    sp->win_from = sp->detail / 2;
    sp->win_to = sp->detail - 2 * AT_WINDOW;
    sp->ff_insn = simt_base_counter(&c->base, "at_sample_ff_warp_insn", "warp insns",
                                    "warp instructions fast-forwarded (-at_sample): executed, not timed in detail");
    sp->ff_phases = simt_base_counter(&c->base, "at_sample_ff_phases", "phases",
                                      "fast-forward phases SIMT cores took (-at_sample; summed over cores)");
  }
  simt_base_register_ldst_stall(&c->base);
  c->smem_conflicts = simt_base_counter(&c->base, "gpgpu_n_shmem_bkconflict", "cycles",
                                        "extra shared-memory cycles caused by bank conflicts");
  st = simt_base_init_pipeline(&c->base, diag);
  if (st == SIMTVP_OK) st = at_smem_init(c, diag);
  if (st != SIMTVP_OK) {
    at_destroy(c);
    return st;
  }
  uint32_t P = c->base.n_parts;
  c->banks_per_part = cfg->reg_banks / P ? cfg->reg_banks / P : 1;
  c->reg_bank_stalls = simt_base_counter(&c->base, "gpu_reg_bank_conflict_stalls", "cycles",
                                         "cycles register reads waited for a bank port");
  for (int u = 0; u < SIMT_UNIT_MEM; u++) {
    uint32_t lo[SIMT_MAX_SCHEDULERS], hi[SIMT_MAX_SCHEDULERS];
    simt_base_share(cfg->n_units[u] ? cfg->n_units[u] : 1, P, lo, hi);
    uint32_t n = hi[0] - lo[0];
    c->n_unit[u] = n < 1 ? 1 : n > AT_MAX_ITEMS ? AT_MAX_ITEMS : n;
  }
  c->n_fetch = cfg->fetch_throughput < 1 ? 1u : cfg->fetch_throughput > AT_MAX_ITEMS ? AT_MAX_ITEMS
                                                                                      : cfg->fetch_throughput;
  c->warps = calloc(cfg->max_warps, sizeof *c->warps);
  c->cta_units = calloc(cfg->max_ctas, sizeof *c->cta_units);
  c->fetch_wait = calloc(cfg->max_warps, sizeof *c->fetch_wait);
  bool ok = c->warps && c->cta_units && c->fetch_wait;
  for (uint32_t s = 0; ok && s < cfg->n_schedulers; s++) {
    c->sched[s].heap = calloc(cfg->max_warps, sizeof *c->sched[s].heap);
    ok = c->sched[s].heap != NULL;
  }
  for (uint32_t part = 0; ok && part < P; part++)
    for (int u = 0; ok && u < SIMT_UNIT_MEM; u++) {
      c->unit_cal[part][u] = calloc(c->n_unit[u], sizeof(simtvp_cal));
      ok = c->unit_cal[part][u] != NULL;
    }
  if (!ok) {
    at_destroy(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  }
  for (uint32_t i = 0; i < cfg->max_warps; i++) c->warps[i].heap_pos = AT_NONE;
  st = simt_base_attach(&c->base, NULL, diag); /* the memory path is this variant's own */
  if (st == SIMTVP_OK) st = at_mem_init(c, diag);
  if (st != SIMTVP_OK) {
    at_destroy(c);
    return st;
  }
  *state = c;
  return SIMTVP_OK;
}

static void at_destroy(void *state) {
  at_core *c = state;
  if (!c) return;
  at_mem_free(c);
  simt_base_destroy(&c->base);
  at_smem_free(c);
  for (uint32_t s = 0; s < SIMT_MAX_SCHEDULERS; s++) free(c->sched[s].heap);
  free(c->warps);
  for (uint32_t i = 0; c->cta_units && i < c->base.cfg.max_ctas; i++) {
    free(c->cta_units[i].pcs);
    free(c->cta_units[i].touched);
  }
  free(c->cta_units);
  free(c->fetch_wait);
  for (uint32_t part = 0; part < SIMT_MAX_SCHEDULERS; part++)
    for (int u = 0; u < SIMT_UNIT_N; u++) free(c->unit_cal[part][u]);
  free(c->rr);
  free(c->finish.v);
  free(c->wake.v);
  free(c);
}

/* Everything before now is done; calls that hand the core something at now come after. */
static void catch_up(at_core *c, uint64_t now) {
  if (now > 0) run_until(c, now - 1);
}

static void end_call(at_core *c, uint64_t now) {
  simt_base_flush_reports(&c->base, now);
  c->next = compute_next(c);
}

static simtvp_status at_launch_cta(void *state, const simt_kernel *k, const uint32_t id[3], uint64_t now,
                                   simtvp_diag *diag) {
  at_core *c = state;
  catch_up(c, now);
  uint32_t ci, nw, slots[SIMT_MAX_CTA_WARPS];
  bool was_empty = !c->base.n_ctas;
  simtvp_status st = simt_base_start_cta(&c->base, k, id, &ci, slots, &nw, diag);
  if (st != SIMTVP_OK) return st;
  at_sample *sp = &c->sample;
  if (sp->period && (was_empty || k->launch_uid != sp->kernel_uid)) {
    /* a measurement is valid for what was resident over its whole window; another kernel has no
     * rate yet: detail for the rest of this fast-forward phase */
    uint32_t off;
    if (k->launch_uid != sp->kernel_uid) {
      if (phase_of(sp, now, &off) == sp->ff_k) sp->ff_valid = false;
      memset(sp->lat_sum, 0, sizeof sp->lat_sum);
      memset(sp->lat_n, 0, sizeof sp->lat_n); /* (accesses still out keep counting: the same memory) */
      memset(sp->hold_sum, 0, sizeof sp->hold_sum);
      memset(sp->hold_n, 0, sizeof sp->hold_n);
    }
    sp->kernel_uid = k->launch_uid;
    sp->resident_since = now;
  }
  if (c->base.n_ctas == 1) {
    c->busy_from = at_max(c->busy_from, now);
    for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) c->sched[s].from = at_max(c->sched[s].from, now);
  }
  simt_cta *cta = &c->base.ctas[ci];
  for (uint32_t i = 0; i < nw; i++) {
    uint32_t slot = slots[i];
    at_warp *w = &c->warps[slot];
    uint64_t *rr = w->rr;
    memset(w, 0, sizeof *w);
    w->rr = rr;
    memset(rr, 0, c->rr_stride * sizeof *rr);
    w->heap_pos = AT_NONE;
    w->live = true;
    w->fw = func_cta_warp(cta->fc, i);
    w->prog = k->program;
    w->pcs = c->cta_units[ci].pcs;
    w->cta = ci;
    w->index = i;
    w->sched = slot % c->base.cfg.n_schedulers;
    w->part = c->base.cfg.sub_core ? w->sched : 0;
    w->age = c->next_age++;
    c->sched[w->sched].n_live++;
    c->n_live_warps++;
    /* each running kernel's parameters get their own 64 KiB of the parameter window */
    c->param_of[slot] = FUNC_WINDOW_PARAM + (uint64_t)k->slot * 0x10000u;
    func_peek pk;
    if (!func_warp_peek(w->fw, &pk)) { /* nothing to run */
      w->exited = true;
      simt_heap_push(&c->finish, now, slot);
      continue;
    }
    w->pc = pk.pc;
    cta->code_base = pk.fetch_addr - (uint64_t)pk.pc * FUNC_INSN_BYTES;
  }
  /* the first fetches */
  for (uint32_t i = 0; i < nw; i++) {
    at_warp *w = &c->warps[slots[i]];
    if (w->exited) continue;
    uint64_t dec = fetch(c, slots[i], now, false);
    if (dec == AT_NEVER) w->fetching = true;
    else schedule(c, slots[i], dec, SIMT_R_IBUFFER);
  }
  end_call(c, now);
  return SIMTVP_OK;
}

static bool at_mem_reply_op(void *state, mem_req *reply, uint64_t now) {
  at_core *c = state;
  catch_up(c, now);
  at_mem_reply(c, reply, now);
  end_call(c, now);
  return true;
}

/* A timed reply: its cycle is known, however far ahead; nothing waits for it to be due. */
static bool at_mem_reply_at_op(void *state, mem_req *reply, uint64_t at) {
  at_core *c = state;
  at_mem_reply(c, reply, at);
  c->next = compute_next(c);
  return true;
}

/* MMU_REPLAY: the warps waiting on replayable faults are scheduled again from the next cycle
 * (cancel: their CTAs end with a fault). */
static void at_replay(void *state, bool cancel, uint64_t now) {
  at_core *c = state;
  catch_up(c, now);
  for (uint32_t slot = 0; slot < c->base.cfg.max_warps; slot++) {
    at_warp *w = &c->warps[slot];
    if (!w->live || w->wait != SIMT_WAIT_FAULT) continue;
    *c->fault_stall += now > w->fault_since ? now - w->fault_since : 0;
    w->wait = SIMT_WAIT_NONE;
    func_warp_retry(w->fw);
    if (cancel) {
      simt_base_cancel_replay(&c->base, cta_of(c, w), now);
      continue;
    }
    if (now + 1 > w->next) w->next = now + 1;
    simt_heap_push(&c->wake, now + 1, slot);
  }
  end_call(c, now);
}

static void at_advance(void *state, uint64_t now) {
  at_core *c = state;
  run_until(c, now);
  at_mem_send_due(c, now);
  end_call(c, now);
}

static uint64_t at_next_event(const void *state) {
  const at_core *c = state;
  return c->next == AT_NEVER ? AT_NEVER : at_max(c->next, c->base.done_until);
}

static bool at_idle(const void *state) {
  const at_core *c = state;
  return !c->base.n_ctas && at_mem_idle(c) && simt_base_memory_idle(&c->base);
}

static uint32_t at_resident(const void *state) { return ((const at_core *)state)->base.n_ctas; }

static uint32_t at_flush(void *state, uint64_t now) {
  at_core *c = state;
  catch_up(c, now);
  uint32_t n = at_mem_flush(c, now);
  c->next = compute_next(c);
  return n;
}

static void at_dump(const void *state, void (*line)(void *ctx, const char *text), void *ctx) {
  const at_core *c = state;
  char buf[512];
  snprintf(buf, sizeof buf,
           "SIMT core %u (at) at cycle %" PRIu64 ": %u CTAs, %u warps; %u memory instructions and %u fetches "
           "wait for the memory system, %u requests wait for the port",
           c->base.cfg.sm, c->base.done_until ? c->base.done_until - 1 : 0, c->base.n_ctas, c->n_live_warps,
           at_mem_waiting(c),
           c->live_fetches, c->n_out);
  simt_base_dump(&c->base, buf, line, ctx);
}

const simt_core_ops simt_at_ops = {"at",       at_create,     at_destroy, at_launch_cta, at_mem_reply_op,
                                   at_advance, at_next_event, at_idle,    at_resident,   at_flush,
                                   at_dump,    at_mem_reply_at_op, at_replay};
