/* iommu — the system IOMMU (iommu.h). */
#include "iommu.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define ENTRIES 512u
#define LEVELS 4u
#define PRESENT 1ull
#define WRITABLE 2ull

/* A table: 512 entries; an inner entry points at the next table, a leaf holds bus | flags. */
typedef struct io_table {
  uint64_t e[ENTRIES];
  struct io_table *next[ENTRIES];
} io_table;

typedef struct iotlb_entry {
  uint64_t vpage, leaf, used;
  bool valid;
} iotlb_entry;

struct iommu {
  iommu_config cfg;
  io_table *root;
  iotlb_entry *tlb;
  uint64_t clock;
  iommu_stats local;
  uint64_t *hits, *misses, *walks, *walk_ps, *requests, *faults, *mapped;
};

const char *iommu_fault_name(iommu_fault f) {
  static const char *const n[] = {"ok", "not present", "read-only", "out of range"};
  return (unsigned)f < 4 ? n[f] : "?";
}

static simtvp_status config_error(simtvp_diag *diag, const char *option, const char *what) {
  simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "%s: %s", option, what);
  simtvp_diag_at_option(diag, option);
  return SIMTVP_ERR_CONFIG;
}

simtvp_status iommu_create(const iommu_config *cfg, iommu **out, simtvp_diag *diag) {
  *out = NULL;
  if (!cfg->tlb_sets || cfg->tlb_sets > (1u << 20)) return config_error(diag, "-iommu_tlb_sets", "from 1 to 1048576 sets");
  if (!cfg->tlb_ways || cfg->tlb_ways > 64) return config_error(diag, "-iommu_tlb_ways", "from 1 to 64 ways");
  iommu *io = calloc(1, sizeof *io);
  if (!io) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "iommu: out of host memory");
  io->root = calloc(1, sizeof *io->root);
  io->tlb = calloc((size_t)cfg->tlb_sets * cfg->tlb_ways, sizeof *io->tlb);
  if (!io->root || !io->tlb) {
    free(io->root);
    free(io->tlb);
    free(io);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "iommu: out of host memory");
  }
  io->cfg = *cfg;
  uint64_t **c[] = {&io->hits, &io->misses, &io->walks, &io->walk_ps, &io->requests, &io->faults, &io->mapped};
  uint64_t *l[] = {&io->local.iotlb_hits, &io->local.iotlb_misses, &io->local.walks, &io->local.walk_ps,
                   &io->local.page_requests, &io->local.faults, &io->local.pages_mapped};
  static const char *const names[] = {"iommu.iotlb_hits", "iommu.iotlb_misses", "iommu.walks", "iommu.walk_ps",
                                      "iommu.page_requests", "iommu.faults", "iommu.pages_mapped"};
  static const char *const units[] = {"translations", "translations", "walks", "ps", "pages", "accesses", "pages"};
  static const char *const what[] = {
      "timed translations the IOTLB answered",
      "timed translations that missed the IOTLB (each walks the host's page tables)",
      "walks of the host's page tables by the timed translation",
      "time the timed translation spent walking (one read per level)",
      "page requests to the OS (a GPU access to a host page the IOMMU had not mapped yet)",
      "accesses the IOMMU refused (no host mapping, or a write to a read-only page)",
      "host pages the OS mapped into the IOMMU"};
  for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++)
    *c[i] = cfg->stats ? stats_counter(cfg->stats, names[i], units[i], what[i]) : l[i];
  *out = io;
  return SIMTVP_OK;
}

static void free_table(io_table *t, unsigned level) {
  if (!t) return;
  if (level > 0)
    for (unsigned i = 0; i < ENTRIES; i++) free_table(t->next[i], level - 1);
  free(t);
}

void iommu_destroy(iommu *io) {
  if (!io) return;
  free_table(io->root, LEVELS - 1);
  free(io->tlb);
  free(io);
}

static unsigned index_at(uint64_t va, unsigned level) { return (unsigned)(va >> (IOMMU_PAGE_BITS + 9 * level)) & (ENTRIES - 1); }

simtvp_status iommu_map(iommu *io, uint64_t va, uint64_t bus, bool writable) {
  if (va >> IOMMU_VA_BITS) return SIMTVP_ERR_ARG;
  io_table *t = io->root;
  for (unsigned level = LEVELS - 1; level > 0; level--) {
    unsigned i = index_at(va, level);
    if (!t->next[i]) {
      t->next[i] = calloc(1, sizeof *t->next[i]);
      if (!t->next[i]) return SIMTVP_ERR_NOMEM;
      t->e[i] = PRESENT;
    }
    t = t->next[i];
  }
  unsigned i = index_at(va, 0);
  if (!(t->e[i] & PRESENT)) ++*io->mapped;
  t->e[i] = (bus & ~((1ull << IOMMU_PAGE_BITS) - 1)) | PRESENT | (writable ? WRITABLE : 0);
  return SIMTVP_OK;
}

