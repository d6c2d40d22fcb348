/* simt_harness — a small GPU around the SIMT model cores (simt_harness.h). */
#include "simt_harness.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dram_addrdec.h"
#include "fake_ldst.h"
#include "gpu_disp.h"
#include "gpu_image.h"
#include "gpu_launcher.h"
#include "mmu.h"
#include "mmu_pte.h"

#define SH_MAX_KERNELS 8u
#define SH_HEAP_BASE 0x0000000100000000ull

typedef struct sh_module {
  ptx_module *m;
  func_program *p;   /* for initialisers, parameter layout and symbols */
  uint64_t image;
} sh_module;

typedef struct sh_pending {
  uint64_t ready;
  mem_req *req;
} sh_pending;

typedef struct sh_queue {  /* replies on their way back to one cluster, in ready order */
  sh_pending *v;
  uint32_t head, n, cap;
} sh_queue;

typedef struct sh_text {
  char *s;
  size_t n, cap;
} sh_text;

struct simt_harness {
  sh_options o;
  gpu_config cfg;
  config_registry *reg;
  stats *st;
  devmem *mem;
  func_engine *e;
  gpu_launcher *launcher;
  gpu_disp *disp;
  dram_addrmap *addrmap;
  simt_core_config *core_cfgs;
  simt_cluster **clusters;
  uint32_t n_clusters, cores_per_cluster;
  simt_kernel kernels[SH_MAX_KERNELS];
  sh_module *mods;
  uint32_t n_mods;
  uint64_t next_alloc, load_ids;
  uint64_t now;
  bool done;
  gpu_kernel_result result;
  uint64_t last_cycles;
  sh_queue *queues;
  uint64_t mem_count[MEM_ACC_KIND_COUNT];
  uint64_t misrouted;
  sh_text printed, messages;
  bool have_error;
  char first_error[SIMTVP_DIAG_MESSAGE_MAX];
  bool have_report;      /* report: the launch's first structured fault/deadlock report */
  simtvp_diag report;
  uint64_t *gpu_sim_cycle;
  /* replayable faults (sh_set_absent_pages) */
  gpu_mmu_port mmu;
  uint8_t fault_policy;
  uint64_t *absent, *pending;
  uint32_t n_absent, n_pending;
  uint64_t xlate_generation, faults, replays;
};

/* ---- text ------------------------------------------------------------------------------------ */

static void text_add(sh_text *t, const char *s, size_t n) {
  if (t->n + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (t->n + n + 1 > cap) cap *= 2;
    char *p = realloc(t->s, cap);
    if (!p) return;
    t->s = p;
    t->cap = cap;
  }
  memcpy(t->s + t->n, s, n);
  t->n += n;
  t->s[t->n] = 0;
}

static void on_print(void *ctx, const char *text, size_t len) { text_add(&((simt_harness *)ctx)->printed, text, len); }

static void on_message(void *ctx, simtvp_severity sev, const char *message) {
  simt_harness *h = ctx;
  text_add(&h->messages, message, strlen(message));
  text_add(&h->messages, "\n", 1);
  if (sev == SIMTVP_ERROR && !h->have_error) {
    h->have_error = true;
    snprintf(h->first_error, sizeof h->first_error, "%s", message);
  }
  if (!h->o.quiet && sev != SIMTVP_INFO) fprintf(stderr, "simt_harness: %s\n", message);
}

static uint64_t on_clock(void *ctx, uint32_t sm) {
  (void)sm;
  return ((simt_harness *)ctx)->now;
}

/* ---- device memory ----------------------------------------------------------------------------- */

static bool mem_read(void *ctx, uint64_t a, void *dst, uint64_t n) {
  return devmem_read(((simt_harness *)ctx)->mem, a, dst, n, NULL) == SIMTVP_OK;
}
static bool mem_write(void *ctx, uint64_t a, const void *src, uint64_t n) {
  return devmem_write(((simt_harness *)ctx)->mem, a, src, n, NULL) == SIMTVP_OK;
}

