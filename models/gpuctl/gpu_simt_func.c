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

/* Runs one CTA to completion; returns its result. */
static gpu_cta_result run_cta(gpu_simt_func *s, func_launch *l, const char *kernel, uint32_t sm,
                              const uint32_t cta[3]) {
  gpu_cta_result r = {SIMTVP_OK, 0, 0};
  uint32_t steps = 0;
  simtvp_diag d;
  func_cta *c;
  simtvp_diag_clear(&d);
  if (func_cta_start(l, cta, sm, 0, &c, &d) != SIMTVP_OK) {
    report(s, &d);
    r.status = d.status;
    r.fault_addr = d.address;
    return r;
  }
  uint32_t n = func_cta_warp_count(c);
  while (!func_cta_done(c)) {
    bool progress = false;
    for (uint32_t i = 0; i < n && r.status == SIMTVP_OK; i++) {
      func_warp *w = func_cta_warp(c, i);
      while (func_warp_get_state(w) == FUNC_WARP_READY) {
        func_step st;
        simtvp_status ss = func_warp_step(w, &st, &d);
        progress = true;
        if (ss != SIMTVP_OK) {
          report(s, &d);
          r.status = ss;
          r.fault_addr = (d.where & SIMTVP_WHERE_ADDRESS) ? d.address : 0;
          r.pc = d.pc;
          break;
        }
        if (s->max_warp_insns && ++steps % 4096u == 0 && !within_limit(s, l, &st, kernel, cta, i, &d)) {
          report(s, &d);
          r.status = SIMTVP_ERR_LIMIT;
          r.pc = st.pc;
          break;
        }
        if (st.kind == FUNC_STEP_BARRIER && st.barrier_complete) func_cta_release_barrier(c, st.barrier_id);
        if (st.kind == FUNC_STEP_BARRIER && st.barrier_wait) break; /* let the other warps arrive */
      }
    }
    if (r.status != SIMTVP_OK) break;
    if (!progress) {
      simtvp_diag_set(&d, SIMTVP_ERR_DEADLOCK,
                      "CTA (%u,%u,%u) on SM %u: every live warp waits at a barrier that cannot complete",
                      cta[0], cta[1], cta[2], sm);
      report(s, &d);
      r.status = SIMTVP_ERR_DEADLOCK;
      break;
    }
  }
  func_cta_finish(c);
  return r;
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
    const ptx_module *m = gpu_launcher_module(s->launcher, k->slot);
    const char *name = m && k->desc.entry < m->n_functions && m->functions[k->desc.entry].name
                           ? m->functions[k->desc.entry].name
                           : "?";
    r = run_cta(s, l, name, sm, cta);
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
