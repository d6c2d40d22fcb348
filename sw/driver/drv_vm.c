/* drv_vm — GPU virtual memory in the driver (docs/vm.md; the format is models/mmu/mmu_pte.h, the
 * registers docs/gpu-abi.md "Virtual memory").
 *
 * - Page tables live in a pool of 4 KiB frames at the top of device memory that no address space
 *   maps (kernels cannot reach them). The driver keeps a host shadow of every table it owns, so it
 *   never reads tables back: a change edits the shadow and marks the entries dirty; drv_vm_commit
 *   writes the dirty ranges with the copy engine (COPY from a system-memory staging buffer to the
 *   table's physical address, DST_PHYS) on the paging channel, waits for it, then invalidates the
 *   GPU's TLBs for the translations that changed (MMU_INVALIDATE).
 * - Address spaces (drv_vas): one root table each; channels translate through the PDB of the one
 *   bound to them (CH_PDB). The default address space serves every channel unless a stream is
 *   bound to another (drv_stream_set_vas).
 * - Device allocations are mapped at their own address (virtual = physical) in the default address
 *   space, a whole 2 MiB chunk of the allocator's range at a time with one 2 MiB page (as GPU
 *   drivers sub-allocate small allocations from big-page chunks): a chunk is mapped while any
 *   allocation touches it and unmapped when the last one goes.
 * - The device malloc heap the GPU keeps (HEAP_BASE/HEAP_SIZE) is mapped at its own address in
 *   every address space. */
#include <stdlib.h>
#include <string.h>

#include "drv_internal.h"

#define BIG (MMU_BIG_PAGE_BYTES)
#define SMALL (MMU_PAGE_BYTES)
#define DEFAULT_PT_MIN (1ull << 20)
#define DEFAULT_PT_MAX (64ull << 20)

/* ---- page-table frames ------------------------------------------------------------------------ */

static bool frame_alloc(drv *d, uint64_t *pa) {
  drv_vm *vm = &d->vm;
  if (!vm->n_free) return false;
  *pa = vm->pt_base + (uint64_t)vm->free_frames[--vm->n_free] * MMU_TABLE_BYTES;
  return true;
}

static void frame_free(drv *d, uint64_t pa) {
  drv_vm *vm = &d->vm;
  vm->free_frames[vm->n_free++] = (uint32_t)((pa - vm->pt_base) / MMU_TABLE_BYTES);
}

static void mark(drv *d, drv_pt *t, uint32_t i) {
  if (!t->dirty) {
    t->dirty = true;
    t->dirty_lo = t->dirty_hi = i;
    t->next_dirty = d->vm.dirty;
    d->vm.dirty = t;
  } else {
    if (i < t->dirty_lo) t->dirty_lo = i;
    if (i > t->dirty_hi) t->dirty_hi = i;
  }
}

static drv_pt *table_new(drv *d, uint32_t level) {
  drv_pt *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  if (!frame_alloc(d, &t->pa)) {
    free(t);
    return NULL;
  }
  t->level = level;
  d->vm.stats.tables++;
  mark(d, t, 0); /* a new table is written whole: its frame may hold anything */
  t->dirty_hi = MMU_TABLE_ENTRIES - 1;
  return t;
}

static void unlink_dirty(drv *d, drv_pt *t) {
  if (!t->dirty) return;
  for (drv_pt **p = &d->vm.dirty; *p; p = &(*p)->next_dirty)
    if (*p == t) {
      *p = t->next_dirty;
      break;
    }
  t->dirty = false;
}

static void table_free(drv *d, drv_pt *t) {
  if (!t) return;
  for (uint32_t i = 0; i < MMU_TABLE_ENTRIES; i++) table_free(d, t->child[i]);
  unlink_dirty(d, t);
  frame_free(d, t->pa);
  d->vm.stats.tables--;
  free(t);
}

/* ---- invalidation ----------------------------------------------------------------------------- */

