/* gpu_simt_timing — the policy of the timing SIMT side (gpu_simt_timing.h, docs/timing.md). */
#include "gpu_simt_timing.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_launcher.h"
#include "memiv.h"

#define GIB (1ull << 30)

typedef struct timing_slot {
  bool active;
  gpu_kernel k;
  simt_kernel sk;
  uint32_t warps;              /* per CTA */
  bool aborted;                /* stopped: its CTAs are reported at once with abort_status */
  simtvp_status abort_status;
  bool fault_recorded;         /* last_fault holds this kernel's first failure */
  bool limit_reported;         /* the -gpgpu_max_cta refusal was said */
  bool have_report;            /* report: a core's structured fault/deadlock report */
  simtvp_diag report;
} timing_slot;

struct gpu_simt_timing {
  gpu_simt_timing_config cfg;
  gpu_simt_timing_ports ports;
  stats *st;
  stats *own_stats;
  const uint64_t *insn; /* gpu_sim_insn */
  func_engine *engine;
  gpu_launcher *launcher;
  gpu_simctl *ctl;
  bool fault_waits;           /* warps wait on replayable faults (until MMU_REPLAY) */
  uint64_t *fault_waits_stat; /* um.fault_waits, registered at the first one */
  simt_core_config *core_cfgs;
  timing_slot *slots;
  uint32_t *resident;   /* [sm * n_slots + slot] */
  uint64_t resident_total;
  uint32_t n_slots, n_cores, n_clusters, cores_per_cluster;
  uint64_t local_base, local_region_bytes;
  gpu_simctl_stop pending_stop;
  memiv *memiv;         /* the interval cores' memory system beyond the L1 (NULL: no interval core) */
  mmu_tlb *l2_tlb;      /* the shared L2 TLB (-gpgpu_tlb_*: docs/vm.md), NULL when translation is untimed */
  bool local_warned;
  simtvp_diag fault;
};

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static uint64_t now_of(const gpu_simt_timing *t) { return t->ports.now(t->ports.ctx); }

/* ---- construction ---------------------------------------------------------------------------- */

/* The LDST units' page walks and translation generation: the MMU the launcher has (mmu_attach). */
static mmu_fault tlb_walk(void *ctx, uint64_t pdb, uint64_t va, mmu_translation *tr) {
  const gpu_mmu_port *m = gpu_launcher_mmu(((gpu_simt_timing *)ctx)->launcher);
  if (!m) {
    memset(tr, 0, sizeof *tr);
    return tr->fault = MMU_FAULT_INVALID;
  }
  return m->translate(m->ctx, pdb, va, MMU_ACCESS_READ, tr);
}
static uint64_t tlb_generation(void *ctx) {
  const gpu_mmu_port *m = gpu_launcher_mmu(((gpu_simt_timing *)ctx)->launcher);
  return m && m->generation ? *m->generation : 0;
}

static bool read_store(void *ctx, uint64_t a, void *dst, uint64_t n) {
  return devmem_read((devmem *)ctx, a, dst, n, NULL) == SIMTVP_OK;
}
static bool write_store(void *ctx, uint64_t a, const void *src, uint64_t n) {
  return devmem_write((devmem *)ctx, a, src, n, NULL) == SIMTVP_OK;
}

static gpu_launcher *make_launcher(gpu_simt_timing *t, simtvp_diag *diag) {
  gpu_launcher_attach attach = {NULL, simt_program_build, simt_program_free};
  gpu_mem_port store = {t->cfg.mem, read_store, write_store};
  gpu_launcher *l = gpu_launcher_create(t->engine, store, &attach, diag);
  if (l) gpu_launcher_set_hoist_loads(l, t->cfg.gpu->core.hoist_loads);
  return l;
}

/* Interval cores (models/simt/interval) reach the memory system beyond their L1s through one
 * closed-form model (models/memiv, docs/memiv.md), built only when a core is an interval core:
 * a run without one registers no statistic of it. Its state is shared by every core: the port is
 * called on the simulation thread only (simt_cluster ticks a cluster with an interval core there). */
