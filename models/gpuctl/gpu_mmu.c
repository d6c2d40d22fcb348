/* gpu_mmu — the GPU's MMU on the control side (see gpu_mmu.h). */
#include "gpu_mmu.h"

#include <stdlib.h>
#include <string.h>

typedef struct pending_page {
  uint64_t pdb, vpage;
} pending_page;

/* The SIMT side's walks, remembered (port_translate): the functional engine's translation caches
 * are per SM, and CTAs go round robin over the SMs, so every SM walks every page its CTAs touch
 * — QV100 vector add 262 144: 3 840 walks of 768 pages, 3.8 M host instructions. A walk that
 * read only device memory (no system-memory DMA to count) and succeeded is kept for its page,
 * access and address space until translations may have changed: the MMU's generation moves
 * (MMU_INVALIDATE, reset), a replay (the driver remapped faulting pages) or a kernel launch
 * (gpu_mmu_forget_walks). A remembered walk still counts in mmu.walks: the statistics are those
 * of walking every time. Filled and read from the functional engine's host threads at once
 * (-sim_threads): each entry is a sequence lock, a reader that meets a writer walks itself. */
#define WALK_MEMO_ENTRIES 1024u
#define WALK_MEMO_WORDS ((sizeof(mmu_translation) + 7) / 8)
typedef struct walk_memo {
  uint64_t seq;                 /* odd while being written */
  uint64_t pdb, key;            /* key: 4 KiB page << 2 | access */
  uint64_t generation, forgets; /* the MMU's when it was walked */
  uint64_t t[WALK_MEMO_WORDS];  /* the translation of the page's first byte */
} walk_memo;

struct gpu_mmu {
  gpu_mmu_ports ports;
  uint64_t generation;
  uint64_t forgets;   /* gpu_mmu_forget_walks and replays: a remembered walk holds the count */
  walk_memo *memo;    /* WALK_MEMO_ENTRIES */
  pending_page *pending;
  uint32_t n_pending, cap_pending;
  gpu_mmu_counters local;
  struct { uint64_t *walks, *replayable, *entries, *overflows, *replays, *cancels, *invalidates; } c;
};

static void use_local_counters(gpu_mmu *m) {
  m->c.walks = &m->local.walks;
  m->c.replayable = &m->local.replayable;
  m->c.entries = &m->local.entries;
  m->c.overflows = &m->local.overflows;
  m->c.replays = &m->local.replays;
  m->c.cancels = &m->local.cancels;
  m->c.invalidates = &m->local.invalidates;
}

gpu_mmu *gpu_mmu_create(gpu_mmu_ports ports) {
  gpu_mmu *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->ports = ports;
  m->generation = 1;
  m->memo = calloc(WALK_MEMO_ENTRIES, sizeof *m->memo);
  if (!m->memo) {
    free(m);
    return NULL;
  }
  use_local_counters(m);
  return m;
}

void gpu_mmu_destroy(gpu_mmu *m) {
  if (!m) return;
  free(m->pending);
  free(m->memo);
  free(m);
}

void gpu_mmu_reset(gpu_mmu *m) {
  m->n_pending = 0;
  m->generation++;
}

void gpu_mmu_set_simt(gpu_mmu *m, void *ctx,
                      void (*invalidate)(void *ctx, uint64_t pdb, uint64_t va, uint64_t bytes, uint64_t now),
                      void (*replay)(void *ctx, bool cancel, uint64_t now)) {
  m->ports.simt.ctx = ctx;
  m->ports.simt.invalidate = invalidate;
  m->ports.simt.replay = replay;
}

static uint32_t reg(const gpu_mmu *m, uint32_t off) { return m->ports.regs.read(m->ports.regs.ctx, off); }
static void set_reg(gpu_mmu *m, uint32_t off, uint32_t v) { m->ports.regs.write(m->ports.regs.ctx, off, v); }

uint64_t gpu_mmu_channel_pdb(const gpu_mmu *m, uint32_t channel) {
  return gpu_pdb_from_regs(reg(m, GPU_CH_REG(channel, GPU_REG_CH_PDB_LO)), reg(m, GPU_CH_REG(channel, GPU_REG_CH_PDB_HI)));
}

/* ---- translation --------------------------------------------------------------------------- */