/* Translations of [va, va + bytes) of v changed (bytes 0: the whole address space). */
static void need_invalidate(drv *d, const drv_vas *v, uint64_t va, uint64_t bytes) {
  drv_vm *vm = &d->vm;
  if (bytes && vm->n_inval && vm->inval[vm->n_inval - 1].pdb == v->pdb && vm->inval[vm->n_inval - 1].bytes &&
      vm->inval[vm->n_inval - 1].va + vm->inval[vm->n_inval - 1].bytes == va) {
    vm->inval[vm->n_inval - 1].bytes += bytes;
    return;
  }
  if (vm->n_inval == vm->cap_inval) {
    uint32_t cap = vm->cap_inval ? vm->cap_inval * 2 : 16;
    drv_inval *p = realloc(vm->inval, cap * sizeof *p);
    if (!p) { /* fall back to invalidating the whole address space */
      vm->n_inval = 0;
      vm->inval_all = true;
      return;
    }
    vm->inval = p;
    vm->cap_inval = cap;
  }
  vm->inval[vm->n_inval++] = (drv_inval){v->pdb, va, bytes};
}

static void invalidate(drv *d, uint64_t pdb, uint64_t va, uint64_t pages) {
  drv_wr(d, GPU_REG_MMU_INVAL_PDB_LO, (uint32_t)pdb);
  drv_wr(d, GPU_REG_MMU_INVAL_PDB_HI, (uint32_t)(pdb >> 32));
  drv_wr(d, GPU_REG_MMU_INVAL_VA_LO, (uint32_t)va & ~(uint32_t)(SMALL - 1));
  drv_wr(d, GPU_REG_MMU_INVAL_VA_HI, (uint32_t)(va >> 32));
  drv_wr(d, GPU_REG_MMU_INVAL_PAGES, (uint32_t)pages);
  drv_wr(d, GPU_REG_MMU_INVALIDATE, GPU_FIELD_MASK(GPU_MMU_INVALIDATE_TRIGGER));
  d->vm.stats.invalidates++;
}

/* ---- editing the shadow ----------------------------------------------------------------------- */

/* The table at `level` covering va (levels above created as needed; a 2 MiB leaf in the way is
 * split into a level-0 table that maps the same 512 pages). NULL when out of table frames or host
 * memory. */
static drv_pt *table_for(drv *d, drv_vas *v, uint64_t va, uint32_t level) {
  drv_pt *t = v->root;
  for (uint32_t l = MMU_LEVELS - 1; l > level; l--) {
    uint32_t i = mmu_va_index(va, l);
    if (!t->child[i]) {
      uint64_t old = t->e[i];
      drv_pt *c = table_new(d, l - 1);
      if (!c) return NULL;
      if (mmu_pte_valid(old) && (old & MMU_PTE_PS)) { /* split a 2 MiB page */
        uint64_t flags = old & (MMU_PTE_RO | MMU_PTE_REPLAY | MMU_PTE_VOL | MMU_PTE_SW_MASK);
        for (uint32_t k = 0; k < MMU_TABLE_ENTRIES; k++)
          c->e[k] = mmu_pte_make(mmu_pte_addr(old) + (uint64_t)k * SMALL, (mmu_aperture)mmu_pte_aperture(old), flags);
      } else if (!mmu_pte_valid(old) && old) { /* a not-present range (REPLAY): every part stays so */
        for (uint32_t k = 0; k < MMU_TABLE_ENTRIES; k++) c->e[k] = old;
      }
      t->child[i] = c;
      t->e[i] = mmu_pte_make(c->pa, MMU_APERTURE_VIDMEM, 0);
      mark(d, t, i);
      d->vm.stats.pte_writes++;
    }
    t = t->child[i];
  }
  return t;
}

/* Sets the leaf entry of the page at va: level 0 (4 KiB) or level 1 (2 MiB; a level-0 table there
 * is dropped). Records the invalidation a changed valid translation needs. */