static simtvp_status make_interval_memory(gpu_simt_timing *t, simtvp_diag *diag) {
  bool any = false;
  for (uint32_t sm = 0; sm < t->n_cores; sm++) any = any || t->core_cfgs[sm].model == GPU_FIDELITY_INTERVAL;
  if (!any) return SIMTVP_OK;
  const gpu_config *g = t->cfg.gpu;
  memiv_config mc;
  simtvp_status s = memiv_config_from_gpu(g, &mc, diag);
  if (s != SIMTVP_OK) return s;
  mc.stats = t->st;
  mc.aperture = t->cfg.aperture; /* system memory by its bus address, not the host's moving VA */
  if (!(t->memiv = memiv_create(&mc, diag))) return diag ? diag->status : SIMTVP_ERR_CONFIG;
  for (uint32_t sm = 0; sm < t->n_cores; sm++) {
    simt_core_config *cc = &t->core_cfgs[sm];
    if (cc->model != GPU_FIDELITY_INTERVAL) continue;
    cc->interval_mem.ctx = t->memiv;
    cc->interval_mem.access = memiv_access;
  }
  return SIMTVP_OK;
}

gpu_simt_timing *gpu_simt_timing_create(const gpu_simt_timing_config *cfg, gpu_simt_timing_ports ports,
                                        simtvp_diag *diag) {
  gpu_simt_timing *t = calloc(1, sizeof *t);
  if (!t) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "timing SIMT side: out of host memory");
    return NULL;
  }
  t->cfg = *cfg;
  t->ports = ports;
  simtvp_diag_clear(&t->fault);
  const gpu_config *g = cfg->gpu;
  const gpu_config_derived *d = &g->derived;
  const gpu_params *p = cfg->params;
  t->n_cores = d->n_cores;
  t->n_clusters = g->core.n_clusters;
  t->cores_per_cluster = g->core.n_cores_per_cluster ? g->core.n_cores_per_cluster : 1;
  t->n_slots = p->ctl.caps.max_concurrent_kernels ? p->ctl.caps.max_concurrent_kernels : 1;
  t->st = cfg->st;
  if (!t->st) t->st = t->own_stats = stats_create();
  t->slots = calloc(t->n_slots, sizeof *t->slots);
  t->resident = calloc((size_t)t->n_cores * t->n_slots + 1, sizeof *t->resident);
  t->core_cfgs = calloc(t->n_cores + 1, sizeof *t->core_cfgs);
  if (!t->st || !t->slots || !t->resident || !t->core_cfgs) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "timing SIMT side: out of host memory");
    gpu_simt_timing_destroy(t);
    return NULL;
  }

  /* The functional engine the cores execute through, and the launcher with the cores' decode. */
  func_ports fp = cfg->func;
  if (!fp.messages.emit) fp.messages = ports.messages;
  /* The SMs count apart (models/func sm_threads) for every -sim_threads, so the func.* statistics
   * are the same whether the clusters tick on one host thread or several (docs/timing.md §12). */
  func_config fc = p->func;
  fc.sm_threads = true;
  t->engine = func_create(&fc, &fp, cfg->mem, t->st, diag);
  if (t->engine) t->launcher = make_launcher(t, diag);
  if (!t->launcher) {
    gpu_simt_timing_destroy(t);
    return NULL;
  }

  /* Local memory: one region per core above device memory and the malloc heap (64 KiB gap),
   * from a 1 GiB boundary, below the generic-address windows. */
  t->local_region_bytes = (uint64_t)d->max_threads_per_core * GPU_SIMT_TIMING_LOCAL_BYTES_PER_THREAD;
  t->local_base = align_up(p->heap_base + p->heap_bytes + (64u << 10), GIB);
  if (t->local_base + t->n_cores * t->local_region_bytes > FUNC_WINDOW_LO) {
    simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-device_memory_mb",
                             "device memory (%" PRIu64 " MiB) leaves no room for the SIMT cores' local memory "
                             "(%u cores x %" PRIu64 " MiB) below the generic-address windows at 0x%llx",
                             g->host.device_memory_mb, t->n_cores, t->local_region_bytes >> 20,
                             (unsigned long long)FUNC_WINDOW_LO);
    gpu_simt_timing_destroy(t);
    return NULL;
  }

  /* GPU virtual memory timing: with a TLB configured, one L2 TLB shared by every core. */
  bool tlbs = g->core.tlb_l1_entries || g->core.tlb_l2_entries;
  if (tlbs && g->fidelity.sim_threads > 1) {
    /* the L2 TLB is shared by every core and filled as walks end: with cores ticking on several
     * host threads its contents (and so the statistics) would depend on thread timing */
    simtvp_diag_option_error(diag, SIMTVP_ERR_UNSUPPORTED, "-gpgpu_tlb_l1_entries",
                             "timing TLBs (-gpgpu_tlb_l1_entries %u, -gpgpu_tlb_l2_entries %u) need -sim_threads 1 "
                             "(it is %u): the shared L2 TLB is not yet safe to use from several host threads",
                             g->core.tlb_l1_entries, g->core.tlb_l2_entries, g->fidelity.sim_threads);
    gpu_simt_timing_destroy(t);
    return NULL;
  }
  if (tlbs) {
    mmu_tlb_config tc = {g->core.tlb_l2_entries, g->core.tlb_l2_assoc, "l2_tlb", t->st, "-gpgpu_tlb_l2_entries"};
    if (!(t->l2_tlb = mmu_tlb_create(&tc, diag))) {
      gpu_simt_timing_destroy(t);
      return NULL;
    }
  }
  /* Per-core fidelity and configuration from the options. */
  for (uint32_t sm = 0; sm < t->n_cores; sm++) {
    simt_core_config *cc = &t->core_cfgs[sm];
    if (simt_core_config_from_gpu(g, sm, cc, diag) != SIMTVP_OK) {
      gpu_simt_timing_destroy(t);
      return NULL;
    }
    cc->stats = t->st;
    cc->ldst.local_base = gpu_simt_timing_local_base(t, sm);
    if (tlbs) {
      cc->ldst.mmu.ctx = t;
      cc->ldst.mmu.walk = tlb_walk;
      cc->ldst.mmu.generation = tlb_generation;
      cc->ldst.l2_tlb = t->l2_tlb;
    }
  }
  if (make_interval_memory(t, diag) != SIMTVP_OK) {
    gpu_simt_timing_destroy(t);
    return NULL;
  }
  return t;
}

