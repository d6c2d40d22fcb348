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

static ca_cta *cta_of(ca_core *c, const ca_warp *w) { return &c->ctas[w->cta]; }
static const simt_program *prog_of(ca_core *c, const ca_warp *w) { return c->ctas[w->cta].k->program; }

/* ---- reports --------------------------------------------------------------------------------- */

static void queue_report(ca_core *c, uint32_t slot, const gpu_cta_result *r) {
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
static void flush_reports(ca_core *c, uint64_t now) {
  for (uint32_t i = 0; i < c->n_reports; i++) {
    uint32_t slot = c->reports[i].slot;
    gpu_cta_result r = c->reports[i].r;
    c->ports.cta_done(c->ports.ctx, c->cfg.sm, slot, &r, now);
  }
  c->n_reports = 0;
}

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
  uint32_t n = c->cfg.max_warps, start = (after + 1) % n;
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

static void finish_cta(ca_core *c, ca_cta *cta) {
  func_cta_finish(cta->fc);
  cta->fc = NULL;
  cta->live = false;
  c->n_ctas--;
  ++*c->ctas_done;
  queue_report(c, cta->k->slot, &cta->result);
}

static void finish_warp(ca_core *c, uint32_t slot) {
  ca_warp *w = &c->warps[slot];
  set_drain(c, w, false);
  sched_remove(c, slot);
  w->live = false;
  update_fetch_bit(c, slot);
  c->n_live_warps--;
  ca_cta *cta = cta_of(c, w);
  if (++cta->n_finished == cta->n_warps) finish_cta(c, cta);
}

void ca_warp_progress(ca_core *c, uint32_t slot, uint64_t now) {
  (void)now;
  ca_warp *w = &c->warps[slot];
  if (!w->live) return;
  bool stores = c->lif->pending_stores(c->ldst, slot) > 0;
  if (w->wait == CA_WAIT_FENCE && !w->inflight_mem && !stores) {
    w->wait = CA_WAIT_NONE;
    ca_sched_touch(c, w->sched);
  }
  if (w->exited && !w->inflight && !stores) {
    finish_warp(c, slot);
    return;
  }
  set_drain(c, w, w->wait == CA_WAIT_FENCE || (w->exited && !w->inflight));
}

static void recheck_drains(ca_core *c, uint64_t now) {
  for (uint32_t s = 0; s < c->cfg.max_warps && c->n_drain; s++)
    if (c->warps[s].draining) ca_warp_progress(c, s, now);
}

/* Ends a CTA early (fault, deadlock): its warps issue nothing more; it is reported once their
 * in-flight instructions and stores have drained. */
static void abort_cta(ca_core *c, ca_cta *cta, const gpu_cta_result *r, uint64_t now) {
  if (cta->aborting) return;
  cta->aborting = true;
  cta->result = *r;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    uint32_t slot = cta->warp_slot[i];
    ca_warp *w = &c->warps[slot];
    if (!w->live) continue;
    w->exited = true;
    w->ib_n = 0;
    w->wait = CA_WAIT_NONE;
    ca_sched_touch(c, w->sched);
    update_fetch_bit(c, slot);
  }
  for (uint32_t i = 0; i < cta->n_warps && cta->live; i++) ca_warp_progress(c, cta->warp_slot[i], now);
}

static void warp_line(ca_core *c, const ca_warp *w, uint32_t slot, char *buf, size_t n) {
  const ptx_module *m = simt_program_module(prog_of(c, w));
  func_peek pk;
  const char *state = !w->live ? "finished" : w->exited ? "exited" : w->wait == CA_WAIT_BARRIER ? "barrier"
                      : w->wait == CA_WAIT_FENCE ? "fence" : w->imiss ? "imiss" : "ready";
  char text[160] = "";
  int k = snprintf(buf, n, "  warp %u (slot %u, sched %u): %s", w->index, slot, w->sched, state);
  if (k > 0 && (size_t)k < n && w->wait == CA_WAIT_BARRIER && w->bar_pc < m->n_insns) {
    ptx_insn_format(m, &m->insns[w->bar_pc], text, sizeof text);
    k += snprintf(buf + k, n - (size_t)k, " %u (pc %u `%s`)", w->bar_id, w->bar_pc, text);
  }
  uint32_t pc = func_warp_peek(w->fw, &pk) ? pk.pc : (w->ib_n ? w->ib_pc[0] : w->fetch_pc);
  text[0] = 0;
  if (pc < m->n_insns) ptx_insn_format(m, &m->insns[pc], text, sizeof text);
  if (k > 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, ", next pc %u (%s:%u) `%s`, ibuffer %u, in flight %u (mem %u), stores %u",
             pc, m->source_name ? m->source_name : "?", pc < m->n_insns ? m->insns[pc].ptx_line : 0u, text,
             w->ib_n, w->inflight, w->inflight_mem, c->lif->pending_stores(c->ldst, slot));
}

