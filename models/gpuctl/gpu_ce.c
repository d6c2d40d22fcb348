/* gpu_ce — copy engines (see gpu_ce.h). */
#include "gpu_ce.h"

#include <stdlib.h>
#include <string.h>

typedef struct ce_engine {
  bool busy;
  uint32_t tag;
  uint64_t start, end;
  gpu_copy_op op;
} ce_engine;

struct gpu_ce {
  gpu_ce_config cfg;
  gpu_ce_ports ports;
  ce_engine *engines;
  uint8_t *bounce;
  gpu_ce_counters local;  /* counters when no sink is attached */
  struct { uint64_t *copies, *memsets, *bytes, *busy_cycles, *faults; } ctr;
};

gpu_ce *gpu_ce_create(const gpu_ce_config *config, gpu_ce_ports ports) {
  gpu_ce *ce = calloc(1, sizeof *ce);
  if (!ce) return NULL;
  ce->cfg = *config;
  if (!ce->cfg.n_engines) ce->cfg.n_engines = 1;
  if (!ce->cfg.sysmem_bytes_per_cycle) ce->cfg.sysmem_bytes_per_cycle = 16;
  if (!ce->cfg.devmem_bytes_per_cycle) ce->cfg.devmem_bytes_per_cycle = 256;
  if (!ce->cfg.chunk_bytes) ce->cfg.chunk_bytes = 64u << 10;
  ce->cfg.chunk_bytes = (ce->cfg.chunk_bytes + 3u) & ~3u;
  ce->ports = ports;
  ce->ctr.copies = &ce->local.copies;
  ce->ctr.memsets = &ce->local.memsets;
  ce->ctr.bytes = &ce->local.bytes;
  ce->ctr.busy_cycles = &ce->local.busy_cycles;
  ce->ctr.faults = &ce->local.faults;
  ce->engines = calloc(ce->cfg.n_engines, sizeof *ce->engines);
  ce->bounce = malloc(ce->cfg.chunk_bytes);
  if (!ce->engines || !ce->bounce) {
    gpu_ce_destroy(ce);
    return NULL;
  }
  return ce;
}

void gpu_ce_destroy(gpu_ce *ce) {
  if (!ce) return;
  free(ce->engines);
  free(ce->bounce);
  free(ce);
}

void gpu_ce_reset(gpu_ce *ce) {
  memset(ce->engines, 0, ce->cfg.n_engines * sizeof *ce->engines);
}

uint64_t gpu_ce_op_cycles(const gpu_ce *ce, const gpu_copy_op *op) {
  uint64_t bytes = op->width * op->height, bw = UINT64_MAX, lat = 0;
  bool sys = op->dst_aperture == GPU_APERTURE_SYSMEM ||
             (op->kind == GPU_COPY_COPY && op->src_aperture == GPU_APERTURE_SYSMEM);
  bool dev = op->dst_aperture == GPU_APERTURE_DEVMEM ||
             (op->kind == GPU_COPY_COPY && op->src_aperture == GPU_APERTURE_DEVMEM);
  if (sys) {
    bw = ce->cfg.sysmem_bytes_per_cycle;
    lat = ce->cfg.sysmem_latency_cycles;
  }
  if (dev) {
    if (ce->cfg.devmem_bytes_per_cycle < bw) bw = ce->cfg.devmem_bytes_per_cycle;
    if (ce->cfg.devmem_latency_cycles > lat) lat = ce->cfg.devmem_latency_cycles;
  }
  return lat + (bytes + bw - 1) / bw;
}

bool gpu_ce_submit(gpu_ce *ce, const gpu_copy_op *op, uint32_t tag, uint64_t now) {
  for (uint32_t i = 0; i < ce->cfg.n_engines; i++) {
    ce_engine *e = &ce->engines[i];
    if (e->busy) continue;
    e->busy = true;
    e->tag = tag;
    e->op = *op;
    e->start = now;
    e->end = now + gpu_ce_op_cycles(ce, op);
    return true;
  }
  return false;
}

static void fault(gpu_copy_result *r, uint8_t aperture, uint64_t addr, uint32_t kind) {
  r->ok = false;
  r->fault_aperture = aperture;
  r->fault_addr = addr;
  r->fault_kind = kind;
}

