/* simt_func — the "func" variant of the SIMT core (simt.h): each CTA runs to completion inside
 * launch_cta on models/func's per-warp interface, warp by warp until it blocks at a barrier,
 * releasing barriers as they complete; zero simulated time, no memory traffic. Useful for SMs
 * whose timing is of no interest. Faults and barrier deadlocks end the CTA with their status.
 * Unified memory (docs/vm.md): a warp whose access finds a page not resident records the faults
 * through simt_kernel.replayable_fault and waits; once no warp of its CTA can go on, the CTA is
 * parked (resident, not running; the core's other CTAs go on) until simt_core_replay, which
 * retries the waiting warps and resumes the CTA at the replay's cycle (or, cancelled, ends it
 * with a fault naming the kernel). */
#include "simtvp_bits.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_variant.h"

/* A CTA whose warps wait on replayable faults: kept until the replay. */
typedef struct parked_cta {
  const simt_kernel *k;
  func_cta *cta;
  uint32_t id[3];
  uint64_t since;  /* the cycle its warps began to wait (um.fault_stall_cycles) */
  bool runnable;   /* replayed: advance resumes it */
} parked_cta;

typedef struct simt_func_core {
  simt_core_config cfg;
  simt_core_ports ports;
  simt_insn_counters n;
  uint64_t scratch;
  parked_cta *parked; /* max_ctas entries (grown at launch should the dispatcher send more) */
  uint32_t n_parked, cap_parked;
  uint64_t resume_at; /* the replay's cycle while a parked CTA is runnable, else SIMT_NEVER */
  uint64_t *fault_stall, fault_stall_scratch; /* um.fault_stall_cycles, registered at the first wait */
} simt_func_core;