uint64_t sh_alloc(simt_harness *h, uint64_t bytes) {
  uint64_t size = (bytes + DEVMEM_PAGE_MASK) & ~DEVMEM_PAGE_MASK;
  if (!size) size = DEVMEM_PAGE_BYTES;
  /* the buffer ends where its last page ends (rounded to 256 bytes), a guard page follows */
  uint64_t base = h->next_alloc;
  h->next_alloc += size + DEVMEM_PAGE_BYTES;
  if (devmem_map(h->mem, base, size, NULL) != SIMTVP_OK) return 0;
  uint64_t used = (bytes + 255) & ~255ull;
  return base + size - (used ? used : 256);
}

simtvp_status sh_write(simt_harness *h, uint64_t addr, const void *src, uint64_t n, simtvp_diag *diag) {
  return devmem_write(h->mem, addr, src, n, diag);
}

simtvp_status sh_read(simt_harness *h, uint64_t addr, void *dst, uint64_t n, simtvp_diag *diag) {
  return devmem_read(h->mem, addr, dst, n, diag);
}

/* ---- fixed-latency memory ---------------------------------------------------------------------- */

/* Interval cores' accesses beyond their L1 (simt_interval_mem_port): the fixed latency. */
static uint64_t interval_access(void *ctx, uint32_t sm, uint64_t line_addr, uint8_t sector_mask,
                                const uint64_t *byte_mask, uint8_t kind, bool is_write, uint8_t n_ops, uint64_t at) {
  simt_harness *h = ctx;
  (void)sm, (void)line_addr, (void)sector_mask, (void)byte_mask, (void)is_write, (void)n_ops;
  if (kind < MEM_ACC_KIND_COUNT) h->mem_count[kind]++;
  return at + h->o.mem_latency;
}

static bool mem_inject(void *ctx, mem_req *req, uint64_t now) {
  simt_harness *h = ctx;
  if (req->kind < MEM_ACC_KIND_COUNT) h->mem_count[req->kind]++;
  uint32_t sub = 0;
  if (h->addrmap) {
    dram_addr a;
    dram_addrmap_decode(h->addrmap, req->addr, &a);
    sub = a.sub_partition;
  }
  if (req->src_node != req->sm / h->cores_per_cluster || req->dst_node != h->n_clusters + sub ||
      req->sub_partition != sub)
    h->misrouted++;
  if (!req->needs_reply) {
    mem_req_free(req);
    return true;
  }
  uint32_t c = req->src_node < h->n_clusters ? req->src_node : 0;
  sh_queue *q = &h->queues[c];
  if (q->n == q->cap) {
    uint32_t cap = q->cap ? q->cap * 2 : 64;
    sh_pending *v = malloc(cap * sizeof *v);
    if (!v) return false;
    for (uint32_t i = 0; i < q->n; i++) v[i] = q->v[(q->head + i) % q->cap];
    free(q->v);
    q->v = v;
    q->head = 0;
    q->cap = cap;
  }
  q->v[(q->head + q->n) % q->cap] = (sh_pending){now + h->o.mem_latency, req};
  q->n++;
  return true;
}

static void mem_advance(simt_harness *h, uint64_t now) {
  for (uint32_t c = 0; c < h->n_clusters; c++) {
    sh_queue *q = &h->queues[c];
    while (q->n && q->v[q->head].ready <= now) {
      mem_req *r = q->v[q->head].req;
      r->is_reply = true;
      if (!simt_cluster_deliver(h->clusters[c], r, now)) break;
      q->head = (q->head + 1) % q->cap;
      q->n--;
    }
  }
}

static uint64_t mem_next(const simt_harness *h) {
  uint64_t t = UINT64_MAX;
  for (uint32_t c = 0; c < h->n_clusters; c++) {
    const sh_queue *q = &h->queues[c];
    if (q->n) {
      uint64_t r = q->v[q->head].ready;
      if (r <= h->now) r = h->now + 1; /* refused: retry next cycle */
      if (r < t) t = r;
    }
  }
  return t;
}

