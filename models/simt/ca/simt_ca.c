/* simt_ca — the cycle-accurate SIMT core ("ca" variant of simt.h): the front end (fetch, L1I,
 * decode into a two-entry I-buffer per warp), warp schedulers and issue with the scoreboard,
 * CTA and warp management, barriers and fences, statistics, time and the deadlock dump. The
 * back end (operand collector, execution units, writeback) is simt_ca_pipe.c.
 *
 * Follows the GPGPU-Sim 3.x manual §2.3 (SIMT core: fetch/decode, I-buffer, issue, SIMT stack,
 * scoreboard, operand collector, ALU pipelines, memory pipeline) and §4.4.1.2 (its software
 * model), with the 4.x additions (sub-cores, several schedulers per core, per-opcode latency
 * and initiation tables, dual issue). The SIMT stack is models/func's: a warp instruction is
 * executed (func_warp_step) when it issues, which also resolves branches — a control hazard
 * flushes the I-buffer there. docs/simt.md is the manual. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_ca_internal.h"

#define NO_UNIT 0xffu

static simt_cta *cta_of(ca_core *c, const ca_warp *w) { return &c->base.ctas[w->cta]; }
static const simt_program *prog_of(ca_core *c, const ca_warp *w) { return c->base.ctas[w->cta].k->program; }

/* ---- fetch bookkeeping ----------------------------------------------------------------------- */

static void update_fetch_bit(ca_core *c, uint32_t slot) {
  const ca_warp *w = &c->warps[slot];
  uint64_t bit = 1ull << (slot & 63);
  if (w->live && !w->exited && !w->imiss && !w->in_fetch && w->ib_n == 0) c->need_fetch[slot >> 6] |= bit;
  else c->need_fetch[slot >> 6] &= ~bit;
}

static bool any_fetch(const ca_core *c) {
  for (uint32_t i = 0; i < c->fetch_words; i++)
    if (c->need_fetch[i]) return true;
  return false;
}

/* Next warp slot after `after` (circularly) that may fetch, CA_NONE when none. */
static uint32_t next_fetch_warp(const ca_core *c, uint32_t after) {
  uint32_t n = c->base.cfg.max_warps, start = (after + 1) % n;
  for (uint32_t k = 0; k <= c->fetch_words; k++) {
    uint32_t word = (start >> 6) + k;
    uint32_t wi = word % c->fetch_words;
    uint64_t bits = c->need_fetch[wi];
    if (k == 0) bits &= ~0ull << (start & 63);
    if (k == c->fetch_words) bits &= (start & 63) ? ~(~0ull << (start & 63)) : 0;
    if (bits) {
      uint32_t s = wi * 64 + (uint32_t)__builtin_ctzll(bits);
      if (s < n) return s;
    }
  }
  return CA_NONE;
}

/* ---- scheduler lists ------------------------------------------------------------------------- */

static void sched_remove(ca_core *c, uint32_t slot) {
  ca_warp *w = &c->warps[slot];
  ca_sched *s = &c->sched[w->sched];
  s->idle_valid = false;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->warps[i] == slot) {
      memmove(&s->warps[i], &s->warps[i + 1], (s->n - i - 1) * sizeof *s->warps);
      s->n--;
      if (s->rr > i) s->rr--;
      break;
    }
  if (w->tl_active) {
    for (uint32_t i = 0; i < s->n_active; i++)
      if (s->active[i] == slot) {
        memmove(&s->active[i], &s->active[i + 1], (s->n_active - i - 1) * sizeof *s->active);
        s->n_active--;
        break;
      }
    w->tl_active = false;
  }
  if (s->greedy == slot) s->greedy = CA_NONE;
}

/* ---- warps, CTAs ----------------------------------------------------------------------------- */

static void set_drain(ca_core *c, ca_warp *w, bool on) {
  if (w->draining == on) return;
  w->draining = on;
  if (on) c->n_drain++;
  else c->n_drain--;
}

static void finish_warp(ca_core *c, uint32_t slot) {
  ca_warp *w = &c->warps[slot];
  set_drain(c, w, false);
  sched_remove(c, slot);
  w->live = false;
  update_fetch_bit(c, slot);
  c->n_live_warps--;
  simt_base_finish_warp(&c->base, cta_of(c, w), w->index);
}

void ca_warp_progress(ca_core *c, uint32_t slot, uint64_t now) {
  ca_warp *w = &c->warps[slot];
  if (!w->live) return;
  bool stores = c->base.lif->pending_stores(c->base.ldst, slot) > 0;
  if (w->wait == SIMT_WAIT_FENCE && now >= w->fence_until && (!w->fence_drain || (!w->inflight_mem && !stores))) {
    w->wait = SIMT_WAIT_NONE;
    ca_sched_touch(c, w->sched);
  }
  if (w->exited && !w->inflight && !stores) {
    finish_warp(c, slot);
    return;
  }
  set_drain(c, w, w->wait == SIMT_WAIT_FENCE || (w->exited && !w->inflight));
}

static void recheck_drains(ca_core *c, uint64_t now) {
  c->fence_wake = UINT64_MAX;
  for (uint32_t s = 0; s < c->base.cfg.max_warps && c->n_drain; s++)
    if (c->warps[s].draining) {
      ca_warp_progress(c, s, now);
      const ca_warp *w = &c->warps[s];
      if (w->wait == SIMT_WAIT_FENCE && w->fence_until < c->fence_wake) c->fence_wake = w->fence_until;
    }
}

/* Ends a CTA early (fault, deadlock): its warps issue nothing more; it is reported once their
 * in-flight instructions and stores have drained. */
static void abort_cta(simt_core_base *b, simt_cta *cta, const gpu_cta_result *r, uint64_t now) {
  ca_core *c = (ca_core *)b;
  if (cta->aborting) return;
  cta->aborting = true;
  cta->result = *r;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    uint32_t slot = cta->warp_slot[i];
    ca_warp *w = &c->warps[slot];
    if (!simt_cta_holds(cta, i) || !w->live) continue; /* finished: the slot may be another CTA's */
    w->exited = true;
    w->ib_n = 0;
    w->wait = SIMT_WAIT_NONE;
    ca_sched_touch(c, w->sched);
    update_fetch_bit(c, slot);
  }
  for (uint32_t i = 0; i < cta->n_warps && cta->live; i++)
    if (simt_cta_holds(cta, i)) ca_warp_progress(c, cta->warp_slot[i], now);
}

