/* simt_func — the "func" variant of the SIMT core (simt.h): each CTA runs to completion inside
 * launch_cta on models/func's per-warp interface, warp by warp until it blocks at a barrier,
 * releasing barriers as they complete; zero simulated time, no memory traffic. Useful for SMs
 * whose timing is of no interest. Faults and barrier deadlocks end the CTA with their status. */
#include "simtvp_bits.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_variant.h"

typedef struct simt_func_core {
  simt_core_config cfg;
  simt_core_ports ports;
  simt_insn_counters n;
  uint64_t scratch;
} simt_func_core;

static simtvp_status f_create(const simt_core_config *config, simt_core_ports ports, void **state,
                              simtvp_diag *diag) {
  simt_func_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", config->sm);
  c->cfg = *config;
  c->ports = ports;
  simt_insn_counters_register(&c->n, config->stats, config->sm, &c->scratch);
  *state = c;
  return SIMTVP_OK;
}

static void f_destroy(void *state) { free(state); }

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

static gpu_cta_result run_cta(simt_func_core *c, const simt_kernel *k, func_cta *cta,
                              const uint32_t id[3], uint64_t now) {
  gpu_cta_result r = {SIMTVP_OK, 0, 0};
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
  simtvp_status s = func_cta_start(k->launch, cta, c->cfg.sm, 0, &fc, diag);
  if (s != SIMTVP_OK) return s;
  gpu_cta_result r = run_cta(c, k, fc, cta, now);
  func_cta_finish(fc);
  c->ports.cta_done(c->ports.ctx, c->cfg.sm, k->slot, &r, now);
  return SIMTVP_OK;
}

static bool f_mem_reply(void *state, mem_req *reply, uint64_t now) {
  (void)state, (void)now;
  mem_req_free(reply); /* never asked for: drop it */
  return true;
}

static void f_advance(void *state, uint64_t now) { (void)state, (void)now; }
static uint64_t f_next_event(const void *state) {
  (void)state;
  return SIMT_NEVER;
}
static bool f_idle(const void *state) {
  (void)state;
  return true;
}
static uint32_t f_resident(const void *state) {
  (void)state;
  return 0;
}
static uint32_t f_flush(void *state, uint64_t now) {
  (void)state, (void)now;
  return 0;
}
static void f_dump(const void *state, void (*line)(void *ctx, const char *text), void *ctx) {
  const simt_func_core *c = state;
  char buf[96];
  snprintf(buf, sizeof buf, "SIMT core %u (func): nothing resident (CTAs run to completion at launch)", c->cfg.sm);
  line(ctx, buf);
}

const simt_core_ops simt_func_ops = {"func",     f_create,     f_destroy, f_launch_cta, f_mem_reply,
                                     f_advance,  f_next_event, f_idle,    f_resident,   f_flush,
                                     f_dump,     NULL,         NULL};
