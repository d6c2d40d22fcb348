/* simt_at_issue — the issue stage of the approximately-timed SIMT core: warp schedulers, the
 * scoreboard as register ready times, and the path of an issued instruction through the operand
 * collector and its execution unit computed as times (docs/simt-at.md §2).
 *
 * An instruction issued at cycle t by sub-core p, with the CA core's stage rules (docs/simt.md §3):
 *   ID_OC  a slot of its pipeline must be free at t; it is freed when the instruction gets a
 *          collector unit:           a = max(t + 1, earliest free collector unit of p)
 *   reads  one per register-file source; source s reads at max(a + 1, next free port of its
 *          bank); r = the last read (a without reads)
 *   OC_EX  o = max(r + 1, earliest free OC_EX slot of its pipeline); the collector unit is free at o
 *   unit   e = max(o + 1, earliest free unit of its pipeline); the unit takes nothing else until
 *          e + II, the OC_EX slot is free at e; the result is written back at wb = e + L, when a
 *          dependent instruction may issue (the register's ready time).
 * A memory instruction may enter the LDST unit from o + 1 (the memory queue, simt_at.c); its
 * destination registers are ready when the unit completes it. Without conflicts a dependent chain
 * of one-source instructions costs L + 4 cycles per instruction, as on the CA core. What the CA core
 * has and this does not: result-bus limits, register-bank writes, collector-unit port limits, and
 * the exact OC_EX back-pressure of memory instructions (bounded instead by mem_slots queued
 * memory instructions per sub-core). */
#include <stdlib.h>
#include <string.h>

#include "simt_at_internal.h"

/* ---- resources ------------------------------------------------------------------------------- */

/* n resources over `parts` sub-cores: each gets its share when there are enough, else sub-core p
 * uses resource p mod n (the CA core's rule). */
static bool res_init(at_res *r, uint32_t n, uint32_t parts) {
  r->n = n;
  r->free = calloc(n ? n : 1, sizeof *r->free);
  if (!r->free) return false;
  simt_base_share(n, parts, r->lo, r->hi);
  for (uint32_t p = 0; p < parts; p++)
    if (r->hi[p] - r->lo[p] > AT_MAX_ITEMS) r->hi[p] = r->lo[p] + AT_MAX_ITEMS;
  return true;
}

/* The resource of sub-core p that is free first. */
static uint32_t res_first(const at_res *r, uint32_t p) {
  uint32_t best = r->lo[p];
  for (uint32_t i = r->lo[p] + 1; i < r->hi[p]; i++)
    if (r->free[i] < r->free[best]) best = i;
  return best;
}

/* A read port of bank b at cycle `from` or later. */
static uint64_t bank_read(at_core *c, uint32_t b, uint64_t from) {
  if (from > c->bank_cycle[b]) {
    c->bank_cycle[b] = from;
    c->bank_used[b] = 0;
  }
  if (c->bank_used[b] == c->base.cfg.reg_ports) {
    c->bank_cycle[b]++;
    c->bank_used[b] = 0;
  }
  c->bank_used[b]++;
  return c->bank_cycle[b];
}

/* Earliest cycle the warp's next instruction finds room in its pipeline (ID_OC slot; for memory
 * instructions also a memory-queue place of its sub-core); AT_NEVER until the LDST unit takes one. */
static uint64_t res_time(const at_core *c, const at_warp *w) {
  uint8_t u = w->unit;
  if (u == AT_NO_UNIT) return 0;
  if (u == SIMT_UNIT_MEM && c->memq_part[w->part] >= c->mem_slots) return AT_NEVER;
  const at_res *r = &c->idoc[u];
  return r->free[res_first(r, w->part)];
}

/* Operand collector of an instruction issued at t: returns o (the cycle it reaches OC_EX) and the
 * OC_EX slot it holds. */