/* ---- hooks of the shared code (simt_core_base.h) -------------------------------------------- */

static void warp_view(const simt_core_base *b, uint32_t slot, simt_warp_view *v) {
  const ca_warp *w = &((const ca_core *)b)->warps[slot];
  *v = (simt_warp_view){w->live, w->exited, w->wait, w->bar_id, w->bar_pc, w->fw};
}

static void warp_line(const simt_core_base *b, uint32_t slot, char *buf, size_t n) {
  const ca_core *c = (const ca_core *)b;
  const ca_warp *w = &c->warps[slot];
  const ptx_module *m = simt_program_module(c->base.ctas[w->cta].k->program);
  func_peek pk;
  const char *state = !w->live ? "finished" : w->exited ? "exited" : w->wait == SIMT_WAIT_BARRIER ? "barrier"
                      : w->wait == SIMT_WAIT_FENCE ? "fence" : w->wait == SIMT_WAIT_FAULT ? "page fault"
                      : w->imiss ? "imiss" : "ready";
  simt_warp_view v;
  warp_view(b, slot, &v);
  uint32_t pc = func_warp_peek(w->fw, &pk) ? pk.pc : (w->ib_n ? w->ib_pc[0] : w->fetch_pc);
  int k = simt_warp_line_head(buf, n, m, w->index, slot, w->sched, state, &v, pc);
  if (k > 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, ", ibuffer %u, in flight %u (mem %u), stores %u", w->ib_n, w->inflight,
             w->inflight_mem, c->base.lif->pending_stores(c->base.ldst, slot));
}

/* Released warps issue from the next cycle; the engine's warp is READY again (its peek changes). */
static void barrier_released(simt_core_base *b, uint32_t slot, uint64_t now) {
  (void)now;
  ca_core *c = (ca_core *)b;
  ca_warp *w = &c->warps[slot];
  w->pk_ok = false;
  w->wait = SIMT_WAIT_NONE;
  ca_sched_touch(c, w->sched);
}

static bool grow_scoreboard(ca_core *c, uint32_t words);

static bool fit_kernel(simt_core_base *b, uint32_t cta_slot, const simt_kernel *k) {
  (void)cta_slot;
  ca_core *c = (ca_core *)b;
  uint32_t words = (k->program->n_reg_ids + 63) / 64;
  return words <= c->sb_words || grow_scoreboard(c, words);
}

static const simt_variant_hooks ca_hooks = {warp_view, fit_kernel, barrier_released, abort_cta, warp_line};

/* ---- statistics ------------------------------------------------------------------------------ */

/* After the shared statistics (simt_base_init), in this order. */
static void register_stats(ca_core *c) {
  c->bank_conflicts = simt_base_counter(&c->base, "gpu_reg_bank_conflict_stalls", "cycles",
                                        "register-bank cycles in which a read waited for a busy bank");
  if (c->base.cfg.stats) stats_mark_cumulative(c->base.cfg.stats, "gpu_reg_bank_conflict_stalls");
  simt_base_register_ldst_stall(&c->base);
}

/* ---- scoreboard ------------------------------------------------------------------------------ */

/* RAW/WAW check of the instruction at pc against the warp's pending writes. The register that
 * blocked it last time is tried first: while it is pending the answer stays "blocked" at once. */
/* Debug builds (SIMTVP_CHECK_MEMOS, on for CMAKE_BUILD_TYPE=Debug) recompute what the speed memos
 * keep (pk_ok, sb_clear_pc, idle_valid) wherever a memo answers, and abort when they differ:
 * a memo that was not cleared where its inputs changed shows up in the Debug test suite, not as
 * statistics that drift. Other builds compile the checks away. */
#ifdef SIMTVP_CHECK_MEMOS
#define CA_CHECK_MEMO(cond, memo)                                                                 \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      fprintf(stderr, "simt_ca: the %s memo is out of date (%s:%d)\n", memo, __FILE__, __LINE__); \
      abort();                                                                                   \
    }                                                                                            \
  } while (0)
#else
#define CA_CHECK_MEMO(cond, memo) ((void)0)
#endif

#ifdef SIMTVP_CHECK_MEMOS
/* The scoreboard verdict recomputed without the memos. */
static bool sb_blocked_plain(ca_core *c, uint32_t slot, uint32_t pc) {
  const ca_warp *w = &c->warps[slot];
  const uint64_t *sb = ca_sb_of(c, slot);
  const simt_program *p = prog_of(c, w);
  const simt_insn_info *info = &p->info[pc];
  const uint32_t *r = p->regs + info->regs;
  for (uint32_t i = 0; i < (uint32_t)info->n_src + info->n_dst; i++)
    if (ca_sb_test(sb, r[i])) return true;
  return false;
}
#endif

static bool sb_blocked(ca_core *c, uint32_t slot, uint32_t pc, bool *long_op) {
  ca_warp *w = &c->warps[slot];
  const uint64_t *sb = ca_sb_of(c, slot);
  if (!long_op) {
    /* sb_clear_pc: only the warp's own issues add pending writes, and an issue moves it on */
    CA_CHECK_MEMO(!(w->sb_clear_pc == pc && sb_blocked_plain(c, slot, pc)), "sb_clear_pc");
    if (w->sb_clear_pc == pc) return false;
    if (w->sb_pc == pc && ca_sb_test(sb, w->sb_reg)) return true;
  }
  const simt_program *p = prog_of(c, w);
  const simt_insn_info *info = &p->info[pc];
  const uint32_t *r = p->regs + info->regs;
  uint32_t n = (uint32_t)info->n_src + info->n_dst;
  bool blocked = false;
  for (uint32_t i = 0; i < n; i++)
    if (ca_sb_test(sb, r[i])) {
      blocked = true;
      w->sb_pc = pc;
      w->sb_reg = r[i];
      if (!long_op) break;
      if (ca_sb_test(sb + c->sb_words, r[i])) {
        *long_op = true;
        break;
      }
    }
  if (!blocked) w->sb_clear_pc = pc;
  return blocked;
}

/* ---- issue ----------------------------------------------------------------------------------- */

enum { ISS_OK, ISS_PIPE, ISS_GONE };

static int issue_warp(ca_core *c, uint32_t slot, uint8_t unit, uint32_t item, uint64_t now);
static void catch_up(ca_core *c, uint64_t now);