/* Every live warp of the CTA waits at a barrier that nothing can complete any more. */
static void check_deadlock(ca_core *c, ca_cta *cta, uint64_t now) {
  if (cta->aborting || !cta->live) return;
  uint32_t waiting = 0, running = 0, first = CA_NONE;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    const ca_warp *w = &c->warps[cta->warp_slot[i]];
    if (!w->live || w->exited) continue;
    if (w->wait == CA_WAIT_BARRIER) {
      waiting++;
      if (first == CA_NONE) first = cta->warp_slot[i];
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

/* Barriers of the CTA that completed during this issue stage release their warps now; they
 * issue from the next cycle (the hardware releases every warp when the last one arrives). */
static void settle_barriers(ca_core *c, ca_cta *cta, uint64_t now) {
  cta->check_bars = false;
  if (!cta->live || cta->aborting) return;
  uint32_t ids = 0;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    const ca_warp *w = &c->warps[cta->warp_slot[i]];
    if (w->live && w->wait == CA_WAIT_BARRIER) ids |= 1u << w->bar_id;
  }
  while (ids) {
    uint32_t id = (uint32_t)__builtin_ctz(ids);
    ids &= ids - 1;
    func_cta_release_barrier(cta->fc, id);
  }
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    ca_warp *w = &c->warps[cta->warp_slot[i]];
    w->pk_ok = false; /* released warps are READY again */
    if (w->live && w->wait == CA_WAIT_BARRIER && func_warp_get_state(w->fw) != FUNC_WARP_BARRIER) {
      w->wait = CA_WAIT_NONE;
      ca_sched_touch(c, w->sched);
    }
  }
  check_deadlock(c, cta, now);
}

static void fault_cta(ca_core *c, ca_cta *cta, ca_warp *w, simtvp_status st, const simtvp_diag *d,
                      uint64_t now) {
  /* The warp that faulted reports; others of the launch only see the launch's fault again. */
  if (func_warp_get_state(w->fw) == FUNC_WARP_FAULTED) {
    char text[SIMTVP_DIAG_MESSAGE_MAX + 64];
    snprintf(text, sizeof text, "SIMT core %u, cycle %" PRIu64 ": %s", c->cfg.sm, now, d->message);
    simt_report_fault(&c->ports, c->cfg.sm, cta->k->slot, st, d, text, now);
  }
  gpu_cta_result r = {st, (d->where & SIMTVP_WHERE_ADDRESS) ? d->address : 0, d->pc};
  abort_cta(c, cta, &r, now);
}

/* ---- statistics ------------------------------------------------------------------------------ */

enum { MI_LOAD, MI_STORE, MI_SHMEM, MI_SSTARR, MI_TEX, MI_CONST, MI_PARAM, MI_N };

static void count_space(ca_core *c, uint8_t space, bool store, uint64_t n) {
  switch (space) {
  case PTX_SPACE_SHARED: case PTX_SPACE_SHARED_CLUSTER: *c->mem_insn[MI_SHMEM] += n; break;
  case PTX_SPACE_CONST: *c->mem_insn[MI_CONST] += n; break;
  case PTX_SPACE_PARAM: *c->mem_insn[MI_PARAM] += n; break;
  case PTX_SPACE_TEX: *c->mem_insn[MI_TEX] += n; break;
  default: *c->mem_insn[store ? MI_STORE : MI_LOAD] += n; break;
  }
}

void ca_count_mem_insn(ca_core *c, const func_step *st) {
  bool store = st->is_store && !st->is_load && !st->is_atomic;
  uint16_t op = st->insn ? st->insn->opcode : 0;
  if (op == PTX_OP_TEX || op == PTX_OP_TLD4 || op == PTX_OP_SULD || op == PTX_OP_SUST || op == PTX_OP_SURED) {
    *c->mem_insn[MI_TEX] += (uint64_t)__builtin_popcount(st->mem_mask);
    return;
  }
  if (st->space != PTX_SPACE_GENERIC) {
    count_space(c, st->space, store, (uint64_t)__builtin_popcount(st->mem_mask));
    return;
  }
  for (uint32_t m = st->mem_mask; m; m &= m - 1) count_space(c, st->lane_space[__builtin_ctz(m)], store, 1);
}

