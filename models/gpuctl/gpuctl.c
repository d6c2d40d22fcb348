/* gpuctl — control side of the GPU: regs + command processor + copy engines + CTA dispatcher. */
#include "gpuctl.h"

#include <stdlib.h>
#include <string.h>

struct gpuctl {
  gpuctl_config cfg;
  gpuctl_ports ports;
  gpu_regs *regs;
  gpu_cp *cp;
  gpu_ce *ce;
  gpu_disp *disp;
  gpu_mmu *mmu;
  uint64_t now;  /* latest cycle seen (mmio or advance): the timer's time */
  gpu_trace_port trace;
};

void gpuctl_config_default(gpuctl_config *c) {
  memset(c, 0, sizeof *c);
  gpu_caps_default(&c->caps);
  c->cp.event_cycles = 20;   /* a few hundred microcontroller instructions per event */
  c->cp.dma_cycles = 50;     /* host-link round trip, control-clock cycles */
  c->cp.sem_poll_cycles = 1000;
  c->ce.sysmem_bytes_per_cycle = 12; /* ≈ 16 GB/s (PCIe 3.0 x16) at 1.365 GHz */
  c->ce.devmem_bytes_per_cycle = 256;
  c->ce.sysmem_latency_cycles = 700; /* ≈ 0.5 µs DMA start-up */
  c->ce.devmem_latency_cycles = 300;
}

uint64_t gpuctl_cycles_to_ns(const gpuctl *g, uint64_t cycles) {
  /* ns = cycles * 1e6 / kHz, split to avoid overflow for long runs */
  uint64_t khz = g->cfg.clock_khz;
  return cycles / khz * 1000000u + cycles % khz * 1000000u / khz;
}

/* ---- glue ------------------------------------------------------------------------------------ */

static void irq_set(void *ctx, bool level) {
  gpuctl *g = ctx;
  if (g->ports.irq.set) g->ports.irq.set(g->ports.irq.ctx, level);
}
static uint64_t reg64(gpuctl *g, uint32_t lo, uint32_t hi) {
  return gpu_regs_fw_read(g->regs, lo) | (uint64_t)gpu_regs_fw_read(g->regs, hi) << 32;
}

/* MEMMAP_OP: declare or end a block of the device-memory map (gpu_abi.h). */
static void memmap_op(gpuctl *g, uint32_t value) {
  const gpu_memmap_port *m = &g->ports.memmap;
  uint64_t addr = reg64(g, GPU_REG_MEMMAP_ADDR_LO, GPU_REG_MEMMAP_ADDR_HI);
  uint64_t size = reg64(g, GPU_REG_MEMMAP_SIZE_LO, GPU_REG_MEMMAP_SIZE_HI);
  uint32_t cmd = GPU_FIELD_GET(GPU_MEMMAP_OP_CMD, value);
  const gpu_caps *c = &g->cfg.caps;
  bool ok;
  if (cmd == 1)
    ok = addr >= c->devmem_base && addr - c->devmem_base <= c->devmem_bytes &&
         size <= c->devmem_bytes - (addr - c->devmem_base) &&
         (!m->map || m->map(m->ctx, addr, size, reg64(g, GPU_REG_MEMMAP_TAG_LO, GPU_REG_MEMMAP_TAG_HI),
                            (GPU_FIELD_GET(GPU_MEMMAP_OP_INTERNAL, value) ? GPU_MEMMAP_INTERNAL : 0u) |
                                (GPU_FIELD_GET(GPU_MEMMAP_OP_CODE, value) ? GPU_MEMMAP_CODE : 0u)));
  else if (cmd == 2)
    ok = !m->unmap || m->unmap(m->ctx, addr);
  else
    ok = false;
  if (!ok) gpu_regs_error(g->regs, GPU_ERR_MEMMAP_OP, 0xFF, 0, addr, value);
}