static simtvp_status f_create(const simt_core_config *config, simt_core_ports ports, void **state,
                              simtvp_diag *diag) {
  simt_func_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", config->sm);
  c->cfg = *config;
  c->ports = ports;
  simt_insn_counters_register(&c->n, config->stats, config->sm, &c->scratch);
  c->cap_parked = config->max_ctas ? config->max_ctas : 1;
  c->parked = calloc(c->cap_parked, sizeof *c->parked);
  if (!c->parked) {
    free(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", config->sm);
  }
  c->resume_at = SIMT_NEVER;
  c->fault_stall = &c->fault_stall_scratch;
  *state = c;
  return SIMTVP_OK;
}

static void f_destroy(void *state) {
  simt_func_core *c = state;
  for (uint32_t i = 0; i < c->n_parked; i++) func_cta_finish(c->parked[i].cta);
  free(c->parked);
  free(c);
}

static void count(simt_func_core *c, const func_step *st) {
  uint64_t t = (uint64_t)simtvp_popcount32(st->active);
  *c->n.gpu_sim_insn += t;
  *c->n.thrd_icount += t;
  *c->n.core_thread_insn += t;
  ++*c->n.w_icount;
  ++*c->n.core_warp_insn;
}

/* Warp instructions a warp runs before the next warp's turn (func_launch_run's time slice). */
#define RUN_SLICE 4096u

/* Warp w's next access faults replayably (FUNC_WARP_FAULT_WAIT): its pages go to the kernel's
 * recorder; true = the warp waits for the replay, false = the GPU has no fault buffer (fatal; va
 * holds the address). */
static bool fault_wait(simt_func_core *c, const simt_kernel *k, func_warp *w, uint64_t now, uint64_t *va) {
  uint64_t pages[32];
  uint8_t access, kind;
  func_warp_replay_fault(w, va, &access);
  func_warp_replay_kind(w, &kind);
  uint32_t n = func_warp_replay_pages(w, pages);
  /* whether the warp can wait is known at once; the stall counter registers before the faults
   * are recorded (the statistics' order does not depend on -sim_threads, as simt_core_base's) */
  if (!k->replayable_fault || !k->replayable_fault(k->fault_ctx, k, c->cfg.sm, pages, 0, access, kind, now))
    return false;
  if (c->fault_stall == &c->fault_stall_scratch) {
    c->fault_stall = c->cfg.stats ? stats_counter(c->cfg.stats, "um.fault_stall_cycles", "cycles",
                                                  "warp cycles spent waiting for the driver to service "
                                                  "replayable faults")
                                  : &c->fault_stall_scratch;
    if (c->fault_stall != &c->fault_stall_scratch) *c->fault_stall += c->fault_stall_scratch;
  }
  return k->replayable_fault(k->fault_ctx, k, c->cfg.sm, pages, n, access, kind, now);
}

/* Runs CTA cta until it ends (r.status, *parked false) or every warp that can still go on waits,
 * some on replayable faults (*parked true: the CTA waits for the replay). */
static gpu_cta_result run_cta(simt_func_core *c, const simt_kernel *k, func_cta *cta,
                              const uint32_t id[3], uint64_t now, bool *parked) {
  gpu_cta_result r = {SIMTVP_OK, 0, 0};
  bool waits = false; /* a warp waits on a replayable fault */
  *parked = false;
  simtvp_diag d;
  func_step st;
  simtvp_diag_clear(&d);
  uint32_t n = func_cta_warp_count(cta);
  enum { MAX_WARPS = FUNC_MAX_CTA_THREADS / FUNC_WARP_SIZE };
  uint32_t bar_pc[MAX_WARPS] = {0}; /* the barrier each warp waits at */
  while (!func_cta_done(cta)) {
    bool progress = false;
    for (uint32_t i = 0; i < n && r.status == SIMTVP_OK; i++) {
      func_warp *w = func_cta_warp(cta, i);
      /* a warp runs until it waits at a barrier, spins on a wait (yield) or has run a time slice,
       * so warps waiting on each other's memory progress (as func_launch_run's slices) */
      for (uint32_t slice = 0; slice < RUN_SLICE && func_warp_get_state(w) == FUNC_WARP_READY; slice++) {
        simtvp_status s = func_warp_step(w, &st, &d);
        progress = true;
        if (s == SIMTVP_OK && func_warp_get_state(w) == FUNC_WARP_FAULT_WAIT) {
          /* unified memory: nothing of the instruction ran; the warp waits for the replay */
          uint64_t va = 0;
          if (fault_wait(c, k, w, now, &va)) {
            waits = true;
            break;
          }
          simtvp_diag_set(&d, SIMTVP_ERR_FAULT,
                          "kernel %s: global access at 0x%" PRIx64 " faults replayably (the page is not "
                          "resident) but the GPU has no fault buffer", k->name ? k->name : "?", va);
          simtvp_diag_at_address(&d, va);
          char text[SIMTVP_DIAG_MESSAGE_MAX + 64];
          snprintf(text, sizeof text, "SIMT core %u: %s", c->cfg.sm, d.message);
          simt_report_fault(&c->ports, c->cfg.sm, k->slot, SIMTVP_ERR_FAULT, &d, text, now);
          r.status = SIMTVP_ERR_FAULT;
          r.fault_addr = va;
          r.pc = 0;
          break;
        }
        if (s != SIMTVP_OK) {
          if (func_warp_get_state(w) == FUNC_WARP_FAULTED) {
            char text[SIMTVP_DIAG_MESSAGE_MAX + 64];
            snprintf(text, sizeof text, "SIMT core %u: %s", c->cfg.sm, d.message);
            simt_report_fault(&c->ports, c->cfg.sm, k->slot, s, &d, text, now);
          }
          r.status = s;
          r.fault_addr = (d.where & SIMTVP_WHERE_ADDRESS) ? d.address : 0;
          r.pc = d.pc;
          break;
        }
        count(c, &st);
        if (st.kind == FUNC_STEP_BARRIER && st.barrier_complete) func_cta_release_barrier(cta, st.barrier_id);
        if (st.kind == FUNC_STEP_EXIT && st.warp_done)
          for (uint32_t b = 0; b < FUNC_NUM_BARRIERS; b++) func_cta_release_barrier(cta, b);
        if (st.kind == FUNC_STEP_BARRIER && st.barrier_wait) { /* let the others arrive */
          if (i < MAX_WARPS) bar_pc[i] = st.pc;
          break;
        }
        if (st.yield) break;
      }
    }
    if (r.status != SIMTVP_OK) break;
    if (!progress && waits) { /* the rest wait for the faulting warps (or are done) */
      *parked = true;
      break;
    }
    if (!progress) {
      char text[512];
      snprintf(text, sizeof text,
               "SIMT core %u: kernel %s CTA (%u,%u,%u): barrier deadlock: every live warp waits at a "
               "barrier that cannot complete",
               c->cfg.sm, k->name ? k->name : "?", id[0], id[1], id[2]);
      r.status = SIMTVP_ERR_DEADLOCK;
      for (uint32_t i = 0; i < n && i < MAX_WARPS; i++)
        if (func_warp_get_state(func_cta_warp(cta, i)) == FUNC_WARP_BARRIER) {
          r.pc = bar_pc[i];
          break;
        }
      simt_report_deadlock(&c->ports, c->cfg.sm, k, id, r.pc, text, false, now);
      break;
    }
  }
  return r;
}

static simtvp_status f_launch_cta(void *state, const simt_kernel *k, const uint32_t cta[3],
                                  uint64_t now, simtvp_diag *diag) {
  simt_func_core *c = state;
  func_cta *fc;
  if (func_launch_cluster_size(k->launch) > 1)
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                           "SIMT core %u (func): kernel %s uses thread block clusters, whose CTAs must run "
                           "together; a func core runs each CTA alone to completion (use CA or AT cores, or "
                           "the functional GPU)", c->cfg.sm, k->name ? k->name : "?");
  if (c->n_parked == c->cap_parked) { /* room for this CTA should it wait on a fault */
    parked_cta *p = realloc(c->parked, 2 * (size_t)c->cap_parked * sizeof *p);
    if (!p) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->cfg.sm);
    c->parked = p;
    c->cap_parked *= 2;
  }
  simtvp_status s = func_cta_start(k->launch, cta, c->cfg.sm, 0, &fc, diag);
  if (s != SIMTVP_OK) return s;
  bool parked;
  gpu_cta_result r = run_cta(c, k, fc, cta, now, &parked);
  if (parked) {
    parked_cta *p = &c->parked[c->n_parked++];
    memset(p, 0, sizeof *p);
    p->k = k;
    p->cta = fc;
    memcpy(p->id, cta, sizeof p->id);
    p->since = now;
    return SIMTVP_OK;
  }
  func_cta_finish(fc);
  c->ports.cta_done(c->ports.ctx, c->cfg.sm, k->slot, &r, now);
  return SIMTVP_OK;
}

