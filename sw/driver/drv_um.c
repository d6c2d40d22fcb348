/* drv_um — unified memory: managed ranges whose 4 KiB pages live on the host or on the GPU and
 * move on demand (docs/vm.md "Unified memory").
 *
 * - A managed range owns whole pages of device memory (the heap block is padded so no other
 *   allocation shares a page) and has a host mirror at the same address that the caller (the CUDA
 *   runtime) maps and protects through drv_um_host_port.
 * - Every page starts nowhere (never touched): its GPU entry is not present with REPLAY, its host
 *   mirror inaccessible. The first side to touch it gets it without a copy (both copies start
 *   zeroed).
 * - A GPU access to a page that is not on the GPU waits (replayable fault): the MMU writes a fault
 *   buffer entry and raises INTR_STATUS.MMU_FAULT. The driver services the entries it finds in
 *   one batch: copies each host-resident page to device memory with the copy engine on the paging
 *   channel (timed like any copy), protects the host mirror, maps the pages (one page-table commit),
 *   and writes MMU_REPLAY.
 * - A host access to a GPU-resident page (the runtime's SIGSEGV handler calls drv_um_host_access)
 *   unmaps it on the GPU (commit + MMU_INVALIDATE), copies it back and opens the host mirror.
 * - Read-mostly pages are duplicated: a GPU read maps a read-only copy (RO | REPLAY) and leaves the
 *   host a read-only mirror; the first write on either side drops the other copy.
 * - Prefetches move a range on a stream and the call returns at once: to the GPU the copies and
 *   table writes are queued on the paging channel and the stream waits for them on the GPU; to the
 *   host the stream stops at a semaphore, and once its earlier work is done the driver migrates the
 *   pages (on the paging channel) and releases it (um_prefetch: the migration runs at the end of a
 *   poll of the channels, never inside a stream callback nor inside other unified-memory work).
 * - Advice: a GPU fault on a page whose preferred location is the host, and every page the host
 *   holds of a range accessed by the GPU, is mapped remotely instead of migrating: the host
 *   mirror's page exposed, a MAP_SYSMEM window onto it (window_of) and a VIDMEM entry naming the
 *   window; the page keeps living on the host. A page that moves to the GPU loses its window.
 * - A module's __managed__ variables are ranges too (drv_um_adopt_module): the module owns their
 *   pages. */
#include <stdlib.h>
#include <string.h>

#include "drv_internal.h"
#include "ptx.h"

#define PAGE MMU_PAGE_BYTES
#define FAULT_BUF_ENTRIES 512u /* 16 KiB of system memory; one entry is kept free by the GPU */

typedef struct um_range {
  uint64_t block;   /* the heap block (what drv_mem_free releases); 0 for a module's __managed__
                       variable (the module owns its pages) */
  uint64_t va;      /* first page (4 KiB aligned): what the program got */
  uint64_t bytes;   /* what the program asked for */
  uint32_t pages;
  uint8_t *loc;     /* drv_um_loc per page */
  uint8_t *read_mostly; /* per page: cudaMemAdviseSetReadMostly */
  uint8_t *remote;      /* per page: the GPU maps its host copy (loc HOST) through a window */
  int32_t preferred;    /* DRV_UM_LOC_* as advised, -1 none */
  uint32_t accessed_by; /* bit 0 host, bit 1 the GPU */
} um_range;

/* A prefetch to the host waiting for its stream (drv_stream_hold_for_host). */
typedef struct um_prefetch {
  uint64_t id, va, bytes;
  uint64_t sem;         /* the stream's semaphore: 1 releases it */
  bool write, due;      /* due: the stream's earlier work is done */
} um_prefetch;

struct drv_um {
  um_range *r;          /* sorted by va */
  uint32_t n, cap;
  drv_um_host_port host;
  drv_stream paging;    /* an internal non-blocking stream on the paging channel */
  uint64_t buf_bus;     /* the fault buffer (system memory), 0 until the first managed range */
  bool servicing, again;
  drv_um_stats stats;
  uint64_t *batch;      /* pages of one batch (bit 0: written) */
  uint32_t n_batch, cap_batch;
  uint64_t *copy;       /* pages to copy host -> GPU (bit 0: a read-only duplicate) */
  uint32_t n_copy, cap_copy;
  um_prefetch *pend;    /* prefetches to the host in flight, in call order */
  uint32_t n_pend, cap_pend, n_due;
  uint64_t next_id;
  uint32_t hold;        /* > 0 while unified-memory work is half done: due prefetches wait */
};

static bool list_add(uint64_t **v, uint32_t *n, uint32_t *cap, uint64_t x) {
  if (*n == *cap) {
    uint32_t c = *cap ? 2 * *cap : 64;
    uint64_t *b = realloc(*v, c * sizeof *b);
    if (!b) return false;
    *v = b;
    *cap = c;
  }
  (*v)[(*n)++] = x;
  return true;
}

/* ---- ranges ----------------------------------------------------------------------------------- */

static um_range *range_of(const drv *d, uint64_t va) {
  const struct drv_um *u = d->um;
  if (!u) return NULL;
  uint32_t lo = 0, hi = u->n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    const um_range *r = &u->r[mid];
    if (va < r->va) hi = mid;
    else if (va >= r->va + (uint64_t)r->pages * PAGE) lo = mid + 1;
    else return (um_range *)r;
  }
  return NULL;
}

static struct drv_um *um_get(drv *d, simtvp_diag *diag) {
  if (d->um) return d->um;
  struct drv_um *u = calloc(1, sizeof *u);
  if (!u) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of host memory for unified memory");
    return NULL;
  }
  u->paging.ch = d->vm.paging;
  u->paging.flags = DRV_STREAM_NON_BLOCKING;
  u->paging.id = 0xFFFFFFFEu;
  d->um = u;
  return u;
}

bool drv_um_on_demand(drv *d) {
  return (drv_rd(d, GPU_REG_MMU_CAPS) & GPU_FIELD_MASK(GPU_MMU_CAPS_REPLAYABLE)) && !d->vm.paging_shared;
}