static void reg_notify(void *ctx, uint32_t offset, uint32_t value) {
  gpuctl *g = ctx;
  if (offset == GPU_REG_MEMMAP_OP) {
    memmap_op(g, value);
    return;
  }
  if (offset == GPU_REG_MEMMAP_CTRL) {
    const gpu_memmap_port *m = &g->ports.memmap;
    if (m->enable) m->enable(m->ctx, GPU_FIELD_GET(GPU_MEMMAP_CTRL_ENABLE, value) != 0);
    return;
  }
  if (offset == GPU_REG_MMU_INVALIDATE || offset == GPU_REG_MMU_REPLAY)
    gpu_mmu_reg_written(g->mmu, offset, value, g->now);
  else
    gpu_cp_reg_written(g->cp, offset, value, g->now);
}
static uint64_t mmu_timer_ns(void *ctx, uint64_t now) { return gpuctl_cycles_to_ns((gpuctl *)ctx, now); }
static uint64_t timer_ns(void *ctx) {
  gpuctl *g = ctx;
  return gpuctl_cycles_to_ns(g, g->now);
}
static uint32_t cp_reg_read(void *ctx, uint32_t off) { return gpu_regs_fw_read(((gpuctl *)ctx)->regs, off); }
static void cp_reg_write(void *ctx, uint32_t off, uint32_t v) { gpu_regs_fw_write(((gpuctl *)ctx)->regs, off, v); }
static void cp_raise(void *ctx, uint32_t bits) { gpu_regs_raise(((gpuctl *)ctx)->regs, bits); }
static void cp_error(void *ctx, gpu_err code, uint32_t ch, uint32_t op, uint64_t addr, uint32_t info) {
  gpu_regs_error(((gpuctl *)ctx)->regs, code, ch, op, addr, info);
}
static bool cp_copy_start(void *ctx, const gpu_copy_op *op, uint32_t tag, uint64_t now) {
  gpuctl *g = ctx;
  if (!gpu_ce_submit(g->ce, op, tag, now)) return false;
  if (g->trace.event) {
    /* Submitted on a free engine: it runs now .. now + its cycles (gpu_ce.h). */
    gpu_trace_event e;
    memset(&e, 0, sizeof e);
    e.kind = GPU_TRACE_COPY;
    e.begin = now;
    e.end = now + gpu_ce_op_cycles(g->ce, op);
    e.op = op;
    g->trace.event(g->trace.ctx, &e);
  }
  return true;
}
static bool cp_launch_start(void *ctx, const gpu_launch_desc *d, uint32_t tag, uint64_t now) {
  gpuctl *g = ctx;
  if (g->mmu) gpu_mmu_forget_walks(g->mmu); /* page tables may have changed since the last kernel */
  return gpu_disp_launch(g->disp, d, tag, now);
}
static void ce_done(void *ctx, uint32_t tag, const gpu_copy_result *r, uint64_t now) {
  gpu_cp_copy_done(((gpuctl *)ctx)->cp, tag, r, now);
}
static void kernel_done(void *ctx, uint32_t tag, const gpu_kernel_result *r, uint64_t now) {
  gpu_cp_launch_done(((gpuctl *)ctx)->cp, tag, r, now);
}