static uint64_t collect(at_core *c, const at_warp *w, uint32_t slot, uint8_t unit, const uint32_t *src,
                        uint32_t n_rf, uint64_t t, uint32_t *ocex_item) {
  uint32_t p = w->part;
  at_res *id = &c->idoc[unit], *cu = &c->cus[c->base.set_of_unit[unit]], *ox = &c->ocex[unit];
  uint32_t i = res_first(id, p), j = res_first(cu, p);
  uint64_t a = at_max(t + 1, cu->free[j]);
  id->free[i] = a;
  uint64_t r = a;
  uint32_t base = p * c->banks_per_part, warp_off = c->base.cfg.reg_bank_use_warp_id ? slot : 0u;
  for (uint32_t k = 0; k < n_rf; k++) {
    uint64_t rt = bank_read(c, base + (src[k] + warp_off) % c->banks_per_part, a + 1);
    if (rt > r) r = rt;
  }
  uint32_t k = res_first(ox, p);
  uint64_t o = at_max(r + 1, ox->free[k]);
  cu->free[j] = o;
  *ocex_item = k;
  return o;
}

/* ---- memory instructions --------------------------------------------------------------------- */

static bool grow_mops(at_core *c) {
  uint32_t n = c->n_mops_cap ? c->n_mops_cap * 2 : 32;
  at_mop *m = realloc(c->mops, (size_t)n * sizeof *m);
  if (!m) return false;
  c->mops = m;
  func_step *s = realloc(c->steps, (size_t)n * sizeof *s);
  if (!s) return false;
  c->steps = s;
  for (uint32_t i = c->n_mops_cap; i < n; i++) m[i].next = i + 1 < n ? i + 1 : c->mop_free;
  c->mop_free = c->n_mops_cap;
  c->n_mops_cap = n;
  return true;
}

uint32_t at_mop_alloc(at_core *c) {
  if (c->mop_free == AT_NONE && !grow_mops(c)) return AT_NONE;
  uint32_t id = c->mop_free;
  c->mop_free = c->mops[id].next;
  c->mops[id].prev = c->mops[id].next = AT_NONE;
  return id;
}

void at_mop_release(at_core *c, uint32_t id) {
  c->mops[id].next = c->mop_free;
  c->mop_free = id;
}

/* Into the memory queue, ordered by the cycle it may enter the LDST unit (then by issue). */
static void memq_insert(at_core *c, uint32_t id) {
  at_mop *m = &c->mops[id];
  uint32_t after = c->memq_tail;
  while (after != AT_NONE && c->mops[after].ready > m->ready) after = c->mops[after].prev;
  m->prev = after;
  m->next = after == AT_NONE ? c->memq_head : c->mops[after].next;
  if (m->next != AT_NONE) c->mops[m->next].prev = id;
  else c->memq_tail = id;
  if (after != AT_NONE) c->mops[after].next = id;
  else c->memq_head = id;
  c->memq_n++;
  c->memq_part[m->part]++;
}

/* ---- warps ----------------------------------------------------------------------------------- */

void at_warp_refresh(at_core *c, uint32_t slot) {
  at_warp *w = &c->warps[slot];
  if (!w->live || w->exited || w->wait) {
    at_set_ready(c, w, AT_NEVER);
    return;
  }
  const simt_program *p = w->prog;
  const simt_insn_info *info = &p->info[w->pc];
  uint8_t unit = w->unit_of[w->pc];
  if (unit == AT_UNIT_UNKNOWN) { /* the engine's class of the instruction (static per pc) */
    func_peek pk;
    if (!func_warp_peek(w->fw, &pk) || pk.pc != w->pc) {
      at_set_ready(c, w, AT_NEVER);
      return;
    }
    unit = pk.kind == FUNC_STEP_MEM                                      ? (uint8_t)SIMT_UNIT_MEM
           : (pk.kind == FUNC_STEP_BARRIER || pk.kind == FUNC_STEP_FENCE) ? (uint8_t)AT_NO_UNIT
                                                                          : c->base.eff_unit[info->unit];
    w->unit_of[w->pc] = unit;
  }
  w->unit = unit;
  /* RAW and WAW: every register it reads or writes (guard predicate and carry flag included) */
  const uint32_t *r = p->regs + info->regs;
  uint32_t n = (uint32_t)info->n_src + info->n_dst;
  uint64_t sb = 0;
  for (uint32_t i = 0; i < n; i++)
    if (w->rr[r[i]] > sb) sb = w->rr[r[i]];
  w->sb_time = sb;
  at_set_ready(c, w, at_max(at_max(w->ib_time, sb), w->next_issue));
}