void drv_um_set_host_port(drv *d, const drv_um_host_port *p) {
  struct drv_um *u = um_get(d, NULL);
  if (!u) return;
  if (p) u->host = *p;
  else memset(&u->host, 0, sizeof u->host);
}

static void host_protect(struct drv_um *u, uint64_t va, int access) {
  if (u->host.protect) u->host.protect(u->host.ctx, va, PAGE, access);
}

/* The fault buffer and the MMU_FAULT interrupt, set up with the first managed range. */
static simtvp_status fault_buffer(drv *d, struct drv_um *u, simtvp_diag *diag) {
  if (u->buf_bus) return SIMTVP_OK;
  if (!drv_sys_alloc(d, (uint64_t)FAULT_BUF_ENTRIES * GPU_FAULT_ENTRY_BYTES, 256, &u->buf_bus)) {
    u->buf_bus = 0;
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of system memory for the GPU fault buffer");
  }
  drv_wr(d, GPU_REG_FAULT_BUF_BASE_LO, (uint32_t)u->buf_bus);
  drv_wr(d, GPU_REG_FAULT_BUF_BASE_HI, (uint32_t)(u->buf_bus >> 32));
  drv_wr(d, GPU_REG_FAULT_BUF_GET, 0);
  drv_wr(d, GPU_REG_FAULT_BUF_ENTRIES, FAULT_BUF_ENTRIES);
  drv_wr(d, GPU_REG_INTR_ENABLE, drv_rd(d, GPU_REG_INTR_ENABLE) | GPU_FIELD_MASK(GPU_INTR_STATUS_MMU_FAULT));
  return SIMTVP_OK;
}

/* The GPU entry of one managed page: present (read-only duplicate when ro) or not present with
 * REPLAY. */
static simtvp_status set_gpu_page(drv *d, uint64_t va, bool present, bool ro, simtvp_diag *diag) {
  uint64_t e = present ? mmu_pte_make(va, MMU_APERTURE_VIDMEM, ro ? (MMU_PTE_RO | MMU_PTE_REPLAY) : 0)
                       : mmu_pte_replayable_absent();
  return drv_vm_set_page(d, va, e, diag);
}

/* Copies the n pages at pages[] between their host mirrors and device memory (to_gpu: host ->
 * device) with the copy engine on the paging channel, staged in system memory, and waits — or,
 * to the GPU only, queues them (!wait: the host data is staged now, the staging freed once the
 * copies passed). The device side is physical (COPY *_PHYS): a page in motion is not mapped on
 * the GPU. */
static simtvp_status move_pages(drv *d, bool to_gpu, const uint64_t *pages, uint32_t n, bool wait, simtvp_diag *diag) {
  if (!n) return SIMTVP_OK;
  uint64_t bus;
  if (!drv_sys_alloc(d, (uint64_t)n * PAGE, PAGE, &bus))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of system memory staging %u migrating pages", n);
  drv_channel *ch = d->vm.paging;
  simtvp_status st = SIMTVP_OK;
  for (uint32_t i = 0; i < n && st == SIMTVP_OK; i++) {
    uint64_t va = pages[i] & ~(PAGE - 1), stage = bus + (uint64_t)i * PAGE;
    uint64_t src = to_gpu ? stage : va, dst = to_gpu ? va : stage;
    uint32_t p[GPU_PKT_COPY_DWORDS];
    if (to_gpu) d->bus.sysmem_write(d->bus.ctx, stage, (const void *)(uintptr_t)va, PAGE);
    p[0] = gpu_pkt_header(GPU_OP_COPY, GPU_PKT_COPY_DWORDS,
                          to_gpu ? GPU_COPY_F_SRC_SYSMEM | GPU_COPY_F_DST_PHYS : GPU_COPY_F_SRC_PHYS | GPU_COPY_F_DST_SYSMEM);
    p[GPU_COPY_SRC_LO] = (uint32_t)src;
    p[GPU_COPY_SRC_HI] = (uint32_t)(src >> 32);
    p[GPU_COPY_DST_LO] = (uint32_t)dst;
    p[GPU_COPY_DST_HI] = (uint32_t)(dst >> 32);
    p[GPU_COPY_BYTES_LO] = (uint32_t)PAGE;
    p[GPU_COPY_BYTES_HI] = 0;
    st = drv_ring_emit(d, ch, p, GPU_PKT_COPY_DWORDS, diag);
  }
  if (st == SIMTVP_OK) st = drv_emit_fence(d, ch, diag);
  if (st == SIMTVP_OK) {
    uint64_t fence = ch->submitted;
    drv_kick(d, ch);
    if (!wait && to_gpu && drv_defer_sysmem_free(ch, fence, bus)) return SIMTVP_OK;
    st = drv_wait_fence(d, ch, fence, diag);
  }
  if (st == SIMTVP_OK && !to_gpu)
    for (uint32_t i = 0; i < n; i++)
      d->bus.sysmem_read(d->bus.ctx, bus + (uint64_t)i * PAGE, (void *)(uintptr_t)(pages[i] & ~(PAGE - 1)), PAGE);
  d->bus.sysmem_free(d->bus.ctx, bus);
  return st;
}

/* ---- remote mappings (preferred location host, accessed-by) -------------------------------- */

/* The GPU address of page va's window: DRV_UM_WINDOW_BASE + its offset in device memory, above
 * every device address and every program address MAP_SYSMEM maps for zero-copy memory. */
static uint64_t window_of(const drv *d, uint64_t va) { return DRV_UM_WINDOW_BASE + (va - d->props.devmem_base); }