/* The pipeline an instruction the engine peeked goes to (NO_UNIT: barriers and fences). */
static uint8_t peek_unit(const ca_core *c, const simt_program *p, const func_peek *pk) {
  return pk->kind == FUNC_STEP_MEM ? (uint8_t)SIMT_UNIT_MEM
         : (pk->kind == FUNC_STEP_BARRIER || pk->kind == FUNC_STEP_FENCE) ? (uint8_t)NO_UNIT
                                                                         : c->base.eff_unit[p->info[pk->pc].unit];
}

/* The checks before an issue, kept small: most tries find the pipeline register full. */
static int try_issue(ca_core *c, uint32_t slot, uint8_t prev_unit, uint8_t *unit_out, uint64_t now) {
  ca_warp *w = &c->warps[slot];
  simt_cta *cta = cta_of(c, w);
  const simt_program *p = cta->k->program;
  uint32_t pc = w->ib_pc[0];
  if (!w->pk_ok) {
    func_peek pk;
    if (!func_warp_peek(w->fw, &pk)) pk.pc = UINT32_MAX;
    else w->pk_ok = true;
    w->pk_pc = pk.pc;
    w->pk_unit = !w->pk_ok ? (uint8_t)NO_UNIT : peek_unit(c, p, &pk);
  } else {
#ifdef SIMTVP_CHECK_MEMOS
    func_peek pk;
    bool ok = func_warp_peek(w->fw, &pk);
    CA_CHECK_MEMO(ok && pk.pc == w->pk_pc && peek_unit(c, p, &pk) == w->pk_unit, "pk_ok");
#endif
  }
  if (!w->pk_ok || w->pk_pc != pc) { /* out of step with the engine: refetch */
    w->ib_n = 0;
    if (w->pk_ok && w->pk_pc < p->m->n_insns) w->fetch_pc = w->pk_pc;
    update_fetch_bit(c, slot);
    return ISS_GONE;
  }
  uint8_t unit = w->pk_unit;
  if (prev_unit != NO_UNIT && c->base.cfg.dual_issue_diff_units && unit == prev_unit) return ISS_PIPE;
  *unit_out = unit;
  uint32_t item = CA_NONE;
  if (unit != NO_UNIT) {
    item = ca_items_free_slot(&c->id_oc_slots[unit], w->part);
    if (item == CA_NONE) return ISS_PIPE;
  }
  return issue_warp(c, slot, unit, item, now);
}

/* The warp's instruction found pages not resident: each is reported to the MMU through the
 * kernel's recorder; true = the warp now waits (SIMT_WAIT_FAULT), false = no fault buffer (fatal;
 * w->fault_since holds the address for the report). */
static bool fault_wait(ca_core *c, simt_cta *cta, ca_warp *w, uint64_t now) {
  uint64_t va;
  if (!simt_base_report_replayable_fault(&c->base, cta->k, w->fw, now, &c->fault_stall, &c->fault_stall_scratch,
                                         &va)) {
    w->fault_since = va;
    return false;
  }
  w->wait = SIMT_WAIT_FAULT;
  w->fault_since = now;
  ca_sched_touch(c, w->sched);
  return true;
}

/* MMU_REPLAY: every warp waiting on a replayable fault retries (its I-buffer head is the
 * instruction again), or with cancel its CTA ends with a fault. */
static void ca_replay(void *state, bool cancel, uint64_t now) {
  ca_core *c = state;
  catch_up(c, now);
  for (uint32_t slot = 0; slot < c->base.cfg.max_warps; slot++) {
    ca_warp *w = &c->warps[slot];
    if (!w->live || w->wait != SIMT_WAIT_FAULT) continue;
    *c->fault_stall += now > w->fault_since ? now - w->fault_since : 0;
    w->wait = SIMT_WAIT_NONE;
    ca_sched_touch(c, w->sched);
    func_warp_retry(w->fw);
    if (cancel) {
      simt_base_cancel_replay(&c->base, cta_of(c, w), now);
    }
  }
}