void at_wake(at_core *c, uint32_t slot, uint64_t floor) {
  at_warp_refresh(c, slot);
  const at_warp *w = &c->warps[slot];
  if (w->ready == AT_NEVER) return;
  uint64_t t = at_max(w->ready, floor);
  if (t < c->sched_next[w->sched]) c->sched_next[w->sched] = t;
}

/* ---- issue ----------------------------------------------------------------------------------- */

enum { ISS_OK, ISS_PIPE, ISS_GONE };

static int issue(at_core *c, uint32_t slot, uint64_t t) {
  at_warp *w = &c->warps[slot];
  const simt_program *p = w->prog;
  if (!w->ib_n || w->ib_pc != w->pc) { /* out of step with the engine: refetch */
    w->ib_n = 0;
    w->fetch_pc = w->pc;
    at_fetch_request(c, slot, t);
    at_warp_refresh(c, slot);
    return ISS_GONE;
  }
  uint8_t unit = w->unit;
  uint32_t mop = AT_NONE;
  func_step *rec = &c->scratch_step;
  if (unit == SIMT_UNIT_MEM) {
    if ((mop = at_mop_alloc(c)) == AT_NONE) return ISS_PIPE;
    rec = &c->steps[mop];
  }
  simtvp_diag d;
  simtvp_status st = func_warp_step(w->fw, rec, &d);
  if (st != SIMTVP_OK) {
    if (mop != AT_NONE) at_mop_release(c, mop);
    simt_base_fault_cta(&c->base, &c->base.ctas[w->cta], w->fw, st, &d, t);
    return ISS_GONE;
  }
  simt_base_count_issue(&c->base, slot, rec->pc, rec->active, t);
  w->next_issue = t + 1;
  w->pc = rec->next_pc;
  /* the I-buffer: pop the head; a control hazard flushes what follows; empty → fetch */
  w->ib_n--;
  w->ib_pc++;
  if (!rec->warp_done) {
    if (w->ib_n && w->ib_pc != rec->next_pc) w->ib_n = 0;
    if (!w->ib_n) {
      w->fetch_pc = rec->next_pc;
      at_fetch_request(c, slot, t);
    }
  }
  /* when: the operand collector and the unit, by times */
  const simt_insn_info *info = &p->info[rec->pc];
  const uint32_t *regs = p->regs + info->regs;
  if (unit != AT_NO_UNIT) {
    uint32_t k;
    uint64_t o = collect(c, w, slot, unit, regs, info->n_src_rf, t, &k);
    if (unit == SIMT_UNIT_MEM) {
      at_mop *m = &c->mops[mop];
      m->ready = o + 1;
      m->warp = slot;
      m->part = w->part;
      m->dst = regs + info->n_src;
      m->n_dst = info->n_dst;
      c->ocex[unit].free[k] = o + 1;
      for (uint32_t i = 0; i < info->n_dst; i++) w->rr[m->dst[i]] = AT_NEVER;
      w->inflight_mem++;
      memq_insert(c, mop);
    } else {
      at_res *u = &c->units[unit];
      uint32_t ui = res_first(u, w->part);
      uint64_t e = at_max(o + 1, u->free[ui]);
      u->free[ui] = e + c->base.ii[info->lat_row][info->op];
      c->ocex[unit].free[k] = e;
      uint64_t wb = e + c->base.lat[info->lat_row][info->op];
      for (uint32_t i = 0; i < info->n_dst; i++) w->rr[regs[info->n_src + i]] = wb;
      if (wb > w->last_wb) w->last_wb = wb;
    }
  }
  switch (rec->kind) {
  case FUNC_STEP_BARRIER:
    if (rec->barrier_wait) {
      w->wait = SIMT_WAIT_BARRIER;
      w->bar_id = rec->barrier_id;
      w->bar_pc = rec->pc;
    }
    c->base.ctas[w->cta].check_bars = c->any_check_bars = true;
    break;
  case FUNC_STEP_FENCE:
    if (w->inflight_mem || w->mem_done > t || c->base.lif->pending_stores(c->base.ldst, slot)) {
      w->wait = SIMT_WAIT_FENCE;
      at_set_drain(c, w, true);
      if (w->mem_done > t) at_finish_push(c, slot, w->mem_done);
    }
    break;
  default: break;
  }
  if (rec->warp_done) { /* every thread exited: may complete barriers the others wait at */
    w->exited = true;
    w->ib_n = 0;
    c->base.ctas[w->cta].check_bars = c->any_check_bars = true;
    at_finish_push(c, slot, at_max(at_max(w->last_wb, w->mem_done), t));
  }
  at_warp_refresh(c, slot);
  return ISS_OK;
}

