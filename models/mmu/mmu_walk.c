/* mmu_walk — the page walk over the format of mmu_pte.h (see mmu.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mmu.h"

static mmu_fault stop(mmu_translation *t, mmu_fault f, uint64_t entry, uint32_t level) {
  t->fault = f;
  t->entry = entry;
  t->level = (uint8_t)level;
  return f;
}

/* Reserved encodings of an entry at `level`: reserved bits, a reserved aperture (VALID entries
 * only: a not-present entry's other bits are the driver's), PS outside level 1. */
static bool malformed(uint64_t e, uint32_t level) {
  if (!mmu_pte_valid(e)) return false;
  if (e & MMU_PTE_RESERVED_MASK) return true;
  if (mmu_pte_aperture(e) >= MMU_APERTURE_COUNT) return true;
  if ((e & MMU_PTE_PS) && level != 1) return true;
  if ((e & MMU_PTE_PS) && (mmu_pte_addr(e) & (MMU_BIG_PAGE_BYTES - 1))) return true;
  return false;
}

mmu_fault mmu_walk(const mmu_mem_port *mem, uint64_t pdb, uint64_t va, mmu_access access,
                   mmu_translation *t) {
  memset(t, 0, sizeof *t);
  t->level = MMU_LEVELS;
  if (va >> MMU_VA_BITS) return stop(t, MMU_FAULT_RANGE, 0, MMU_LEVELS);
  if (!mmu_pte_valid(pdb)) return stop(t, MMU_FAULT_INVALID, pdb, MMU_LEVELS);
  if (malformed(pdb, MMU_LEVELS) || (pdb & (MMU_PTE_PS | MMU_PTE_RO | MMU_PTE_VOL)))
    return stop(t, MMU_FAULT_MALFORMED, pdb, MMU_LEVELS);
  uint64_t table = mmu_pte_addr(pdb);
  uint32_t aperture = mmu_pte_aperture(pdb);
  for (int level = (int)MMU_LEVELS - 1; level >= 0; level--) {
    uint64_t addr = table + 8u * mmu_va_index(va, (uint32_t)level), e = 0;
    t->read_addr[t->n_reads] = addr;
    t->read_aperture[t->n_reads] = (uint8_t)aperture;
    t->n_reads++;
    if (!mem->read_entry(mem->ctx, aperture, addr, &e)) return stop(t, MMU_FAULT_TABLE_READ, 0, (uint32_t)level);
    if (!mmu_pte_valid(e))
      return stop(t, (e & MMU_PTE_REPLAY) ? MMU_FAULT_REPLAY_ABSENT : MMU_FAULT_INVALID, e, (uint32_t)level);
    if (malformed(e, (uint32_t)level)) return stop(t, MMU_FAULT_MALFORMED, e, (uint32_t)level);
    bool leaf = level == 0 || (e & MMU_PTE_PS);
    if (!leaf) {
      table = mmu_pte_addr(e);
      aperture = mmu_pte_aperture(e);
      continue;
    }
    uint32_t bits = level == 0 ? MMU_PAGE_BITS : MMU_BIG_PAGE_BITS;
    mmu_fault f = mmu_leaf_check(e, access);
    if (f != MMU_FAULT_NONE) return stop(t, f, e, (uint32_t)level);
    t->fault = MMU_FAULT_NONE;
    t->entry = e;
    t->level = (uint8_t)level;
    t->page_bits = (uint8_t)bits;
    t->aperture = mmu_pte_aperture(e);
    t->pa = mmu_pte_addr(e) + (va & ((1ull << bits) - 1));
    return MMU_FAULT_NONE;
  }
  return stop(t, MMU_FAULT_MALFORMED, 0, 0); /* not reached: level 0 is always a leaf */
}

const char *mmu_fault_name(mmu_fault f) {
  switch (f) {
  case MMU_FAULT_NONE: return "none";
  case MMU_FAULT_INVALID: return "invalid";
  case MMU_FAULT_PROTECTION: return "protection";
  case MMU_FAULT_REPLAY_ABSENT: return "replayable-absent";
  case MMU_FAULT_REPLAY_WRITE: return "replayable-write";
  case MMU_FAULT_MALFORMED: return "malformed";
  case MMU_FAULT_RANGE: return "range";
  case MMU_FAULT_TABLE_READ: return "table-read";
  default: return "?";
  }
}

const char *mmu_access_name(mmu_access a) {
  switch (a) {
  case MMU_ACCESS_READ: return "read";
  case MMU_ACCESS_WRITE: return "write";
  case MMU_ACCESS_ATOMIC: return "atomic";
  default: return "?";
  }
}

const char *mmu_aperture_name(uint32_t aperture) {
  switch (aperture) {
  case MMU_APERTURE_VIDMEM: return "VIDMEM";
  case MMU_APERTURE_SYSMEM: return "SYSMEM";
  default: return "reserved";
  }
}

const char *mmu_describe_fault(const mmu_translation *t, uint64_t va, mmu_access access, char *buf,
                               size_t n) {
  uint32_t i = t->n_reads ? t->n_reads - 1u : 0u;
  char where[96] = "the page-directory base";
  if (t->level < MMU_LEVELS && t->n_reads)
    snprintf(where, sizeof where, "the level-%u entry at %s 0x%" PRIx64, t->level,
             mmu_aperture_name(t->read_aperture[i]), t->read_addr[i]);
  switch (t->fault) {
  case MMU_FAULT_NONE:
    snprintf(buf, n, "0x%" PRIx64 " translates to %s 0x%" PRIx64, va, mmu_aperture_name(t->aperture), t->pa);
    break;
  case MMU_FAULT_INVALID:
    snprintf(buf, n, "%s is 0x%" PRIx64 " (not valid): 0x%" PRIx64 " is not mapped", where, t->entry, va);
    break;
  case MMU_FAULT_REPLAY_ABSENT:
    snprintf(buf, n, "%s is 0x%" PRIx64 " (not present, replayable): 0x%" PRIx64 " is not resident", where,
             t->entry, va);
    break;
  case MMU_FAULT_PROTECTION:
  case MMU_FAULT_REPLAY_WRITE:
    snprintf(buf, n, "%s is 0x%" PRIx64 " (read-only%s): %s of 0x%" PRIx64 " is not allowed", where, t->entry,
             t->fault == MMU_FAULT_REPLAY_WRITE ? ", replayable" : "", mmu_access_name(access), va);
    break;
  case MMU_FAULT_MALFORMED:
    snprintf(buf, n, "%s is 0x%" PRIx64 " (malformed: reserved bits, reserved aperture, or a 2 MiB page "
             "where none is allowed or misaligned)", where, t->entry);
    break;
  case MMU_FAULT_RANGE:
    snprintf(buf, n, "0x%" PRIx64 " is beyond the %u-bit virtual address space", va, MMU_VA_BITS);
    break;
  case MMU_FAULT_TABLE_READ:
    snprintf(buf, n, "%s cannot be read (no memory answers there)", where);
    break;
  default:
    snprintf(buf, n, "unknown fault %d", (int)t->fault);
    break;
  }
  return buf;
}
