/* gpu_simt_func — functional SIMT side on models/func (see gpu_simt_func.h). */
#include "gpu_simt_func.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_launcher.h"

/* Whole-kernel mode (func_config.threads > 1): the first CTA the dispatcher hands over runs the
 * whole grid as one func_launch_run on several host threads; that CTA reports the kernel's result,
 * the others report OK at once. A kernel launched while host memory is mapped into the GPU (it
 * may wait for the host, which only runs between steps), or once the driver has set up the fault
 * buffer (unified memory: its warps may wait on replayable faults), runs CTA by CTA instead, as
 * with one thread: a whole-grid run can neither yield nor park a CTA. */
typedef struct whole_run {
  uint64_t launch_uid; /* the kernel this slot's state belongs to */
  bool ran;
  bool by_cta;         /* run CTA by CTA (in steps of step_insns; parked on replayable faults) */
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
  struct cta_group *parked; /* CTAs waiting for MMU_REPLAY */
  uint64_t fault_waits_local, stall_local;
  uint64_t *fault_waits;    /* um.fault_waits: warp accesses that waited on a replayable fault */
  uint64_t *stall_cycles;   /* um.fault_stall_cycles: warp cycles spent waiting for replays */
  stats *st;                /* where they register at the first replayable fault (runs without
                               unified memory keep their statistics as they were) */
  uint64_t step_insns;      /* warp instructions per step (gpu_simt_func_set_step); 0: none */
  struct cta_group *yielded; /* groups that used up their step, waiting for their resume */
  uint64_t yields_local;
  uint64_t *yields;         /* func.step_yields, registered at the first yield */
  stats *yield_st;
};