/* ---- schedulers ------------------------------------------------------------------------------ */

void at_sched_account(at_core *c, at_sched *s, uint64_t t) {
  if (t <= s->acct_from) return;
  uint64_t n = t - s->acct_from;
  *c->base.distro[s->bucket] += n;
  *c->base.reason[s->reason] += n;
  s->acct_from = t;
}

/* Warp-limiting scheduler (GTO among the oldest params[1] warps that can still issue, as the CA
 * core): its candidates in priority order into c->order. */
static uint32_t limited_order(at_core *c, at_sched *s) {
  uint32_t *out = c->order, n = 0;
  uint32_t lim = c->base.cfg.scheduler_params[1] ? c->base.cfg.scheduler_params[1] : s->n, k = 0;
  bool greedy_in = false;
  for (uint32_t i = 0; i < s->n && k < lim; i++) {
    const at_warp *w = &c->warps[s->warps[i]];
    if (w->exited || w->wait) continue;
    greedy_in = greedy_in || s->warps[i] == s->greedy;
    out[1 + k++] = s->warps[i];
  }
  if (greedy_in) out[n++] = s->greedy;
  for (uint32_t i = 0; i < k; i++)
    if (out[1 + i] != s->greedy || !greedy_in) out[n++] = out[1 + i];
  return n;
}

static void note_issuer(at_core *c, at_sched *s, uint32_t slot) {
  s->greedy = slot;
  s->rr = c->warps[slot].pos + 1;
}

/* A second instruction of the warp in the same cycle (-gpgpu_max_insn_issue_per_warp 2); with
 * -gpgpu_dual_issue_diff_exec_units it must go to another pipeline. */
static void dual_issue(at_core *c, uint32_t slot, uint8_t first_unit, uint64_t t) {
  const at_warp *w = &c->warps[slot];
  if (!w->live || w->exited || w->wait || !w->ib_n || w->ib_time > t || w->sb_time > t) return;
  if (c->base.cfg.dual_issue_diff_units && first_unit != AT_NO_UNIT && w->unit == first_unit) return;
  if (res_time(c, w) > t) return;
  issue(c, slot, t);
}

/* Tries warp `slot` (ready by I-buffer and scoreboard at t): ISS_OK when it issued, ISS_PIPE when
 * its pipeline has no room (*next lowered to when it may), ISS_GONE when the scheduler must stop
 * this cycle (fault, out of step). */
static int try_warp(at_core *c, at_sched *s, uint32_t slot, uint64_t t, uint64_t *next) {
  at_warp *w = &c->warps[slot];
  uint64_t rt = res_time(c, w);
  if (rt > t) {
    if (rt < *next) *next = rt;
    return ISS_PIPE;
  }
  uint8_t unit = w->unit;
  int r = issue(c, slot, t);
  if (r != ISS_OK) return r;
  note_issuer(c, s, slot);
  if (c->base.cfg.max_issue_per_warp > 1) dual_issue(c, slot, unit, t);
  return ISS_OK;
}

/* How the scheduler's cycles without issue from t on count (W0_*, simt_sched_stall[*]): by every
 * warp of the scheduler, as the CA core does. */
static void classify(at_sched *s, uint64_t t) {
  /* per warp (branch-free): waiting at a barrier or fence, or exited (ibt AT_NEVER): nothing;
   * ready at t; else no decoded instruction yet (empty) or one held by the scoreboard (valid) */
  unsigned empty = 0, valid = 0, ready = 0;
  for (uint32_t i = 0; i < s->n; i++) {
    uint64_t ib = s->ibt[i];
    unsigned live = ib != AT_NEVER, rdy = s->ready[i] <= t, later = ib > t;
    ready |= live & rdy;
    empty |= live & !rdy & later;
    valid |= live & !rdy & !later;
  }
  valid = valid || ready;
  s->bucket = ready ? SIMT_B_STALL : valid ? SIMT_B_SCOREBOARD : SIMT_B_IDLE;
  s->reason = ready   ? SIMT_R_PIPE
              : valid ? SIMT_R_SCOREBOARD
              : empty ? SIMT_R_IBUFFER
              : s->n  ? SIMT_R_BARRIER
                      : SIMT_R_NO_WARP;
}