/* Queues MAP_SYSMEM (or its UNMAP) of one page's window on the paging channel. */
static simtvp_status emit_window(drv *d, uint64_t w, uint64_t bus, bool unmap, simtvp_diag *diag) {
  uint32_t p[GPU_PKT_MAP_SYSMEM_DWORDS];
  p[0] = gpu_pkt_header(GPU_OP_MAP_SYSMEM, GPU_PKT_MAP_SYSMEM_DWORDS, unmap ? GPU_MAP_SYSMEM_F_UNMAP : 0);
  p[GPU_MAP_SYSMEM_VA_LO] = (uint32_t)w;
  p[GPU_MAP_SYSMEM_VA_HI] = (uint32_t)(w >> 32);
  p[GPU_MAP_SYSMEM_BUS_LO] = (uint32_t)bus;
  p[GPU_MAP_SYSMEM_BUS_HI] = (uint32_t)(bus >> 32);
  p[GPU_MAP_SYSMEM_BYTES_LO] = (uint32_t)PAGE;
  p[GPU_MAP_SYSMEM_BYTES_HI] = 0;
  return drv_ring_emit(d, d->vm.paging, p, GPU_PKT_MAP_SYSMEM_DWORDS, diag);
}

/* Page p of r (its data on the host) becomes reachable by the GPU where it is: the host mirror
 * exposed on the bus, a MAP_SYSMEM window onto it queued on the paging channel and the page's
 * entry a volatile VIDMEM entry naming the window — the caller commits, and the commit's copies
 * follow the window on the same in-order channel. Kernels then read and write the host's copy
 * over the DMA initiator (zero-copy, docs/system-modes.md §1) and the host keeps its access.
 * *mapped false: the host port cannot expose it (the caller migrates instead). */
static simtvp_status remote_map(drv *d, struct drv_um *u, um_range *r, uint32_t p, bool *mapped, simtvp_diag *diag) {
  uint64_t va = r->va + (uint64_t)p * PAGE, w = window_of(d, va), bus = 0;
  *mapped = r->remote[p] != 0;
  if (*mapped) return SIMTVP_OK;
  if (!u->host.expose || !u->host.unexpose || !u->host.expose(u->host.ctx, va, PAGE, &bus)) return SIMTVP_OK;
  simtvp_status st = emit_window(d, w, bus, false, diag);
  if (st == SIMTVP_OK) st = drv_vm_set_page(d, va, mmu_pte_make(w, MMU_APERTURE_VIDMEM, MMU_PTE_VOL), diag);
  if (st != SIMTVP_OK) {
    u->host.unexpose(u->host.ctx, va, PAGE);
    return st;
  }
  r->remote[p] = 1;
  u->stats.remote_maps++;
  *mapped = true;
  return SIMTVP_OK;
}

/* Ends the remote mapping of page p: its entry becomes `entry` (committed: the GPU stops using the
 * window), then the window closes and the mirror is unexposed. */
static simtvp_status remote_unmap(drv *d, struct drv_um *u, um_range *r, uint32_t p, uint64_t entry,
                                  simtvp_diag *diag) {
  uint64_t va = r->va + (uint64_t)p * PAGE;
  drv_channel *pg = d->vm.paging;
  simtvp_status st = drv_vm_set_page(d, va, entry, diag);
  if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
  if (st == SIMTVP_OK) st = emit_window(d, window_of(d, va), 0, true, diag);
  if (st == SIMTVP_OK) st = drv_emit_fence(d, pg, diag);
  if (st == SIMTVP_OK) {
    uint64_t fence = pg->submitted;
    drv_kick(d, pg);
    st = drv_wait_fence(d, pg, fence, diag);
  }
  if (st != SIMTVP_OK) return st;
  u->host.unexpose(u->host.ctx, va, PAGE);
  r->remote[p] = 0;
  u->stats.remote_unmaps++;
  return SIMTVP_OK;
}

bool drv_um_remote(const drv *d, uint64_t va) {
  const um_range *r = range_of(d, va);
  return r && r->remote[(va - r->va) / PAGE];
}

static void range_free_arrays(um_range *r) {
  free(r->loc);
  free(r->read_mostly);
  free(r->remote);
}

/* A range record of size bytes (> 0): every page nowhere, no advice. */
static simtvp_status range_init(um_range *nr, uint64_t size, simtvp_diag *diag) {
  uint64_t pages = (size + PAGE - 1) / PAGE;
  memset(nr, 0, sizeof *nr);
  if (pages > UINT32_MAX)
    return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "managed memory: %llu bytes is too large", (unsigned long long)size);
  nr->pages = (uint32_t)pages;
  nr->bytes = size;
  nr->preferred = -1;
  nr->loc = calloc(pages, 1);
  nr->read_mostly = calloc(pages, 1);
  nr->remote = calloc(pages, 1);
  if (!nr->loc || !nr->read_mostly || !nr->remote) {
    range_free_arrays(nr);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of host memory");
  }
  return SIMTVP_OK;
}

/* Adds nr to the ranges (sorted by va); frees its arrays when it cannot. */
static simtvp_status range_insert(struct drv_um *u, um_range *nr, simtvp_diag *diag) {
  if (u->n == u->cap) {
    uint32_t cap = u->cap ? 2 * u->cap : 16;
    um_range *r = realloc(u->r, cap * sizeof *r);
    if (!r) {
      range_free_arrays(nr);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of host memory");
    }
    u->r = r;
    u->cap = cap;
  }
  uint32_t i = u->n;
  while (i > 0 && u->r[i - 1].va > nr->va) {
    u->r[i] = u->r[i - 1];
    i--;
  }
  u->r[i] = *nr;
  u->n++;
  return SIMTVP_OK;
}

static simtvp_status managed_alloc(drv *d, struct drv_um *u, uint64_t size, uint64_t *va, simtvp_diag *diag);

simtvp_status drv_managed_alloc(drv *d, uint64_t size, uint64_t *va, simtvp_diag *diag) {
  if (!size)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_managed_alloc: a managed allocation of 0 bytes");
  if (!drv_um_on_demand(d))
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                           "drv_managed_alloc: the GPU does not wait on replayable faults (MMU_CAPS.REPLAYABLE is 0) "
                           "or has one channel only (the migrations need a paging channel of their own)");
  struct drv_um *u = um_get(d, diag);
  if (!u) return SIMTVP_ERR_NOMEM;
  u->hold++;
  simtvp_status st = managed_alloc(d, u, size, va, diag);
  u->hold--;
  return st;
}