/* Ends parked CTA i (its record leaves the list, order kept) with r. */
static void end_parked(simt_func_core *c, uint32_t i, const gpu_cta_result *r, uint64_t now) {
  parked_cta p = c->parked[i];
  memmove(&c->parked[i], &c->parked[i + 1], (c->n_parked - i - 1) * sizeof *c->parked);
  c->n_parked--;
  func_cta_finish(p.cta);
  c->ports.cta_done(c->ports.ctx, c->cfg.sm, p.k->slot, r, now);
}

/* MMU_REPLAY: the parked CTAs' waiting warps retry; advance resumes the CTAs at cycle now. With
 * cancel every parked CTA ends with a fault naming its kernel. */
static void f_replay(void *state, bool cancel, uint64_t now) {
  simt_func_core *c = state;
  for (uint32_t i = 0; i < c->n_parked;) {
    parked_cta *p = &c->parked[i];
    uint32_t n = func_cta_warp_count(p->cta);
    for (uint32_t w = 0; w < n; w++) {
      func_warp *fw = func_cta_warp(p->cta, w);
      if (func_warp_get_state(fw) != FUNC_WARP_FAULT_WAIT) continue;
      *c->fault_stall += now > p->since ? now - p->since : 0;
      func_warp_retry(fw);
    }
    if (!cancel) {
      p->runnable = true;
      c->resume_at = now;
      i++;
      continue;
    }
    simtvp_diag d;
    simtvp_diag_set(&d, SIMTVP_ERR_FAULT,
                    "kernel %s: accesses waiting on replayable GPU page faults were cancelled (MMU_REPLAY.CANCEL)",
                    p->k->name ? p->k->name : "?");
    char text[SIMTVP_DIAG_MESSAGE_MAX + 64];
    snprintf(text, sizeof text, "SIMT core %u: %s", c->cfg.sm, d.message);
    simt_report_fault(&c->ports, c->cfg.sm, p->k->slot, SIMTVP_ERR_FAULT, &d, text, now);
    gpu_cta_result r = {SIMTVP_ERR_FAULT, 0, 0};
    end_parked(c, i, &r, now);
  }
}

static bool f_mem_reply(void *state, mem_req *reply, uint64_t now) {
  (void)state, (void)now;
  mem_req_free(reply); /* never asked for: drop it */
  return true;
}

/* Resumes the replayed CTAs (in the order they parked); those that wait again stay parked. */
static void f_advance(void *state, uint64_t now) {
  simt_func_core *c = state;
  if (c->resume_at == SIMT_NEVER || now < c->resume_at) return;
  c->resume_at = SIMT_NEVER;
  for (uint32_t i = 0; i < c->n_parked;) {
    parked_cta *p = &c->parked[i];
    if (!p->runnable) {
      i++;
      continue;
    }
    p->runnable = false;
    bool parked;
    gpu_cta_result r = run_cta(c, p->k, p->cta, p->id, now, &parked);
    if (parked) {
      p->since = now;
      i++;
      continue;
    }
    end_parked(c, i, &r, now);
  }
}
static uint64_t f_next_event(const void *state) {
  const simt_func_core *c = state;
  return c->resume_at;
}
static bool f_idle(const void *state) {
  const simt_func_core *c = state;
  return c->n_parked == 0;
}
static uint32_t f_resident(const void *state) {
  const simt_func_core *c = state;
  return c->n_parked;
}
static uint32_t f_flush(void *state, uint64_t now) {
  (void)state, (void)now;
  return 0;
}
static void f_dump(const void *state, void (*line)(void *ctx, const char *text), void *ctx) {
  const simt_func_core *c = state;
  char buf[160];
  if (!c->n_parked) {
    snprintf(buf, sizeof buf, "SIMT core %u (func): nothing resident (CTAs run to completion at launch)", c->cfg.sm);
    line(ctx, buf);
  }
  for (uint32_t i = 0; i < c->n_parked; i++) {
    const parked_cta *p = &c->parked[i];
    snprintf(buf, sizeof buf, "SIMT core %u (func): kernel %s CTA (%u,%u,%u) %s", c->cfg.sm,
             p->k->name ? p->k->name : "?", p->id[0], p->id[1], p->id[2],
             p->runnable ? "replayed, resumes" : "waits on replayable page faults (MMU_REPLAY)");
    line(ctx, buf);
  }
}

const simt_core_ops simt_func_ops = {"func",     f_create,     f_destroy, f_launch_cta, f_mem_reply,
                                     f_advance,  f_next_event, f_idle,    f_resident,   f_flush,
                                     f_dump,     NULL,         f_replay};