simtvp_status gpu_simt_timing_start(gpu_simt_timing *t, simtvp_diag *diag) {
  const gpu_config *g = t->cfg.gpu;
  gpu_simctl_config sc = {0};
  sc.max_cycle = g->sim.max_cycle;
  sc.max_insn = g->sim.max_insn;
  sc.max_cta = g->sim.max_cta;
  sc.deadlock_detect = g->sim.deadlock_detect;
  sc.deadlock_cycles = g->sim.deadlock_cycles;
  sc.n_cores = t->n_cores;
  sc.max_warps = g->derived.max_warps_per_core;
  sc.insn = t->insn = stats_counter(t->st, "gpu_sim_insn", "insn", "thread instructions executed (active lanes)");
  sc.st = t->st;
  return gpu_simctl_create(&sc, &t->ctl, diag);
}

void gpu_simt_timing_destroy(gpu_simt_timing *t) {
  if (!t) return;
  gpu_simctl_destroy(t->ctl);
  gpu_launcher_destroy(t->launcher);
  if (t->engine) func_destroy(t->engine);
  memiv_destroy(t->memiv);
  if (t->own_stats) stats_destroy(t->own_stats);
  mmu_tlb_destroy(t->l2_tlb);
  free(t->core_cfgs);
  free(t->resident);
  free(t->slots);
  free(t);
}

stats *gpu_simt_timing_stats(const gpu_simt_timing *t) { return t->st; }
uint32_t gpu_simt_timing_cores(const gpu_simt_timing *t) { return t->n_cores; }
uint32_t gpu_simt_timing_clusters(const gpu_simt_timing *t) { return t->n_clusters; }
uint32_t gpu_simt_timing_cores_per_cluster(const gpu_simt_timing *t) { return t->cores_per_cluster; }
const simt_core_config *gpu_simt_timing_core_configs(const gpu_simt_timing *t) { return t->core_cfgs; }
uint64_t gpu_simt_timing_local_base(const gpu_simt_timing *t, uint32_t sm) {
  return t->local_base + sm * t->local_region_bytes;
}
uint64_t gpu_simt_timing_local_region_bytes(const gpu_simt_timing *t) { return t->local_region_bytes; }
const simtvp_diag *gpu_simt_timing_last_fault(const gpu_simt_timing *t) { return &t->fault; }
const gpu_simctl *gpu_simt_timing_control(const gpu_simt_timing *t) { return t->ctl; }