static simtvp_status set_leaf(drv *d, drv_vas *v, uint64_t va, uint32_t level, uint64_t entry, simtvp_diag *diag) {
  drv_pt *t = table_for(d, v, va, level);
  if (!t)
    return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT,
                           "driver: out of page-table memory (%llu bytes of tables at 0x%llx are in use)",
                           (unsigned long long)d->vm.pt_bytes, (unsigned long long)d->vm.pt_base);
  uint32_t i = mmu_va_index(va, level);
  uint64_t span = mmu_level_span(level), base = va & ~(span - 1);
  if (t->child[i]) { /* a 2 MiB page replaces a level-0 table */
    table_free(d, t->child[i]);
    t->child[i] = NULL;
    need_invalidate(d, v, base, span);
  } else if (mmu_pte_valid(t->e[i]) && t->e[i] != entry) {
    need_invalidate(d, v, base, span);
  }
  if (t->e[i] != entry) {
    t->e[i] = entry;
    mark(d, t, i);
    d->vm.stats.pte_writes++;
  }
  return SIMTVP_OK;
}

/* Entries for [va, va + bytes) mapping [pa, …) in aperture with PTE flags; 2 MiB pages where both
 * addresses are 2 MiB aligned and a whole one fits (unless small_only). */
static simtvp_status map_range(drv *d, drv_vas *v, uint64_t va, uint64_t pa, uint64_t bytes, mmu_aperture ap,
                               uint64_t flags, bool small_only, simtvp_diag *diag) {
  while (bytes) {
    simtvp_status st;
    if (!small_only && !((va | pa) & (BIG - 1)) && bytes >= BIG) {
      st = set_leaf(d, v, va, 1, mmu_pte_make(pa, ap, flags | MMU_PTE_PS), diag);
      va += BIG, pa += BIG, bytes -= BIG;
    } else {
      st = set_leaf(d, v, va, 0, mmu_pte_make(pa, ap, flags), diag);
      va += SMALL, pa += SMALL, bytes -= SMALL;
    }
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

/* Sets [va, va + bytes) to the not-present entry `absent` (0, or REPLAY for pages that fault
 * replayably): whole 2 MiB pages stay one entry, partial ones are split. */
static simtvp_status clear_range(drv *d, drv_vas *v, uint64_t va, uint64_t bytes, uint64_t absent, simtvp_diag *diag) {
  while (bytes) {
    drv_pt *l1 = v->root; /* the level-1 table over va, if there is one (none is created here) */
    for (uint32_t l = MMU_LEVELS - 1; l > 1 && l1; l--) l1 = l1->child[mmu_va_index(va, l)];
    uint32_t i1 = mmu_va_index(va, 1);
    bool table_below = l1 && l1->child[i1];
    uint64_t e1 = l1 ? l1->e[i1] : 0;
    simtvp_status st = SIMTVP_OK;
    if (!(va & (BIG - 1)) && bytes >= BIG) {
      if (table_below || e1 != absent) st = set_leaf(d, v, va, 1, absent, diag);
      va += BIG, bytes -= BIG;
    } else {
      if (table_below || mmu_pte_valid(e1) || e1 != absent) st = set_leaf(d, v, va, 0, absent, diag);
      va += SMALL, bytes -= SMALL;
    }
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

/* ---- committing ------------------------------------------------------------------------------- */

static simtvp_status commit(drv *d, bool wait, simtvp_diag *diag) {
  drv_vm *vm = &d->vm;
  simtvp_status st = SIMTVP_OK;
  if (vm->dirty) {
    uint64_t bytes = 0, bus, off = 0;
    uint32_t n = 0;
    for (drv_pt *t = vm->dirty; t; t = t->next_dirty) {
      bytes += 8ull * (t->dirty_hi - t->dirty_lo + 1);
      n++;
    }
    if (!drv_sys_alloc(d, bytes, 256, &bus))
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of system memory staging %llu bytes of page tables",
                             (unsigned long long)bytes);
    drv_channel *ch = vm->paging;
    for (drv_pt *t = vm->dirty; t && st == SIMTVP_OK; t = t->next_dirty) {
      uint64_t len = 8ull * (t->dirty_hi - t->dirty_lo + 1), dst = t->pa + 8ull * t->dirty_lo;
      uint32_t p[GPU_PKT_COPY_DWORDS];
      d->bus.sysmem_write(d->bus.ctx, bus + off, &t->e[t->dirty_lo], len);
      p[0] = gpu_pkt_header(GPU_OP_COPY, GPU_PKT_COPY_DWORDS, GPU_COPY_F_SRC_SYSMEM | GPU_COPY_F_DST_PHYS);
      p[GPU_COPY_SRC_LO] = (uint32_t)(bus + off);
      p[GPU_COPY_SRC_HI] = (uint32_t)((bus + off) >> 32);
      p[GPU_COPY_DST_LO] = (uint32_t)dst;
      p[GPU_COPY_DST_HI] = (uint32_t)(dst >> 32);
      p[GPU_COPY_BYTES_LO] = (uint32_t)len;
      p[GPU_COPY_BYTES_HI] = 0;
      st = drv_ring_emit(d, ch, p, GPU_PKT_COPY_DWORDS, diag);
      off += len;
    }
    if (st == SIMTVP_OK) st = drv_emit_fence(d, ch, diag);
    if (st == SIMTVP_OK) {
      uint64_t fence = ch->submitted;
      drv_kick(d, ch);
      vm->stats.table_writes += n;
      vm->stats.table_bytes += bytes;
      if (!wait && !drv_defer_sysmem_free(ch, fence, bus)) wait = true; /* no room to defer the free */
      if (wait) st = drv_wait_fence(d, ch, fence, diag);
    }
    if (wait || st != SIMTVP_OK) d->bus.sysmem_free(d->bus.ctx, bus);
    for (drv_pt *t = vm->dirty, *next; t; t = next) {
      next = t->next_dirty;
      t->dirty = false;
      t->next_dirty = NULL;
    }
    vm->dirty = NULL;
    if (st != SIMTVP_OK) return st;
  }
  if (vm->inval_all) {
    invalidate(d, 0, 0, 0);
    vm->inval_all = false;
    vm->n_inval = 0;
  }
  for (uint32_t i = 0; i < vm->n_inval; i++) {
    uint64_t pages = vm->inval[i].bytes >> MMU_PAGE_BITS;
    invalidate(d, vm->inval[i].pdb, vm->inval[i].va, pages > UINT32_MAX ? 0 : pages);
  }
  vm->n_inval = 0;
  return SIMTVP_OK;
}

simtvp_status drv_vm_commit(drv *d, simtvp_diag *diag) { return commit(d, true, diag); }

simtvp_status drv_vm_commit_queued(drv *d, simtvp_diag *diag) {
  return commit(d, d->vm.inval_all || d->vm.n_inval, diag);
}

/* ---- address spaces --------------------------------------------------------------------------- */

static simtvp_status vas_new(drv *d, drv_vas **out, simtvp_diag *diag) {
  drv_vas *v = calloc(1, sizeof *v);
  if (!v) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of host memory");
  v->root = table_new(d, MMU_LEVELS - 1);
  if (!v->root) {
    free(v);
    return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "driver: out of page-table memory for an address space");
  }
  v->pdb = mmu_pdb_make(v->root->pa, MMU_APERTURE_VIDMEM);
  simtvp_status st = SIMTVP_OK;
  if (d->vm.heap_bytes) /* the device malloc heap, at its own address */
    st = map_range(d, v, d->vm.heap_base, d->vm.heap_base, d->vm.heap_bytes, MMU_APERTURE_VIDMEM, 0, false, diag);
  if (st != SIMTVP_OK) {
    table_free(d, v->root);
    free(v);
    return st;
  }
  v->next = d->vm.vases;
  d->vm.vases = v;
  *out = v;
  return SIMTVP_OK;
}

static void bind_channel(drv *d, drv_channel *ch, const drv_vas *v) {
  ch->vas = v;
  drv_wr(d, GPU_CH_REG(ch->id, GPU_REG_CH_PDB_LO), (uint32_t)v->pdb);
  drv_wr(d, GPU_CH_REG(ch->id, GPU_REG_CH_PDB_HI), (uint32_t)(v->pdb >> 32));
}

drv_vas *drv_default_vas(drv *d) { return d->vm.vas_default; }
uint64_t drv_vas_pdb(const drv_vas *v) { return v->pdb; }

simtvp_status drv_vas_create(drv *d, drv_vas **out, simtvp_diag *diag) {
  *out = NULL;
  simtvp_status st = vas_new(d, out, diag);
  if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
  return st;
}

simtvp_status drv_vas_destroy(drv *d, drv_vas *v, simtvp_diag *diag) {
  if (!v || v == d->vm.vas_default)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_vas_destroy: the default address space cannot be destroyed");
  for (uint32_t c = 0; c < d->n_ch; c++)
    if (d->ch[c].vas == v)
      return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "drv_vas_destroy: channel %u still translates through it", c);
  for (drv_vas **p = &d->vm.vases; *p; p = &(*p)->next)
    if (*p == v) {
      *p = v->next;
      need_invalidate(d, v, 0, 0); /* the whole address space */
      table_free(d, v->root);
      free(v);
      return drv_vm_commit(d, diag);
    }
  return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_vas_destroy: unknown address space");
}

static simtvp_status check_range(const char *what, uint64_t va, uint64_t pa, uint64_t bytes, simtvp_diag *diag) {
  if ((va | pa | bytes) & (SMALL - 1) || bytes == 0 || va + bytes < va || ((va + bytes - 1) >> MMU_VA_BITS) ||
      ((pa + bytes - 1) >> MMU_PA_BITS)) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                    "%s: virtual 0x%llx, physical 0x%llx, %llu bytes must be 4 KiB aligned, not empty and inside "
                    "the 48-bit virtual and 52-bit physical address spaces",
                    what, (unsigned long long)va, (unsigned long long)pa, (unsigned long long)bytes);
    simtvp_diag_at_address(diag, va);
    return SIMTVP_ERR_ARG;
  }
  return SIMTVP_OK;
}