/* Moves n bytes between buf and one side of op at addr; false fills r with the failed address. */
static bool side_access(gpu_ce *ce, const gpu_copy_op *op, bool dst_side, uint64_t addr, uint8_t *buf,
                        uint64_t n, gpu_copy_result *r) {
  uint8_t aperture = dst_side ? op->dst_aperture : op->src_aperture;
  bool write = dst_side;
  if (aperture == GPU_APERTURE_SYSMEM || !ce->ports.vmem.read) {
    const gpu_mem_port *p = aperture == GPU_APERTURE_SYSMEM ? &ce->ports.sysmem : &ce->ports.devmem;
    if (write ? p->write(p->ctx, addr, buf, n) : p->read(p->ctx, addr, buf, n)) return true;
    fault(r, aperture, addr, 0);
    return false;
  }
  uint64_t pdb = (dst_side ? op->dst_phys : op->src_phys) ? 0 : op->pdb;
  while (n) { /* page by page: a fault names its page */
    uint64_t k = MMU_PAGE_BYTES - (addr & (MMU_PAGE_BYTES - 1));
    if (k > n) k = n;
    uint32_t kind = 0;
    bool ok = write ? ce->ports.vmem.write(ce->ports.vmem.ctx, pdb, addr, buf, k, &kind)
                    : ce->ports.vmem.read(ce->ports.vmem.ctx, pdb, addr, buf, k, &kind);
    if (!ok) {
      fault(r, aperture, addr, kind);
      return false;
    }
    addr += k;
    buf += k;
    n -= k;
  }
  return true;
}

/* Moves the bytes of op; fills r. */
static void execute(gpu_ce *ce, const gpu_copy_op *op, gpu_copy_result *r) {
  uint64_t chunk = ce->cfg.chunk_bytes;
  memset(r, 0, sizeof *r);
  r->ok = true;
  if (op->kind == GPU_COPY_MEMSET) {
    /* The pattern repeats every elem_bytes; rows start element-aligned and chunks are multiples
     * of 4 bytes, so one filled buffer serves every chunk. */
    for (uint64_t i = 0; i < chunk; i++)
      ce->bounce[i] = (uint8_t)(op->value >> (8 * (i % op->elem_bytes)));
  }
  for (uint64_t row = 0; row < op->height; row++) {
    uint64_t s = op->src + row * op->src_pitch, d = op->dst + row * op->dst_pitch;
    for (uint64_t done = 0; done < op->width; done += chunk) {
      uint64_t n = op->width - done < chunk ? op->width - done : chunk;
      if (op->kind == GPU_COPY_COPY && !side_access(ce, op, false, s + done, ce->bounce, n, r)) return;
      if (!side_access(ce, op, true, d + done, ce->bounce, n, r)) return;
    }
  }
}

void gpu_ce_advance(gpu_ce *ce, uint64_t now) {
  for (;;) {
    ce_engine *next = NULL;
    for (uint32_t i = 0; i < ce->cfg.n_engines; i++) {
      ce_engine *e = &ce->engines[i];
      if (e->busy && e->end <= now && (!next || e->end < next->end)) next = e;
    }
    if (!next) return;
    gpu_copy_op op = next->op;
    uint32_t tag = next->tag;
    uint64_t end = next->end;
    gpu_copy_result r;
    next->busy = false;
    execute(ce, &op, &r);
    if (op.kind == GPU_COPY_MEMSET) ++*ce->ctr.memsets;
    else ++*ce->ctr.copies;
    *ce->ctr.bytes += op.width * op.height;
    *ce->ctr.busy_cycles += end - next->start;
    if (!r.ok) ++*ce->ctr.faults;
    if (ce->ports.done.done) ce->ports.done.done(ce->ports.done.ctx, tag, &r, end);
  }
}

uint64_t gpu_ce_next_event(const gpu_ce *ce) {
  uint64_t t = UINT64_MAX;
  for (uint32_t i = 0; i < ce->cfg.n_engines; i++)
    if (ce->engines[i].busy && ce->engines[i].end < t) t = ce->engines[i].end;
  return t;
}

uint32_t gpu_ce_busy_engines(const gpu_ce *ce) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < ce->cfg.n_engines; i++) n += ce->engines[i].busy;
  return n;
}

gpu_ce_counters gpu_ce_get_counters(const gpu_ce *ce) {
  gpu_ce_counters c = {*ce->ctr.copies, *ce->ctr.memsets, *ce->ctr.bytes, *ce->ctr.busy_cycles,
                       *ce->ctr.faults};
  return c;
}

void gpu_ce_register_stats(gpu_ce *ce, stats *st) {
  if (!st) return;
  ce->ctr.copies = stats_counter(st, "ce.copies", "ops", "copy-engine copies (linear and 2-D)");
  ce->ctr.memsets = stats_counter(st, "ce.memsets", "ops", "copy-engine memsets");
  ce->ctr.bytes = stats_counter(st, "ce.bytes", "bytes", "bytes copied or filled by the copy engines");
  ce->ctr.busy_cycles = stats_counter(st, "ce.busy_cycles", "cycles", "sum over operations of their duration");
  ce->ctr.faults = stats_counter(st, "ce.faults", "ops", "copy-engine operations ended by a failed access");
}