uint32_t gpu_simt_timing_resident(const gpu_simt_timing *t, uint32_t sm, uint32_t kernel_slot) {
  if (sm >= t->n_cores || kernel_slot >= t->n_slots) return 0;
  return t->resident[(size_t)sm * t->n_slots + kernel_slot];
}

bool gpu_simt_timing_idle(const gpu_simt_timing *t) {
  return t->resident_total == 0 && t->pending_stop == GPU_SIMCTL_RUN;
}

/* ---- faults ---------------------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void set_fault(gpu_simt_timing *t, simtvp_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  simtvp_diag_clear(&t->fault);
  simtvp_diag_vset(&t->fault, st, fmt, ap);
  va_end(ap);
}

/* The first failing CTA of a kernel: the core's structured report (kernel, CTA, thread, PC, PTX
 * line) with the CTA's status and address, or what the CTA's result says. */
static void record_fault(gpu_simt_timing *t, uint32_t slot, const gpu_cta_result *r) {
  if (slot >= t->n_slots) return;
  timing_slot *s = &t->slots[slot];
  if (s->fault_recorded) return;
  s->fault_recorded = true;
  if (s->have_report) {
    t->fault = s->report;
    t->fault.status = r->status;
  } else {
    set_fault(t, r->status, "kernel %s: a CTA ended with %s (pc %" PRIu64 ")", s->sk.name ? s->sk.name : "?",
              simtvp_status_name(r->status), r->pc);
    simtvp_diag_at_pc(&t->fault, r->pc);
  }
  if (r->status == SIMTVP_ERR_FAULT && !(t->fault.where & SIMTVP_WHERE_ADDRESS))
    simtvp_diag_at_address(&t->fault, r->fault_addr);
}

/* To the dispatcher, recording a failure first. */
static void report(gpu_simt_timing *t, uint32_t sm, uint32_t slot, const gpu_cta_result *r) {
  if (r->status != SIMTVP_OK) record_fault(t, slot, r);
  t->ports.cta_done(t->ports.ctx, sm, slot, r);
}

void gpu_simt_timing_fault(gpu_simt_timing *t, uint32_t sm, uint32_t kernel_slot, const simtvp_diag *r) {
  (void)sm;
  if (kernel_slot >= t->n_slots) return;
  timing_slot *s = &t->slots[kernel_slot];
  if (s->have_report || s->fault_recorded) return;
  s->have_report = true;
  s->report = *r;
}

/* ---- the dispatcher's port --------------------------------------------------------------------- */

static void wake_supervisor(gpu_simt_timing *t) {
  uint64_t c = gpu_simctl_next_check(t->ctl);
  if (c != GPU_SIMCTL_NEVER) t->ports.wake(t->ports.ctx, c);
}

static bool refuse(gpu_simt_timing *t, gpu_kernel_result *why, simtvp_status st) {
  simtvp_msg(&t->ports.messages, SIMTVP_ERROR, "%s", t->fault.message);
  why->status = st;
  why->fault_addr = 0;
  why->pc = 0;
  return false;
}

/* The faults of one warp instruction, as the serial phase records them. */
typedef struct fault_note {
  uint64_t pdb, now;
  uint32_t slot, sm, n;
  uint8_t access, kind;
  uint64_t pages[32];
} fault_note;

/* Records the noted faults with the MMU (fault buffer, INTR_STATUS.MMU_FAULT); until the replay
 * the deadlock window is suspended. Runs on the simulation thread: at once with one host thread,
 * in the serial phase after the cluster's parallel tick otherwise, so the fault buffer's order is
 * a one-thread run's. */
static void record_faults(void *ctx, const void *data, size_t bytes, uint64_t arg) {
  gpu_simt_timing *t = ctx;
  fault_note n;
  (void)arg;
  if (bytes < offsetof(fault_note, pages)) return;
  memset(&n, 0, sizeof n);
  memcpy(&n, data, bytes < sizeof n ? bytes : sizeof n);
  const gpu_mmu_port *m = gpu_launcher_mmu(t->launcher);
  if (!m || !m->fault || n.slot >= t->n_slots) return;
  if (!t->fault_waits_stat && t->st)
    t->fault_waits_stat = stats_counter(t->st, "um.fault_waits", "waits",
                                        "warp accesses that waited on a replayable GPU page fault (unified memory)");
  for (uint32_t i = 0; i < n.n && i < 32; i++) {
    gpu_mmu_fault_info f;
    memset(&f, 0, sizeof f);
    f.va = n.pages[i];
    f.channel = t->slots[n.slot].k.desc.channel;
    f.grid_id = t->slots[n.slot].k.desc.grid_id;
    f.sm = n.sm;
    f.access = n.access;
    f.kind = n.kind;
    /* false only when the MMU ran out of host memory for its pending list: the entry is lost
     * like an overflowed one (the driver sees FAULT_STATUS.OVERFLOW only for real overflows) */
    (void)m->fault(m->ctx, n.pdb, &f, n.now);
    if (t->fault_waits_stat) ++*t->fault_waits_stat;
  }
  t->fault_waits = true;
  gpu_simctl_hold(t->ctl, true, n.now);
}