simtvp_status drv_vas_map(drv *d, drv_vas *v, uint64_t va, uint64_t pa, uint64_t bytes, uint32_t flags,
                          simtvp_diag *diag) {
  simtvp_status st = check_range("drv_vas_map", va, pa, bytes, diag);
  if (st != SIMTVP_OK) return st;
  uint64_t f = ((flags & DRV_MAP_RO) ? MMU_PTE_RO : 0) | ((flags & DRV_MAP_VOL) ? MMU_PTE_VOL : 0);
  mmu_aperture ap = (flags & DRV_MAP_SYSMEM) ? MMU_APERTURE_SYSMEM : MMU_APERTURE_VIDMEM;
  st = map_range(d, v, va, pa, bytes, ap, f, (flags & DRV_MAP_SMALL) != 0, diag);
  simtvp_status st2 = drv_vm_commit(d, diag);
  return st != SIMTVP_OK ? st : st2;
}

simtvp_status drv_vas_unmap(drv *d, drv_vas *v, uint64_t va, uint64_t bytes, simtvp_diag *diag) {
  simtvp_status st = check_range("drv_vas_unmap", va, 0, bytes, diag);
  if (st != SIMTVP_OK) return st;
  st = clear_range(d, v, va, bytes, 0, diag);
  simtvp_status st2 = drv_vm_commit(d, diag);
  return st != SIMTVP_OK ? st : st2;
}