/* Issues the warp's I-buffer head (pc = the engine's) into ID_OC slot `item` of `unit`. */
static __attribute__((noinline)) int issue_warp(ca_core *c, uint32_t slot, uint8_t unit, uint32_t item,
                                                uint64_t now) {
  ca_warp *w = &c->warps[slot];
  simt_cta *cta = cta_of(c, w);
  const simt_program *p = cta->k->program;
  uint32_t pc = w->ib_pc[0];
  const simt_insn_info *info = &p->info[pc];
  uint32_t id = CA_NONE, step = CA_NONE;
  if (unit != NO_UNIT) {
    id = ca_insn_alloc(c);
    if (id == CA_NONE) return ISS_PIPE;
    if (unit == SIMT_UNIT_MEM && (step = ca_step_alloc(c)) == CA_NONE) {
      ca_insn_release(c, id);
      return ISS_PIPE;
    }
  }
  func_step *rec = step != CA_NONE ? &c->steps[step] : &c->scratch_step;
  simtvp_diag d;
  w->pk_ok = false; /* the engine's warp moves on */
  simtvp_status st = func_warp_step(w->fw, rec, &d);
  if (st == SIMTVP_OK && func_warp_get_state(w->fw) == FUNC_WARP_FAULT_WAIT) {
    /* a replayable fault (unified memory): nothing issued; the warp waits for the replay with its
     * I-buffer as it was, then issues the same instruction again */
    if (step != CA_NONE) ca_step_release(c, step);
    if (id != CA_NONE) ca_insn_release(c, id);
    if (fault_wait(c, cta, w, now)) return ISS_GONE;
    st = SIMTVP_ERR_FAULT;
    simtvp_diag_set(&d, st, "kernel %s: global access at 0x%" PRIx64 " faults replayably (the page is not resident) "
                    "but the GPU has no fault buffer", cta->k->name, w->fault_since);
    simtvp_diag_at_address(&d, w->fault_since);
    simt_report_fault(&c->base.ports, c->base.cfg.sm, cta->k->slot, st, &d, d.message, now);
    gpu_cta_result r = {st, w->fault_since, pc};
    c->base.hooks->abort_cta(&c->base, cta, &r, now);
    return ISS_GONE;
  }
  if (st != SIMTVP_OK) {
    if (step != CA_NONE) ca_step_release(c, step);
    if (id != CA_NONE) ca_insn_release(c, id);
    simt_base_fault_cta(&c->base, cta, w->fw, st, &d, now);
    return ISS_GONE;
  }
  simt_base_count_issue(&c->base, slot, pc, rec->active, now);
  /* the I-buffer: pop the head; a control hazard flushes what follows */
  w->ib_pc[0] = w->ib_pc[1];
  w->ib_n--;
  if (!rec->warp_done) {
    if (w->ib_n && w->ib_pc[0] != rec->next_pc) w->ib_n = 0;
    if (!w->ib_n) w->fetch_pc = rec->next_pc;
  }
  if (unit != NO_UNIT) {
    ca_insn *in = &c->insns[id];
    const uint32_t *regs = p->regs + info->regs;
    in->warp = slot;
    in->pc = pc;
    in->unit = unit;
    in->set = c->base.set_of_unit[unit];
    in->part = (uint8_t)w->part;
    in->n_rf = info->n_src_rf;
    in->n_dst = info->n_dst;
    in->src = regs;
    in->dst = regs + info->n_src;
    in->lat = (uint16_t)c->base.lat[info->lat_row][info->op];
    in->ii = (uint16_t)c->base.ii[info->lat_row][info->op];
    in->item = item;
    in->step = step;
    in->reads = 0;
    in->released = false;
    c->id_oc_slots[unit].v[item] = (uint64_t)id + 1;
    ca_list_push(c, &c->id_oc, id);
    uint64_t *sb = ca_sb_of(c, slot);
    w->sb_clear_pc = CA_NONE; /* new pending writes */
    for (uint32_t i = 0; i < in->n_dst; i++) {
      ca_sb_set(sb, in->dst[i]);
      if (unit == SIMT_UNIT_MEM) ca_sb_set(sb + c->sb_words, in->dst[i]);
    }
    w->inflight++;
    if (unit == SIMT_UNIT_MEM) w->inflight_mem++;
  }
  switch (rec->kind) {
  case FUNC_STEP_BARRIER:
    if (rec->barrier_wait) {
      w->wait = SIMT_WAIT_BARRIER;
      w->bar_id = rec->barrier_id;
      w->bar_pc = pc;
    }
    cta->check_bars = c->any_check_bars = true;
    break;
  case FUNC_STEP_FENCE: {
    /* -gpgpu_fence_latency: the warp issues again no sooner than its scope's latency; .gpu and
     * .sys fences also wait for the warp's memory accesses (loads in flight, store acks) */
    w->fence_drain = info->fence >= GPU_FENCE_GPU; /* and SIMT_FENCE_DRAIN */
    w->fence_until = now + (info->fence < GPU_FENCE_N ? c->base.cfg.fence_latency[info->fence] : 0);
    if (w->fence_until > now + 1 ||
        (w->fence_drain && (w->inflight_mem || c->base.lif->pending_stores(c->base.ldst, slot)))) {
      w->wait = SIMT_WAIT_FENCE;
      set_drain(c, w, true);
      if (w->fence_until < c->fence_wake) c->fence_wake = w->fence_until;
    }
    break;
  }
  default: break;
  }
  if (rec->warp_done) { /* every thread exited: may complete barriers the others wait at */
    w->exited = true;
    w->ib_n = 0;
    cta->check_bars = c->any_check_bars = true;
  }
  if (!w->ib_n) update_fetch_bit(c, slot);
  if (w->exited) ca_warp_progress(c, slot, now);
  return ISS_OK;
}

/* How a scheduler-cycle without issue is classified (also the dry run that decides whether the
 * core may sleep): by the most advanced of its live warps, whatever the policy. */
typedef struct sched_scan {
  bool live, waiting, empty, valid, ready;
} sched_scan;

/* Adds one warp to the classification; true when it could issue now (by the scoreboard). */
static inline __attribute__((always_inline)) bool scan_warp(ca_core *c, uint32_t slot, sched_scan *sc) {
  const ca_warp *w = &c->warps[slot];
  if (!w->live) return false;
  sc->live = true;
  if (w->exited || w->wait) {
    sc->waiting = true;
    return false;
  }
  if (!w->ib_n) {
    sc->empty = true;
    return false;
  }
  sc->valid = true;
  if (sb_blocked(c, slot, w->ib_pc[0], NULL)) return false;
  sc->ready = true;
  return true;
}

static void classify(const sched_scan *sc, uint8_t *bucket, uint8_t *reason) {
  *bucket = sc->ready ? SIMT_B_STALL : sc->valid ? SIMT_B_SCOREBOARD : SIMT_B_IDLE;
  *reason = sc->ready ? SIMT_R_PIPE : sc->valid ? SIMT_R_SCOREBOARD : sc->empty ? SIMT_R_IBUFFER
            : sc->live ? SIMT_R_BARRIER : SIMT_R_NO_WARP;
}

/* Two-level scheduler (Narasiman et al., MICRO 2011; GPGPU-Sim's two_level_active): an active set
 * of params[0] warps; a warp leaves it when it waits (barrier, fence, exit) or its next
 * instruction waits for a memory load; the oldest ready pending warps refill it. */
static bool tl_demotable(ca_core *c, uint32_t slot) {
  const ca_warp *w = &c->warps[slot];
  if (!w->live || w->exited || w->wait) return true;
  bool long_op = false;
  return w->ib_n && sb_blocked(c, slot, w->ib_pc[0], &long_op) && long_op;
}

static bool tl_promotable(const ca_core *c, uint32_t slot) {
  const ca_warp *w = &c->warps[slot];
  return w->live && !w->tl_active && !w->exited && !w->wait;
}

static bool tl_maintain(ca_core *c, ca_sched *s, bool dry) {
  uint32_t cap = c->base.cfg.scheduler_params[0] ? c->base.cfg.scheduler_params[0] : 8;
  bool change = false;
  for (uint32_t i = 0; i < s->n_active;) {
    if (tl_demotable(c, s->active[i]) && s->n > s->n_active) {
      change = true;
      if (dry) return true;
      c->warps[s->active[i]].tl_active = false;
      memmove(&s->active[i], &s->active[i + 1], (s->n_active - i - 1) * sizeof *s->active);
      s->n_active--;
      continue;
    }
    i++;
  }
  for (uint32_t i = 0; i < s->n && s->n_active < cap; i++)
    if (tl_promotable(c, s->warps[i])) {
      change = true;
      if (dry) return true;
      c->warps[s->warps[i]].tl_active = true;
      s->active[s->n_active++] = s->warps[i];
    }
  return change;
}