/* A core's warp found pages not resident (simt_kernel.replayable_fault): it waits when the MMU has
 * a fault buffer (a register only the simulation thread writes, between ticks); the faults are
 * recorded through the shell's serial port (record_faults). */
static bool replayable_fault(void *ctx, const simt_kernel *k, uint32_t sm, const uint64_t *pages, uint32_t n,
                             uint8_t access, uint8_t kind, uint64_t now) {
  gpu_simt_timing *t = ctx;
  const gpu_mmu_port *m = gpu_launcher_mmu(t->launcher);
  if (!m || !m->fault || k->slot >= t->n_slots) return false;
  if (m->fault_buffer && !m->fault_buffer(m->ctx)) return false;
  if (n == 0) return true;
  fault_note note;
  memset(&note, 0, sizeof note);
  note.pdb = k->pdb;
  note.now = now;
  note.slot = k->slot;
  note.sm = sm;
  note.n = n < 32 ? n : 32;
  note.access = access;
  note.kind = kind;
  memcpy(note.pages, pages, note.n * sizeof *pages);
  size_t bytes = offsetof(fault_note, pages) + note.n * sizeof *pages;
  if (t->ports.serially) t->ports.serially(t->ports.ctx, record_faults, t, &note, bytes, 0);
  else record_faults(t, &note, bytes, 0);
  return true;
}

static bool kernel_begin(void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
  gpu_simt_timing *t = ctx;
  gpu_simctl_stop stop;
  if (!gpu_simctl_may_start(t->ctl, &stop) && stop != GPU_SIMCTL_MAX_CTA) {
    const char *opt = gpu_simctl_stop_option(stop);
    set_fault(t, SIMTVP_ERR_LIMIT,
              "%s: the simulation limit was reached earlier; the timing GPU runs no more kernels "
              "(launch %" PRIu64 " refused)", opt, k->launch_uid);
    simtvp_diag_at_option(&t->fault, opt);
    return refuse(t, why, SIMTVP_ERR_LIMIT);
  }
  if (k->slot >= t->n_slots) { /* the dispatcher's slots come from the same capabilities */
    set_fault(t, SIMTVP_ERR_STATE, "launch %" PRIu64 ": kernel slot %u, but the timing GPU has %u "
              "(-gpgpu_max_concurrent_kernel)", k->launch_uid, k->slot, t->n_slots);
    simtvp_diag_at_option(&t->fault, "-gpgpu_max_concurrent_kernel");
    return refuse(t, why, SIMTVP_ERR_STATE);
  }
  simtvp_diag d;
  simtvp_diag_clear(&d);
  if (!gpu_launcher_begin(t->launcher, k, why, &d)) {
    t->fault = d;
    simtvp_msg(&t->ports.messages, SIMTVP_ERROR, "%s", d.message);
    return false;
  }
  timing_slot *s = &t->slots[k->slot];
  memset(s, 0, sizeof *s);
  s->active = true;
  s->k = *k;
  const ptx_module *m = gpu_launcher_module(t->launcher, k->slot);
  s->sk.slot = k->slot;
  s->sk.launch_uid = k->launch_uid;
  s->sk.name = m && k->desc.entry < m->n_functions ? m->functions[k->desc.entry].name : "?";
  s->sk.launch = gpu_launcher_launch(t->launcher, k->slot);
  s->sk.program = gpu_launcher_attachment(t->launcher, k->slot);
  s->sk.pdb = gpu_launcher_mmu(t->launcher) ? k->desc.pdb : 0;
  s->sk.replayable_fault = replayable_fault;
  s->sk.fault_ctx = t;
  /* the GPU offers replayable faults (MMU_CAPS.REPLAYABLE): CA, AT and func cores' warps wait */
  if (s->sk.launch && t->cfg.params->ctl.caps.replayable) func_launch_allow_replay(s->sk.launch, true);
  uint32_t ws = t->cfg.gpu->derived.warp_size ? t->cfg.gpu->derived.warp_size : 32;
  s->warps = (k->threads_per_cta + ws - 1) / ws;
  uint64_t local = (uint64_t)k->desc.local_bytes + t->cfg.params->func.stack_bytes;
  if (local > GPU_SIMT_TIMING_LOCAL_BYTES_PER_THREAD && !t->local_warned) {
    t->local_warned = true;
    simtvp_msg(&t->ports.messages, SIMTVP_WARNING,
               "kernel %s: %" PRIu64 " bytes of local memory per thread (frame + -gpgpu_stack_size_limit) exceed "
               "the %u KiB reserved per thread slot; its local accesses alias the next core's region in "
               "the caches (timing only, results are unaffected)",
               s->sk.name, local, GPU_SIMT_TIMING_LOCAL_BYTES_PER_THREAD >> 10);
  }
  gpu_simctl_kernel_begin(t->ctl, now_of(t));
  wake_supervisor(t);
  return true;
}