static simtvp_status managed_alloc(drv *d, struct drv_um *u, uint64_t size, uint64_t *va, simtvp_diag *diag) {
  simtvp_status st = fault_buffer(d, u, diag);
  if (st != SIMTVP_OK) return st;
  uint64_t pages = (size + PAGE - 1) / PAGE;
  um_range nr;
  if ((st = range_init(&nr, size, diag)) != SIMTVP_OK) return st;
  /* whole pages of our own: pad so a 4 KiB-aligned run of `pages` pages fits in the block */
  st = drv_mem_alloc(d, pages * PAGE + PAGE - DRV_MEM_ALIGN, &nr.block, diag);
  if (st != SIMTVP_OK) {
    range_free_arrays(&nr);
    return st;
  }
  nr.va = (nr.block + PAGE - 1) & ~(PAGE - 1);
  /* device memory starts zeroed like the host mirror: a page first touched by the GPU needs no copy */
  st = drv_memset(d, &u->paging, drv_device_ptr(nr.va), 0, 4, pages * PAGE / 4, diag);
  for (uint64_t p = 0; p < pages && st == SIMTVP_OK; p++) st = set_gpu_page(d, nr.va + p * PAGE, false, false, diag);
  if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
  if (st == SIMTVP_OK) st = drv_stream_sync(d, &u->paging, diag);
  if (st != SIMTVP_OK) {
    for (uint64_t p = 0; p < pages; p++) (void)set_gpu_page(d, nr.va + p * PAGE, true, false, NULL);
    (void)drv_mem_free(d, nr.block, NULL);
    range_free_arrays(&nr);
    return st;
  }
  if ((st = range_insert(u, &nr, diag)) != SIMTVP_OK) {
    for (uint64_t p = 0; p < pages; p++) (void)set_gpu_page(d, nr.va + p * PAGE, true, false, NULL);
    (void)drv_vm_commit(d, NULL);
    (void)drv_mem_free(d, nr.block, NULL);
    return st;
  }
  *va = nr.va;
  return SIMTVP_OK;
}

bool drv_managed_lookup(const drv *d, uint64_t va, uint64_t *base, uint64_t *bytes) {
  const um_range *r = range_of(d, va);
  if (!r) return false;
  if (base) *base = r->va;
  if (bytes) *bytes = r->bytes;
  return true;
}

/* Drops range r: its pages become plain device memory again (present, writable; commit
 * separately). */
static void pend_remove(drv *d, struct drv_um *u, uint32_t i);

static void range_remove(drv *d, struct drv_um *u, um_range *r) {
  for (uint32_t p = 0; p < r->pages; p++)
    if (r->remote[p]) (void)remote_unmap(d, u, r, p, mmu_pte_replayable_absent(), NULL);
  for (uint32_t i = u->n_pend; i-- > 0;) /* its prefetches to the host have nothing left to move */
    if (u->pend[i].va >= r->va && u->pend[i].va < r->va + (uint64_t)r->pages * PAGE) pend_remove(d, u, i);
  for (uint32_t p = 0; p < r->pages; p++) (void)set_gpu_page(d, r->va + (uint64_t)p * PAGE, true, false, NULL);
  range_free_arrays(r);
  uint32_t i = (uint32_t)(r - u->r);
  memmove(&u->r[i], &u->r[i + 1], (u->n - i - 1) * sizeof *r);
  u->n--;
}

/* drv_mem_free of a managed range (true when dptr is one the program allocated). */
bool drv_um_free(drv *d, uint64_t dptr, simtvp_diag *diag) {
  struct drv_um *u = d->um;
  um_range *r = range_of(d, dptr);
  if (!u || !r || r->va != dptr || !r->block) return false;
  /* the GPU may still use it: wait, then the pages become plain device memory again */
  (void)drv_sync(d, diag);
  r = range_of(d, dptr); /* the wait may have run prefetches: the record is where it was, look again */
  uint64_t block = r->block;
  u->hold++;
  range_remove(d, u, r);
  (void)drv_vm_commit(d, NULL);
  (void)drv_mem_release(d, block, true);
  u->hold--;
  return true;
}

/* The module's __managed__ variables: each lies on whole pages of its own in the .global segment
 * (models/ptx lays them out so, drv_module_load_parsed aligns the segment). The loader has written
 * the segment, initialisers included, so a variable with an initialiser starts on the GPU (the
 * loader's copy was its first touch); one without starts nowhere (both copies are zero). */
simtvp_status drv_um_adopt_module(drv *d, const drv_module *mod, simtvp_diag *diag) {
  if (!drv_um_on_demand(d)) return SIMTVP_OK; /* launch-and-sync (the CUDA runtime's scheme) */
  struct drv_um *u = um_get(d, diag);
  if (!u) return SIMTVP_ERR_NOMEM;
  simtvp_status st = fault_buffer(d, u, diag);
  const ptx_module *m = mod->ptx;
  for (uint32_t s = 0; s < m->n_symbols && st == SIMTVP_OK; s++) {
    const ptx_symbol *sy = &m->symbols[s];
    if (!(sy->flags & PTX_SYM_MANAGED) || (sy->flags & PTX_SYM_EXTERN)) continue;
    um_range nr;
    if ((st = range_init(&nr, sy->size ? sy->size : 1, diag)) != SIMTVP_OK) break;
    nr.va = mod->global_base + sy->offset;
    uint8_t loc = (sy->flags & PTX_SYM_HAS_INIT) ? DRV_UM_GPU : DRV_UM_NOWHERE;
    memset(nr.loc, loc, nr.pages);
    for (uint32_t p = 0; p < nr.pages && st == SIMTVP_OK; p++)
      if (loc == DRV_UM_NOWHERE) st = set_gpu_page(d, nr.va + (uint64_t)p * PAGE, false, false, diag);
    if (st == SIMTVP_OK) st = range_insert(u, &nr, diag);
    else {
      range_free_arrays(&nr);
    }
  }
  if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
  if (st != SIMTVP_OK) drv_um_forget_module(d, mod);
  return st;
}