gpuctl *gpuctl_create(const gpuctl_config *config, gpuctl_ports ports, simtvp_diag *diag) {
  gpuctl *g;
  gpu_regs_ports rp;
  gpu_cp_ports cpp;
  gpu_ce_ports cep;
  gpu_disp_ports dp;
  gpu_disp_config dc;
  if (gpu_caps_check(&config->caps, diag) != SIMTVP_OK) return NULL;
  if (!ports.sysmem.read || !ports.sysmem.write || !ports.devmem.read || !ports.devmem.write ||
      !ports.simt.launch_cta) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "gpuctl: the sysmem, devmem and simt ports must be connected");
    return NULL;
  }
  g = calloc(1, sizeof *g);
  if (!g) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "gpuctl: out of host memory");
    return NULL;
  }
  g->cfg = *config;
  if (!g->cfg.clock_khz) g->cfg.clock_khz = g->cfg.caps.core_clock_khz ? g->cfg.caps.core_clock_khz : 1000000;
  if (!g->cfg.ce.n_engines) g->cfg.ce.n_engines = g->cfg.caps.n_copy_engines;
  g->ports = ports;

  memset(&rp, 0, sizeof rp);
  rp.irq.ctx = g;
  rp.irq.set = irq_set;
  rp.notify.ctx = g;
  rp.notify.written = reg_notify;
  rp.timer.ctx = g;
  rp.timer.now_ns = timer_ns;
  g->regs = gpu_regs_create(&g->cfg.caps, rp);

  gpu_mmu_ports mp;
  memset(&mp, 0, sizeof mp);
  mp.devmem = ports.devmem;
  mp.sysmem = ports.sysmem;
  mp.host_page.ctx = ports.host_page.ctx;
  mp.host_page.vidmem = ports.host_page.vidmem;
  mp.host_page.sysmem = ports.host_page.sysmem;
  mp.host_page.translated = ports.host_page.translated;
  mp.ats = ports.ats;
  mp.regs.ctx = g;
  mp.regs.read = cp_reg_read;
  mp.regs.write = cp_reg_write;
  mp.regs.raise = cp_raise;
  mp.timer.ctx = g;
  mp.timer.ns = mmu_timer_ns;
  g->mmu = gpu_mmu_create(mp);
  if (g->mmu) {
    gpu_mmu_set_simt(g->mmu, ports.simt.ctx, ports.simt.mmu_invalidate, ports.simt.mmu_replay);
    if (ports.simt.mmu_attach) {
      gpu_mmu_port mport = gpu_mmu_simt_port(g->mmu);
      ports.simt.mmu_attach(ports.simt.ctx, &mport);
    }
  }

  memset(&cep, 0, sizeof cep);
  cep.sysmem = ports.sysmem;
  cep.devmem = ports.devmem;
  if (g->mmu) cep.vmem = gpu_mmu_vmem_port(g->mmu);
  cep.done.ctx = g;
  cep.done.done = ce_done;
  g->ce = gpu_ce_create(&g->cfg.ce, cep);

  memset(&dc, 0, sizeof dc);
  dc.n_clusters = g->cfg.caps.clusters;
  dc.cores_per_cluster = g->cfg.caps.cores_per_cluster;
  dc.sm.warp_size = g->cfg.caps.warp_size;
  dc.sm.max_threads = g->cfg.caps.max_threads_per_sm;
  dc.sm.max_warps = g->cfg.caps.max_warps_per_sm;
  dc.sm.max_ctas = g->cfg.caps.max_ctas_per_sm;
  dc.sm.regs = g->cfg.caps.regs_per_sm;
  dc.sm.reg_alloc_unit = g->cfg.caps.reg_alloc_unit;
  dc.sm.smem_bytes = g->cfg.caps.smem_per_sm;
  dc.sm.smem_alloc_unit = g->cfg.caps.smem_alloc_unit;
  dc.max_kernels = g->cfg.caps.max_concurrent_kernels;
  dc.ctas_per_cycle = g->cfg.ctas_per_cycle;
  dc.kernel_launch_cycles = g->cfg.kernel_launch_cycles;
  dc.cta_launch_cycles = g->cfg.cta_launch_cycles;
  dc.max_param_bytes = g->cfg.caps.max_param_bytes;
  dp.simt = ports.simt;
  dp.kernel_done.ctx = g;
  dp.kernel_done.done = kernel_done;
  g->disp = gpu_disp_create(&dc, dp);

  if (g->regs) {
    memset(&cpp, 0, sizeof cpp);
    cpp.regs.ctx = g;
    cpp.regs.read = cp_reg_read;
    cpp.regs.write = cp_reg_write;
    cpp.regs.raise = cp_raise;
    cpp.regs.error = cp_error;
    cpp.sysmem = ports.sysmem;
    cpp.devmem = ports.devmem;
    if (g->mmu) cpp.vmem = gpu_mmu_vmem_port(g->mmu);
    cpp.sysmap = ports.sysmap;
    cpp.engines.ctx = g;
    cpp.engines.copy_start = cp_copy_start;
    cpp.engines.launch_start = cp_launch_start;
    g->cp = gpu_cp_create(&g->cfg.cp, cpp);
  }
  if (!g->regs || !g->ce || !g->disp || !g->cp || !g->mmu) {
    gpuctl_destroy(g);
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "gpuctl: out of host memory");
    return NULL;
  }
  return g;
}