/* The scheduler's candidates in priority order. */
static uint32_t sched_order(ca_core *c, ca_sched *s, uint32_t *out) {
  uint32_t n = 0;
  switch ((gpu_scheduler_policy)c->base.cfg.scheduler) {
  case GPU_SCHED_LRR:
  case GPU_SCHED_RRR:
    for (uint32_t i = 0; i < s->n; i++) out[n++] = s->warps[(s->rr + i) % s->n];
    break;
  case GPU_SCHED_OLDEST:
    memcpy(out, s->warps, s->n * sizeof *out);
    n = s->n;
    break;
  case GPU_SCHED_TWO_LEVEL_ACTIVE:
    if (c->base.cfg.scheduler_params[1] == 0) { /* inner round robin */
      for (uint32_t i = 0; i < s->n_active; i++) out[n++] = s->active[(s->rr + i) % s->n_active];
    } else {
      if (s->greedy != CA_NONE && c->warps[s->greedy].tl_active) out[n++] = s->greedy;
      for (uint32_t i = 0; i < s->n_active; i++)
        if (s->active[i] != s->greedy) out[n++] = s->active[i];
    }
    break;
  case GPU_SCHED_WARP_LIMITING: {
    /* static warp limiting: GTO among the oldest params[1] warps that can still issue (warps
     * waiting at a barrier or done do not count, or the limit could starve a barrier) */
    uint32_t lim = c->base.cfg.scheduler_params[1] ? c->base.cfg.scheduler_params[1] : s->n;
    for (uint32_t i = 0; i < s->n && n < lim; i++) {
      const ca_warp *w = &c->warps[s->warps[i]];
      if (!w->live || w->exited || w->wait) continue;
      if (s->warps[i] == s->greedy && n) { /* the greedy warp first, the others oldest first */
        memmove(&out[1], &out[0], n * sizeof *out);
        out[0] = s->warps[i];
        n++;
      } else {
        out[n++] = s->warps[i];
      }
    }
    break;
  }
  case GPU_SCHED_GTO:
  default:
    if (s->greedy != CA_NONE) out[n++] = s->greedy;
    for (uint32_t i = 0; i < s->n; i++)
      if (s->warps[i] != s->greedy) out[n++] = s->warps[i];
    break;
  }
  return n;
}

static void note_issuer(ca_core *c, ca_sched *s, uint32_t slot) {
  s->greedy = slot;
  gpu_scheduler_policy pol = (gpu_scheduler_policy)c->base.cfg.scheduler;
  if (pol == GPU_SCHED_LRR) {
    for (uint32_t i = 0; i < s->n; i++)
      if (s->warps[i] == slot) s->rr = i + 1;
  } else if (pol == GPU_SCHED_TWO_LEVEL_ACTIVE) {
    for (uint32_t i = 0; i < s->n_active; i++)
      if (s->active[i] == slot) s->rr = i + 1;
  }
}

/* One candidate of a scheduler in priority order: SCHED_NEXT (try the next one), SCHED_ISSUED,
 * SCHED_STOP (the scheduler stops this cycle: fault, out of step). */
enum { SCHED_NEXT, SCHED_ISSUED, SCHED_STOP };

static inline __attribute__((always_inline)) int sched_try(ca_core *c, ca_sched *s, uint32_t slot,
                                                            sched_scan *sc, uint64_t now) {
  if (!scan_warp(c, slot, sc)) return SCHED_NEXT;
  uint8_t unit = NO_UNIT;
  int r = try_issue(c, slot, NO_UNIT, &unit, now);
  if (r == ISS_PIPE) return SCHED_NEXT;
  if (r == ISS_GONE) return SCHED_STOP;
  note_issuer(c, s, slot);
  /* a second instruction of the same warp (-gpgpu_max_insn_issue_per_warp 2); with
   * -gpgpu_dual_issue_diff_exec_units it must go to another pipeline */
  const ca_warp *w = &c->warps[slot];
  if (c->base.cfg.max_issue_per_warp > 1 && w->live && w->ib_n && !w->exited && !w->wait &&
      !sb_blocked(c, slot, w->ib_pc[0], NULL)) {
    uint8_t second = NO_UNIT;
    try_issue(c, slot, unit == NO_UNIT ? (uint8_t)0xfe : unit, &second, now);
  }
  return SCHED_ISSUED;
}

#ifdef SIMTVP_CHECK_MEMOS
/* The part of the idle_valid check for one warp: adds it to the classification, and when `cand`
 * (the scheduler would offer it an issue now) checks that it could not issue. */
static void check_idle_warp(ca_core *c, uint32_t slot, bool cand, sched_scan *sc) {
  const ca_warp *w = &c->warps[slot];
  if (!w->live) return;
  sc->live = true;
  if (w->exited || w->wait) {
    sc->waiting = true;
    return;
  }
  if (!w->ib_n) {
    sc->empty = true;
    return;
  }
  sc->valid = true;
  if (sb_blocked_plain(c, slot, w->ib_pc[0])) return;
  sc->ready = true;
  if (!cand) return;
  func_peek pk;
  bool ok = func_warp_peek(w->fw, &pk);
  const simt_program *p = cta_of(c, w)->k->program;
  uint8_t unit = ok ? peek_unit(c, p, &pk) : (uint8_t)NO_UNIT;
  CA_CHECK_MEMO(ok && pk.pc == w->ib_pc[0] && unit != NO_UNIT &&
                    ca_items_free_slot(&c->id_oc_slots[unit], w->part) == CA_NONE,
                "idle_valid (a warp could issue)");
}

/* idle_valid: the scheduler's warps now are what the memo says: none of the candidates it would
 * offer an issue (sched_order: all its warps, or with warp limiting the oldest params[1] that
 * can issue) could issue, a ready one having its ID_OC pipeline register full; and the cycle
 * classifies alike, by every warp of the scheduler. */
static void check_idle_memo(ca_core *c, ca_sched *s, uint32_t *order) {
  sched_scan sc = {false, false, false, false, false};
  uint32_t n = sched_order(c, s, order);
  for (uint32_t i = 0; i < n; i++) check_idle_warp(c, order[i], true, &sc);
  for (uint32_t i = 0; i < s->n; i++) {
    bool cand = false;
    for (uint32_t j = 0; j < n && !cand; j++) cand = order[j] == s->warps[i];
    if (!cand) check_idle_warp(c, s->warps[i], false, &sc);
  }
  uint8_t bucket, reason;
  classify(&sc, &bucket, &reason);
  CA_CHECK_MEMO(bucket == s->idle_bucket && reason == s->idle_reason, "idle_valid (classification)");
}
#endif