static bool read_entry(void *ctx, uint32_t aperture, uint64_t addr, uint64_t *entry) {
  gpu_mmu *m = ctx;
  const gpu_mem_port *p = aperture == MMU_APERTURE_SYSMEM ? &m->ports.sysmem : &m->ports.devmem;
  uint8_t b[8];
  if (!p->read || !p->read(p->ctx, addr, b, 8)) return false;
  uint64_t e = 0;
  for (int i = 7; i >= 0; i--) e = (e << 8) | b[i]; /* little-endian */
  *entry = e;
  return true;
}

/* gpu_mmu_translate; *by_ats tells whether the IOMMU (not the GPU's page tables) answered. */
static mmu_fault translate(gpu_mmu *m, uint64_t pdb, uint64_t va, mmu_access access, mmu_translation *t,
                           bool *by_ats) {
  *by_ats = false;
  if (!mmu_pte_valid(pdb)) { /* untranslated channel: physical addresses */
    memset(t, 0, sizeof *t);
    t->pa = va;
    t->aperture = MMU_APERTURE_VIDMEM;
    t->page_bits = MMU_PAGE_BITS;
    t->entry = mmu_pte_make(va & ~(MMU_PAGE_BYTES - 1), MMU_APERTURE_VIDMEM, 0);
    return MMU_FAULT_NONE;
  }
  mmu_mem_port port = {m, read_entry};
  /* the functional engine's per-SM translation caches fill from several host threads under
   * -sim_threads: the count is the same, only the increments must not be lost */
  __atomic_fetch_add(m->c.walks, 1, __ATOMIC_RELAXED);
  mmu_fault f = mmu_walk(&port, pdb, va, access, t);
  if (f == MMU_FAULT_INVALID && m->ports.ats.translate) {
    /* Not the GPU's page: the system IOMMU translates it with the host's page tables (ATS). A
     * page the host has not mapped stays an invalid-entry fault; a write to a page the host maps
     * read-only is a protection fault. */
    uint64_t bus = 0;
    bool writable = false;
    uint32_t r = m->ports.ats.translate(m->ports.ats.ctx, va, access != MMU_ACCESS_READ, &bus, &writable);
    if (r == 0 || r == 2) {
      t->entry = mmu_pte_make(bus & ~(uint64_t)(MMU_PAGE_BYTES - 1), MMU_APERTURE_SYSMEM, writable ? 0 : MMU_PTE_RO);
      t->level = 0;
      if (r == 2) {
        t->fault = MMU_FAULT_PROTECTION;
        return t->fault;
      }
      t->fault = MMU_FAULT_NONE;
      t->pa = bus;
      t->aperture = MMU_APERTURE_SYSMEM;
      t->page_bits = MMU_PAGE_BITS;
      *by_ats = true;
      return MMU_FAULT_NONE;
    }
  }
  return f;
}

mmu_fault gpu_mmu_translate(gpu_mmu *m, uint64_t pdb, uint64_t va, mmu_access access, mmu_translation *t) {
  bool by_ats;
  return translate(m, pdb, va, access, t, &by_ats);
}

void gpu_mmu_forget_walks(gpu_mmu *m) { __atomic_fetch_add(&m->forgets, 1, __ATOMIC_RELAXED); }


static walk_memo *memo_entry(const gpu_mmu *m, uint64_t pdb, uint64_t key) {
  uint64_t h = (key ^ (key >> 12) ^ (pdb >> 12)) * 0x9E3779B97F4A7C15ull;
  return &m->memo[h >> 54]; /* the top 10 bits: WALK_MEMO_ENTRIES */
}

static bool memo_get(walk_memo *e, uint64_t pdb, uint64_t key, uint64_t gen, uint64_t forgets, mmu_translation *t) {
  uint64_t s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
  if (s & 1u || __atomic_load_n(&e->key, __ATOMIC_RELAXED) != key ||
      __atomic_load_n(&e->pdb, __ATOMIC_RELAXED) != pdb ||
      __atomic_load_n(&e->generation, __ATOMIC_RELAXED) != gen ||
      __atomic_load_n(&e->forgets, __ATOMIC_RELAXED) != forgets)
    return false;
  uint64_t w[WALK_MEMO_WORDS];
  for (size_t i = 0; i < WALK_MEMO_WORDS; i++) w[i] = __atomic_load_n(&e->t[i], __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != s) return false;
  memcpy(t, w, sizeof *t);
  return true;
}