void gpuctl_destroy(gpuctl *g) {
  if (!g) return;
  gpu_cp_destroy(g->cp);
  gpu_ce_destroy(g->ce);
  gpu_disp_destroy(g->disp);
  gpu_regs_destroy(g->regs);
  gpu_mmu_destroy(g->mmu);
  free(g);
}

void gpuctl_reset(gpuctl *g) {
  gpu_regs_reset(g->regs);
  gpu_ce_reset(g->ce);
  gpu_disp_reset(g->disp);
  gpu_cp_reset(g->cp);
  gpu_mmu_reset(g->mmu);
}

static void set_now(gpuctl *g, uint64_t now) {
  if (now > g->now) g->now = now;
}

uint32_t gpuctl_mmio_read(gpuctl *g, uint32_t offset, uint32_t bytes, uint64_t now) {
  set_now(g, now);
  return gpu_regs_host_read(g->regs, offset, bytes);
}

void gpuctl_mmio_write(gpuctl *g, uint32_t offset, uint32_t bytes, uint32_t value, uint64_t now) {
  set_now(g, now);
  gpu_regs_host_write(g->regs, offset, bytes, value);
}

void gpuctl_cta_done(gpuctl *g, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r,
                     uint64_t now) {
  gpu_disp_cta_done(g->disp, sm, kernel_slot, r, now);
}

void gpuctl_abort_kernel(gpuctl *g, uint32_t kernel_slot, const gpu_kernel_result *why, uint64_t now) {
  gpu_disp_abort(g->disp, kernel_slot, why, now);
}

uint64_t gpuctl_next_event(const gpuctl *g) {
  uint64_t t = gpu_cp_next_event(g->cp), u = gpu_ce_next_event(g->ce), v = gpu_disp_next_event(g->disp);
  if (u < t) t = u;
  if (v < t) t = v;
  return t;
}

void gpuctl_advance(gpuctl *g, uint64_t now) {
  /* Blocks hand each other events at the same cycle: run them until none is due. Each block is
   * advanced to the time of the earliest due event so that time never runs backwards inside. */
  for (;;) {
    uint64_t t = gpuctl_next_event(g);
    if (t > now) break;
    set_now(g, t);
    gpu_ce_advance(g->ce, t);
    gpu_disp_advance(g->disp, t);
    gpu_cp_advance(g->cp, t);
  }
  set_now(g, now);
}

void gpuctl_register_stats(gpuctl *g, stats *st) {
  gpu_ce_register_stats(g->ce, st);
  gpu_cp_register_stats(g->cp, st);
  gpu_disp_register_stats(g->disp, st);
  gpu_mmu_register_stats(g->mmu, st);
}

bool gpuctl_irq_level(const gpuctl *g) { return gpu_regs_irq_level(g->regs); }

bool gpuctl_idle(const gpuctl *g) {
  return gpu_cp_idle(g->cp) && gpu_ce_busy_engines(g->ce) == 0 &&
         gpu_disp_running_kernels(g->disp) == 0;
}

void gpuctl_set_trace(gpuctl *g, gpu_trace_port port) {
  g->trace = port;
  gpu_cp_set_trace(g->cp, port);
}

gpu_regs *gpuctl_regs(gpuctl *g) { return g->regs; }
gpu_cp *gpuctl_cp(gpuctl *g) { return g->cp; }
gpu_ce *gpuctl_ce(gpuctl *g) { return g->ce; }
gpu_disp *gpuctl_disp(gpuctl *g) { return g->disp; }
gpu_mmu *gpuctl_mmu(gpuctl *g) { return g->mmu; }
