/* gpu_simt_func — functional SIMT side on models/func (see gpu_simt_func.h). */
#include "gpu_simt_func.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_launcher.h"

/* Whole-kernel mode (func_config.threads > 1): the first CTA the dispatcher hands over runs the
 * whole grid as one func_launch_run on several host threads; that CTA reports the kernel's result,
 * the others report OK at once. */
typedef struct whole_run {
  uint64_t launch_uid; /* the kernel this slot's state belongs to */
  bool ran;
} whole_run;

/* The CTAs of one thread block cluster, collected until all have arrived. */
typedef struct cluster_wait {
  uint32_t slot, n;
  uint64_t uid;
  uint32_t sm[16];
  uint32_t cta[16][3];
} cluster_wait;

struct gpu_simt_func {
  func_engine *e;
  devmem *mem;
  gpu_launcher *launcher;
  gpu_simt_func_ports ports;
  simtvp_diag fault;
  bool whole_kernels;
  uint64_t max_warp_insns; /* func_config's limit, per launch (0: none) */
  whole_run *runs;     /* by dispatcher slot */
  uint32_t n_runs;
  cluster_wait cluster; /* CTAs of a thread block cluster received so far */
};

static bool mem_read(void *ctx, uint64_t a, void *dst, uint64_t n) {
  return devmem_read(((gpu_simt_func *)ctx)->mem, a, dst, n, NULL) == SIMTVP_OK;
}
static bool mem_write(void *ctx, uint64_t a, const void *src, uint64_t n) {
  return devmem_write(((gpu_simt_func *)ctx)->mem, a, src, n, NULL) == SIMTVP_OK;
}

gpu_mem_port gpu_simt_func_devmem_port(gpu_simt_func *s) {
  gpu_mem_port p = {s, mem_read, mem_write};
  return p;
}

static void report(gpu_simt_func *s, const simtvp_diag *d) {
  s->fault = *d;
  simtvp_msg(&s->ports.messages, SIMTVP_ERROR, "%s", d->message);
}

static bool kernel_begin(void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
  gpu_simt_func *s = ctx;
  simtvp_diag d;
  if (s->whole_kernels && k->slot >= s->n_runs) {
    whole_run *r = realloc(s->runs, (size_t)(k->slot + 1) * sizeof *r);
    if (!r) {
      simtvp_diag_set(&d, SIMTVP_ERR_NOMEM, "out of host memory");
      report(s, &d);
      why->status = SIMTVP_ERR_NOMEM;
      why->fault_addr = why->pc = 0;
      return false;
    }
    memset(r + s->n_runs, 0, (k->slot + 1 - s->n_runs) * sizeof *r);
    s->runs = r;
    s->n_runs = k->slot + 1;
  }
  if (gpu_launcher_begin(s->launcher, k, why, &d)) {
    if (s->whole_kernels) {
      s->runs[k->slot].launch_uid = k->launch_uid;
      s->runs[k->slot].ran = false;
    }
    return true;
  }
  report(s, &d);
  return false;
}

static void kernel_end(void *ctx, const gpu_kernel *k) {
  gpu_simt_func *s = ctx;
  gpu_launcher_end(s->launcher, k);
}

/* The launch's warp instructions so far against func_config.max_warp_insns, which func_launch_run
 * enforces itself but the per-warp interface used here does not: false (and d filled) past it. */
static bool within_limit(const gpu_simt_func *s, func_launch *l, const func_step *last, const char *kernel,
                         const uint32_t cta[3], uint32_t warp, simtvp_diag *d) {
  func_launch_counts c;
  func_launch_get_counts(l, &c);
  if (c.warp_insns <= s->max_warp_insns) return true;
  const ptx_insn *in = last->insn;
  simtvp_diag_set(d, SIMTVP_ERR_LIMIT,
                  "instruction limit of %llu warp instructions exceeded in kernel %s, CTA (%u,%u,%u), warp %u, "
                  "pc %u (PTX line %u)",
                  (unsigned long long)s->max_warp_insns, kernel, cta[0], cta[1], cta[2], warp, last->pc,
                  in ? in->ptx_line : 0);
  simtvp_diag_at_pc(d, last->pc);
  return false;
}