static void launch_cta(void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
  gpu_simt_timing *t = ctx;
  if (sm >= t->n_cores || k->slot >= t->n_slots || !t->slots[k->slot].active) {
    gpu_cta_result r = {SIMTVP_ERR_STATE, 0, 0};
    t->ports.cta_done(t->ports.ctx, sm, k->slot, &r);
    return;
  }
  timing_slot *s = &t->slots[k->slot];
  if (s->aborted) { /* the kernel was stopped: its remaining CTAs end at once */
    gpu_cta_result r = {s->abort_status, 0, 0};
    report(t, sm, k->slot, &r);
    return;
  }
  gpu_simctl_stop why;
  if (!gpu_simctl_may_start(t->ctl, &why)) {
    if (!s->limit_reported) {
      s->limit_reported = true;
      const char *opt = gpu_simctl_stop_option(why);
      set_fault(t, SIMTVP_ERR_LIMIT,
                "%s: %" PRIu64 " CTAs have started, the limit; kernel %s: CTA (%u,%u,%u) and the rest are not run",
                opt, gpu_simctl_ctas_started(t->ctl), s->sk.name, cta[0], cta[1], cta[2]);
      simtvp_diag_at_option(&t->fault, opt);
      s->fault_recorded = true;
      simtvp_msg(&t->ports.messages, SIMTVP_ERROR, "%s", t->fault.message);
    }
    gpu_cta_result r = {SIMTVP_ERR_LIMIT, 0, 0};
    report(t, sm, k->slot, &r);
    return;
  }
  t->resident[(size_t)sm * t->n_slots + k->slot]++;
  t->resident_total++;
  gpu_simctl_cta_start(t->ctl, sm, s->warps, now_of(t));
  wake_supervisor(t); /* the first resident CTA opens the deadlock window */
  t->ports.launch_cta(t->ports.ctx, sm / t->cores_per_cluster, sm, &s->sk, cta);
}

static void kernel_end(void *ctx, const gpu_kernel *k) {
  gpu_simt_timing *t = ctx;
  const uint64_t now = now_of(t);
  if (t->cfg.gpu->core.flush_l1_per_kernel) t->ports.flush_l1(t->ports.ctx, now);
  if (t->cfg.gpu->mem.flush_l2_per_kernel) {
    t->ports.flush_l2(t->ports.ctx);
    if (t->memiv) memiv_flush_l2(t->memiv);
  }
  gpu_simctl_kernel_end(t->ctl, now);
  gpu_launcher_end(t->launcher, k);
  if (k->slot < t->n_slots) t->slots[k->slot].active = false;
}

/* MMU_REPLAY (or CANCEL): the cores' waiting warps retry (or end); the deadlock window runs
 * again. */
static void mmu_replay(void *ctx, bool cancel, uint64_t now) {
  gpu_simt_timing *t = ctx;
  if (!t->fault_waits) return;
  t->fault_waits = false;
  if (t->ports.replay) t->ports.replay(t->ports.ctx, cancel, now);
  gpu_simctl_hold(t->ctl, false, now);
  wake_supervisor(t);
}