void drv_um_forget_module(drv *d, const drv_module *mod) {
  struct drv_um *u = d->um;
  uint64_t lo = mod->global_base, hi = lo + mod->ptx->global_segment_bytes;
  if (!u || !mod->global_block) return;
  bool any = false;
  for (uint32_t i = u->n; i-- > 0;)
    if (!u->r[i].block && u->r[i].va >= lo && u->r[i].va < hi) {
      range_remove(d, u, &u->r[i]);
      any = true;
    }
  if (any) (void)drv_vm_commit(d, NULL);
}

drv_um_loc drv_um_where(const drv *d, uint64_t va) {
  const um_range *r = range_of(d, va);
  return r ? (drv_um_loc)r->loc[(va - r->va) / PAGE] : DRV_UM_NOWHERE;
}

void drv_um_get_stats(const drv *d, drv_um_stats *out) {
  if (d->um) *out = d->um->stats;
  else memset(out, 0, sizeof *out);
}

/* ---- moving pages ----------------------------------------------------------------------------- */

/* Page p of r to the GPU (for a write unless read-only duplication applies): adds a page to copy
 * to u->copy and changes the shadow page table (the caller copies, then commits). A GPU fault
 * (fault) on a page whose preferred location is the host maps it remotely instead. */
static simtvp_status page_to_gpu(drv *d, struct drv_um *u, um_range *r, uint32_t p, bool write, bool fault,
                                 simtvp_diag *diag) {
  uint64_t va = r->va + (uint64_t)p * PAGE;
  uint8_t loc = r->loc[p];
  bool dup = r->read_mostly[p] && !write;
  if (loc == DRV_UM_GPU || (loc == DRV_UM_BOTH && dup)) return SIMTVP_OK;
  if (fault && !dup && r->preferred == DRV_UM_HOST && (loc == DRV_UM_HOST || loc == DRV_UM_NOWHERE)) {
    bool mapped = false;
    simtvp_status st = remote_map(d, u, r, p, &mapped, diag);
    if (st != SIMTVP_OK || mapped) {
      if (st == SIMTVP_OK && loc == DRV_UM_NOWHERE) { /* placed where it is preferred: no copy */
        u->stats.first_touch_host++;
        r->loc[p] = DRV_UM_HOST;
        host_protect(u, va, DRV_UM_HOST_RW);
      }
      return st;
    }
  }
  if (r->remote[p]) { /* it moves: the GPU stops reaching the host copy first */
    simtvp_status st = remote_unmap(d, u, r, p, mmu_pte_replayable_absent(), diag);
    if (st != SIMTVP_OK) return st;
  }
  if (loc == DRV_UM_HOST) { /* the host keeps it readable until the copy took it */
    if (!list_add(&u->copy, &u->n_copy, &u->cap_copy, va | (dup ? 1 : 0)))
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of host memory");
    u->stats.pages_to_gpu++;
    u->stats.bytes_to_gpu += PAGE;
  } else if (loc == DRV_UM_BOTH) { /* a write to a duplicate: the host copy goes */
    host_protect(u, va, DRV_UM_HOST_NONE);
    u->stats.duplicates_dropped++;
  } else { /* first touch */
    u->stats.first_touch_gpu++;
  }
  r->loc[p] = dup ? DRV_UM_BOTH : DRV_UM_GPU;
  if (dup && loc == DRV_UM_HOST) u->stats.duplicates++;
  return set_gpu_page(d, va, true, dup, diag);
}

/* Copies the pages page_to_gpu collected, closes their host mirrors (read-only for duplicates),
 * then commits the page tables: the GPU sees a page only once its data is there. With !wait the
 * copies and the table writes are only queued on the paging channel, in that order (a prefetch:
 * the caller makes its stream wait for the channel). */
static simtvp_status finish_to_gpu(drv *d, struct drv_um *u, bool wait, simtvp_diag *diag) {
  simtvp_status st = move_pages(d, true, u->copy, u->n_copy, wait, diag);
  for (uint32_t i = 0; i < u->n_copy; i++)
    host_protect(u, u->copy[i] & ~(PAGE - 1), (u->copy[i] & 1) ? DRV_UM_HOST_READ : DRV_UM_HOST_NONE);
  u->n_copy = 0;
  if (st == SIMTVP_OK) st = wait ? drv_vm_commit(d, diag) : drv_vm_commit_queued(d, diag);
  return st;
}

/* A page that came to the host stays reachable by a GPU that accesses it (accessed-by): mapped
 * remotely at once (committed), so the GPU does not fault on it. */
static simtvp_status accessed_by_gpu(drv *d, struct drv_um *u, um_range *r, uint32_t p, simtvp_diag *diag) {
  if (!(r->accessed_by & 2u) || r->read_mostly[p] || r->loc[p] != DRV_UM_HOST) return SIMTVP_OK;
  bool mapped = false;
  simtvp_status st = remote_map(d, u, r, p, &mapped, diag);
  if (st == SIMTVP_OK && mapped) st = drv_vm_commit(d, diag);
  return st;
}

