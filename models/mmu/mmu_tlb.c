/* mmu_tlb — set-associative LRU TLB (see mmu.h).
 *
 * Both page sizes share the ways: an entry's set is its virtual page number (of its own size)
 * modulo the number of sets, so a lookup probes two sets (4 KiB, then 2 MiB). Replacement is
 * true LRU by a use stamp (deterministic). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmu.h"

typedef struct tlb_entry {
  uint64_t pdb;
  uint64_t vpn;      /* va >> page_bits */
  uint64_t entry;
  uint64_t stamp;    /* last use; 0 = empty */
  uint8_t page_bits;
} tlb_entry;

struct mmu_tlb {
  uint32_t entries, assoc, sets;
  tlb_entry *e;
  uint64_t clock;
  mmu_tlb_counters local;
  uint64_t *c_hits, *c_misses, *c_fills, *c_evictions, *c_invalidations;
};

mmu_tlb *mmu_tlb_create(const mmu_tlb_config *cfg, simtvp_diag *diag) {
  uint32_t assoc = cfg->assoc == 0 || cfg->assoc > cfg->entries ? cfg->entries : cfg->assoc;
  if (cfg->entries && cfg->entries % assoc) {
    simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, cfg->option ? cfg->option : "tlb",
                             "%u entries are not a multiple of the associativity %u", cfg->entries, cfg->assoc);
    return NULL;
  }
  mmu_tlb *t = calloc(1, sizeof *t);
  if (!t) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory for a TLB");
    return NULL;
  }
  t->entries = cfg->entries;
  t->assoc = assoc;
  t->sets = cfg->entries ? cfg->entries / assoc : 0;
  if (cfg->entries && !(t->e = calloc(cfg->entries, sizeof *t->e))) {
    free(t);
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory for a TLB");
    return NULL;
  }
  t->c_hits = &t->local.hits;
  t->c_misses = &t->local.misses;
  t->c_fills = &t->local.fills;
  t->c_evictions = &t->local.evictions;
  t->c_invalidations = &t->local.invalidations;
  if (cfg->stats && cfg->name) {
    char n[160];
#define REG(field, what, unit, desc)                                                               \
  snprintf(n, sizeof n, "%s.%s", cfg->name, what);                                                 \
  t->field = stats_counter(cfg->stats, n, unit, desc);
    REG(c_hits, "hits", "lookups", "TLB lookups that found the translation")
    REG(c_misses, "misses", "lookups", "TLB lookups that did not find the translation")
    REG(c_fills, "fills", "entries", "translations installed")
    REG(c_evictions, "evictions", "entries", "valid translations replaced by a fill")
    REG(c_invalidations, "invalidations", "entries", "translations dropped by software invalidation")
#undef REG
  }
  return t;
}

void mmu_tlb_destroy(mmu_tlb *t) {
  if (!t) return;
  free(t->e);
  free(t);
}

static tlb_entry *find(const mmu_tlb *t, uint64_t pdb, uint64_t va) {
  static const uint8_t sizes[2] = {MMU_PAGE_BITS, MMU_BIG_PAGE_BITS};
  for (int s = 0; s < 2; s++) {
    uint64_t vpn = va >> sizes[s];
    tlb_entry *set = &t->e[(vpn % t->sets) * t->assoc];
    for (uint32_t w = 0; w < t->assoc; w++)
      if (set[w].stamp && set[w].vpn == vpn && set[w].page_bits == sizes[s] && set[w].pdb == pdb) return &set[w];
  }
  return NULL;
}

bool mmu_tlb_probe(const mmu_tlb *t, uint64_t pdb, uint64_t va, mmu_tlb_hit *out) {
  if (!t->entries) return false;
  const tlb_entry *e = find(t, pdb, va);
  if (!e) return false;
  if (out) {
    out->entry = e->entry;
    out->page_bits = e->page_bits;
  }
  return true;
}

bool mmu_tlb_lookup(mmu_tlb *t, uint64_t pdb, uint64_t va, mmu_tlb_hit *out) {
  tlb_entry *e = t->entries ? find(t, pdb, va) : NULL;
  if (!e) {
    ++*t->c_misses;
    return false;
  }
  ++*t->c_hits;
  e->stamp = ++t->clock;
  if (out) {
    out->entry = e->entry;
    out->page_bits = e->page_bits;
  }
  return true;
}

void mmu_tlb_fill(mmu_tlb *t, uint64_t pdb, uint64_t va, uint8_t page_bits, uint64_t entry) {
  if (!t->entries) return;
  uint64_t vpn = va >> page_bits;
  tlb_entry *set = &t->e[(vpn % t->sets) * t->assoc], *victim = &set[0];
  for (uint32_t w = 0; w < t->assoc; w++) {
    tlb_entry *e = &set[w];
    if (e->stamp && e->vpn == vpn && e->page_bits == page_bits && e->pdb == pdb) {
      victim = e; /* refresh */
      goto install;
    }
    if (e->stamp < victim->stamp) victim = e; /* empty ways (stamp 0) first, then LRU */
  }
  if (victim->stamp) ++*t->c_evictions;
install:
  ++*t->c_fills;
  victim->pdb = pdb;
  victim->vpn = vpn;
  victim->entry = entry;
  victim->page_bits = page_bits;
  victim->stamp = ++t->clock;
}

uint32_t mmu_tlb_invalidate(mmu_tlb *t, uint64_t pdb, uint64_t va, uint64_t bytes) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < t->entries; i++) {
    tlb_entry *e = &t->e[i];
    if (!e->stamp || (pdb && e->pdb != pdb)) continue;
    if (bytes) {
      uint64_t lo = e->vpn << e->page_bits, hi = lo + (1ull << e->page_bits);
      if (hi <= va || lo >= va + bytes) continue;
    }
    e->stamp = 0;
    n++;
  }
  *t->c_invalidations += n;
  return n;
}

mmu_tlb_counters mmu_tlb_get_counters(const mmu_tlb *t) {
  mmu_tlb_counters c = {*t->c_hits, *t->c_misses, *t->c_fills, *t->c_evictions, *t->c_invalidations};
  return c;
}

uint32_t mmu_tlb_entries(const mmu_tlb *t) { return t->entries; }