static void sched_cycle(ca_core *c, uint32_t si, uint32_t *order, uint64_t now) {
  ca_sched *s = &c->sched[si];
  if (c->base.cfg.scheduler == GPU_SCHED_RRR && s->n) s->rr = (s->rr + 1) % s->n;
  if (s->idle_valid) { /* nothing changed since a cycle that issued nothing */
#ifdef SIMTVP_CHECK_MEMOS
    check_idle_memo(c, s, order);
#endif
    ++*c->base.distro[s->idle_bucket];
    ++*c->base.reason[s->idle_reason];
    return;
  }
  if (c->base.cfg.scheduler == GPU_SCHED_TWO_LEVEL_ACTIVE) tl_maintain(c, s, false);
  sched_scan sc = {false, false, false, false, false};
  /* the candidates in priority order (sched_order), walked in place for the simple policies;
   * n counts them as sched_order would. Until a candidate issues or stops the scheduler,
   * nothing changes the warp lists. */
  uint32_t n = s->n, r = SCHED_NEXT;
  switch ((gpu_scheduler_policy)c->base.cfg.scheduler) {
  case GPU_SCHED_LRR:
  case GPU_SCHED_RRR:
    for (uint32_t i = 0, k = s->rr % (n ? n : 1); i < n && r == SCHED_NEXT; i++, k = k + 1 == n ? 0 : k + 1)
      r = sched_try(c, s, s->warps[k], &sc, now);
    break;
  case GPU_SCHED_OLDEST:
    for (uint32_t i = 0; i < n && r == SCHED_NEXT; i++) r = sched_try(c, s, s->warps[i], &sc, now);
    break;
  case GPU_SCHED_TWO_LEVEL_ACTIVE:
  case GPU_SCHED_WARP_LIMITING:
    n = sched_order(c, s, order);
    for (uint32_t i = 0; i < n && r == SCHED_NEXT; i++) r = sched_try(c, s, order[i], &sc, now);
    break;
  case GPU_SCHED_GTO:
  default: {
    uint32_t g = s->greedy;
    /* the last issuer first; it is one of the warps unless it finished since */
    if (g != CA_NONE) {
      if (!c->warps[g].live) n++;
      r = sched_try(c, s, g, &sc, now);
    }
    for (uint32_t i = 0; i < s->n && r == SCHED_NEXT; i++)
      if (s->warps[i] != g) r = sched_try(c, s, s->warps[i], &sc, now);
    break;
  }
  }
  if (r == SCHED_ISSUED) return;
  bool stopped = r == SCHED_STOP;
  /* nothing issued: classify by every warp of the scheduler (the order may hold only some) */
  if (n != s->n) {
    sc = (sched_scan){false, false, false, false, false};
    for (uint32_t i = 0; i < s->n; i++) scan_warp(c, s->warps[i], &sc);
  }
  uint8_t bucket, reason;
  classify(&sc, &bucket, &reason);
  ++*c->base.distro[bucket];
  ++*c->base.reason[reason];
  /* every warp was looked at and none could issue: so it stays until something changes (the
   * two-level scheduler changes its active set by itself every cycle) */
  if (!stopped && c->base.cfg.scheduler != GPU_SCHED_TWO_LEVEL_ACTIVE) {
    s->idle_valid = true;
    s->idle_bucket = bucket;
    s->idle_reason = reason;
  }
}

static void issue_stage(ca_core *c, uint64_t now) {
  uint32_t order[256];
  uint32_t *buf = c->base.cfg.max_warps <= 256 ? order : NULL;
  uint32_t *heap_buf = NULL;
  if (!buf) buf = heap_buf = malloc(c->base.cfg.max_warps * sizeof *buf);
  if (!buf) return;
  for (uint32_t s = 0; s < c->base.cfg.n_schedulers; s++) sched_cycle(c, s, buf, now);
  free(heap_buf);
  if (!c->any_check_bars) return;
  c->any_check_bars = false;
  for (uint32_t i = 0; i < c->base.cfg.max_ctas; i++)
    if (c->base.ctas[i].check_bars) simt_base_settle_barriers(&c->base, &c->base.ctas[i], now);
}

/* ---- fetch and decode ------------------------------------------------------------------------ */

/* An L1I fill (or, around a disabled L1I, the fetch itself) came back for the warp. */
static void fetch_returned(ca_core *c, mem_req *r, bool served) {
  uint32_t slot = r->warp;
  if (slot < c->base.cfg.max_warps && c->warps[slot].live) {
    c->warps[slot].imiss = false;
    if (served) c->warps[slot].fill_ready = true;
    update_fetch_bit(c, slot);
  }
  mem_req_free(r);
}

static void decode(ca_core *c) {
  if (!c->fb_valid) return;
  c->fb_valid = false;
  ca_warp *w = &c->warps[c->fb_warp];
  w->in_fetch = false;
  if (w->live && !w->exited && w->ib_n == 0 && w->fetch_pc == c->fb_pc) {
    for (uint32_t i = 0; i < c->fb_n; i++) w->ib_pc[i] = c->fb_pc + i;
    w->ib_n = (uint8_t)c->fb_n;
    w->fetch_pc = c->fb_pc + c->fb_n;
    ca_sched_touch(c, w->sched);
  }
  update_fetch_bit(c, c->fb_warp);
}