/* Page p of r to the host (the host writes when write). */
static simtvp_status page_to_host(drv *d, struct drv_um *u, um_range *r, uint32_t p, bool write, simtvp_diag *diag) {
  uint64_t va = r->va + (uint64_t)p * PAGE;
  uint8_t loc = r->loc[p];
  bool dup = r->read_mostly[p] && !write;
  simtvp_status st = SIMTVP_OK;
  if (loc == DRV_UM_HOST || (loc == DRV_UM_BOTH && dup)) return SIMTVP_OK;
  if (loc == DRV_UM_NOWHERE) {
    u->stats.first_touch_host++;
    r->loc[p] = DRV_UM_HOST;
    host_protect(u, va, DRV_UM_HOST_RW);
    return accessed_by_gpu(d, u, r, p, diag);
  }
  if (loc == DRV_UM_BOTH) { /* the host writes a duplicate: the GPU copy goes */
    st = set_gpu_page(d, va, false, false, diag);
    if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
    if (st != SIMTVP_OK) return st;
    u->stats.duplicates_dropped++;
    r->loc[p] = DRV_UM_HOST;
    host_protect(u, va, DRV_UM_HOST_RW);
    return SIMTVP_OK;
  }
  /* on the GPU: unmap there first, so no kernel writes it while it moves */
  if (!dup) {
    st = set_gpu_page(d, va, false, false, diag);
    if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
  } else {
    st = set_gpu_page(d, va, true, true, diag);
    if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
  }
  if (st != SIMTVP_OK) return st;
  host_protect(u, va, DRV_UM_HOST_RW);
  st = move_pages(d, false, &va, 1, true, diag);
  if (st != SIMTVP_OK) return st;
  if (dup) {
    host_protect(u, va, DRV_UM_HOST_READ);
    u->stats.duplicates++;
  }
  r->loc[p] = dup ? DRV_UM_BOTH : DRV_UM_HOST;
  u->stats.pages_to_host++;
  u->stats.bytes_to_host += PAGE;
  return dup ? SIMTVP_OK : accessed_by_gpu(d, u, r, p, diag);
}

simtvp_status drv_um_host_access(drv *d, uint64_t va, bool write, simtvp_diag *diag) {
  struct drv_um *u = d->um;
  um_range *r = range_of(d, va);
  if (!u || !r) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_um_host_access: 0x%llx is not managed memory", (unsigned long long)va);
    simtvp_diag_at_address(diag, va);
    return SIMTVP_ERR_ARG;
  }
  u->stats.host_faults++;
  u->hold++;
  simtvp_status st = page_to_host(d, u, r, (uint32_t)((va - r->va) / PAGE), write, diag);
  u->hold--;
  return st;
}

/* ---- GPU faults ------------------------------------------------------------------------------- */

static bool batch_add(struct drv_um *u, uint64_t page) {
  for (uint32_t i = 0; i < u->n_batch; i++)
    if ((u->batch[i] & ~(PAGE - 1)) == (page & ~(PAGE - 1))) {
      u->batch[i] |= page & 1; /* a write anywhere: the page moves for writing */
      return true;
    }
  return list_add(&u->batch, &u->n_batch, &u->cap_batch, page);
}

/* One batch: the entries between GET and PUT. */
static void service_batch(drv *d, struct drv_um *u) {
  uint32_t get = drv_rd(d, GPU_REG_FAULT_BUF_GET), put = drv_rd(d, GPU_REG_FAULT_BUF_PUT);
  bool overflow = (drv_rd(d, GPU_REG_FAULT_STATUS) & GPU_FIELD_MASK(GPU_FAULT_STATUS_OVERFLOW)) != 0;
  if (get == put && !overflow && !drv_rd(d, GPU_REG_FAULT_PENDING)) return;
  u->n_batch = 0;
  bool cancel = false;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  while (get != put) {
    gpu_fault_entry e;
    d->bus.sysmem_read(d->bus.ctx, u->buf_bus + (uint64_t)get * GPU_FAULT_ENTRY_BYTES, &e, sizeof e);
    get = (get + 1) % FAULT_BUF_ENTRIES;
    u->stats.faults++;
    um_range *r = range_of(d, e.va);
    if (!r) { /* a REPLAY entry the driver did not write: the kernel cannot go on */
      if (!d->has_error) {
        simtvp_diag_set(&d->error, SIMTVP_ERR_FAULT,
                        "GPU page fault (replayable) at 0x%llx on channel %u, grid %u, SM %u: not managed memory",
                        (unsigned long long)e.va, e.channel, e.grid_id, e.sm);
        simtvp_diag_at_address(&d->error, e.va);
        d->has_error = true;
      }
      cancel = true;
      continue;
    }
    bool write = e.access != MMU_ACCESS_READ;
    if (!batch_add(u, (e.va & ~(PAGE - 1)) | (write ? 1 : 0))) cancel = true;
  }
  drv_wr(d, GPU_REG_FAULT_BUF_GET, get);
  if (overflow) drv_wr(d, GPU_REG_FAULT_STATUS, GPU_FIELD_MASK(GPU_FAULT_STATUS_OVERFLOW));
  simtvp_status st = SIMTVP_OK;
  for (uint32_t i = 0; i < u->n_batch && st == SIMTVP_OK && !cancel; i++) {
    uint64_t va = u->batch[i] & ~(PAGE - 1);
    um_range *r = range_of(d, va);
    if (!r) continue;
    st = page_to_gpu(d, u, r, (uint32_t)((va - r->va) / PAGE), (u->batch[i] & 1) != 0, true, &diag);
  }
  if (st == SIMTVP_OK) st = finish_to_gpu(d, u, true, &diag); /* the data, then the mappings */
  u->n_copy = 0;
  /* a prefetch still in flight on the paging channel may hold pages of this batch (their state
   * says GPU already): the replay waits for everything queued there */
  drv_channel *pg = d->vm.paging;
  if (st == SIMTVP_OK && pg->completed < pg->submitted) st = drv_wait_fence(d, pg, pg->submitted, &diag);
  if (st != SIMTVP_OK) {
    if (!d->has_error) {
      d->error = diag;
      d->has_error = true;
    }
    cancel = true;
  }
  u->stats.batches++;
  drv_wr(d, GPU_REG_MMU_REPLAY, cancel ? GPU_FIELD_MASK(GPU_MMU_REPLAY_CANCEL) : GPU_FIELD_MASK(GPU_MMU_REPLAY_REPLAY));
}

void drv_um_service(drv *d) {
  struct drv_um *u = d->um;
  if (!u || !u->buf_bus) return;
  if (u->servicing) { /* a wait inside the batch saw new faults: the outer loop takes them */
    u->again = true;
    return;
  }
  u->servicing = true;
  do {
    u->again = false;
    service_batch(d, u);
  } while (u->again || drv_rd(d, GPU_REG_FAULT_BUF_GET) != drv_rd(d, GPU_REG_FAULT_BUF_PUT));
  u->servicing = false;
}