bool drv_vas_lookup(const drv_vas *v, uint64_t va, uint64_t *entry, uint32_t *page_bits) {
  const drv_pt *t = v->root;
  if (va >> MMU_VA_BITS) return false;
  for (int l = (int)MMU_LEVELS - 1; l >= 0; l--) {
    uint32_t i = mmu_va_index(va, (uint32_t)l);
    uint64_t e = t->e[i];
    if (t->child[i]) {
      t = t->child[i];
      continue;
    }
    if (!mmu_pte_valid(e) || (l > 1) || (l == 1 && !(e & MMU_PTE_PS))) {
      if (entry) *entry = e;
      if (page_bits) *page_bits = 0;
      return false;
    }
    if (entry) *entry = e;
    if (page_bits) *page_bits = l == 0 ? MMU_PAGE_BITS : MMU_BIG_PAGE_BITS;
    return true;
  }
  return false;
}

simtvp_status drv_stream_set_vas(drv *d, drv_stream *s, drv_vas *v, simtvp_diag *diag) {
  if (!s) s = drv_default_stream(d);
  if (!v) v = d->vm.vas_default;
  if (s->ch == d->vm.paging && d->vm.paging_shared == false)
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "drv_stream_set_vas: the paging channel keeps the default address space");
  /* Work already queued on the channel keeps its address space: wait for it. */
  simtvp_status st = drv_wait_fence(d, s->ch, s->ch->submitted, diag);
  if (st != SIMTVP_OK) return st;
  bind_channel(d, s->ch, v);
  return SIMTVP_OK;
}