/* Warp instructions a warp runs before the next warp's turn (func_launch_run's time slice). */
#define RUN_SLICE 4096u

/* Runs n CTAs (one, or the CTAs of a thread block cluster) to completion together, warps in
 * turn; r[i] gets CTA i's result. */
static void run_ctas(gpu_simt_func *s, func_launch *l, uint32_t n, const uint32_t *sm, const uint32_t (*cta)[3],
                     const char *kernel, gpu_cta_result *r) {
  func_cta *c[16] = {0};
  uint32_t steps = 0;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  for (uint32_t i = 0; i < n; i++) r[i] = (gpu_cta_result){SIMTVP_OK, 0, 0};
  for (uint32_t i = 0; i < n; i++)
    if (func_cta_start(l, cta[i], sm[i], 0, &c[i], &d) != SIMTVP_OK) {
      report(s, &d);
      for (uint32_t j = 0; j < n; j++) r[j] = (gpu_cta_result){d.status, d.address, 0};
      for (uint32_t j = 0; j < i; j++) func_cta_finish(c[j]);
      return;
    }
  simtvp_status fault = SIMTVP_OK;
  for (;;) {
    bool live = false, progress = false;
    for (uint32_t ci = 0; ci < n && fault == SIMTVP_OK; ci++) {
      if (func_cta_done(c[ci])) continue;
      live = true;
      uint32_t nw = func_cta_warp_count(c[ci]);
      for (uint32_t i = 0; i < nw && fault == SIMTVP_OK; i++) {
        func_warp *w = func_cta_warp(c[ci], i);
        /* a warp runs until it waits at a barrier, spins on a wait (yield) or has run a time slice,
         * so warps waiting on each other's memory progress (as func_launch_run's slices) */
        for (uint32_t slice = 0; slice < RUN_SLICE && func_warp_get_state(w) == FUNC_WARP_READY; slice++) {
          func_step st;
          simtvp_status ss = func_warp_step(w, &st, &d);
          progress = true;
          if (ss != SIMTVP_OK) {
            report(s, &d);
            fault = ss;
            r[ci] = (gpu_cta_result){ss, (d.where & SIMTVP_WHERE_ADDRESS) ? d.address : 0, d.pc};
            break;
          }
          if (s->max_warp_insns && ++steps % 4096u == 0 && !within_limit(s, l, &st, kernel, cta[ci], i, &d)) {
            report(s, &d);
            fault = SIMTVP_ERR_LIMIT;
            r[ci] = (gpu_cta_result){SIMTVP_ERR_LIMIT, 0, st.pc};
            break;
          }
          if (st.kind == FUNC_STEP_BARRIER && st.barrier_complete) func_cta_release_barrier(c[ci], st.barrier_id);
          /* a warp's exit completes the barriers that waited only for it */
          if (st.warp_done)
            for (uint32_t b = 0; b < FUNC_NUM_BARRIERS; b++) func_cta_release_barrier(c[ci], b);
          if (st.kind == FUNC_STEP_BARRIER && st.barrier_wait) break; /* let the other warps arrive */
          if (st.yield) break;
        }
      }
    }
    if (fault != SIMTVP_OK || !live) break;
    if (!progress) {
      uint32_t ci = 0;
      while (ci < n && func_cta_done(c[ci])) ci++;
      const uint32_t *id = cta[ci < n ? ci : 0];
      simtvp_diag_set(&d, SIMTVP_ERR_DEADLOCK,
                      "CTA (%u,%u,%u) on SM %u: every live warp waits at a barrier that cannot complete", id[0],
                      id[1], id[2], sm[ci < n ? ci : 0]);
      report(s, &d);
      for (uint32_t j = 0; j < n; j++)
        if (!func_cta_done(c[j])) r[j].status = SIMTVP_ERR_DEADLOCK;
      break;
    }
  }
  for (uint32_t i = 0; i < n; i++) func_cta_finish(c[i]);
}

/* Runs every CTA of the launch (func_launch_run, func_config.threads host threads); returns the
 * kernel's first fault or OK. */