/* ---- prefetch and advice ---------------------------------------------------------------------- */

static simtvp_status check_range(const drv *d, const char *what, uint64_t va, uint64_t bytes, um_range **out,
                                 simtvp_diag *diag) {
  um_range *r = range_of(d, va);
  if (!r || !bytes || va + bytes < va || va + bytes > r->va + (uint64_t)r->pages * PAGE) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "%s: 0x%llx + %llu bytes is not inside one managed allocation", what,
                    (unsigned long long)va, (unsigned long long)bytes);
    simtvp_diag_at_address(diag, va);
    return SIMTVP_ERR_ARG;
  }
  *out = r;
  return SIMTVP_OK;
}

/* Releases the stream of pending prefetch i (its semaphore) and forgets it. */
static void pend_remove(drv *d, struct drv_um *u, uint32_t i) {
  uint64_t one = 1;
  if (u->pend[i].sem) d->bus.sysmem_write(d->bus.ctx, u->pend[i].sem, &one, sizeof one);
  if (u->pend[i].due) u->n_due--;
  memmove(&u->pend[i], &u->pend[i + 1], (u->n_pend - i - 1) * sizeof *u->pend);
  u->n_pend--;
}

static bool pend_overlaps(const struct drv_um *u, uint64_t va, uint64_t bytes) {
  for (uint32_t i = 0; i < u->n_pend; i++)
    if (u->pend[i].va < va + bytes && va < u->pend[i].va + u->pend[i].bytes) return true;
  return false;
}

/* The pages of [va, va + bytes) to the host, now (untouched pages stay untouched). */
static simtvp_status prefetch_to_host(drv *d, struct drv_um *u, uint64_t va, uint64_t bytes, bool write,
                                      simtvp_diag *diag) {
  um_range *r = range_of(d, va);
  if (!r) return SIMTVP_OK; /* freed meanwhile (range_remove drops its prefetches, so never) */
  uint32_t first = (uint32_t)((va - r->va) / PAGE), last = (uint32_t)((va + bytes - 1 - r->va) / PAGE);
  simtvp_status st = SIMTVP_OK;
  for (uint32_t p = first; p <= last && st == SIMTVP_OK; p++) {
    uint8_t before = r->loc[p];
    if (before == DRV_UM_NOWHERE) continue; /* nothing to move: it stays untouched */
    st = page_to_host(d, u, r, p, write, diag);
    if (before != r->loc[p]) u->stats.prefetched_pages++;
  }
  return st;
}

void drv_um_prefetch_due(drv *d, uint64_t id) {
  struct drv_um *u = d->um;
  for (uint32_t i = 0; u && i < u->n_pend; i++)
    if (u->pend[i].id == id && !u->pend[i].due) {
      u->pend[i].due = true;
      u->n_due++;
    }
}

/* Called at the end of every poll of the channels. A migration needs the driver's full attention
 * (page-table commits, copies and waits of its own), so it runs only when no other
 * unified-memory work is half done (hold, servicing) — the polls inside its own waits find hold
 * set — and never inside run_deferred, where stream callbacks run. */
void drv_um_run_due(drv *d) {
  struct drv_um *u = d->um;
  if (!u || !u->n_due || u->hold || u->servicing) return;
  u->hold++;
  for (uint32_t i = 0; i < u->n_pend;) {
    if (!u->pend[i].due) {
      i++;
      continue;
    }
    um_prefetch pf = u->pend[i];
    simtvp_diag diag;
    simtvp_diag_clear(&diag);
    simtvp_status st = prefetch_to_host(d, u, pf.va, pf.bytes, pf.write, &diag);
    if (st != SIMTVP_OK && !d->has_error) { /* the stream's next sync reports it */
      d->error = diag;
      d->has_error = true;
    }
    for (i = 0; i < u->n_pend && u->pend[i].id != pf.id; i++) {
    }
    if (i < u->n_pend) pend_remove(d, u, i);
    i = 0; /* the waits may have made others due: look again from the start */
  }
  u->hold--;
}

simtvp_status drv_um_prefetch(drv *d, drv_stream *s, uint64_t va, uint64_t bytes, drv_um_loc to, bool write,
                              simtvp_diag *diag) {
  um_range *r;
  simtvp_status st = check_range(d, "drv_um_prefetch", va, bytes, &r, diag);
  if (st != SIMTVP_OK) return st;
  if (to != DRV_UM_HOST && to != DRV_UM_GPU)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_um_prefetch: the destination must be the host or the GPU");
  struct drv_um *u = d->um;
  if (!s) s = drv_default_stream(d);
  /* To the host: the migration must come after the stream's earlier work (kernels may use the
   * pages) and before its later work, and the call returns at once. The stream stops at a
   * semaphore; when its earlier work is done the driver migrates the pages and releases it
   * (drv_um_run_due). Until then the pages stay where they are: a GPU access maps them as usual,
   * a host access migrates them at once (nothing is left for the prefetch). */
  if (to == DRV_UM_HOST) {
    if (u->n_pend == u->cap_pend) {
      uint32_t cap = u->cap_pend ? 2 * u->cap_pend : 8;
      um_prefetch *v = realloc(u->pend, cap * sizeof *v);
      if (!v) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of host memory");
      u->pend = v;
      u->cap_pend = cap;
    }
    um_prefetch pf = {++u->next_id, va, bytes, 0, write, false};
    uint64_t sem = 0;
    u->hold++; /* the record is complete before a poll may run it */
    st = drv_stream_hold_for_host(d, s, pf.id, &sem, diag);
    if (st == SIMTVP_OK) {
      pf.sem = sem;
      u->pend[u->n_pend++] = pf;
      /* a poll inside the call may have marked it due before the record existed */
      drv_channel *ch = s->ch;
      if (ch->completed + 1 >= ch->submitted) drv_um_prefetch_due(d, pf.id);
    }
    u->hold--;
    return st;
  }
  /* To the GPU the copies need not wait for the stream: a page still on the host is one no GPU
   * work can be using (an access to it waits on a fault, serviced on the same in-order paging
   * channel, after these copies). They and the page-table writes are queued on the paging channel
   * and the call returns at once; the stream waits for them on the GPU, so its later work (and a
   * sync of it) finds the pages there. A host access to a page in flight migrates it back after
   * them (the paging channel is in order). A prefetch to the host still waiting for its stream
   * would undo this one later: the call waits for it first. */
  if (pend_overlaps(u, va, bytes) && (st = drv_sync(d, diag)) != SIMTVP_OK) return st;
  u->hold++;
  drv_channel *pg = d->vm.paging;
  uint64_t before_fence = pg->submitted;
  uint32_t first = (uint32_t)((va - r->va) / PAGE), last = (uint32_t)((va + bytes - 1 - r->va) / PAGE);
  for (uint32_t p = first; p <= last && st == SIMTVP_OK; p++) {
    uint8_t before = r->loc[p];
    st = page_to_gpu(d, u, r, p, write, false, diag);
    if (before != r->loc[p]) u->stats.prefetched_pages++;
  }
  if (st == SIMTVP_OK) st = finish_to_gpu(d, u, false, diag);
  u->n_copy = 0;
  if (st == SIMTVP_OK && pg->submitted != before_fence) st = drv_stream_wait_channel(d, s, pg, pg->submitted, diag);
  u->hold--;
  return st;
}