static void fetch(ca_core *c, uint64_t now) {
  if (c->fb_valid) return;
  uint32_t slot = next_fetch_warp(c, c->last_fetched);
  if (slot == CA_NONE) return;
  ca_warp *w = &c->warps[slot];
  const simt_cta *cta = cta_of(c, w);
  const ptx_module *m = simt_program_module(cta->k->program);
  uint32_t pc = w->fetch_pc;
  uint64_t addr = cta->code_base + (uint64_t)pc * FUNC_INSN_BYTES;
  uint32_t n = 1;
  if (pc + 1 < m->n_insns && m->insns[pc + 1].function == m->insns[pc].function &&
      (addr % c->base.l1i_line) + 2 * FUNC_INSN_BYTES <= c->base.l1i_line)
    n = 2;
  c->last_fetched = slot;
  if (!c->base.l1i || w->fill_ready) {
    w->fill_ready = false;
    c->fb_valid = true;
    c->fb_warp = slot, c->fb_pc = pc, c->fb_n = n;
    w->in_fetch = true;
    update_fetch_bit(c, slot);
    return;
  }
  mem_req *req = mem_req_alloc(c->base.pool);
  if (!req) return;
  req->addr = addr;
  req->size = n * FUNC_INSN_BYTES;
  req->kind = MEM_ACC_INST_R;
  req->needs_reply = true;
  req->sm = (uint16_t)c->base.cfg.sm;
  req->cluster = (uint16_t)c->base.cfg.cluster;
  req->warp = (uint16_t)slot;
  req->owner_tag = pc;
  cache_status st = cache_access(c->base.l1i, req, now, NULL);
  if (st == CACHE_RESERVATION_FAIL) {
    mem_req_free(req);
    return;
  }
  if (st == CACHE_HIT) {
    mem_req *r;
    while ((r = cache_reply_pop(c->base.l1i, now))) {
      if (r != req) {
        fetch_returned(c, r, false);
        continue;
      }
      mem_req_free(r);
      c->fb_valid = true;
      c->fb_warp = slot, c->fb_pc = pc, c->fb_n = n;
      w->in_fetch = true;
    }
  } else {
    w->imiss = true;
  }
  update_fetch_bit(c, slot);
}

static void fetch_stage(ca_core *c, uint64_t now) {
  if (c->base.l1i) {
    mem_req *r;
    while ((r = cache_miss_peek(c->base.l1i))) {
      if (!c->base.ports.send(c->base.ports.ctx, r, now)) break;
      cache_miss_pop(c->base.l1i);
    }
  }
  for (uint32_t i = 0; i < c->base.cfg.fetch_throughput; i++) {
    decode(c);
    fetch(c, now);
  }
}

/* ---- time ------------------------------------------------------------------------------------ */