static void mmu_attach(void *ctx, const gpu_mmu_port *mmu) {
  gpu_simt_timing *t = ctx;
  gpu_launcher_set_mmu(t->launcher, mmu);
}

/* MMU_INVALIDATE: the L2 TLB drops the range now; the cores' L1 TLBs empty themselves when they
 * see the MMU's generation move. */
static void mmu_invalidate(void *ctx, uint64_t pdb, uint64_t va, uint64_t bytes, uint64_t now) {
  gpu_simt_timing *t = ctx;
  (void)now;
  if (t->l2_tlb) mmu_tlb_invalidate(t->l2_tlb, pdb, va, bytes);
}

gpu_simt_port gpu_simt_timing_port(gpu_simt_timing *t) {
  gpu_simt_port p;
  memset(&p, 0, sizeof p);
  p.ctx = t;
  p.kernel_begin = kernel_begin;
  p.launch_cta = launch_cta;
  p.kernel_end = kernel_end;
  p.mmu_attach = mmu_attach;
  p.mmu_invalidate = mmu_invalidate;
  p.mmu_replay = mmu_replay;
  return p;
}

/* ---- the clusters' side ------------------------------------------------------------------------ */

void gpu_simt_timing_cta_done(gpu_simt_timing *t, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r,
                              uint64_t cycle) {
  if (sm < t->n_cores && kernel_slot < t->n_slots) {
    uint32_t *n = &t->resident[(size_t)sm * t->n_slots + kernel_slot];
    if (*n) {
      (*n)--;
      t->resident_total--;
      gpu_simctl_cta_end(t->ctl, sm, t->slots[kernel_slot].warps, cycle);
    }
  }
  report(t, sm, kernel_slot, r);
}

void gpu_simt_timing_ticked(gpu_simt_timing *t, uint64_t cycle) {
  if (t->pending_stop != GPU_SIMCTL_RUN) return;
  gpu_simctl_stop why = gpu_simctl_check(t->ctl, cycle);
  if (why == GPU_SIMCTL_RUN) return;
  t->pending_stop = why; /* carried out by the supervisor at the next edge, after every cluster */
  t->ports.wake(t->ports.ctx, cycle + 1);
}

/* ---- simulation control ------------------------------------------------------------------------ */

/* "a, b, c" of the running kernels' names, cut to fit. */
static void running_kernels(const gpu_simt_timing *t, char *buf, size_t n, bool *several) {
  size_t len = 0;
  uint32_t count = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < t->n_slots; i++) {
    const timing_slot *s = &t->slots[i];
    if (!s->active) continue;
    int k = snprintf(buf + len, n - len, "%s%s", count ? ", " : "", s->sk.name ? s->sk.name : "?");
    count++;
    if (k < 0 || (size_t)k >= n - len) break;
    len += (size_t)k;
  }
  if (!count) snprintf(buf, n, "(none)");
  *several = count > 1;
}