/* Candidates of a scheduler with at most 64 warps: a bit mask of the warps ready by I-buffer and
 * scoreboard at t (bit = position, oldest first). Four independent partial masks per step keep
 * the loop free of a long dependency chain (it runs once per scheduler visit). */
static uint64_t ready_mask(const at_sched *s, uint64_t t) {
  const uint64_t *ready = s->ready;
  uint64_t m0 = 0, m1 = 0, m2 = 0, m3 = 0;
  uint32_t i = 0, n = s->n;
  for (; i + 4 <= n; i += 4) {
    m0 |= (uint64_t)(ready[i] <= t) << i;
    m1 |= (uint64_t)(ready[i + 1] <= t) << (i + 1);
    m2 |= (uint64_t)(ready[i + 2] <= t) << (i + 2);
    m3 |= (uint64_t)(ready[i + 3] <= t) << (i + 3);
  }
  for (; i < n; i++) m0 |= (uint64_t)(ready[i] <= t) << i;
  return m0 | m1 | m2 | m3;
}

/* The earliest ready time after t of the scheduler's warps. */
static uint64_t earliest_after(const at_sched *s, uint64_t t) {
  uint64_t n0 = AT_NEVER, n1 = AT_NEVER;
  uint32_t i = 0;
  for (; i + 2 <= s->n; i += 2) {
    uint64_t a = s->ready[i] > t ? s->ready[i] : AT_NEVER, b = s->ready[i + 1] > t ? s->ready[i + 1] : AT_NEVER;
    n0 = a < n0 ? a : n0;
    n1 = b < n1 ? b : n1;
  }
  if (i < s->n && s->ready[i] > t && s->ready[i] < n0) n0 = s->ready[i];
  return n0 < n1 ? n0 : n1;
}

/* Tries the candidates of `mask` from position `start` on (circularly), lowest first. */
static int try_mask(at_core *c, at_sched *s, uint64_t *mask, uint32_t start, uint64_t t, uint64_t *next) {
  uint64_t parts[2] = {*mask & (~0ull << start), *mask & ~(~0ull << start)};
  for (int p = 0; p < 2; p++)
    for (uint64_t m = parts[p]; m; m &= m - 1) {
      uint32_t i = (uint32_t)__builtin_ctzll(m);
      *mask &= ~(1ull << i);
      int r = try_warp(c, s, s->warps[i], t, next);
      if (r != ISS_PIPE) return r;
    }
  return ISS_PIPE;
}