void iommu_clear(iommu *io) {
  for (unsigned i = 0; i < ENTRIES; i++) {
    free_table(io->root->next[i], LEVELS - 2);
    io->root->next[i] = NULL;
    io->root->e[i] = 0;
  }
  *io->mapped = 0;
  memset(io->tlb, 0, (size_t)io->cfg.tlb_sets * io->cfg.tlb_ways * sizeof *io->tlb);
}

static uint64_t *leaf_of(const iommu *io, uint64_t va) {
  io_table *t = io->root;
  for (unsigned level = LEVELS - 1; level > 0; level--) {
    t = t->next[index_at(va, level)];
    if (!t) return NULL;
  }
  return &t->e[index_at(va, 0)];
}

void iommu_unmap(iommu *io, uint64_t va, uint64_t bytes) {
  if (!bytes) return;
  const uint64_t first = va >> IOMMU_PAGE_BITS, last = (va + bytes - 1) >> IOMMU_PAGE_BITS;
  for (uint64_t p = first; p <= last && !(p >> (IOMMU_VA_BITS - IOMMU_PAGE_BITS)); p++) {
    uint64_t *e = leaf_of(io, p << IOMMU_PAGE_BITS);
    if (e && (*e & PRESENT)) {
      *e = 0;
      --*io->mapped;
    }
  }
  const size_t n = (size_t)io->cfg.tlb_sets * io->cfg.tlb_ways;
  for (size_t k = 0; k < n; k++)
    if (io->tlb[k].valid && io->tlb[k].vpage >= first && io->tlb[k].vpage <= last) io->tlb[k].valid = false;
}

static iommu_fault check(uint64_t leaf, bool write, uint64_t va, uint64_t *bus) {
  if (!(leaf & PRESENT)) return IOMMU_NOT_PRESENT;
  if (write && !(leaf & WRITABLE)) return IOMMU_READ_ONLY;
  *bus = (leaf & ~((1ull << IOMMU_PAGE_BITS) - 1)) | (va & ((1ull << IOMMU_PAGE_BITS) - 1));
  return IOMMU_OK;
}

iommu_fault iommu_lookup(const iommu *io, uint64_t va, bool write, uint64_t *bus) {
  if (va >> IOMMU_VA_BITS) return IOMMU_OUT_OF_RANGE;
  const uint64_t *e = leaf_of(io, va);
  return check(e ? *e : 0, write, va, bus);
}

iommu_fault iommu_resolve(iommu *io, uint64_t va, bool write, uint64_t *bus) {
  if (va >> IOMMU_VA_BITS) {
    ++*io->faults;
    return IOMMU_OUT_OF_RANGE;
  }
  uint64_t *e = leaf_of(io, va);
  iommu_fault f = check(e ? *e : 0, write, va, bus);
  if (f == IOMMU_OK) return f;
  if (io->cfg.port.page_request) {
    ++*io->requests;
    if (io->cfg.port.page_request(io->cfg.port.ctx, io, va, write)) {
      e = leaf_of(io, va);
      f = check(e ? *e : 0, write, va, bus);
    }
  }
  if (f != IOMMU_OK) ++*io->faults;
  return f;
}

iommu_fault iommu_translate(iommu *io, uint64_t va, bool write, uint64_t now_ps, uint64_t *bus, uint64_t *done_ps) {
  *done_ps = now_ps + io->cfg.tlb_hit_ps;
  if (va >> IOMMU_VA_BITS) {
    ++*io->faults;
    return IOMMU_OUT_OF_RANGE;
  }
  const uint64_t vpage = va >> IOMMU_PAGE_BITS;
  iotlb_entry *set = io->tlb + (size_t)(vpage % io->cfg.tlb_sets) * io->cfg.tlb_ways, *victim = &set[0];
  for (uint32_t w = 0; w < io->cfg.tlb_ways; w++)
    if (set[w].valid && set[w].vpage == vpage) {
      ++*io->hits;
      set[w].used = ++io->clock;
      iommu_fault f = check(set[w].leaf, write, va, bus);
      if (f != IOMMU_OK) ++*io->faults;
      return f;
    }
  ++*io->misses;
  ++*io->walks;
  const uint64_t walk = LEVELS * io->cfg.walk_level_ps;
  *io->walk_ps += walk;
  *done_ps += walk;
  uint64_t *e = leaf_of(io, va);
  iommu_fault f = check(e ? *e : 0, write, va, bus);
  if (f == IOMMU_NOT_PRESENT) {
    ++*io->faults;
    return f;
  }
  for (uint32_t w = 0; w < io->cfg.tlb_ways; w++) {
    if (!set[w].valid) {
      victim = &set[w];
      break;
    }
    if (set[w].used < victim->used) victim = &set[w];
  }
  victim->valid = true;
  victim->vpage = vpage;
  victim->leaf = *e;
  victim->used = ++io->clock;
  if (f != IOMMU_OK) ++*io->faults;
  return f;
}

void iommu_get_stats(const iommu *io, iommu_stats *o) {
  o->iotlb_hits = *io->hits;
  o->iotlb_misses = *io->misses;
  o->walks = *io->walks;
  o->walk_ps = *io->walk_ps;
  o->page_requests = *io->requests;
  o->faults = *io->faults;
  o->pages_mapped = *io->mapped;
}