/* ---- replayable faults (sh_set_absent_pages) ---------------------------------------------------- */

static bool page_in(const uint64_t *set, uint32_t n, uint64_t page) {
  for (uint32_t i = 0; i < n; i++)
    if (set[i] == page) return true;
  return false;
}

/* The identity translation, with the absent pages not resident (REPLAY). */
static mmu_fault identity_translate(void *ctx, uint64_t pdb, uint64_t va, mmu_access access, mmu_translation *t) {
  simt_harness *h = ctx;
  (void)pdb, (void)access;
  memset(t, 0, sizeof *t);
  if (page_in(h->absent, h->n_absent, va & ~(uint64_t)(MMU_PAGE_BYTES - 1))) {
    t->entry = MMU_PTE_REPLAY;
    t->fault = MMU_FAULT_REPLAY_ABSENT;
    return t->fault;
  }
  t->entry = MMU_PTE_VALID;
  t->pa = va;
  t->aperture = MMU_APERTURE_VIDMEM;
  t->page_bits = 12;
  return MMU_FAULT_NONE;
}

static uint8_t *identity_host_page(void *ctx, uint32_t aperture, uint64_t pa) {
  simt_harness *h = ctx;
  return aperture == MMU_APERTURE_VIDMEM ? devmem_page(h->mem, pa >> DEVMEM_PAGE_BITS) : NULL;
}

/* simt_kernel.replayable_fault: the warp waits; each page is one fault until the next replay. */
static bool replayable_fault(void *ctx, const simt_kernel *k, uint32_t sm, const uint64_t *pages, uint32_t n,
                             uint8_t access, uint8_t kind, uint64_t now) {
  simt_harness *h = ctx;
  (void)k, (void)sm, (void)access, (void)kind, (void)now;
  if (h->fault_policy == SH_FAULTS_NO_BUFFER) return false;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t page = pages[i] & ~(uint64_t)(MMU_PAGE_BYTES - 1);
    if (page_in(h->pending, h->n_pending, page) || h->n_pending == h->n_absent) continue;
    h->pending[h->n_pending++] = page;
    h->faults++;
  }
  return true;
}

/* The driver's part: the pending pages become resident (or not), then every core replays. */
static void serve_faults(simt_harness *h) {
  bool cancel = h->fault_policy == SH_FAULTS_CANCEL;
  if (!cancel) {
    uint32_t kept = 0;
    for (uint32_t i = 0; i < h->n_absent; i++)
      if (!page_in(h->pending, h->n_pending, h->absent[i])) h->absent[kept++] = h->absent[i];
    h->n_absent = kept;
    h->xlate_generation++;
  }
  h->n_pending = 0;
  h->replays++;
  for (uint32_t sm = 0; sm < h->cfg.derived.n_cores; sm++) simt_core_replay(sh_core(h, sm), cancel, h->now);
}

void sh_set_absent_pages(simt_harness *h, const uint64_t *pages, uint32_t n, sh_fault_policy policy) {
  free(h->absent);
  free(h->pending);
  h->absent = n ? malloc(n * sizeof *h->absent) : NULL;
  h->pending = n ? malloc(n * sizeof *h->pending) : NULL;
  h->n_absent = h->absent && h->pending ? n : 0;
  h->n_pending = 0;
  if (h->n_absent) memcpy(h->absent, pages, n * sizeof *pages);
  h->fault_policy = (uint8_t)policy;
  h->xlate_generation++;
  gpu_mmu_port m;
  memset(&m, 0, sizeof m);
  m.ctx = h;
  m.translate = identity_translate;
  m.host_page = identity_host_page;
  m.generation = &h->xlate_generation;
  h->mmu = m;
  gpu_launcher_set_mmu(h->launcher, policy ? &h->mmu : NULL);
}