static void stop(gpu_simt_timing *t, gpu_simctl_stop why, uint64_t c) {
  const gpu_config *g = t->cfg.gpu;
  const simtvp_status status = gpu_simctl_stop_status(why);
  const char *opt = gpu_simctl_stop_option(why);
  char kernels[256];
  bool several = false;
  running_kernels(t, kernels, sizeof kernels, &several);
  const uint64_t dropped = t->resident_total;
  char what[512];
  switch (why) {
  case GPU_SIMCTL_MAX_CYCLE:
    snprintf(what, sizeof what, "-gpgpu_max_cycle %" PRIu64 " reached at core cycle %" PRIu64 " (%" PRIu64
             " cycles with a kernel running)", g->sim.max_cycle, c, gpu_simctl_busy_cycles(t->ctl, c));
    break;
  case GPU_SIMCTL_MAX_INSN:
    snprintf(what, sizeof what, "-gpgpu_max_insn %" PRIu64 " reached at core cycle %" PRIu64 " (%" PRIu64
             " thread instructions)", g->sim.max_insn, c, *t->insn);
    break;
  default:
    snprintf(what, sizeof what, "deadlock at core cycle %" PRIu64 ": no instruction executed and no CTA "
             "finished for %" PRIu64 " cycles (-deadlock_cycles %" PRIu64 ")", c, gpu_simctl_quiet_cycles(t->ctl, c),
             g->sim.deadlock_cycles);
    break;
  }
  if (why == GPU_SIMCTL_DEADLOCK) {
    simtvp_msg(&t->ports.messages, SIMTVP_ERROR, "%s; the state of every SIMT cluster and of the memory system follows",
               what);
    if (t->ports.dump) t->ports.dump(t->ports.ctx, SIMTVP_ERROR);
  }
  /* Drop the resident CTAs: fresh model cores, every CTA reported with the stop's status. */
  for (uint32_t i = 0; i < t->n_slots; i++)
    if (t->slots[i].active) {
      t->slots[i].aborted = true;
      t->slots[i].abort_status = status;
    }
  t->ports.rebuild_clusters(t->ports.ctx);
  set_fault(t, status, "%s: the timing GPU stopped kernel%s %s (%" PRIu64 " resident CTAs dropped)%s", what,
            several ? "s" : "", kernels, dropped, why == GPU_SIMCTL_DEADLOCK ? "" : "; later kernels are not run");
  simtvp_diag_at_option(&t->fault, opt);
  simtvp_msg(&t->ports.messages, SIMTVP_ERROR, "%s", t->fault.message);
  gpu_simctl_stopped(t->ctl, why, c);
  for (uint32_t i = 0; i < t->n_slots; i++) t->slots[i].fault_recorded |= t->slots[i].active;
  const gpu_cta_result r = {status, 0, 0};
  for (uint32_t sm = 0; sm < t->n_cores; sm++)
    for (uint32_t slot = 0; slot < t->n_slots; slot++) {
      uint32_t *n = &t->resident[(size_t)sm * t->n_slots + slot];
      while (*n) {
        (*n)--;
        t->resident_total--;
        gpu_simctl_cta_end(t->ctl, sm, t->slots[slot].warps, c);
        t->ports.cta_done(t->ports.ctx, sm, slot, &r);
      }
    }
  /* The dispatcher issues none of the stopped kernels' remaining CTAs (nor those still inside
   * -gpgpu_TB_launch_latency) and ends them now, without waiting out -gpgpu_kernel_launch_latency. */
  for (uint32_t slot = 0; slot < t->n_slots; slot++)
    if (t->slots[slot].active && t->ports.abort_kernel) t->ports.abort_kernel(t->ports.ctx, slot, &r);
}

void gpu_simt_timing_supervise(gpu_simt_timing *t, uint64_t c) {
  if (t->pending_stop == GPU_SIMCTL_RUN) t->pending_stop = gpu_simctl_check(t->ctl, c);
  if (t->pending_stop == GPU_SIMCTL_RUN) return;
  gpu_simctl_stop why = t->pending_stop;
  t->pending_stop = GPU_SIMCTL_RUN;
  stop(t, why, c);
}

uint64_t gpu_simt_timing_next_check(const gpu_simt_timing *t, uint64_t last) {
  if (t->pending_stop != GPU_SIMCTL_RUN) return last + 1;
  uint64_t c = gpu_simctl_next_check(t->ctl);
  return c == GPU_SIMCTL_NEVER ? GPU_SIMCTL_NEVER : (c <= last ? last + 1 : c);
}

/* ---- reset --------------------------------------------------------------------------------------- */

void gpu_simt_timing_reset(gpu_simt_timing *t) {
  const uint64_t now = now_of(t);
  t->ports.rebuild_clusters(t->ports.ctx);
  for (uint32_t i = 0; i < t->n_slots; i++) {
    if (t->slots[i].active) gpu_launcher_end(t->launcher, &t->slots[i].k);
    memset(&t->slots[i], 0, sizeof t->slots[i]);
  }
  /* Device memory reads as zero again and the driver starts over: forget the decoded images (a
   * new module may come at an old address with an old load_id). */
  gpu_launcher *fresh = make_launcher(t, NULL);
  if (fresh) {
    gpu_launcher_destroy(t->launcher);
    t->launcher = fresh;
  }
  memset(t->resident, 0, (size_t)t->n_cores * t->n_slots * sizeof *t->resident);
  t->resident_total = 0;
  t->pending_stop = GPU_SIMCTL_RUN;
  gpu_simctl_reset(t->ctl, now);
  t->ports.invalidate_l2(t->ports.ctx);
  if (t->memiv) memiv_reset(t->memiv);
}
