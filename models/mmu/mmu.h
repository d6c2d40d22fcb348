/* mmu — the GPU's memory-management unit as a model core: the page walk over the format of
 * mmu_pte.h, the permission check, and the TLB structure the timing models use.
 *
 * Functional side (values): mmu_walk reads the page-table entries of one virtual address through
 * a memory port (device memory and system memory by aperture) and returns the translation or the
 * fault, plus the physical addresses of the entries it read (what a timing model turns into
 * memory requests). It is what the functional engine's translation cache, the copy engine and the
 * program-image loader call on a miss; it never caches (callers do, and drop their caches when
 * software invalidates: gpu_abi.h MMU_INVALIDATE).
 *
 * Timing side: mmu_tlb is a set-associative, LRU translation cache of (page-directory base,
 * virtual page) → leaf entry for both page sizes, with hit/miss counters; the per-SM L1 TLBs and
 * the shared L2 TLB of the timing GPU are instances of it (mmu_xlat.h drives them). It holds no
 * time itself.
 *
 * docs/vm.md is the manual. */
#ifndef SIMTVP_MMU_H
#define SIMTVP_MMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmu_pte.h"
#include "simtvp_diag.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- page walk -------------------------------------------------------------------------------- */

/* Where the tables are: reads one 8-byte little-endian entry at a physical address of an
 * aperture (mmu_aperture). false = that memory did not answer (MMU_FAULT_TABLE_READ). */
typedef struct mmu_mem_port {
  void *ctx;
  bool (*read_entry)(void *ctx, uint32_t aperture, uint64_t addr, uint64_t *entry);
} mmu_mem_port;

/* The result of one walk. */
typedef struct mmu_translation {
  mmu_fault fault;         /* MMU_FAULT_NONE on success */
  uint64_t entry;          /* the leaf entry; on a fault the entry that caused it (0 if none) */
  uint64_t pa;             /* success: physical address of the virtual address */
  uint32_t aperture;       /* success: mmu_aperture of pa */
  uint8_t page_bits;       /* success: 12 (4 KiB) or 21 (2 MiB) */
  uint8_t level;           /* level of the leaf, or of the entry the walk stopped at */
  uint8_t n_reads;         /* entries read, root first (0..4) */
  uint64_t read_addr[MMU_LEVELS];    /* their physical addresses */
  uint8_t read_aperture[MMU_LEVELS]; /* and apertures */
} mmu_translation;

/* Walks `va` from `pdb` (mmu_pdb_make) and checks `access` against the leaf. Returns t->fault.
 * A PDB without VALID is MMU_FAULT_INVALID (callers treat such a channel as untranslated before
 * calling). Deterministic, allocation-free. */
mmu_fault mmu_walk(const mmu_mem_port *mem, uint64_t pdb, uint64_t va, mmu_access access,
                   mmu_translation *t);

/* Permission of a leaf entry for an access: NONE, PROTECTION or REPLAY_WRITE (the leaf must be
 * VALID). Lets a cache of translations re-check a write against an entry a read brought in. */
static inline mmu_fault mmu_leaf_check(uint64_t leaf, mmu_access access) {
  if (access != MMU_ACCESS_READ && (leaf & MMU_PTE_RO))
    return (leaf & MMU_PTE_REPLAY) ? MMU_FAULT_REPLAY_WRITE : MMU_FAULT_PROTECTION;
  return MMU_FAULT_NONE;
}

const char *mmu_fault_name(mmu_fault f);     /* "invalid", "protection", … */
const char *mmu_access_name(mmu_access a);   /* "read", "write", "atomic" */
const char *mmu_aperture_name(uint32_t aperture); /* "VIDMEM", "SYSMEM", "reserved" */
/* One line saying why t failed for va, naming the level, the entry's address and value
 * ("the level-0 entry at VIDMEM 0x… is 0x0 (not valid)"); returns buf. */
const char *mmu_describe_fault(const mmu_translation *t, uint64_t va, mmu_access access, char *buf,
                               size_t n);

/* ---- TLB (timing models) ----------------------------------------------------------------------- */

typedef struct mmu_tlb mmu_tlb;

typedef struct mmu_tlb_config {
  uint32_t entries;   /* 0 = no TLB (every lookup misses, fills are dropped) */
  uint32_t assoc;     /* ways per set; 0 or >= entries = fully associative; entries % assoc == 0 */
  const char *name;   /* statistics prefix ("l1_tlb": counters l1_tlb.hits …); instances with one
                         name feed one set of counters (the per-SM L1 TLBs add up). NULL or no
                         sink: counted privately (mmu_tlb_get_counters) */
  stats *stats;       /* may be NULL */
  const char *option; /* option named in configuration errors */
} mmu_tlb_config;

/* SIMTVP_ERR_CONFIG naming cfg->option for entries not a multiple of assoc. */
mmu_tlb *mmu_tlb_create(const mmu_tlb_config *cfg, simtvp_diag *diag);
void mmu_tlb_destroy(mmu_tlb *t);

typedef struct mmu_tlb_hit {
  uint64_t entry;     /* the leaf entry */
  uint8_t page_bits;  /* 12 or 21 */
} mmu_tlb_hit;

/* Looks va up under pdb; a hit becomes most recently used. Counts a hit or a miss. */
bool mmu_tlb_lookup(mmu_tlb *t, uint64_t pdb, uint64_t va, mmu_tlb_hit *out);
/* The same without counting or touching LRU state. */
bool mmu_tlb_probe(const mmu_tlb *t, uint64_t pdb, uint64_t va, mmu_tlb_hit *out);
/* Installs the translation of the page holding va (replacing the LRU way of its set; a page
 * already present is refreshed). */
void mmu_tlb_fill(mmu_tlb *t, uint64_t pdb, uint64_t va, uint8_t page_bits, uint64_t entry);
/* Drops every entry of pdb (0: of every PDB) overlapping [va, va + bytes) (bytes 0: the whole
 * address space); returns how many. */
uint32_t mmu_tlb_invalidate(mmu_tlb *t, uint64_t pdb, uint64_t va, uint64_t bytes);

typedef struct mmu_tlb_counters {
  uint64_t hits, misses, fills, evictions, invalidations;
} mmu_tlb_counters;
mmu_tlb_counters mmu_tlb_get_counters(const mmu_tlb *t);
uint32_t mmu_tlb_entries(const mmu_tlb *t);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_MMU_H */