uint64_t sh_faults(const simt_harness *h) { return h->faults; }
uint64_t sh_replays(const simt_harness *h) { return h->replays; }

/* ---- dispatcher ports -------------------------------------------------------------------------- */

static bool kernel_begin(void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
  simt_harness *h = ctx;
  simtvp_diag d;
  if (!gpu_launcher_begin(h->launcher, k, why, &d)) {
    on_message(h, SIMTVP_ERROR, d.message);
    return false;
  }
  simt_kernel *sk = &h->kernels[k->slot];
  const ptx_module *m = gpu_launcher_module(h->launcher, k->slot);
  sk->slot = k->slot;
  sk->launch_uid = k->launch_uid;
  sk->name = m->functions[k->desc.entry].name;
  sk->launch = gpu_launcher_launch(h->launcher, k->slot);
  sk->program = gpu_launcher_attachment(h->launcher, k->slot);
  sk->replayable_fault = h->fault_policy ? replayable_fault : NULL;
  sk->fault_ctx = h;
  if (h->fault_policy && sk->launch) func_launch_allow_replay(sk->launch, true);
  return true;
}

static void launch_cta(void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
  simt_harness *h = ctx;
  simtvp_diag d;
  simtvp_status st = simt_cluster_launch_cta(h->clusters[sm / h->cores_per_cluster], sm, &h->kernels[k->slot], cta,
                                             h->now, &d);
  if (st != SIMTVP_OK) {
    on_message(h, SIMTVP_ERROR, d.message);
    gpu_cta_result r = {st, 0, 0};
    gpu_disp_cta_done(h->disp, sm, k->slot, &r, h->now);
  }
}

static void kernel_end(void *ctx, const gpu_kernel *k) { gpu_launcher_end(((simt_harness *)ctx)->launcher, k); }

static void kernel_done(void *ctx, uint32_t tag, const gpu_kernel_result *r, uint64_t now) {
  simt_harness *h = ctx;
  (void)tag, (void)now;
  h->done = true;
  h->result = *r;
}

static void cta_done(void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r, uint64_t now) {
  gpu_disp_cta_done(((simt_harness *)ctx)->disp, sm, slot, r, now);
}

static void on_fault(void *ctx, uint32_t sm, uint32_t slot, const simtvp_diag *report, uint64_t now) {
  simt_harness *h = ctx;
  (void)sm, (void)slot, (void)now;
  if (h->have_report) return;
  h->have_report = true;
  h->report = *report;
}

/* ---- lifecycle --------------------------------------------------------------------------------- */

static simtvp_status load_config(simt_harness *h, simtvp_diag *diag) {
  simtvp_msg_port mp = {h, on_message};
  h->reg = config_registry_create(&mp);
  if (!h->reg) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
  simtvp_status st = gpu_config_register(h->reg, &h->cfg, diag);
  if (st == SIMTVP_OK && h->o.config_file) st = config_registry_load_file(h->reg, h->o.config_file, diag);
  if (st == SIMTVP_OK && h->o.n_args) st = config_registry_parse_args(h->reg, h->o.n_args, h->o.args, diag);
  if (st == SIMTVP_OK) st = gpu_config_finalize(&h->cfg, h->reg, diag);
  return st;
}