static void register_stats(ca_core *c) {
  stats *st = c->cfg.stats;
  simt_insn_counters_register(&c->n, st, c->cfg.sm, &c->scratch);
  if (!st) {
    for (int i = 0; i < 35; i++) c->distro[i] = &c->scratch;
    for (int i = 0; i < CA_R_N; i++) c->reason[i] = &c->scratch;
    for (int i = 0; i < MI_N; i++) c->mem_insn[i] = &c->scratch;
    c->cycles = c->ctas_done = c->bank_conflicts = c->ldst_stall = &c->scratch;
    return;
  }
  char name[96];
  c->distro[CA_B_IDLE] = stats_counter(st, "W0_Idle", "cycles",
                                       "scheduler cycles without issue: no warp had a decoded instruction");
  c->distro[CA_B_SCOREBOARD] = stats_counter(st, "W0_Scoreboard", "cycles",
                                             "scheduler cycles without issue: every decoded instruction "
                                             "waited for a register (scoreboard)");
  c->distro[CA_B_STALL] = stats_counter(st, "Stall", "cycles",
                                        "scheduler cycles without issue: a ready instruction found its pipeline busy");
  for (int i = 1; i <= 32; i++) {
    snprintf(name, sizeof name, "W%d", i);
    c->distro[2 + i] = stats_counter(st, name, "insn", "warp instructions issued with this many active threads");
  }
  static const char *const rn[CA_R_N] = {"no_warp", "barrier", "ibuffer_empty", "scoreboard", "pipe_busy"};
  static const char *const rd[CA_R_N] = {
      "scheduler cycles without issue: the scheduler had no live warp",
      "scheduler cycles without issue: every live warp waited at a barrier or fence or had exited",
      "scheduler cycles without issue: the best warp had no decoded instruction (fetch, L1I miss, branch)",
      "scheduler cycles without issue: the best warp waited for a register (scoreboard)",
      "scheduler cycles without issue: the best warp was ready but its pipeline was busy"};
  for (int i = 0; i < CA_R_N; i++) {
    snprintf(name, sizeof name, "simt_sched_stall[%s]", rn[i]);
    c->reason[i] = stats_counter(st, name, "cycles", rd[i]);
  }
  static const char *const mn[MI_N] = {"gpgpu_n_load_insn",  "gpgpu_n_store_insn",     "gpgpu_n_shmem_insn",
                                       "gpgpu_n_sstarr_insn", "gpgpu_n_tex_insn",      "gpgpu_n_const_mem_insn",
                                       "gpgpu_n_param_mem_insn"};
  static const char *const md[MI_N] = {
      "thread loads (and atomics) of global and local memory", "thread stores to global and local memory",
      "thread accesses to shared memory", "thread accesses to shared static arrays (OpenCL; always 0 here)",
      "thread texture and surface accesses", "thread constant-memory loads", "thread parameter-memory loads"};
  for (int i = 0; i < MI_N; i++) c->mem_insn[i] = stats_counter(st, mn[i], "insn", md[i]);
  snprintf(name, sizeof name, "simt_core[%u].cycles", c->cfg.sm);
  c->cycles = stats_counter(st, name, "cycles", "cycles this SIMT core had a resident CTA");
  snprintf(name, sizeof name, "simt_core[%u].ctas", c->cfg.sm);
  c->ctas_done = stats_counter(st, name, "CTAs", "CTAs this SIMT core completed");
  c->bank_conflicts = stats_counter(st, "gpu_reg_bank_conflict_stalls", "cycles",
                                    "register-bank cycles in which a read waited for a busy bank");
  stats_mark_cumulative(st, "gpu_reg_bank_conflict_stalls");
  c->ldst_stall = stats_counter(st, "simt_stall_ldst_busy", "cycles",
                                "cycles a memory instruction waited in OC_EX for the LDST unit");
}

/* ---- scoreboard ------------------------------------------------------------------------------ */

/* RAW/WAW check of the instruction at pc against the warp's pending writes. The register that
 * blocked it last time is tried first: while it is pending the answer stays "blocked" at once. */