void at_sched_cycle(at_core *c, uint32_t si, uint64_t t) {
  at_sched *s = &c->sched[si];
  if (t > s->acct_from) at_sched_account(c, s, t);
  uint64_t next = AT_NEVER, left = 0;
  int r = ISS_PIPE;
  bool many = false; /* next already covers every warp */
  gpu_scheduler_policy pol = (gpu_scheduler_policy)c->base.cfg.scheduler;
  if (pol == GPU_SCHED_TWO_LEVEL_ACTIVE) /* approximated by its inner policy over every warp */
    pol = c->base.cfg.scheduler_params[1] == 0 ? GPU_SCHED_LRR : GPU_SCHED_GTO;
  if (pol == GPU_SCHED_WARP_LIMITING || s->n > 64) {
    uint32_t n = pol == GPU_SCHED_WARP_LIMITING ? limited_order(c, s) : s->n;
    for (uint32_t i = 0; i < n && r == ISS_PIPE; i++) {
      uint32_t slot = pol == GPU_SCHED_WARP_LIMITING ? c->order[i] : s->warps[(s->rr + i) % n];
      const at_warp *w = &c->warps[slot];
      if (w->ready > t) next = at_min(next, w->ready);
      else r = try_warp(c, s, slot, t, &next);
    }
    left = r == ISS_OK; /* scan again next cycle */
    many = true;
  } else {
    /* GTO: the last issuer, then oldest first; oldest: oldest first; LRR: after the last issuer;
     * RRR: the start rotates by one every cycle */
    uint64_t mask = ready_mask(s, t);
    uint32_t start = 0;
    if (pol == GPU_SCHED_LRR) start = s->n ? s->rr % s->n : 0;
    else if (pol == GPU_SCHED_RRR) start = s->n ? (uint32_t)(t % s->n) : 0;
    else if (pol != GPU_SCHED_OLDEST && s->greedy != AT_NONE) {
      uint32_t g = c->warps[s->greedy].pos;
      if ((mask >> g) & 1u) {
        mask &= ~(1ull << g);
        r = try_warp(c, s, s->greedy, t, &next);
      }
    }
    if (r == ISS_PIPE) r = try_mask(c, s, &mask, start, t, &next);
    left = mask;
  }
  if (r == ISS_OK) {
    ++s->acct_from; /* the cycle counts as an issue (W1..W32) */
    if (left) {
      c->sched_next[si] = t + 1;
      return;
    }
    /* nothing else was ready: sleep until the earliest warp may be */
    next = at_min(next, earliest_after(s, t));
    c->sched_next[si] = at_max(next, t + 1);
    if (c->sched_next[si] > t + 1) classify(s, t + 1);
    return;
  }
  if (!many) next = at_min(next, earliest_after(s, t));
  classify(s, t);
  ++*c->base.distro[s->bucket];
  ++*c->base.reason[s->reason];
  s->acct_from = t + 1;
  c->sched_next[si] = r == ISS_GONE ? t + 1 : at_max(next, t + 1);
}

/* ---- setup ----------------------------------------------------------------------------------- */

simtvp_status at_pipe_init(at_core *c, simtvp_diag *diag) {
  const simt_core_config *k = &c->base.cfg;
  uint32_t P = c->base.n_parts;
  simtvp_status st = simt_base_init_pipeline(&c->base, diag);
  if (st != SIMTVP_OK) return st;
  bool ok = true;
  for (int u = 0; u < SIMT_UNIT_N; u++) {
    ok = ok && res_init(&c->idoc[u], k->id_oc_width[u], P);
    ok = ok && res_init(&c->ocex[u], k->oc_ex_width[u], P);
    ok = ok && res_init(&c->units[u], u == SIMT_UNIT_MEM ? 1 : k->n_units[u], P);
  }
  for (int s = 0; s < SIMT_OC_N; s++) ok = ok && res_init(&c->cus[s], k->oc_units[s], P);
  /* memory instructions a sub-core may have between issue and the LDST unit: its ID_OC and
   * OC_EX slots of the memory pipeline and one collector unit */
  uint32_t mem_id = k->id_oc_width[SIMT_UNIT_MEM] / P, mem_ox = k->oc_ex_width[SIMT_UNIT_MEM] / P;
  c->mem_slots = (mem_id ? mem_id : 1) + (mem_ox ? mem_ox : 1) + 1;
  c->banks_per_part = k->reg_banks / P;
  c->n_banks = k->reg_banks;
  c->bank_cycle = calloc(c->n_banks, sizeof *c->bank_cycle);
  c->bank_used = calloc(c->n_banks, sizeof *c->bank_used);
  c->order = calloc(k->max_warps + 1, sizeof *c->order);
  c->mop_free = AT_NONE;
  c->memq_head = c->memq_tail = AT_NONE;
  if (!ok || !c->bank_cycle || !c->bank_used || !c->order || !grow_mops(c))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", k->sm);
  return SIMTVP_OK;
}

void at_pipe_free(at_core *c) {
  for (int u = 0; u < SIMT_UNIT_N; u++) {
    free(c->idoc[u].free);
    free(c->ocex[u].free);
    free(c->units[u].free);
  }
  for (int s = 0; s < SIMT_OC_N; s++) free(c->cus[s].free);
  free(c->bank_cycle);
  free(c->bank_used);
  free(c->order);
  free(c->mops);
  free(c->steps);
}