simtvp_status sh_create(const sh_options *o, simt_harness **out, simtvp_diag *diag) {
  *out = NULL;
  simt_harness *h = calloc(1, sizeof *h);
  if (!h) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
  h->o = *o;
  if (!h->o.mem_latency) h->o.mem_latency = 100;
  if (!h->o.fake_ldst_latency) h->o.fake_ldst_latency = 20;
  if (!h->o.max_cycles) h->o.max_cycles = 100000000ull;
  h->next_alloc = SH_HEAP_BASE;
  simtvp_status st = load_config(h, diag);
  if (st != SIMTVP_OK) {
    sh_destroy(h);
    return st;
  }
  const gpu_config *g = &h->cfg;
  h->st = stats_create();
  h->mem = devmem_create();
  func_config fc;
  memset(&fc, 0, sizeof fc);
  fc.n_sms = g->derived.n_cores;
  fc.max_warps_per_sm = g->derived.max_warps_per_core;
  fc.stack_bytes = o->stack_bytes;
  fc.heap_bytes = 8u << 20;
  fc.heap_base = sh_alloc(h, fc.heap_bytes);
  fc.pc_counts = g->output.ptx_line_stats; /* -enable_ptx_file_line_stats: the PTX line profile */
  func_ports fp;
  memset(&fp, 0, sizeof fp);
  fp.ctx = h;
  fp.clock = on_clock;
  fp.print = on_print;
  fp.messages.ctx = h;
  fp.messages.emit = on_message;
  fp.debug = o->debug;
  h->e = func_create(&fc, &fp, h->mem, h->st, diag);
  if (!h->e) {
    sh_destroy(h);
    return diag->status;
  }
  gpu_launcher_attach att = {NULL, simt_program_build, simt_program_free};
  h->launcher = gpu_launcher_create(h->e, (gpu_mem_port){h, mem_read, mem_write}, &att, diag);
  /* address decoding for the clusters' destinations, the partition indexing as the memory
   * system decides it */
  dram_addrmap_config ac = {g->mem.addr_mapping, g->mem.n_channels, g->mem.sub_partitions_per_channel,
                            DRAM_PART_LINEAR};
  if (dram_partition_indexing_from_option(g->mem.partition_indexing, NULL, &ac.indexing, NULL) != SIMTVP_OK ||
      dram_addrmap_create(&ac, &h->addrmap, NULL) != SIMTVP_OK)
    h->addrmap = NULL;
  h->n_clusters = g->core.n_clusters;
  h->cores_per_cluster = g->core.n_cores_per_cluster;
  uint32_t n_cores = g->derived.n_cores;
  h->core_cfgs = calloc(n_cores, sizeof *h->core_cfgs);
  h->clusters = calloc(h->n_clusters, sizeof *h->clusters);
  h->queues = calloc(h->n_clusters, sizeof *h->queues);
  if (!h->launcher || !h->core_cfgs || !h->clusters || !h->queues) {
    sh_destroy(h);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
  }
  const simt_ldst_iface *lif = o->ldst == SH_LDST_FAKE ? fake_ldst_iface()
                               : o->ldst == SH_LDST_FAKE_TRAFFIC ? fake_ldst_traffic_iface()
                               : simt_ldst_default_iface() ? simt_ldst_default_iface() : fake_ldst_iface();
  for (uint32_t sm = 0; sm < n_cores; sm++) {
    simt_core_config *cc = &h->core_cfgs[sm];
    st = simt_core_config_from_gpu(g, sm, cc, diag);
    if (st != SIMTVP_OK) break;
    cc->stats = h->st;
    cc->trace = o->trace;
    cc->every_cycle = o->every_cycle;
    cc->ldst_iface = lif;
    if (lif != simt_ldst_default_iface()) cc->ldst.l1d_latency = o->fake_ldst_latency;
    cc->ldst.local_base = sh_alloc(h, 1u << 20); /* a region per core (the LDST maps local memory there) */
    cc->interval_mem = o->interval_mem.ctx ? o->interval_mem : (simt_interval_mem_port){h, interval_access};
  }
  simt_cluster_ports cp = {h, mem_inject, cta_done, {h, on_message}, on_fault, NULL};
  for (uint32_t c = 0; st == SIMTVP_OK && c < h->n_clusters; c++) {
    simt_cluster_config cl = {c, h->n_clusters, h->cores_per_cluster, &h->core_cfgs[c * h->cores_per_cluster],
                              g->core.cluster_ejection_buffer, h->addrmap, h->st, {NULL, NULL, NULL}};
    st = simt_cluster_create(&cl, cp, &h->clusters[c], diag);
  }
  if (st != SIMTVP_OK) {
    sh_destroy(h);
    return st;
  }
  gpu_disp_config dc;
  memset(&dc, 0, sizeof dc);
  dc.n_clusters = h->n_clusters;
  dc.cores_per_cluster = h->cores_per_cluster;
  dc.sm.warp_size = g->derived.warp_size;
  dc.sm.max_threads = g->derived.max_threads_per_core;
  dc.sm.max_warps = g->derived.max_warps_per_core;
  dc.sm.max_ctas = g->core.max_ctas_per_core;
  dc.sm.regs = g->core.registers_per_core;
  dc.sm.reg_alloc_unit = 256;
  dc.sm.smem_bytes = g->core.shmem_size;
  dc.sm.smem_alloc_unit = 256;
  dc.max_kernels = 1;
  gpu_disp_ports dp;
  memset(&dp, 0, sizeof dp);
  dp.simt.ctx = h;
  dp.simt.kernel_begin = kernel_begin;
  dp.simt.launch_cta = launch_cta;
  dp.simt.kernel_end = kernel_end;
  dp.kernel_done.ctx = h;
  dp.kernel_done.done = kernel_done;
  h->disp = gpu_disp_create(&dc, dp);
  h->gpu_sim_cycle = stats_counter(h->st, "gpu_sim_cycle", "cycles", "core cycles of the kernel");
  stats_ratio(h->st, "gpu_ipc", "thread instructions per core cycle", "gpu_sim_insn", "gpu_sim_cycle");
  if (!h->disp) {
    sh_destroy(h);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
  }
  *out = h;
  return SIMTVP_OK;
}