static gpu_cta_result run_grid(gpu_simt_func *s, func_launch *l) {
  gpu_cta_result r = {SIMTVP_OK, 0, 0};
  simtvp_diag d;
  simtvp_diag_clear(&d);
  simtvp_status st = func_launch_run(l, &d);
  if (st != SIMTVP_OK) {
    report(s, &d);
    r.status = st;
    r.fault_addr = (d.where & SIMTVP_WHERE_ADDRESS) ? d.address : 0;
    r.pc = d.pc;
  }
  return r;
}

static void launch_cta(void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
  gpu_simt_func *s = ctx;
  gpu_cta_result r = {SIMTVP_ERR_STATE, 0, 0};
  func_launch *l = gpu_launcher_launch(s->launcher, k->slot);
  if (l && s->whole_kernels && k->slot < s->n_runs && s->runs[k->slot].launch_uid == k->launch_uid) {
    whole_run *w = &s->runs[k->slot];
    r.status = SIMTVP_OK;
    if (!w->ran) {
      w->ran = true;
      r = run_grid(s, l);
    }
  } else if (l) {
    const ptx_module *mod = gpu_launcher_module(s->launcher, k->slot);
    const char *name = mod && k->desc.entry < mod->n_functions && mod->functions[k->desc.entry].name
                           ? mod->functions[k->desc.entry].name
                           : "?";
    uint32_t n = k->desc.cluster[0] * k->desc.cluster[1] * k->desc.cluster[2];
    if (n > 1) { /* a cluster's CTAs arrive one after the other (gpu_disp issues them together) */
      cluster_wait *cw = &s->cluster;
      if (cw->n == 0 || cw->slot != k->slot || cw->uid != k->launch_uid) {
        cw->n = 0;
        cw->slot = k->slot;
        cw->uid = k->launch_uid;
      }
      cw->sm[cw->n] = sm;
      memcpy(cw->cta[cw->n], cta, sizeof cw->cta[0]);
      if (++cw->n < n && cw->n < 16) return;
      gpu_cta_result rs[16];
      uint32_t m = cw->n;
      cw->n = 0;
      run_ctas(s, l, m, cw->sm, (const uint32_t(*)[3])cw->cta, name, rs);
      for (uint32_t i = 0; i < m; i++) s->ports.cta_done.done(s->ports.cta_done.ctx, cw->sm[i], k->slot, &rs[i]);
      return;
    }
    run_ctas(s, l, 1, &sm, (const uint32_t(*)[3])cta, name, &r);
  }
  s->ports.cta_done.done(s->ports.cta_done.ctx, sm, k->slot, &r);
}

gpu_simt_port gpu_simt_func_port(gpu_simt_func *s) {
  gpu_simt_port p;
  p.ctx = s;
  p.kernel_begin = kernel_begin;
  p.launch_cta = launch_cta;
  p.kernel_end = kernel_end;
  return p;
}

gpu_simt_func *gpu_simt_func_create(const func_config *engine, const func_ports *func_ports, devmem *mem,
                                    stats *st, gpu_simt_func_ports ports, simtvp_diag *diag) {
  gpu_simt_func *s;
  if (!ports.cta_done.done) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "gpu_simt_func: the cta_done port must be connected");
    return NULL;
  }
  s = calloc(1, sizeof *s);
  if (!s) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "gpu_simt_func: out of host memory");
    return NULL;
  }
  s->mem = mem;
  s->ports = ports;
  s->whole_kernels = engine && engine->threads > 1;
  s->max_warp_insns = engine ? engine->max_warp_insns : 0;
  s->e = func_create(engine, func_ports, mem, st, diag);
  if (!s->e) {
    free(s);
    return NULL;
  }
  s->launcher = gpu_launcher_create(s->e, gpu_simt_func_devmem_port(s), NULL, diag);
  if (!s->launcher) {
    func_destroy(s->e);
    free(s);
    return NULL;
  }
  simtvp_diag_clear(&s->fault);
  return s;
}

void gpu_simt_func_destroy(gpu_simt_func *s) {
  if (!s) return;
  gpu_launcher_destroy(s->launcher);
  func_destroy(s->e);
  free(s->runs);
  free(s);
}

const simtvp_diag *gpu_simt_func_last_fault(const gpu_simt_func *s) { return &s->fault; }