/* ---- device allocations ----------------------------------------------------------------------- */

/* [lo, hi) of chunk c inside the allocator's range. */
static void chunk_bounds(const drv *d, uint32_t c, uint64_t *lo, uint64_t *hi) {
  uint64_t a = d->vm.chunk_base + (uint64_t)c * BIG, b = a + BIG;
  *lo = a < d->vm.user_base ? d->vm.user_base : a;
  *hi = b > d->vm.user_end ? d->vm.user_end : b;
}

simtvp_status drv_vm_map_alloc(drv *d, uint64_t addr, uint64_t size, simtvp_diag *diag) {
  drv_vm *vm = &d->vm;
  if (!size) size = 1;
  uint32_t first = (uint32_t)((addr - vm->chunk_base) / BIG), last = (uint32_t)((addr + size - 1 - vm->chunk_base) / BIG);
  simtvp_status st = SIMTVP_OK;
  for (uint32_t c = first; c <= last && c < vm->n_chunks; c++) {
    if (vm->chunk_refs[c]++) continue;
    uint64_t lo, hi;
    chunk_bounds(d, c, &lo, &hi);
    st = map_range(d, vm->vas_default, lo, lo, hi - lo, MMU_APERTURE_VIDMEM, 0, false, diag);
    if (st != SIMTVP_OK) break;
  }
  if (st == SIMTVP_OK) return drv_vm_commit(d, diag);
  drv_vm_unmap_alloc(d, addr, size);
  return st;
}

void drv_vm_unmap_alloc(drv *d, uint64_t addr, uint64_t size) {
  drv_vm *vm = &d->vm;
  if (!size) size = 1;
  uint32_t first = (uint32_t)((addr - vm->chunk_base) / BIG), last = (uint32_t)((addr + size - 1 - vm->chunk_base) / BIG);
  for (uint32_t c = first; c <= last && c < vm->n_chunks; c++) {
    if (!vm->chunk_refs[c] || --vm->chunk_refs[c]) continue;
    uint64_t lo, hi;
    chunk_bounds(d, c, &lo, &hi);
    (void)clear_range(d, vm->vas_default, lo, hi - lo, 0, NULL);
  }
  (void)drv_vm_commit(d, NULL);
}

simtvp_status drv_vm_set_page(drv *d, uint64_t va, uint64_t entry, simtvp_diag *diag) {
  return set_leaf(d, d->vm.vas_default, va, 0, entry, diag);
}

/* ---- open / close ----------------------------------------------------------------------------- */

