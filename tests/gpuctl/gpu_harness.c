/* gpu_harness — see gpu_harness.h. */
#define _DEFAULT_SOURCE /* mmap */
#include "gpu_harness.h"

#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv_heap.h"

/* ---- memories ------------------------------------------------------------------------------- */

/* Zeroed memory whose pages are touched only when used (a fuzz harness builds a GPU per input;
 * calloc would zero 64 MiB each time under AddressSanitizer). */
static uint8_t *zeroed(uint64_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static bool sys_read(void *ctx, uint64_t a, void *dst, uint64_t n) {
  gpu_harness *h = ctx;
  if (a < h->sys_base || a - h->sys_base > h->sys_bytes || n > h->sys_bytes - (a - h->sys_base)) return false;
  memcpy(dst, h->sys + (a - h->sys_base), n);
  return true;
}
static bool sys_write(void *ctx, uint64_t a, const void *src, uint64_t n) {
  gpu_harness *h = ctx;
  if (a < h->sys_base || a - h->sys_base > h->sys_bytes || n > h->sys_bytes - (a - h->sys_base)) return false;
  memcpy(h->sys + (a - h->sys_base), src, n);
  return true;
}
/* With the device-memory map on: every page of [a, a+n) is touched by a declared block. */
static bool dev_mapped(const gpu_harness *h, uint64_t a, uint64_t n) {
  if (!h->memmap_on || n == 0) return true;
  for (uint64_t p = a >> 12; p <= (a + n - 1) >> 12; p++) {
    bool hit = false;
    for (uint32_t i = 0; i < h->n_blocks && !hit; i++) {
      uint64_t lo = h->blocks[i].addr, hi = lo + h->blocks[i].size;
      hit = h->blocks[i].size && lo >> 12 <= p && (hi - 1) >> 12 >= p;
    }
    if (!hit) return false;
  }
  return true;
}
static void memmap_enable(void *ctx, bool on) { ((gpu_harness *)ctx)->memmap_on = on; }
static bool memmap_map(void *ctx, uint64_t addr, uint64_t size, uint64_t tag, uint32_t flags) {
  gpu_harness *h = ctx;
  (void)tag;
  (void)flags;
  for (uint32_t i = 0; i < h->n_blocks; i++)
    if (addr < h->blocks[i].addr + h->blocks[i].size && h->blocks[i].addr < addr + size) return false;
  if (h->n_blocks == sizeof h->blocks / sizeof h->blocks[0]) return false;
  h->blocks[h->n_blocks].addr = addr;
  h->blocks[h->n_blocks].size = size;
  h->n_blocks++;
  return true;
}
static bool memmap_unmap(void *ctx, uint64_t addr) {
  gpu_harness *h = ctx;
  for (uint32_t i = 0; i < h->n_blocks; i++)
    if (h->blocks[i].addr == addr) {
      h->blocks[i] = h->blocks[--h->n_blocks];
      return true;
    }
  return false;
}

static bool dev_read(void *ctx, uint64_t a, void *dst, uint64_t n) {
  gpu_harness *h = ctx;
  if (a < h->dev_base || a - h->dev_base > h->dev_bytes || n > h->dev_bytes - (a - h->dev_base)) return false;
  if (!dev_mapped(h, a, n)) return false;
  memcpy(dst, h->dev + (a - h->dev_base), n);
  return true;
}
static bool dev_write(void *ctx, uint64_t a, const void *src, uint64_t n) {
  gpu_harness *h = ctx;
  if (a < h->dev_base || a - h->dev_base > h->dev_bytes || n > h->dev_bytes - (a - h->dev_base)) return false;
  if (!dev_mapped(h, a, n)) return false;
  memcpy(h->dev + (a - h->dev_base), src, n);
  return true;
}

uint8_t *gh_sys_ptr(gpu_harness *h, uint64_t bus) { return h->sys + (bus - h->sys_base); }
uint8_t *gh_dev_ptr(gpu_harness *h, uint64_t dptr) { return h->dev + (dptr - h->dev_base); }

/* ---- fake SIMT side --------------------------------------------------------------------------- */

static bool simt_begin(void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
  gpu_harness *h = ctx;
  if (h->n_kernels < GH_MAX_KERNELS) {
    gh_kernel *r = &h->kernels[h->n_kernels++];
    r->k = *k;
    if (k->desc.param_bytes <= sizeof r->params) memcpy(r->params, k->desc.params, k->desc.param_bytes);
    r->k.desc.params = r->params;
    r->begun_at = h->now;
  }
  if (h->refuse_kernels) {
    why->status = h->refuse_status != SIMTVP_OK ? h->refuse_status : SIMTVP_ERR_FAULT;
    why->fault_addr = k->desc.image_addr;
    why->pc = 0;
    return false;
  }
  return true;
}

static void simt_end(void *ctx, const gpu_kernel *k) {
  gpu_harness *h = ctx;
  for (uint32_t i = 0; i < h->n_kernels; i++)
    if (h->kernels[i].k.launch_uid == k->launch_uid) {
      h->kernels[i].ended = true;
      h->kernels[i].ended_at = h->now;
    }
}

static void simt_launch(void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
  gpu_harness *h = ctx;
  gpu_cta_result r = {SIMTVP_OK, 0, 0};
  gh_cta *c = NULL;
  if (h->n_ctas < GH_MAX_CTAS) {
    c = &h->ctas[h->n_ctas++];
    c->kernel_slot = k->slot;
    c->sm = sm;
    memcpy(c->cta, cta, sizeof c->cta);
    c->launch_uid = k->launch_uid;
    c->at = h->now;
    c->done_at = h->now + h->cta_cycles;
    c->done = false;
  }
  if (sm < 256) {
    uint32_t res = gpu_disp_resident_ctas(gpuctl_disp(h->g), sm);
    if (res > h->max_resident[sm]) h->max_resident[sm] = res;
  }
  if (h->hang_ctas) {
    if (c) c->done = true; /* never reported */
    return;
  }
  if (h->cta_cycles == 0) {
    if (h->cta_fn) r = h->cta_fn(h, k, cta);
    if (c) c->done = true;
    gpuctl_cta_done(h->g, sm, k->slot, &r, h->now);
  }
}

/* Completes due CTAs; returns the next completion cycle (UINT64_MAX: none). */
static uint64_t simt_complete(gpu_harness *h, uint64_t now) {
  uint64_t next = UINT64_MAX;
  for (uint32_t i = 0; i < h->n_ctas; i++) {
    gh_cta *c = &h->ctas[i];
    if (c->done) continue;
    if (c->done_at <= now) {
      gpu_cta_result r = {SIMTVP_OK, 0, 0};
      c->done = true;
      if (h->cta_fn) {
        for (uint32_t k = 0; k < h->n_kernels; k++)
          if (h->kernels[k].k.launch_uid == c->launch_uid) r = h->cta_fn(h, &h->kernels[k].k, c->cta);
      }
      gpuctl_cta_done(h->g, c->sm, c->kernel_slot, &r, c->done_at);
    } else if (c->done_at < next) {
      next = c->done_at;
    }
  }
  return next;
}

static void irq_set(void *ctx, bool level) {
  gpu_harness *h = ctx;
  if (level && !h->irq) h->irq_rises++;
  h->irq = level;
}

/* ---- time --------------------------------------------------------------------------------------- */

static uint64_t next_event(gpu_harness *h) {
  uint64_t t = gpuctl_next_event(h->g), u = UINT64_MAX;
  for (uint32_t i = 0; i < h->n_ctas; i++)
    if (!h->ctas[i].done && h->ctas[i].done_at < u) u = h->ctas[i].done_at;
  return u < t ? u : t;
}

/* Processes everything due at or before t (not moving past t). */
static void settle(gpu_harness *h, uint64_t t) {
  for (;;) {
    uint64_t e = next_event(h);
    if (e > t) break;
    if (e > h->now) h->now = e;
    simt_complete(h, h->now);
    gpuctl_advance(h->g, h->now);
  }
  if (t > h->now) h->now = t;
  gpuctl_advance(h->g, h->now);
}

void gh_run_until(gpu_harness *h, uint64_t t) { settle(h, t); }

uint64_t gh_run(gpu_harness *h, uint64_t limit) {
  uint64_t end = h->now + limit;
  for (;;) {
    uint64_t e = next_event(h);
    if (e == UINT64_MAX || e > end) break;
    settle(h, e);
  }
  return h->now;
}

void gh_mmio_write(gpu_harness *h, uint32_t off, uint32_t v) {
  settle(h, h->now + h->mmio_cycles);
  gpuctl_mmio_write(h->g, off, 4, v, h->now);
  gpuctl_advance(h->g, h->now);
}

uint32_t gh_mmio_read(gpu_harness *h, uint32_t off) {
  settle(h, h->now + h->mmio_cycles);
  return gpuctl_mmio_read(h->g, off, 4, h->now);
}

/* ---- drv_bus ------------------------------------------------------------------------------- */

static uint32_t bus_rd(void *ctx, uint32_t off) { return gh_mmio_read(ctx, off); }
static void bus_wr(void *ctx, uint32_t off, uint32_t v) { gh_mmio_write(ctx, off, v); }
static bool bus_alloc(void *ctx, uint64_t size, uint64_t align, uint64_t *addr) {
  gpu_harness *h = ctx;
  /* The system-memory heap hands out 4 KiB-aligned blocks: every alignment the driver asks for. */
  if (align > 4096) return false;
  return drv_heap_alloc(h->sys_heap, size, addr);
}
static void bus_free(void *ctx, uint64_t addr) { drv_heap_free(((gpu_harness *)ctx)->sys_heap, addr); }
static void bus_read(void *ctx, uint64_t a, void *dst, uint64_t n) {
  if (!sys_read(ctx, a, dst, n)) memset(dst, 0, n);
}
static void bus_write(void *ctx, uint64_t a, const void *src, uint64_t n) { (void)sys_write(ctx, a, src, n); }
static bool bus_wfi(void *ctx) {
  gpu_harness *h = ctx;
  while (!h->irq) {
    uint64_t e = next_event(h);
    if (e == UINT64_MAX) return false;
    settle(h, e > h->now ? e : h->now);
  }
  return true;
}

/* ---- lifetime ------------------------------------------------------------------------------- */

void gh_default_config(gpuctl_config *c) {
  gpuctl_config_default(c);
  c->caps.clusters = 2;
  c->caps.cores_per_cluster = 2;
  c->caps.devmem_base = 0x100000000000ull;
  c->caps.devmem_bytes = 64ull << 20;
  c->caps.n_channels = 8;
}

static bool sysmap_map(void *ctx, uint64_t va, uint64_t bus, uint64_t bytes) {
  gpu_harness *h = ctx;
  if (h->refuse_sysmaps || h->n_sysmaps == GH_MAX_SYSMAPS) return false;
  for (uint32_t i = 0; i < h->n_sysmaps; i++)
    if (va < h->sysmaps[i].va + h->sysmaps[i].bytes && h->sysmaps[i].va < va + bytes) return false;
  h->sysmaps[h->n_sysmaps].va = va;
  h->sysmaps[h->n_sysmaps].bus = bus;
  h->sysmaps[h->n_sysmaps].bytes = bytes;
  h->n_sysmaps++;
  return true;
}

static void sysmap_unmap(void *ctx, uint64_t va, uint64_t bytes) {
  gpu_harness *h = ctx;
  for (uint32_t i = 0; i < h->n_sysmaps;)
    if (h->sysmaps[i].va >= va && h->sysmaps[i].va < va + bytes)
      h->sysmaps[i] = h->sysmaps[--h->n_sysmaps];
    else
      i++;
}

gpu_harness *gh_create(const gpuctl_config *config) { return gh_create_with(config, NULL, NULL); }

static uint8_t *own_page(void *ctx, uint64_t pa) {
  gpu_harness *h = ctx;
  if (pa < h->dev_base || pa - h->dev_base >= h->dev_bytes) return NULL;
  return h->dev + (pa - h->dev_base);
}

gpu_harness *gh_create_with(const gpuctl_config *config, const gpu_mem_port *devmem,
                            const gpu_simt_port *simt) {
  return gh_create_with_pages(config, devmem, simt, NULL, NULL);
}

gpu_harness *gh_create_with_pages(const gpuctl_config *config, const gpu_mem_port *devmem,
                                  const gpu_simt_port *simt, void *page_ctx,
                                  uint8_t *(*vidmem_page)(void *ctx, uint64_t pa)) {
  gpuctl_config c;
  gpuctl_ports p;
  simtvp_diag diag;
  gpu_harness *h = calloc(1, sizeof *h);
  if (config) c = *config;
  else gh_default_config(&c);
  h->sys_base = 0x80000000ull;
  h->sys_bytes = 64ull << 20;
  h->sys = zeroed(h->sys_bytes);
  h->sys_heap = drv_heap_create(h->sys_base, h->sys_bytes, 4096);
  h->dev_base = c.caps.devmem_base;
  h->dev_bytes = c.caps.devmem_bytes;
  h->dev = zeroed(h->dev_bytes);
  h->mmio_cycles = 10;
  memset(&p, 0, sizeof p);
  p.sysmem.ctx = h;
  p.sysmem.read = sys_read;
  p.sysmem.write = sys_write;
  p.devmem.ctx = h;
  p.devmem.read = dev_read;
  p.devmem.write = dev_write;
  p.simt.ctx = h;
  p.simt.kernel_begin = simt_begin;
  p.simt.launch_cta = simt_launch;
  p.simt.kernel_end = simt_end;
  p.irq.ctx = h;
  p.irq.set = irq_set;
  p.memmap.ctx = h;
  p.memmap.enable = memmap_enable;
  p.memmap.map = memmap_map;
  p.memmap.unmap = memmap_unmap;
  p.host_page.ctx = h;
  p.host_page.vidmem = own_page;
  if (devmem) {
    p.devmem = *devmem;
    p.host_page.ctx = page_ctx;
    p.host_page.vidmem = vidmem_page;
  }
  p.sysmap.ctx = h;
  p.sysmap.map = sysmap_map;
  p.sysmap.unmap = sysmap_unmap;
  if (simt) p.simt = *simt;
  simtvp_diag_clear(&diag);
  h->g = gpuctl_create(&c, p, &diag);
  if (!h->g || !h->sys || !h->dev || !h->sys_heap) {
    fprintf(stderr, "gh_create: %s\n", diag.message);
    abort();
  }
  h->bus.ctx = h;
  h->bus.mmio_read32 = bus_rd;
  h->bus.mmio_write32 = bus_wr;
  h->bus.sysmem_alloc = bus_alloc;
  h->bus.sysmem_free = bus_free;
  h->bus.sysmem_read = bus_read;
  h->bus.sysmem_write = bus_write;
  h->bus.wait_for_interrupt = bus_wfi;
  return h;
}

void gh_destroy(gpu_harness *h) {
  if (!h) return;
  gpuctl_destroy(h->g);
  drv_heap_destroy(h->sys_heap);
  if (h->sys) munmap(h->sys, h->sys_bytes);
  if (h->dev) munmap(h->dev, h->dev_bytes);
  free(h);
}

uint64_t gh_sys_alloc(gpu_harness *h, uint64_t bytes) {
  uint64_t a = 0;
  if (!bus_alloc(h, bytes, 4096, &a)) abort();
  return a;
}