void sh_destroy(simt_harness *h) {
  if (!h) return;
  gpu_disp_destroy(h->disp);
  for (uint32_t c = 0; h->clusters && c < h->n_clusters; c++) simt_cluster_destroy(h->clusters[c]);
  for (uint32_t c = 0; h->queues && c < h->n_clusters; c++) {
    for (uint32_t i = 0; i < h->queues[c].n; i++)
      mem_req_free(h->queues[c].v[(h->queues[c].head + i) % h->queues[c].cap].req);
    free(h->queues[c].v);
  }
  gpu_launcher_destroy(h->launcher);
  free(h->absent);
  free(h->pending);
  for (uint32_t i = 0; i < h->n_mods; i++) {
    func_program_destroy(h->mods[i].p);
    ptx_module_destroy(h->mods[i].m);
  }
  free(h->mods);
  if (h->e) func_destroy(h->e);
  dram_addrmap_destroy(h->addrmap);
  free(h->core_cfgs);
  free(h->clusters);
  free(h->queues);
  devmem_destroy(h->mem);
  stats_destroy(h->st);
  if (h->reg) config_registry_destroy(h->reg);
  free(h->printed.s);
  free(h->messages.s);
  free(h);
}

const gpu_config *sh_config(const simt_harness *h) { return &h->cfg; }
stats *sh_stats(simt_harness *h) { return h->st; }
devmem *sh_devmem(simt_harness *h) { return h->mem; }
uint32_t sh_cluster_count(const simt_harness *h) { return h->n_clusters; }
simt_cluster *sh_cluster(simt_harness *h, uint32_t i) { return h->clusters[i]; }
simt_core *sh_core(simt_harness *h, uint32_t sm) {
  return simt_cluster_core_of(h->clusters[sm / h->cores_per_cluster], sm);
}
uint64_t sh_last_cycles(const simt_harness *h) { return h->last_cycles; }
uint64_t sh_now(const simt_harness *h) { return h->now; }
const char *sh_printed(const simt_harness *h) { return h->printed.s ? h->printed.s : ""; }
const char *sh_messages(const simt_harness *h) { return h->messages.s ? h->messages.s : ""; }
const simtvp_diag *sh_fault_report(const simt_harness *h) { return h->have_report ? &h->report : NULL; }
uint64_t sh_mem_misrouted(const simt_harness *h) { return h->misrouted; }
uint64_t sh_mem_requests(const simt_harness *h, uint32_t kind) { return kind < MEM_ACC_KIND_COUNT ? h->mem_count[kind] : 0; }