static uint64_t now_cycle(const gpu_simt_func *s) {
  return s->ports.cycle.now ? s->ports.cycle.now(s->ports.cycle.ctx) : 0;
}

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
      const gpu_mmu_port *mmu = gpu_launcher_mmu(s->launcher);
      s->runs[k->slot].by_cta = (s->step_insns && s->ports.resume.at && devmem_has_external(s->mem)) ||
                                (mmu && mmu->fault_buffer && mmu->fault_buffer(mmu->ctx));
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
static bool within_limit(const gpu_simt_func *s, func_launch *l, const func_run_end *last, const char *kernel,
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

/* One CTA, or the CTAs of a thread block cluster, run together, warps in turn. A group whose
 * live warps all wait on replayable faults (unified memory: pages not resident) is parked until
 * MMU_REPLAY, then resumes where it stopped. */
struct cta_group {
  func_launch *l;
  uint64_t launch_uid;
  uint32_t slot, n, steps;
  uint32_t sm[16];
  uint32_t cta[16][3];
  func_cta *c[16];
  gpu_cta_result r[16];
  const char *kernel;
  gpu_kernel k;           /* pdb, channel, grid id for fault entries */
  uint64_t park_cycle;    /* when it parked */
  uint32_t waiting;       /* warps waiting then */
  uint64_t due;           /* yielded: the core cycle of its next step */
  struct cta_group *next; /* parked groups, in the order they parked */
};

/* Reports the replayable fault of warp w to the MMU; false when it has no fault buffer (the
 * fault is then fatal: d filled). */
static bool report_replayable(gpu_simt_func *s, struct cta_group *g, uint32_t ci, func_warp *w, simtvp_diag *d) {
  const gpu_mmu_port *mmu = gpu_launcher_mmu(s->launcher);
  if (s->st) {
    s->fault_waits = stats_counter(s->st, "um.fault_waits", "waits",
                                   "warp accesses that waited on a replayable GPU page fault (unified memory)");
    s->stall_cycles = stats_counter(s->st, "um.fault_stall_cycles", "cycles",
                                    "warp cycles spent waiting for the driver to service replayable faults");
    s->st = NULL;
  }
  gpu_mmu_fault_info f;
  memset(&f, 0, sizeof f);
  func_warp_replay_fault(w, &f.va, &f.access);
  f.channel = g->k.desc.channel;
  f.grid_id = g->k.desc.grid_id;
  f.sm = g->sm[ci];
  func_warp_replay_kind(w, &f.kind);
  uint64_t pages[32];
  uint32_t n = func_warp_replay_pages(w, pages);
  bool ok = mmu && mmu->fault;
  for (uint32_t i = 0; i < n && ok; i++) { /* every page the instruction needs: one replay serves it */
    f.va = pages[i];
    ok = mmu->fault(mmu->ctx, g->k.desc.pdb, &f, now_cycle(s));
  }
  if (ok) {
    ++*s->fault_waits;
    return true;
  }
  simtvp_diag_set(d, SIMTVP_ERR_FAULT,
                  "%s of global address 0x%llx in kernel %s, CTA (%u,%u,%u): GPU page fault (replayable) but "
                  "the GPU has no fault buffer (FAULT_BUF_ENTRIES is 0)",
                  mmu_access_name((mmu_access)f.access), (unsigned long long)f.va, g->kernel, g->cta[ci][0],
                  g->cta[ci][1], g->cta[ci][2]);
  simtvp_diag_at_address(d, f.va);
  return false;
}

typedef enum group_run { GROUP_DONE, GROUP_PARKED, GROUP_YIELDED } group_run;

/* Runs the group until it is done, faults, waits on replayable faults only (parked), or has used
 * up its step (yielded: g->due set). GROUP_DONE: g->r holds the results. */
static group_run run_group(gpu_simt_func *s, struct cta_group *g) {
  simtvp_diag d;
  simtvp_diag_clear(&d);
  simtvp_status fault = SIMTVP_OK;
  uint64_t step = 0; /* warp instructions run in this step */
  for (;;) {
    bool live = false, progress = false, waiting = false;
    for (uint32_t ci = 0; ci < g->n && fault == SIMTVP_OK; ci++) {
      if (func_cta_done(g->c[ci])) continue;
      live = true;
      uint32_t nw = func_cta_warp_count(g->c[ci]);
      for (uint32_t i = 0; i < nw && fault == SIMTVP_OK; i++) {
        func_warp *w = func_cta_warp(g->c[ci], i);
        /* a warp runs until it waits at a barrier, spins on a wait (yield) or has run a time slice,
         * so warps waiting on each other's memory progress (as func_launch_run's slices); each
         * func_warp_run call stops after what this loop must act on (and where the instruction
         * limit is checked, every 4096 instructions of the group) */
        uint32_t slice = 0;
        while (slice < RUN_SLICE && func_warp_get_state(w) == FUNC_WARP_READY) {
          uint32_t max = RUN_SLICE - slice, n, to_check = 4096u - (uint32_t)(g->steps % 4096u);
          if (s->max_warp_insns && to_check < max) max = to_check;
          func_run_end st;
          simtvp_status ss = func_warp_run(w, max, &n, &st, &d);
          progress = true;
          step += n;
          slice += n;
          if (ss != SIMTVP_OK) {
            report(s, &d);
            fault = ss;
            g->r[ci] = (gpu_cta_result){ss, (d.where & SIMTVP_WHERE_ADDRESS) ? d.address : 0, d.pc};
            break;
          }
          if (func_warp_get_state(w) == FUNC_WARP_FAULT_WAIT) {
            g->steps += n - 1; /* the waiting instruction is not one */
            if (!report_replayable(s, g, ci, w, &d)) {
              report(s, &d);
              fault = SIMTVP_ERR_FAULT;
              g->r[ci] = (gpu_cta_result){SIMTVP_ERR_FAULT, d.address, st.pc};
            }
            break;
          }
          if (s->max_warp_insns && (g->steps += n) % 4096u == 0 &&
              !within_limit(s, g->l, &st, g->kernel, g->cta[ci], i, &d)) {
            report(s, &d);
            fault = SIMTVP_ERR_LIMIT;
            g->r[ci] = (gpu_cta_result){SIMTVP_ERR_LIMIT, 0, st.pc};
            break;
          }
          if (st.kind == FUNC_STEP_BARRIER && st.barrier_complete) func_cta_release_barrier(g->c[ci], st.barrier_id);
          /* a warp's exit completes the barriers that waited only for it */
          if (st.warp_done)
            func_cta_release_barriers(g->c[ci]);
          if (st.kind == FUNC_STEP_BARRIER && st.barrier_wait) break; /* let the other warps arrive */
          if (st.yield) break;
        }
        if (func_warp_get_state(w) == FUNC_WARP_FAULT_WAIT) waiting = true;
      }
    }
    if (fault != SIMTVP_OK || !live) break;
    /* every warp had its turn: a step used up ends here while a CTA is left, if the kernel may be
     * waiting for the host (host memory is mapped into the GPU) */
    if (progress && s->step_insns && step >= s->step_insns && s->ports.resume.at && devmem_has_external(s->mem)) {
      bool left = false;
      for (uint32_t ci = 0; ci < g->n && !left; ci++) left = !func_cta_done(g->c[ci]);
      if (left) {
        g->due = now_cycle(s) + step;
        return GROUP_YIELDED;
      }
    }
    if (!progress) {
      if (waiting) { /* park until MMU_REPLAY */
        g->park_cycle = now_cycle(s);
        g->waiting = 0;
        for (uint32_t ci = 0; ci < g->n; ci++)
          for (uint32_t i = 0; i < func_cta_warp_count(g->c[ci]); i++)
            g->waiting += func_warp_get_state(func_cta_warp(g->c[ci], i)) == FUNC_WARP_FAULT_WAIT;
        return GROUP_PARKED;
      }
      uint32_t ci = 0;
      while (ci < g->n && func_cta_done(g->c[ci])) ci++;
      const uint32_t *id = g->cta[ci < g->n ? ci : 0];
      simtvp_diag_set(&d, SIMTVP_ERR_DEADLOCK,
                      "CTA (%u,%u,%u) on SM %u: every live warp waits at a barrier that cannot complete", id[0],
                      id[1], id[2], g->sm[ci < g->n ? ci : 0]);
      report(s, &d);
      for (uint32_t j = 0; j < g->n; j++)
        if (!func_cta_done(g->c[j])) g->r[j].status = SIMTVP_ERR_DEADLOCK;
      break;
    }
  }
  for (uint32_t i = 0; i < g->n; i++) func_cta_finish(g->c[i]);
  return GROUP_DONE;
}

static void append(struct cta_group **list, struct cta_group *g) {
  while (*list) list = &(*list)->next;
  g->next = NULL;
  *list = g;
}

/* A group yielded: it waits for its resume (the earliest due is asked for). */
static void yield_group(gpu_simt_func *s, struct cta_group *g) {
  if (s->yield_st) {
    s->yields = stats_counter(s->yield_st, "func.step_yields", "steps",
                              "CTA steps of the functional GPU that ended with the CTA unfinished (a kernel that "
                              "may wait for the host: -func_step_insns)");
    s->yield_st = NULL;
  }
  ++*s->yields;
  append(&s->yielded, g);
  uint64_t first = UINT64_MAX;
  for (const struct cta_group *y = s->yielded; y; y = y->next)
    if (y->due < first) first = y->due;
  s->ports.resume.at(s->ports.resume.ctx, first);
}

/* What run_group left: report a finished group, park or yield the others. */
static void after_run(gpu_simt_func *s, struct cta_group *g, group_run how) {
  if (how == GROUP_PARKED) {
    append(&s->parked, g);
    return;
  }
  if (how == GROUP_YIELDED) {
    yield_group(s, g);
    return;
  }
  for (uint32_t i = 0; i < g->n; i++) s->ports.cta_done.done(s->ports.cta_done.ctx, g->sm[i], g->slot, &g->r[i]);
  free(g);
}

/* Starts n CTAs (one, or the CTAs of a thread block cluster) and runs them; reports each CTA's
 * result through cta_done when they finish (now, or after a replay). */
static void run_ctas(gpu_simt_func *s, func_launch *l, const gpu_kernel *k, uint32_t n, const uint32_t *sm,
                     const uint32_t (*cta)[3], const char *kernel) {
  struct cta_group *g = calloc(1, sizeof *g);
  simtvp_diag d;
  simtvp_diag_clear(&d);
  if (!g) {
    simtvp_diag_set(&d, SIMTVP_ERR_NOMEM, "out of host memory");
    report(s, &d);
    gpu_cta_result r = {SIMTVP_ERR_NOMEM, 0, 0};
    for (uint32_t i = 0; i < n; i++) s->ports.cta_done.done(s->ports.cta_done.ctx, sm[i], k->slot, &r);
    return;
  }
  g->l = l;
  g->k = *k;
  g->slot = k->slot;
  g->launch_uid = k->launch_uid;
  g->n = n;
  g->kernel = kernel;
  memcpy(g->sm, sm, n * sizeof *sm);
  memcpy(g->cta, cta, n * sizeof *cta);
  for (uint32_t i = 0; i < n; i++) g->r[i] = (gpu_cta_result){SIMTVP_OK, 0, 0};
  for (uint32_t i = 0; i < n; i++)
    if (func_cta_start(l, cta[i], sm[i], 0, &g->c[i], &d) != SIMTVP_OK) {
      report(s, &d);
      for (uint32_t j = 0; j < n; j++) g->r[j] = (gpu_cta_result){d.status, d.address, 0};
      for (uint32_t j = 0; j < i; j++) func_cta_finish(g->c[j]);
      break;
    }
  group_run how = GROUP_DONE;
  if (g->r[0].status == SIMTVP_OK) {
    func_launch_allow_replay(l, true);
    how = run_group(s, g);
  }
  after_run(s, g, how); /* parked: the replay resumes it; yielded: the resume port */
}

static void mmu_replay(void *ctx, bool cancel, uint64_t now) {
  gpu_simt_func *s = ctx;
  /* the groups parked so far retry in the order they parked; one that faults again parks again
   * (at the end, behind groups parked during this replay) */
  struct cta_group *list = s->parked;
  s->parked = NULL;
  while (list) {
    struct cta_group *g = list;
    list = g->next;
    g->next = NULL;
    group_run how = GROUP_DONE;
    if (now > g->park_cycle) *s->stall_cycles += (now - g->park_cycle) * g->waiting;
    if (cancel) {
      simtvp_diag d;
      simtvp_diag_set(&d, SIMTVP_ERR_FAULT,
                      "kernel %s: accesses waiting on replayable GPU page faults were cancelled (MMU_REPLAY.CANCEL)",
                      g->kernel);
      report(s, &d);
      for (uint32_t i = 0; i < g->n; i++) {
        if (!func_cta_done(g->c[i])) g->r[i] = (gpu_cta_result){SIMTVP_ERR_FAULT, 0, 0};
        func_cta_finish(g->c[i]);
      }
    } else {
      for (uint32_t ci = 0; ci < g->n; ci++) {
        uint32_t nw = func_cta_warp_count(g->c[ci]);
        for (uint32_t i = 0; i < nw; i++) func_warp_retry(func_cta_warp(g->c[ci], i));
      }
      how = run_group(s, g);
    }
    after_run(s, g, how);
  }
}

void gpu_simt_func_set_step(gpu_simt_func *s, uint64_t warp_insns) { s->step_insns = warp_insns; }

bool gpu_simt_func_busy(const gpu_simt_func *s) { return s->yielded != NULL; }

void gpu_simt_func_resume(gpu_simt_func *s, uint64_t cycle) {
  /* the groups due now run one more step each, in the order they yielded; one that yields again
   * goes to the end (behind groups yielded during this resume) */
  struct cta_group *list = s->yielded, *later = NULL;
  s->yielded = NULL;
  while (list) {
    struct cta_group *g = list;
    list = g->next;
    g->next = NULL;
    if (g->due > cycle) {
      append(&later, g);
      continue;
    }
    after_run(s, g, run_group(s, g));
  }
  /* those not due yet go back in front, in their order */
  if (later) {
    struct cta_group *tail = later;
    while (tail->next) tail = tail->next;
    tail->next = s->yielded;
    s->yielded = later;
    uint64_t first = UINT64_MAX;
    for (const struct cta_group *y = s->yielded; y; y = y->next)
      if (y->due < first) first = y->due;
    s->ports.resume.at(s->ports.resume.ctx, first);
  }
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
  if (l && s->whole_kernels && k->slot < s->n_runs && s->runs[k->slot].launch_uid == k->launch_uid &&
      !s->runs[k->slot].by_cta) {
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
      uint32_t m = cw->n;
      cw->n = 0;
      run_ctas(s, l, k, m, cw->sm, (const uint32_t(*)[3])cw->cta, name);
      return;
    }
    run_ctas(s, l, k, 1, &sm, (const uint32_t(*)[3])cta, name);
    return;
  }
  s->ports.cta_done.done(s->ports.cta_done.ctx, sm, k->slot, &r);
}