static void simulate(ca_core *c, uint64_t t) {
  c->quiet = false;
  if (c->base.n_ctas) ++*c->base.cycles;
  ca_writeback_stage(c, t);
  if (c->n_drain) recheck_drains(c, t);
  if (c->oc_ex.n) ca_execute_stage(c, t);
  ca_oc_stage(c, t);
  if (c->base.n_ctas) issue_stage(c, t);
  fetch_stage(c, t);
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static uint64_t compute_next(ca_core *c, uint64_t t) {
  if (c->base.cfg.every_cycle && c->base.n_ctas) return t + 1;
  if (c->id_oc.n || c->cu.n || c->oc_ex.n || c->fb_valid || any_fetch(c)) return t + 1;
  if (c->base.l1i && cache_miss_peek(c->base.l1i)) return t + 1;
  uint64_t n = min_u64(simt_heap_top(&c->heap), c->base.lif->next_event(c->base.ldst));
  if (c->n_drain) n = min_u64(n, c->fence_wake);
  if (c->base.l1i) n = min_u64(n, cache_next_event(c->base.l1i));
  if (n <= t + 1) return t + 1;
  for (uint32_t si = 0; si < c->base.cfg.n_schedulers && c->base.n_ctas; si++) {
    ca_sched *s = &c->sched[si];
    if (c->base.cfg.scheduler == GPU_SCHED_TWO_LEVEL_ACTIVE && tl_maintain(c, s, true)) return t + 1;
    sched_scan sc = {false, false, false, false, false};
    for (uint32_t i = 0; i < s->n; i++) scan_warp(c, s->warps[i], &sc);
    if (sc.ready) return t + 1;
    classify(&sc, &s->bucket, &s->reason);
  }
  c->quiet = true;
  return n;
}

/* Cycles skipped while quiet count as the frozen classification says. */
static void account(ca_core *c, uint64_t cycles) {
  if (!cycles || !c->base.n_ctas) return;
  *c->base.cycles += cycles;
  for (uint32_t si = 0; si < c->base.cfg.n_schedulers; si++) {
    ca_sched *s = &c->sched[si];
    *c->base.distro[s->bucket] += cycles;
    *c->base.reason[s->reason] += cycles;
    if (c->base.cfg.scheduler == GPU_SCHED_RRR && s->n) s->rr = (uint32_t)((s->rr + cycles) % s->n);
  }
}

static void run_until(ca_core *c, uint64_t end) {
  while (c->base.done_until <= end) {
    uint64_t t = c->next > c->base.done_until ? c->next : c->base.done_until;
    if (t > end) {
      account(c, end + 1 - c->base.done_until);
      c->base.done_until = end + 1;
      break;
    }
    account(c, t - c->base.done_until);
    simulate(c, t);
    c->base.done_until = t + 1;
    c->next = compute_next(c, t);
  }
}

static void catch_up(ca_core *c, uint64_t now) {
  if (now > 0) run_until(c, now - 1);
  if (c->next > now) c->next = now;
  c->quiet = false;
}

/* ---- LDST port ------------------------------------------------------------------------------- */

/* Memory instruction `tag` completed in the LDST unit: its destinations are written now. */
static void ldst_complete(void *ctx, uint32_t warp, uint64_t tag, uint64_t now) {
  ca_core *c = ctx;
  (void)warp;
  if (tag < c->n_insns_cap) ca_insn_retire(c, (uint32_t)tag, now);
  if (c->next > now + 1) c->next = now + 1;
}

/* ---- ops ------------------------------------------------------------------------------------- */

static void ca_destroy(void *state);

static simtvp_status ca_create(const simt_core_config *cfg, simt_core_ports ports, void **state,
                               simtvp_diag *diag) {
  *state = NULL;
  ca_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  simtvp_status st = simt_base_init(&c->base, cfg, ports, &ca_hooks, diag);
  if (st != SIMTVP_OK) {
    free(c);
    return st;
  }
  c->next = SIMT_NEVER;
  c->fence_wake = UINT64_MAX;
  c->fault_stall = &c->fault_stall_scratch;
  c->last_fetched = cfg->max_warps - 1;
  register_stats(c);
  st = ca_pipe_init(c, diag);
  if (st != SIMTVP_OK) {
    ca_destroy(c);
    return st;
  }
  c->warps = calloc(cfg->max_warps, sizeof *c->warps);
  c->fetch_words = (cfg->max_warps + 63) / 64;
  c->need_fetch = calloc(c->fetch_words, sizeof *c->need_fetch);
  bool ok = c->warps && c->need_fetch;
  for (uint32_t s = 0; ok && s < cfg->n_schedulers; s++) {
    c->sched[s].warps = calloc(cfg->max_warps, sizeof *c->sched[s].warps);
    c->sched[s].active = calloc(cfg->max_warps, sizeof *c->sched[s].active);
    c->sched[s].greedy = CA_NONE;
    ok = c->sched[s].warps && c->sched[s].active;
  }
  if (!ok) {
    ca_destroy(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  }
  st = simt_base_attach(&c->base, ldst_complete, diag);
  if (st != SIMTVP_OK) {
    ca_destroy(c);
    return st;
  }
  *state = c;
  return SIMTVP_OK;
}

static void ca_destroy(void *state) {
  ca_core *c = state;
  if (!c) return;
  simt_base_destroy(&c->base);
  ca_pipe_free(c);
  for (uint32_t s = 0; s < SIMT_MAX_SCHEDULERS; s++) {
    free(c->sched[s].warps);
    free(c->sched[s].active);
  }
  free(c->warps);
  free(c->need_fetch);
  free(c->sb);
  free(c);
}

static bool grow_scoreboard(ca_core *c, uint32_t words) {
  uint64_t *sb = calloc((size_t)c->base.cfg.max_warps * 2 * words, sizeof *sb);
  if (!sb) return false;
  for (uint32_t w = 0; w < c->base.cfg.max_warps && c->sb; w++) {
    memcpy(sb + (size_t)w * 2 * words, c->sb + (size_t)w * 2 * c->sb_words, c->sb_words * sizeof *sb);
    memcpy(sb + (size_t)w * 2 * words + words, c->sb + (size_t)w * 2 * c->sb_words + c->sb_words,
           c->sb_words * sizeof *sb);
  }
  free(c->sb);
  c->sb = sb;
  c->sb_words = words;
  return true;
}

static simtvp_status ca_launch_cta(void *state, const simt_kernel *k, const uint32_t id[3], uint64_t now,
                                   simtvp_diag *diag) {
  ca_core *c = state;
  catch_up(c, now);
  uint32_t ci, nw, slots[SIMT_MAX_CTA_WARPS];
  simtvp_status st = simt_base_start_cta(&c->base, k, id, &ci, slots, &nw, diag);
  if (st != SIMTVP_OK) return st;
  simt_cta *cta = &c->base.ctas[ci];
  for (uint32_t i = 0; i < nw; i++) {
    uint32_t slot = slots[i];
    ca_warp *w = &c->warps[slot];
    memset(w, 0, sizeof *w);
    w->live = true;
    w->fw = func_cta_warp(cta->fc, i);
    w->cta = ci;
    w->index = i;
    w->sched = slot % c->base.cfg.n_schedulers;
    w->part = c->base.cfg.sub_core ? w->sched : 0;
    w->age = c->next_age++;
    w->sb_pc = w->sb_clear_pc = CA_NONE;
    func_peek pk;
    if (func_warp_peek(w->fw, &pk)) {
      w->fetch_pc = pk.pc;
      cta->code_base = pk.fetch_addr - (uint64_t)pk.pc * FUNC_INSN_BYTES;
    } else {
      w->exited = true; /* nothing to run */
    }
    memset(ca_sb_of(c, slot), 0, 2 * c->sb_words * sizeof *c->sb);
    /* each running kernel's parameters get their own 64 KiB of the parameter window */
    if (c->base.lif->set_param_base)
      c->base.lif->set_param_base(c->base.ldst, slot, FUNC_WINDOW_PARAM + (uint64_t)k->slot * 0x10000u);
    if (c->base.lif->set_pdb) c->base.lif->set_pdb(c->base.ldst, slot, k->pdb);
    ca_sched *s = &c->sched[w->sched];
    s->warps[s->n++] = slot;
    s->idle_valid = false;
    c->n_live_warps++;
    update_fetch_bit(c, slot);
  }
  for (uint32_t i = 0; i < nw && cta->live; i++) ca_warp_progress(c, slots[i], now);
  simt_base_flush_reports(&c->base, now);
  return SIMTVP_OK;
}

static bool ca_mem_reply(void *state, mem_req *reply, uint64_t now) {
  ca_core *c = state;
  catch_up(c, now);
  if (reply->kind == MEM_ACC_INST_R) {
    if (c->base.l1i && cache_fill(c->base.l1i, reply, now)) {
      mem_req *r;
      while ((r = cache_reply_pop(c->base.l1i, now))) fetch_returned(c, r, false);
    } else {
      fetch_returned(c, reply, true);
    }
    return true;
  }
  if (!c->base.lif->reply(c->base.ldst, reply, now)) return false;
  if (c->n_drain) recheck_drains(c, now);
  simt_base_flush_reports(&c->base, now);
  return true;
}

static void ca_advance(void *state, uint64_t now) {
  ca_core *c = state;
  run_until(c, now);
  simt_base_flush_reports(&c->base, now);
}

static uint64_t ca_next_event(const void *state) {
  const ca_core *c = state;
  return c->next;
}

static bool ca_idle(const void *state) {
  const ca_core *c = state;
  return !c->base.n_ctas && !c->id_oc.n && !c->cu.n && !c->oc_ex.n && !c->heap.n && !c->fb_valid &&
         simt_base_memory_idle(&c->base);
}

static uint32_t ca_resident(const void *state) { return ((const ca_core *)state)->base.n_ctas; }

static uint32_t ca_flush(void *state, uint64_t now) {
  ca_core *c = state;
  catch_up(c, now);
  return c->base.lif->flush_l1(c->base.ldst, now);
}

static void ca_dump(const void *state, void (*line)(void *ctx, const char *text), void *ctx) {
  const ca_core *c = state;
  char buf[512];
  snprintf(buf, sizeof buf,
           "SIMT core %u (ca) at cycle %" PRIu64 ": %u CTAs, %u warps; ID_OC %u, collectors %u, OC_EX %u, "
           "executing %u, fetch buffer %s",
           c->base.cfg.sm, c->base.done_until ? c->base.done_until - 1 : 0, c->base.n_ctas, c->n_live_warps,
           c->id_oc.n, c->cu.n, c->oc_ex.n, c->heap.n, c->fb_valid ? "full" : "empty");
  simt_base_dump(&c->base, buf, line, ctx);
}

const simt_core_ops simt_ca_ops = {"ca",       ca_create,     ca_destroy, ca_launch_cta, ca_mem_reply,
                                   ca_advance, ca_next_event, ca_idle,    ca_resident,   ca_flush,
                                   ca_dump,    NULL,          ca_replay};