static simtvp_status advise(drv *d, um_range *r, uint64_t va, uint64_t bytes, drv_um_advice advice,
                           simtvp_diag *diag) {
  simtvp_status st = SIMTVP_OK;
  uint32_t first = (uint32_t)((va - r->va) / PAGE), last = (uint32_t)((va + bytes - 1 - r->va) / PAGE);
  struct drv_um *u = d->um;
  switch (advice) {
  case DRV_UM_ADVISE_READ_MOSTLY:
    for (uint32_t p = first; p <= last; p++) r->read_mostly[p] = 1;
    return SIMTVP_OK;
  case DRV_UM_ADVISE_UNSET_READ_MOSTLY:
    /* duplicates collapse to the GPU copy (as the driver keeps the copy of the last user) */
    for (uint32_t p = first; p <= last && st == SIMTVP_OK; p++) {
      r->read_mostly[p] = 0;
      if (r->loc[p] == DRV_UM_BOTH) {
        uint64_t pva = r->va + (uint64_t)p * PAGE;
        host_protect(u, pva, DRV_UM_HOST_NONE);
        r->loc[p] = DRV_UM_GPU;
        st = set_gpu_page(d, pva, true, false, diag);
      }
    }
    if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
    return st;
  case DRV_UM_ADVISE_PREFER_HOST: r->preferred = DRV_UM_HOST; return SIMTVP_OK;
  case DRV_UM_ADVISE_PREFER_GPU: r->preferred = DRV_UM_GPU; return SIMTVP_OK;
  case DRV_UM_ADVISE_UNSET_PREFERRED: r->preferred = -1; return SIMTVP_OK;
  case DRV_UM_ADVISE_ACCESSED_BY_HOST: r->accessed_by |= 1u; return SIMTVP_OK;
  case DRV_UM_ADVISE_ACCESSED_BY_GPU: /* every page the host holds: mapped remotely now */
    r->accessed_by |= 2u;
    for (uint32_t p = first; p <= last && st == SIMTVP_OK; p++)
      if (r->loc[p] == DRV_UM_HOST && !r->read_mostly[p]) {
        bool mapped = false;
        st = remote_map(d, u, r, p, &mapped, diag);
      }
    if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
    return st;
  case DRV_UM_ADVISE_UNSET_ACCESSED_BY_HOST: r->accessed_by &= ~1u; return SIMTVP_OK;
  case DRV_UM_ADVISE_UNSET_ACCESSED_BY_GPU: r->accessed_by &= ~2u; return SIMTVP_OK;
  default:
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_um_advise: unknown advice %d", (int)advice);
  }
}

simtvp_status drv_um_advise(drv *d, uint64_t va, uint64_t bytes, drv_um_advice advice, simtvp_diag *diag) {
  um_range *r;
  simtvp_status st = check_range(d, "drv_um_advise", va, bytes, &r, diag);
  if (st != SIMTVP_OK) return st;
  d->um->hold++;
  st = advise(d, r, va, bytes, advice, diag);
  d->um->hold--;
  return st;
}

bool drv_um_range_info(const drv *d, uint64_t va, uint64_t bytes, drv_um_range_info_t *out) {
  const um_range *r = range_of(d, va);
  if (!r || !bytes || va + bytes > r->va + (uint64_t)r->pages * PAGE) return false;
  uint32_t first = (uint32_t)((va - r->va) / PAGE), last = (uint32_t)((va + bytes - 1 - r->va) / PAGE);
  out->read_mostly = true;
  out->last_loc = r->loc[last];
  out->preferred = r->preferred;
  out->accessed_by = r->accessed_by;
  for (uint32_t p = first; p <= last; p++) out->read_mostly = out->read_mostly && r->read_mostly[p];
  return true;
}

void drv_um_close(drv *d) {
  struct drv_um *u = d->um;
  if (!u) return;
  for (uint32_t i = 0; i < u->n; i++) {
    for (uint32_t p = 0; p < u->r[i].pages; p++)
      if (u->r[i].remote[p]) u->host.unexpose(u->host.ctx, u->r[i].va + (uint64_t)p * PAGE, PAGE);
    range_free_arrays(&u->r[i]);
  }
  free(u->r);
  free(u->batch);
  free(u->copy);
  free(u->pend);
  if (u->buf_bus) {
    drv_wr(d, GPU_REG_FAULT_BUF_ENTRIES, 0);
    d->bus.sysmem_free(d->bus.ctx, u->buf_bus);
  }
  free(u);
  d->um = NULL;
}