/* ---- modules ----------------------------------------------------------------------------------- */

simtvp_status sh_load_ptx(simt_harness *h, const char *text, size_t len, const char *name, simtvp_diag *diag) {
  simtvp_msg_port mp = {h, on_message};
  ptx_module *m = ptx_parse(text, len, name, &mp, diag);
  if (!m) return diag->status;
  sh_module *mods = realloc(h->mods, (h->n_mods + 1) * sizeof *mods);
  if (!mods) {
    ptx_module_destroy(m);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
  }
  h->mods = mods;
  sh_module *sm = &h->mods[h->n_mods];
  memset(sm, 0, sizeof *sm);
  sm->m = m;
  uint64_t gbase = m->global_segment_bytes ? sh_alloc(h, m->global_segment_bytes) : 0;
  uint64_t cbase = m->const_segment_bytes ? sh_alloc(h, m->const_segment_bytes) : 0;
  uint64_t isize = gpu_image_size(m);
  uint8_t *buf = malloc(isize);
  if (!buf) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
  simtvp_status st = gpu_image_build(m, gbase, cbase, buf, isize, diag);
  gpu_image_set_load_id(buf, ++h->load_ids);
  sm->image = sh_alloc(h, isize);
  if (st == SIMTVP_OK) st = devmem_write(h->mem, sm->image, buf, isize, diag);
  gpu_image_header hdr;
  memcpy(&hdr, buf, sizeof hdr);
  free(buf);
  func_placement pl = {gbase, cbase, NULL, gpu_image_code_base(sm->image, &hdr)};
  if (st == SIMTVP_OK) st = func_program_load(h->e, m, &pl, &sm->p, diag);
  if (st == SIMTVP_OK) st = func_program_write_segments(sm->p, diag);
  if (st != SIMTVP_OK) {
    if (sm->p) func_program_destroy(sm->p);
    ptx_module_destroy(m);
    return st;
  }
  h->n_mods++;
  return SIMTVP_OK;
}