static void memo_put(walk_memo *e, uint64_t pdb, uint64_t key, uint64_t gen, uint64_t forgets,
                     const mmu_translation *t) {
  uint64_t s = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
  if (s & 1u || !__atomic_compare_exchange_n(&e->seq, &s, s + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    return; /* another thread writes it */
  __atomic_thread_fence(__ATOMIC_RELEASE);
  uint64_t w[WALK_MEMO_WORDS] = {0};
  memcpy(w, t, sizeof *t);
  __atomic_store_n(&e->pdb, pdb, __ATOMIC_RELAXED);
  __atomic_store_n(&e->key, key, __ATOMIC_RELAXED);
  __atomic_store_n(&e->generation, gen, __ATOMIC_RELAXED);
  __atomic_store_n(&e->forgets, forgets, __ATOMIC_RELAXED);
  for (size_t i = 0; i < WALK_MEMO_WORDS; i++) __atomic_store_n(&e->t[i], w[i], __ATOMIC_RELAXED);
  __atomic_store_n(&e->seq, s + 2, __ATOMIC_RELEASE);
}

/* The SIMT side's walks go through the memo (walk_memo above). */
static mmu_fault memo_translate(gpu_mmu *m, uint64_t pdb, uint64_t va, mmu_access access, mmu_translation *t) {
  if (!mmu_pte_valid(pdb)) return gpu_mmu_translate(m, pdb, va, access, t);
  const uint64_t off = va & (MMU_PAGE_BYTES - 1), key = (va >> MMU_PAGE_BITS) << 2 | (uint64_t)access;
  const uint64_t gen = __atomic_load_n(&m->generation, __ATOMIC_RELAXED);
  const uint64_t forgets = __atomic_load_n(&m->forgets, __ATOMIC_RELAXED);
  walk_memo *e = memo_entry(m, pdb, key);
  if (memo_get(e, pdb, key, gen, forgets, t)) {
    __atomic_fetch_add(m->c.walks, 1, __ATOMIC_RELAXED);
    t->pa += off;
    return MMU_FAULT_NONE;
  }
  bool by_ats;
  mmu_fault f = translate(m, pdb, va, access, t, &by_ats);
  if (f != MMU_FAULT_NONE || by_ats) return f;
  for (uint32_t i = 0; i < t->n_reads && i < MMU_LEVELS; i++)
    if (t->read_aperture[i] != MMU_APERTURE_VIDMEM) return f; /* its reads were DMA */
  mmu_translation first = *t;
  first.pa -= off;
  memo_put(e, pdb, key, gen, forgets, &first);
  return f;
}

/* One access split at 4 KiB boundaries; each piece translated and done in its memory. */
static bool access_va(gpu_mmu *m, uint64_t pdb, uint64_t va, uint8_t *buf, uint64_t len, bool write,
                      uint32_t *fault) {
  if (fault) *fault = MMU_FAULT_NONE;
  while (len) {
    uint64_t n = MMU_PAGE_BYTES - (va & (MMU_PAGE_BYTES - 1));
    if (n > len) n = len;
    mmu_translation t;
    mmu_fault f = gpu_mmu_translate(m, pdb, va, write ? MMU_ACCESS_WRITE : MMU_ACCESS_READ, &t);
    if (f != MMU_FAULT_NONE) {
      if (fault) *fault = (uint32_t)f;
      return false;
    }
    const gpu_mem_port *p = t.aperture == MMU_APERTURE_SYSMEM ? &m->ports.sysmem : &m->ports.devmem;
    bool ok = write ? p->write(p->ctx, t.pa, buf, n) : p->read(p->ctx, t.pa, buf, n);
    if (!ok) return false;
    va += n;
    buf += n;
    len -= n;
  }
  return true;
}

bool gpu_mmu_read(gpu_mmu *m, uint64_t pdb, uint64_t va, void *dst, uint64_t len, uint32_t *fault) {
  if (!mmu_pte_valid(pdb)) { /* physical: one access, as before virtual memory */
    if (fault) *fault = MMU_FAULT_NONE;
    return m->ports.devmem.read(m->ports.devmem.ctx, va, dst, len);
  }
  return access_va(m, pdb, va, dst, len, false, fault);
}

bool gpu_mmu_write(gpu_mmu *m, uint64_t pdb, uint64_t va, const void *src, uint64_t len, uint32_t *fault) {
  if (!mmu_pte_valid(pdb)) {
    if (fault) *fault = MMU_FAULT_NONE;
    return m->ports.devmem.write(m->ports.devmem.ctx, va, src, len);
  }
  return access_va(m, pdb, va, (uint8_t *)(uintptr_t)src, len, true, fault);
}

static bool vmem_read(void *ctx, uint64_t pdb, uint64_t va, void *dst, uint64_t len, uint32_t *fault) {
  return gpu_mmu_read(ctx, pdb, va, dst, len, fault);
}
static bool vmem_write(void *ctx, uint64_t pdb, uint64_t va, const void *src, uint64_t len, uint32_t *fault) {
  return gpu_mmu_write(ctx, pdb, va, src, len, fault);
}

gpu_vmem_port gpu_mmu_vmem_port(gpu_mmu *m) {
  gpu_vmem_port p = {m, vmem_read, vmem_write};
  return p;
}

/* ---- the SIMT side's port ------------------------------------------------------------------ */

static mmu_fault port_translate(void *ctx, uint64_t pdb, uint64_t va, mmu_access access, mmu_translation *t) {
  return memo_translate(ctx, pdb, va, access, t);
}

static uint8_t *port_host_page(void *ctx, uint32_t aperture, uint64_t pa) {
  gpu_mmu *m = ctx;
  uint8_t *(*f)(void *, uint64_t) = aperture == MMU_APERTURE_SYSMEM ? m->ports.host_page.sysmem
                                                                     : m->ports.host_page.vidmem;
  return f ? f(m->ports.host_page.ctx, pa & ~(MMU_PAGE_BYTES - 1)) : NULL;
}

static bool port_fault_buffer(void *ctx) {
  uint32_t entries = reg(ctx, GPU_REG_FAULT_BUF_ENTRIES);
  return entries != 0 && entries <= GPU_FAULT_BUF_MAX_ENTRIES;
}

static bool port_fault(void *ctx, uint64_t pdb, const gpu_mmu_fault_info *f, uint64_t now) {
  return gpu_mmu_record_fault(ctx, pdb, f, now);
}

static void port_translated(void *ctx, uint64_t va, uint32_t aperture, uint64_t pa) {
  gpu_mmu *m = ctx;
  if (m->ports.host_page.translated) m->ports.host_page.translated(m->ports.host_page.ctx, va, aperture, pa);
}

gpu_mmu_port gpu_mmu_simt_port(gpu_mmu *m) {
  gpu_mmu_port p = {m, port_translate, port_host_page, &m->generation, port_fault, port_fault_buffer,
                    m->ports.host_page.translated ? port_translated : NULL};
  return p;
}

/* ---- faults -------------------------------------------------------------------------------- */

static bool is_pending(const gpu_mmu *m, uint64_t pdb, uint64_t vpage) {
  for (uint32_t i = 0; i < m->n_pending; i++)
    if (m->pending[i].vpage == vpage && m->pending[i].pdb == pdb) return true;
  return false;
}

bool gpu_mmu_record_fault(gpu_mmu *m, uint64_t pdb, const gpu_mmu_fault_info *f, uint64_t now) {
  uint32_t entries = reg(m, GPU_REG_FAULT_BUF_ENTRIES);
  if (entries == 0 || entries > GPU_FAULT_BUF_MAX_ENTRIES) return false; /* no buffer: fatal */
  ++*m->c.replayable;
  uint64_t vpage = f->va >> MMU_PAGE_BITS;
  if (is_pending(m, pdb, vpage)) return true;
  if (m->n_pending == m->cap_pending) {
    uint32_t cap = m->cap_pending ? 2 * m->cap_pending : 64;
    pending_page *p = realloc(m->pending, cap * sizeof *p);
    if (!p) return false;
    m->pending = p;
    m->cap_pending = cap;
  }
  m->pending[m->n_pending++] = (pending_page){pdb, vpage};
  set_reg(m, GPU_REG_FAULT_PENDING, m->n_pending);
  uint32_t put = reg(m, GPU_REG_FAULT_BUF_PUT), get = reg(m, GPU_REG_FAULT_BUF_GET);
  if (put >= entries) put = 0;
  if ((put + 1) % entries == get % entries) {
    ++*m->c.overflows;
    set_reg(m, GPU_REG_FAULT_STATUS, reg(m, GPU_REG_FAULT_STATUS) | GPU_FIELD_MASK(GPU_FAULT_STATUS_OVERFLOW));
  } else {
    gpu_fault_entry e;
    memset(&e, 0, sizeof e);
    e.va = f->va;
    e.timestamp_ns = m->ports.timer.ns ? m->ports.timer.ns(m->ports.timer.ctx, now) : 0;
    e.channel = f->channel;
    e.grid_id = f->grid_id;
    e.sm = (uint16_t)f->sm;
    e.access = f->access;
    e.kind = f->kind;
    e.valid = 1;
    uint64_t base = gpu_pdb_from_regs(reg(m, GPU_REG_FAULT_BUF_BASE_LO), reg(m, GPU_REG_FAULT_BUF_BASE_HI));
    if (!m->ports.sysmem.write(m->ports.sysmem.ctx, base + (uint64_t)put * GPU_FAULT_ENTRY_BYTES, &e, sizeof e)) {
      ++*m->c.overflows; /* the buffer is not there: counted as lost, the access still waits */
      set_reg(m, GPU_REG_FAULT_STATUS, reg(m, GPU_REG_FAULT_STATUS) | GPU_FIELD_MASK(GPU_FAULT_STATUS_OVERFLOW));
    } else {
      ++*m->c.entries;
      set_reg(m, GPU_REG_FAULT_BUF_PUT, (put + 1) % entries);
    }
  }
  m->ports.regs.raise(m->ports.regs.ctx, GPU_FIELD_MASK(GPU_INTR_STATUS_MMU_FAULT));
  return true;
}

uint32_t gpu_mmu_pending(const gpu_mmu *m) { return m->n_pending; }

/* ---- registers ------------------------------------------------------------------------------ */

void gpu_mmu_reg_written(gpu_mmu *m, uint32_t offset, uint32_t value, uint64_t now) {
  if (offset == GPU_REG_MMU_INVALIDATE && (value & GPU_FIELD_MASK(GPU_MMU_INVALIDATE_TRIGGER))) {
    uint64_t pdb = gpu_pdb_from_regs(reg(m, GPU_REG_MMU_INVAL_PDB_LO), reg(m, GPU_REG_MMU_INVAL_PDB_HI));
    uint64_t va = gpu_pdb_from_regs(reg(m, GPU_REG_MMU_INVAL_VA_LO), reg(m, GPU_REG_MMU_INVAL_VA_HI));
    uint64_t bytes = (uint64_t)reg(m, GPU_REG_MMU_INVAL_PAGES) << MMU_PAGE_BITS;
    m->generation++;
    ++*m->c.invalidates;
    if (m->ports.simt.invalidate) m->ports.simt.invalidate(m->ports.simt.ctx, pdb, bytes ? va : 0, bytes, now);
  } else if (offset == GPU_REG_MMU_REPLAY && (value & (GPU_FIELD_MASK(GPU_MMU_REPLAY_REPLAY) |
                                                      GPU_FIELD_MASK(GPU_MMU_REPLAY_CANCEL)))) {
    bool cancel = (value & GPU_FIELD_MASK(GPU_MMU_REPLAY_CANCEL)) != 0;
    m->n_pending = 0;
    set_reg(m, GPU_REG_FAULT_PENDING, 0);
    if (cancel) ++*m->c.cancels;
    else ++*m->c.replays;
    gpu_mmu_forget_walks(m); /* the driver remapped the faulting pages */
    if (m->ports.simt.replay) m->ports.simt.replay(m->ports.simt.ctx, cancel, now);
  }
}

gpu_mmu_counters gpu_mmu_get_counters(const gpu_mmu *m) {
  gpu_mmu_counters c = {*m->c.walks, *m->c.replayable, *m->c.entries, *m->c.overflows,
                        *m->c.replays, *m->c.cancels, *m->c.invalidates};
  return c;
}

void gpu_mmu_register_stats(gpu_mmu *m, stats *st) {
  if (!st) return;
  m->c.walks = stats_counter(st, "mmu.walks", "walks", "page walks of the control side and the functional translation caches");
  m->c.replayable = stats_counter(st, "mmu.replayable_faults", "faults",
                                  "accesses that waited on a replayable fault (every warp instruction and page)");
  m->c.entries = stats_counter(st, "mmu.fault_entries", "entries",
                               "fault-buffer entries written (distinct pages per replay)");
  m->c.overflows = stats_counter(st, "mmu.fault_overflows", "faults", "replayable faults that found the fault buffer full");
  m->c.replays = stats_counter(st, "mmu.replays", "replays", "MMU_REPLAY writes that retried waiting accesses");
  m->c.cancels = stats_counter(st, "mmu.cancels", "replays", "MMU_REPLAY writes that cancelled waiting accesses");
  m->c.invalidates = stats_counter(st, "mmu.invalidates", "writes", "MMU_INVALIDATE writes");
}