static void mmu_attach(void *ctx, const gpu_mmu_port *mmu) {
  gpu_simt_func *s = ctx;
  gpu_launcher_set_mmu(s->launcher, mmu);
}

gpu_simt_port gpu_simt_func_port(gpu_simt_func *s) {
  gpu_simt_port p;
  memset(&p, 0, sizeof p);
  p.ctx = s;
  p.kernel_begin = kernel_begin;
  p.launch_cta = launch_cta;
  p.kernel_end = kernel_end;
  p.mmu_attach = mmu_attach;
  p.mmu_replay = mmu_replay;
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
  s->fault_waits = &s->fault_waits_local;
  s->stall_cycles = &s->stall_local;
  s->st = st;
  s->yields = &s->yields_local;
  s->yield_st = st;
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
  for (struct cta_group **list = &s->parked; list; list = list == &s->parked ? &s->yielded : NULL)
    while (*list) {
      struct cta_group *g = *list;
      *list = g->next;
      for (uint32_t i = 0; i < g->n; i++) func_cta_finish(g->c[i]);
      free(g);
    }
  gpu_launcher_destroy(s->launcher);
  func_destroy(s->e);
  free(s->runs);
  free(s);
}

const simtvp_diag *gpu_simt_func_last_fault(const gpu_simt_func *s) { return &s->fault; }