simtvp_status sh_load_ptx_file(simt_harness *h, const char *path, simtvp_diag *diag) {
  FILE *f = fopen(path, "rb");
  if (!f) return simtvp_diag_set(diag, SIMTVP_ERR_IO, "%s: cannot open", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc(n > 0 ? (size_t)n : 1);
  size_t got = text ? fread(text, 1, (size_t)n, f) : 0;
  fclose(f);
  simtvp_status st = got == (size_t)n ? sh_load_ptx(h, text, got, path, diag)
                                      : simtvp_diag_set(diag, SIMTVP_ERR_IO, "%s: cannot read", path);
  free(text);
  return st;
}

bool sh_symbol(simt_harness *h, const char *name, uint64_t *addr, uint64_t *bytes) {
  for (uint32_t i = h->n_mods; i-- > 0;) {
    uint32_t s = ptx_find_symbol(h->mods[i].m, name);
    if (s == PTX_NONE) continue;
    *addr = func_program_symbol_addr(h->mods[i].p, s);
    if (bytes) *bytes = h->mods[i].m->symbols[s].size;
    return true;
  }
  return false;
}

/* ---- running ----------------------------------------------------------------------------------- */

static void dump_line(void *ctx, const char *text) { on_message(ctx, SIMTVP_INFO, text); }

static uint64_t next_event(const simt_harness *h) {
  uint64_t t = gpu_disp_next_event(h->disp);
  uint64_t m = mem_next(h);
  if (m < t) t = m;
  for (uint32_t c = 0; c < h->n_clusters; c++) {
    uint64_t e = simt_cluster_next_event(h->clusters[c]);
    if (e < t) t = e;
  }
  return t;
}

simtvp_status sh_launch(simt_harness *h, const char *name, const uint32_t grid[3], const uint32_t block[3],
                        uint32_t dynamic_smem, const void *const *args, simtvp_diag *diag) {
  simtvp_diag_clear(diag);
  sh_module *sm = NULL;
  uint32_t kernel = PTX_NONE;
  for (uint32_t i = h->n_mods; i-- > 0 && kernel == PTX_NONE;) {
    kernel = func_program_kernel(h->mods[i].p, name);
    sm = &h->mods[i];
  }
  if (kernel == PTX_NONE) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "no kernel named %s", name);
  uint32_t pbytes = func_program_param_bytes(sm->p, kernel);
  uint8_t params[4096];
  if (pbytes > sizeof params) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "%s: parameters too large", name);
  memset(params, 0, sizeof params);
  const ptx_function *f = &sm->m->functions[kernel];
  for (uint32_t i = 0; i < f->n_params; i++) {
    uint32_t off, bytes;
    if (func_program_param(sm->p, kernel, i, &off, &bytes) && args && args[i]) memcpy(params + off, args[i], bytes);
  }
  gpu_launch_desc d;
  memset(&d, 0, sizeof d);
  d.image_addr = sm->image;
  d.entry = kernel;
  memcpy(d.grid, grid, sizeof d.grid);
  memcpy(d.block, block, sizeof d.block);
  d.smem_dynamic = dynamic_smem;
  d.smem_static = func_program_static_smem(sm->p, kernel);
  d.regs_per_thread = f->res.regs_per_thread;
  d.local_bytes = f->res.local_bytes;
  d.params = params;
  d.param_bytes = pbytes;
  /* thread block clusters: the kernel's compiled dimensions (__cluster_dims__), else none */
  for (int i = 0; i < 3; i++) d.cluster[i] = f->reqnctapercluster[i];
  d.grid_id = (uint32_t)h->load_ids;
  h->done = false;
  h->have_error = false;
  h->have_report = false;
  uint64_t start = h->now;
  stats_kernel_begin(h->st, name, h->load_ids);
  if (!gpu_disp_launch(h->disp, &d, 1, h->now)) {
    stats_kernel_end(h->st);
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "%s: the dispatcher refused the launch (a CTA does not fit a core)", name);
  }
  simtvp_status st = SIMTVP_OK;
  for (;;) {
    gpu_disp_advance(h->disp, h->now);
    mem_advance(h, h->now);
    for (uint32_t c = 0; c < h->n_clusters; c++)
      if (simt_cluster_next_event(h->clusters[c]) <= h->now) simt_cluster_advance(h->clusters[c], h->now);
    gpu_disp_advance(h->disp, h->now);
    if (h->done) break;
    uint64_t t = next_event(h);
    if (t == UINT64_MAX && h->n_pending) { /* every warp waits on a fault: the driver's turn */
      serve_faults(h);
      h->now++;
      continue;
    }
    if (t == UINT64_MAX || t - start > h->o.max_cycles) {
      st = t == UINT64_MAX ? SIMTVP_ERR_DEADLOCK : SIMTVP_ERR_LIMIT;
      on_message(h, SIMTVP_ERROR, t == UINT64_MAX ? "harness: nothing can happen any more but the kernel has not finished"
                                                  : "harness: cycle limit reached");
      for (uint32_t c = 0; c < h->n_clusters; c++) simt_cluster_dump(h->clusters[c], dump_line, h);
      break;
    }
    h->now = t > h->now ? t : h->now + 1;
  }
  h->last_cycles = h->now - start + 1;
  *h->gpu_sim_cycle += h->last_cycles;
  h->now++;
  stats_kernel_end(h->st);
  if (st == SIMTVP_OK) st = h->result.status;
  if (st != SIMTVP_OK) {
    simtvp_diag_set(diag, st, "%s", h->have_error ? h->first_error : "kernel failed");
    diag->pc = h->result.pc;
    diag->address = h->result.fault_addr;
  }
  return st;
}