void drv_vm_layout(drv *d) {
  drv_vm *vm = &d->vm;
  uint64_t base = d->props.devmem_base, bytes = d->props.devmem_bytes, end = base + bytes;
  uint64_t pt = d->cfg.page_table_bytes;
  if (!pt) {
    pt = bytes / 64;
    if (pt < DEFAULT_PT_MIN) pt = DEFAULT_PT_MIN;
    if (pt > DEFAULT_PT_MAX) pt = DEFAULT_PT_MAX;
  }
  if (pt > bytes / 4) pt = bytes / 4;
  pt &= ~(uint64_t)(MMU_TABLE_BYTES - 1);
  uint64_t pt_base = (end - pt) & ~(uint64_t)(MMU_TABLE_BYTES - 1);
  vm->pt_base = pt_base;
  vm->pt_bytes = (end - pt_base) & ~(uint64_t)(MMU_TABLE_BYTES - 1);
  vm->user_base = base;
  vm->user_end = pt_base;
  vm->chunk_base = base & ~(BIG - 1);
}

simtvp_status drv_vm_open(drv *d, simtvp_diag *diag) {
  drv_vm *vm = &d->vm;
  uint32_t caps = drv_rd(d, GPU_REG_MMU_CAPS);
  if (GPU_FIELD_GET(GPU_MMU_CAPS_LEVELS, caps) != MMU_LEVELS || !GPU_FIELD_GET(GPU_MMU_CAPS_PAGE_2M, caps))
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                           "drv_open: the GPU's MMU (MMU_CAPS 0x%08x) is not the 4-level format with 2 MiB pages "
                           "this driver builds", caps);
  vm->n_frames = (uint32_t)(vm->pt_bytes / MMU_TABLE_BYTES);
  vm->free_frames = malloc((vm->n_frames ? vm->n_frames : 1) * sizeof *vm->free_frames);
  vm->n_chunks = (uint32_t)((vm->user_end - vm->chunk_base + BIG - 1) / BIG);
  vm->chunk_refs = calloc(vm->n_chunks ? vm->n_chunks : 1, sizeof *vm->chunk_refs);
  if (!vm->free_frames || !vm->chunk_refs) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_open: out of host memory");
  for (uint32_t i = 0; i < vm->n_frames; i++) vm->free_frames[i] = vm->n_frames - 1 - i; /* lowest first */
  vm->n_free = vm->n_frames;
  vm->heap_base = ((uint64_t)drv_rd(d, GPU_REG_HEAP_BASE_HI) << 32) | drv_rd(d, GPU_REG_HEAP_BASE_LO);
  vm->heap_bytes = ((uint64_t)drv_rd(d, GPU_REG_HEAP_SIZE_HI) << 32) | drv_rd(d, GPU_REG_HEAP_SIZE_LO);
  vm->heap_bytes = (vm->heap_bytes + SMALL - 1) & ~(SMALL - 1);
  if (vm->heap_base & (SMALL - 1)) vm->heap_bytes = 0; /* not page aligned: not mappable */
  /* The paging channel: the last one, kept for the driver whenever there are two or more (a GPU
   * of one channel shares it with the streams: unified memory cannot migrate there, since a kernel
   * waiting on a fault would hold up the copies queued behind it). */
  vm->paging = &d->ch[d->n_ch - 1];
  vm->paging_shared = d->n_ch < 2;
  simtvp_status st = vas_new(d, &vm->vas_default, diag);
  if (st == SIMTVP_OK) st = drv_vm_commit(d, diag);
  if (st != SIMTVP_OK) return st;
  for (uint32_t c = 0; c < d->n_ch; c++) bind_channel(d, &d->ch[c], vm->vas_default);
  return SIMTVP_OK;
}

void drv_vm_close(drv *d) {
  drv_vm *vm = &d->vm;
  while (vm->vases) {
    drv_vas *v = vm->vases;
    vm->vases = v->next;
    table_free(d, v->root);
    free(v);
  }
  vm->vas_default = NULL;
  free(vm->free_frames);
  free(vm->chunk_refs);
  free(vm->inval);
  vm->free_frames = NULL;
  vm->chunk_refs = NULL;
  vm->inval = NULL;
}

void drv_vm_get_stats(const drv *d, drv_vm_stats *out) { *out = d->vm.stats; }