static bool sb_blocked(ca_core *c, uint32_t slot, uint32_t pc, bool *long_op) {
  ca_warp *w = &c->warps[slot];
  const uint64_t *sb = ca_sb_of(c, slot);
  if (!long_op) {
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

/* The checks before an issue, kept small: most tries find the pipeline register full. */
static int try_issue(ca_core *c, uint32_t slot, uint8_t prev_unit, uint8_t *unit_out, uint64_t now) {
  ca_warp *w = &c->warps[slot];
  ca_cta *cta = cta_of(c, w);
  const simt_program *p = cta->k->program;
  uint32_t pc = w->ib_pc[0];
  if (!w->pk_ok) {
    func_peek pk;
    if (!func_warp_peek(w->fw, &pk)) pk.pc = UINT32_MAX;
    else w->pk_ok = true;
    w->pk_pc = pk.pc;
    w->pk_unit = !w->pk_ok ? (uint8_t)NO_UNIT
                 : pk.kind == FUNC_STEP_MEM ? (uint8_t)SIMT_UNIT_MEM
                 : (pk.kind == FUNC_STEP_BARRIER || pk.kind == FUNC_STEP_FENCE) ? (uint8_t)NO_UNIT
                                                                               : c->eff_unit[p->info[pk.pc].unit];
  }
  if (!w->pk_ok || w->pk_pc != pc) { /* out of step with the engine: refetch */
    w->ib_n = 0;
    if (w->pk_ok && w->pk_pc < p->m->n_insns) w->fetch_pc = w->pk_pc;
    update_fetch_bit(c, slot);
    return ISS_GONE;
  }
  uint8_t unit = w->pk_unit;
  if (prev_unit != NO_UNIT && c->cfg.dual_issue_diff_units && unit == prev_unit) return ISS_PIPE;
  *unit_out = unit;
  uint32_t item = CA_NONE;
  if (unit != NO_UNIT) {
    item = ca_items_free_slot(&c->id_oc_slots[unit], w->part);
    if (item == CA_NONE) return ISS_PIPE;
  }
  return issue_warp(c, slot, unit, item, now);
}

/* Issues the warp's I-buffer head (pc = the engine's) into ID_OC slot `item` of `unit`. */
static __attribute__((noinline)) int issue_warp(ca_core *c, uint32_t slot, uint8_t unit, uint32_t item,
                                                uint64_t now) {
  ca_warp *w = &c->warps[slot];
  ca_cta *cta = cta_of(c, w);
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
  if (st != SIMTVP_OK) {
    if (step != CA_NONE) ca_step_release(c, step);
    if (id != CA_NONE) ca_insn_release(c, id);
    fault_cta(c, cta, w, st, &d, now);
    return ISS_GONE;
  }
  uint32_t active = (uint32_t)__builtin_popcount(rec->active);
  *c->n.gpu_sim_insn += active;
  *c->n.thrd_icount += active;
  *c->n.core_thread_insn += active;
  ++*c->n.w_icount;
  ++*c->n.core_warp_insn;
  if (active >= 1 && active <= 32) ++*c->distro[2 + active];
  if (c->cfg.trace.issue) c->cfg.trace.issue(c->cfg.trace.ctx, c->cfg.sm, slot, pc, rec->active, now);
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
    in->set = c->set_of_unit[unit];
    in->part = (uint8_t)w->part;
    in->n_rf = info->n_src_rf;
    in->n_dst = info->n_dst;
    in->src = regs;
    in->dst = regs + info->n_src;
    in->lat = (uint16_t)c->lat[info->lat_row][info->op];
    in->ii = (uint16_t)c->ii[info->lat_row][info->op];
    in->item = item;
    in->step = step;
    in->reads = 0;
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
      w->wait = CA_WAIT_BARRIER;
      w->bar_id = rec->barrier_id;
      w->bar_pc = pc;
    }
    cta->check_bars = c->any_check_bars = true;
    break;
  case FUNC_STEP_FENCE:
    if (w->inflight_mem || c->lif->pending_stores(c->ldst, slot)) {
      w->wait = CA_WAIT_FENCE;
      set_drain(c, w, true);
    }
    break;
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
  *bucket = sc->ready ? CA_B_STALL : sc->valid ? CA_B_SCOREBOARD : CA_B_IDLE;
  *reason = sc->ready ? CA_R_PIPE : sc->valid ? CA_R_SCOREBOARD : sc->empty ? CA_R_IBUFFER
            : sc->live ? CA_R_BARRIER : CA_R_NO_WARP;
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
  uint32_t cap = c->cfg.scheduler_params[0] ? c->cfg.scheduler_params[0] : 8;
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
  switch ((gpu_scheduler_policy)c->cfg.scheduler) {
  case GPU_SCHED_LRR:
  case GPU_SCHED_RRR:
    for (uint32_t i = 0; i < s->n; i++) out[n++] = s->warps[(s->rr + i) % s->n];
    break;
  case GPU_SCHED_OLDEST:
    memcpy(out, s->warps, s->n * sizeof *out);
    n = s->n;
    break;
  case GPU_SCHED_TWO_LEVEL_ACTIVE:
    if (c->cfg.scheduler_params[1] == 0) { /* inner round robin */
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
    uint32_t lim = c->cfg.scheduler_params[1] ? c->cfg.scheduler_params[1] : s->n, k = 0;
    bool greedy_in = false;
    for (uint32_t i = 0; i < s->n && k < lim; i++) {
      const ca_warp *w = &c->warps[s->warps[i]];
      if (!w->live || w->exited || w->wait) continue;
      greedy_in = greedy_in || s->warps[i] == s->greedy;
      out[n + 1 + k++] = s->warps[i];
    }
    if (greedy_in) out[n++] = s->greedy;
    for (uint32_t i = 0; i < k; i++)
      if (out[1 + i] != s->greedy || !greedy_in) out[n++] = out[1 + i];
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
  gpu_scheduler_policy pol = (gpu_scheduler_policy)c->cfg.scheduler;
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
  if (c->cfg.max_issue_per_warp > 1 && w->live && w->ib_n && !w->exited && !w->wait &&
      !sb_blocked(c, slot, w->ib_pc[0], NULL)) {
    uint8_t second = NO_UNIT;
    try_issue(c, slot, unit == NO_UNIT ? (uint8_t)0xfe : unit, &second, now);
  }
  return SCHED_ISSUED;
}

static void sched_cycle(ca_core *c, uint32_t si, uint32_t *order, uint64_t now) {
  ca_sched *s = &c->sched[si];
  if (c->cfg.scheduler == GPU_SCHED_RRR && s->n) s->rr = (s->rr + 1) % s->n;
  if (s->idle_valid) { /* nothing changed since a cycle that issued nothing */
    ++*c->distro[s->idle_bucket];
    ++*c->reason[s->idle_reason];
    return;
  }
  if (c->cfg.scheduler == GPU_SCHED_TWO_LEVEL_ACTIVE) tl_maintain(c, s, false);
  sched_scan sc = {false, false, false, false, false};
  /* the candidates in priority order (sched_order), walked in place for the simple policies;
   * n counts them as sched_order would. Until a candidate issues or stops the scheduler,
   * nothing changes the warp lists. */
  uint32_t n = s->n, r = SCHED_NEXT;
  switch ((gpu_scheduler_policy)c->cfg.scheduler) {
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
  ++*c->distro[bucket];
  ++*c->reason[reason];
  /* every warp was looked at and none could issue: so it stays until something changes (the
   * two-level scheduler changes its active set by itself every cycle) */
  if (!stopped && c->cfg.scheduler != GPU_SCHED_TWO_LEVEL_ACTIVE) {
    s->idle_valid = true;
    s->idle_bucket = bucket;
    s->idle_reason = reason;
  }
}

static void issue_stage(ca_core *c, uint64_t now) {
  uint32_t order[256];
  uint32_t *buf = c->cfg.max_warps <= 256 ? order : NULL;
  uint32_t *heap_buf = NULL;
  if (!buf) buf = heap_buf = malloc(c->cfg.max_warps * sizeof *buf);
  if (!buf) return;
  for (uint32_t s = 0; s < c->cfg.n_schedulers; s++) sched_cycle(c, s, buf, now);
  free(heap_buf);
  if (!c->any_check_bars) return;
  c->any_check_bars = false;
  for (uint32_t i = 0; i < c->cfg.max_ctas; i++)
    if (c->ctas[i].check_bars) settle_barriers(c, &c->ctas[i], now);
}

/* ---- fetch and decode ------------------------------------------------------------------------ */

/* An L1I fill (or, around a disabled L1I, the fetch itself) came back for the warp. */
static void fetch_returned(ca_core *c, mem_req *r, bool served) {
  uint32_t slot = r->warp;
  if (slot < c->cfg.max_warps && c->warps[slot].live) {
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
  const ca_cta *cta = cta_of(c, w);
  const ptx_module *m = simt_program_module(cta->k->program);
  uint32_t pc = w->fetch_pc;
  uint64_t addr = cta->code_base + (uint64_t)pc * FUNC_INSN_BYTES;
  uint32_t n = 1;
  if (pc + 1 < m->n_insns && m->insns[pc + 1].function == m->insns[pc].function &&
      (addr % c->l1i_line) + 2 * FUNC_INSN_BYTES <= c->l1i_line)
    n = 2;
  c->last_fetched = slot;
  if (!c->l1i || w->fill_ready) {
    w->fill_ready = false;
    c->fb_valid = true;
    c->fb_warp = slot, c->fb_pc = pc, c->fb_n = n;
    w->in_fetch = true;
    update_fetch_bit(c, slot);
    return;
  }
  mem_req *req = mem_req_alloc(c->pool);
  if (!req) return;
  req->addr = addr;
  req->size = n * FUNC_INSN_BYTES;
  req->kind = MEM_ACC_INST_R;
  req->needs_reply = true;
  req->sm = (uint16_t)c->cfg.sm;
  req->cluster = (uint16_t)c->cfg.cluster;
  req->warp = (uint16_t)slot;
  req->owner_tag = pc;
  cache_status st = cache_access(c->l1i, req, now, NULL);
  if (st == CACHE_RESERVATION_FAIL) {
    mem_req_free(req);
    return;
  }
  if (st == CACHE_HIT) {
    mem_req *r;
    while ((r = cache_reply_pop(c->l1i, now))) {
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
  if (c->l1i) {
    mem_req *r;
    while ((r = cache_miss_peek(c->l1i))) {
      if (!c->ports.send(c->ports.ctx, r, now)) break;
      cache_miss_pop(c->l1i);
    }
  }
  for (uint32_t i = 0; i < c->cfg.fetch_throughput; i++) {
    decode(c);
    fetch(c, now);
  }
}

/* ---- time ------------------------------------------------------------------------------------ */

static void simulate(ca_core *c, uint64_t t) {
  c->quiet = false;
  if (c->n_ctas) ++*c->cycles;
  ca_writeback_stage(c, t);
  if (c->n_drain) recheck_drains(c, t);
  if (c->oc_ex.n) ca_execute_stage(c, t);
  ca_oc_stage(c, t);
  if (c->n_ctas) issue_stage(c, t);
  fetch_stage(c, t);
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static uint64_t compute_next(ca_core *c, uint64_t t) {
  if (c->cfg.every_cycle && c->n_ctas) return t + 1;
  if (c->id_oc.n || c->cu.n || c->oc_ex.n || c->fb_valid || any_fetch(c)) return t + 1;
  if (c->l1i && cache_miss_peek(c->l1i)) return t + 1;
  uint64_t n = min_u64(ca_heap_top(c), c->lif->next_event(c->ldst));
  if (c->l1i) n = min_u64(n, cache_next_event(c->l1i));
  if (n <= t + 1) return t + 1;
  for (uint32_t si = 0; si < c->cfg.n_schedulers && c->n_ctas; si++) {
    ca_sched *s = &c->sched[si];
    if (c->cfg.scheduler == GPU_SCHED_TWO_LEVEL_ACTIVE && tl_maintain(c, s, true)) return t + 1;
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
  if (!cycles || !c->n_ctas) return;
  *c->cycles += cycles;
  for (uint32_t si = 0; si < c->cfg.n_schedulers; si++) {
    ca_sched *s = &c->sched[si];
    *c->distro[s->bucket] += cycles;
    *c->reason[s->reason] += cycles;
    if (c->cfg.scheduler == GPU_SCHED_RRR && s->n) s->rr = (uint32_t)((s->rr + cycles) % s->n);
  }
}

static void run_until(ca_core *c, uint64_t end) {
  while (c->done_until <= end) {
    uint64_t t = c->next > c->done_until ? c->next : c->done_until;
    if (t > end) {
      account(c, end + 1 - c->done_until);
      c->done_until = end + 1;
      break;
    }
    account(c, t - c->done_until);
    simulate(c, t);
    c->done_until = t + 1;
    c->next = compute_next(c, t);
  }
}

static void catch_up(ca_core *c, uint64_t now) {
  if (now > 0) run_until(c, now - 1);
  if (c->next > now) c->next = now;
  c->quiet = false;
}

/* ---- LDST ports ------------------------------------------------------------------------------ */

static bool ldst_send(void *ctx, mem_req *req, uint64_t now) {
  ca_core *c = ctx;
  return c->ports.send(c->ports.ctx, req, now);
}

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
  ca_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  c->cfg = *cfg;
  c->ports = ports;
  c->lif = lif;
  if (c->cfg.reg_ports == 0) c->cfg.reg_ports = 1;
  c->n_parts = cfg->sub_core ? cfg->n_schedulers : 1;
  c->next = SIMT_NEVER;
  c->last_fetched = cfg->max_warps - 1;
  register_stats(c);
  simtvp_status st = ca_pipe_init(c, diag);
  if (st != SIMTVP_OK) {
    ca_destroy(c);
    return st;
  }
  c->pool = cfg->pool;
  if (!c->pool) {
    c->pool = mem_req_pool_create();
    c->own_pool = true;
  }
  c->warps = calloc(cfg->max_warps, sizeof *c->warps);
  c->ctas = calloc(cfg->max_ctas, sizeof *c->ctas);
  c->fetch_words = (cfg->max_warps + 63) / 64;
  c->need_fetch = calloc(c->fetch_words, sizeof *c->need_fetch);
  bool ok = c->pool && c->warps && c->ctas && c->need_fetch;
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
  char name[64];
  c->l1i_line = 128;
  if (!cfg->perfect_l1i) {
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
      if (st == SIMTVP_OK && !cc.spec.disabled) c->l1i_line = cc.spec.line_bytes;
    }
    if (st != SIMTVP_OK) {
      ca_destroy(c);
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
    ca_destroy(c);
    return diag && diag->status != SIMTVP_OK ? diag->status : SIMTVP_ERR_CONFIG;
  }
  *state = c;
  return SIMTVP_OK;
}

static void ca_destroy(void *state) {
  ca_core *c = state;
  if (!c) return;
  for (uint32_t i = 0; c->ctas && i < c->cfg.max_ctas; i++)
    if (c->ctas[i].live && c->ctas[i].fc) func_cta_finish(c->ctas[i].fc);
  if (c->ldst) c->lif->destroy(c->ldst);
  if (c->l1i) cache_destroy(c->l1i);
  ca_pipe_free(c);
  for (uint32_t s = 0; s < SIMT_MAX_SCHEDULERS; s++) {
    free(c->sched[s].warps);
    free(c->sched[s].active);
  }
  free(c->warps);
  free(c->ctas);
  free(c->need_fetch);
  free(c->sb);
  free(c->reports);
  if (c->own_pool) mem_req_pool_destroy(c->pool);
  free(c);
}

static bool grow_scoreboard(ca_core *c, uint32_t words) {
  uint64_t *sb = calloc((size_t)c->cfg.max_warps * 2 * words, sizeof *sb);
  if (!sb) return false;
  for (uint32_t w = 0; w < c->cfg.max_warps && c->sb; w++) {
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
  simtvp_status st = SIMTVP_OK;
  uint32_t ci = 0;
  while (ci < c->cfg.max_ctas && c->ctas[ci].live) ci++;
  uint32_t first = 0;
  while (first < c->cfg.max_warps && c->warps[first].live) first++;
  uint32_t words = (k->program->n_reg_ids + 63) / 64;
  if (ci == c->cfg.max_ctas || first == c->cfg.max_warps) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_STATE, "SIMT core %u: no free %s slot for CTA (%u,%u,%u) of %s", c->cfg.sm,
                         ci == c->cfg.max_ctas ? "CTA" : "warp", id[0], id[1], id[2], k->name ? k->name : "?");
  } else if (words > c->sb_words && !grow_scoreboard(c, words)) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->cfg.sm);
  }
  func_cta *fc = NULL;
  if (st == SIMTVP_OK) st = func_cta_start(k->launch, id, c->cfg.sm, first, &fc, diag);
  uint32_t nw = fc ? func_cta_warp_count(fc) : 0, slots[CA_MAX_CTA_WARPS], got = 0;
  for (uint32_t s = first; st == SIMTVP_OK && s < c->cfg.max_warps && got < nw; s++)
    if (!c->warps[s].live) slots[got++] = s;
  if (st == SIMTVP_OK && got < nw) {
    func_cta_finish(fc);
    st = simtvp_diag_set(diag, SIMTVP_ERR_STATE, "SIMT core %u: CTA (%u,%u,%u) of %s needs %u warp slots, %u are free",
                         c->cfg.sm, id[0], id[1], id[2], k->name ? k->name : "?", nw, got);
  }
  if (st != SIMTVP_OK) return st;
  ca_cta *cta = &c->ctas[ci];
  memset(cta, 0, sizeof *cta);
  cta->live = true;
  cta->k = k;
  cta->fc = fc;
  memcpy(cta->id, id, sizeof cta->id);
  cta->n_warps = nw;
  cta->result.status = SIMTVP_OK;
  c->n_ctas++;
  for (uint32_t i = 0; i < nw; i++) {
    uint32_t slot = slots[i];
    ca_warp *w = &c->warps[slot];
    memset(w, 0, sizeof *w);
    w->live = true;
    w->fw = func_cta_warp(fc, i);
    w->cta = ci;
    w->index = i;
    w->sched = slot % c->cfg.n_schedulers;
    w->part = c->cfg.sub_core ? w->sched : 0;
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
    if (c->lif->set_param_base) c->lif->set_param_base(c->ldst, slot, FUNC_WINDOW_PARAM + (uint64_t)k->slot * 0x10000u);
    cta->warp_slot[i] = slot;
    ca_sched *s = &c->sched[w->sched];
    s->warps[s->n++] = slot;
    s->idle_valid = false;
    c->n_live_warps++;
    update_fetch_bit(c, slot);
  }
  for (uint32_t i = 0; i < nw && cta->live; i++) ca_warp_progress(c, slots[i], now);
  flush_reports(c, now);
  return SIMTVP_OK;
}

static bool ca_mem_reply(void *state, mem_req *reply, uint64_t now) {
  ca_core *c = state;
  catch_up(c, now);
  if (reply->kind == MEM_ACC_INST_R) {
    if (c->l1i && cache_fill(c->l1i, reply, now)) {
      mem_req *r;
      while ((r = cache_reply_pop(c->l1i, now))) fetch_returned(c, r, false);
    } else {
      fetch_returned(c, reply, true);
    }
    return true;
  }
  if (!c->lif->reply(c->ldst, reply, now)) return false;
  if (c->n_drain) recheck_drains(c, now);
  flush_reports(c, now);
  return true;
}

static void ca_advance(void *state, uint64_t now) {
  ca_core *c = state;
  run_until(c, now);
  flush_reports(c, now);
}

static uint64_t ca_next_event(const void *state) {
  const ca_core *c = state;
  return c->next;
}

static bool ca_idle(const void *state) {
  const ca_core *c = state;
  return !c->n_ctas && !c->id_oc.n && !c->cu.n && !c->oc_ex.n && !c->heap_n && !c->fb_valid &&
         c->lif->idle(c->ldst) && (!c->l1i || cache_is_idle(c->l1i));
}

static uint32_t ca_resident(const void *state) { return ((const ca_core *)state)->n_ctas; }

static uint32_t ca_flush(void *state, uint64_t now) {
  ca_core *c = state;
  catch_up(c, now);
  return c->lif->flush_l1(c->ldst, now);
}

static void ca_dump(const void *state, void (*line)(void *ctx, const char *text), void *ctx) {
  ca_core *c = (ca_core *)state;
  char buf[512];
  snprintf(buf, sizeof buf,
           "SIMT core %u (ca) at cycle %" PRIu64 ": %u CTAs, %u warps; ID_OC %u, collectors %u, OC_EX %u, "
           "executing %u, fetch buffer %s",
           c->cfg.sm, c->done_until ? c->done_until - 1 : 0, c->n_ctas, c->n_live_warps, c->id_oc.n, c->cu.n,
           c->oc_ex.n, c->heap_n, c->fb_valid ? "full" : "empty");
  line(ctx, buf);
  for (uint32_t i = 0; i < c->cfg.max_ctas; i++) {
    const ca_cta *cta = &c->ctas[i];
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

const simt_core_ops simt_ca_ops = {"ca",       ca_create,     ca_destroy, ca_launch_cta, ca_mem_reply,
                                   ca_advance, ca_next_event, ca_idle,    ca_resident,   ca_flush,
                                   ca_dump};
