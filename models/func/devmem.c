/* devmem — sparse device-memory store (see devmem.h). */
#include "devmem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* One host allocation backing one devmem_map call. */
typedef struct dm_block {
  uint8_t *mem;
  uint64_t first_page, n_pages;
  uint64_t live_pages; /* pages of the block still mapped; freed at 0 */
} dm_block;

typedef struct dm_entry {
  uint64_t key; /* page + 1; 0 = empty */
  uint8_t *host;
  uint32_t block;
} dm_entry;

struct devmem {
  dm_entry *table;
  uint64_t cap; /* power of two */
  uint64_t used;
  dm_block *blocks;
  uint32_t n_blocks, cap_blocks;
  uint64_t generation;
};

static uint64_t dm_hash(uint64_t page) {
  page ^= page >> 29;
  page *= 0xbf58476d1ce4e5b9ull;
  page ^= page >> 32;
  return page;
}

devmem *devmem_create(void) {
  devmem *dm = calloc(1, sizeof *dm);
  if (!dm) return NULL;
  dm->cap = 1024;
  dm->table = calloc(dm->cap, sizeof *dm->table);
  if (!dm->table) {
    free(dm);
    return NULL;
  }
  return dm;
}

void devmem_destroy(devmem *dm) {
  if (!dm) return;
  for (uint32_t i = 0; i < dm->n_blocks; i++) free(dm->blocks[i].mem);
  free(dm->blocks);
  free(dm->table);
  free(dm);
}

static const dm_entry *dm_find(const devmem *dm, uint64_t page) {
  uint64_t mask = dm->cap - 1, i = dm_hash(page) & mask;
  for (;;) {
    const dm_entry *e = &dm->table[i];
    if (e->key == page + 1) return e;
    if (e->key == 0) return NULL;
    i = (i + 1) & mask;
  }
}

static void dm_insert_raw(dm_entry *table, uint64_t cap, dm_entry e) {
  uint64_t mask = cap - 1, i = dm_hash(e.key - 1) & mask;
  while (table[i].key != 0) i = (i + 1) & mask;
  table[i] = e;
}

static bool dm_grow(devmem *dm, uint64_t need) {
  if ((dm->used + need) * 2 <= dm->cap) return true;
  uint64_t cap = dm->cap;
  while ((dm->used + need) * 2 > cap) cap *= 2;
  dm_entry *t = calloc(cap, sizeof *t);
  if (!t) return false;
  for (uint64_t i = 0; i < dm->cap; i++)
    if (dm->table[i].key) dm_insert_raw(t, cap, dm->table[i]);
  free(dm->table);
  dm->table = t;
  dm->cap = cap;
  return true;
}

/* Backward-shift deletion keeps linear probing correct without tombstones. */
static void dm_remove(devmem *dm, uint64_t page) {
  uint64_t mask = dm->cap - 1, i = dm_hash(page) & mask;
  for (;;) {
    if (dm->table[i].key == page + 1) break;
    if (dm->table[i].key == 0) return;
    i = (i + 1) & mask;
  }
  uint64_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (dm->table[j].key == 0) break;
    uint64_t home = dm_hash(dm->table[j].key - 1) & mask;
    /* move j into the hole i when its home is not cyclically in (i, j] */
    bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (!between) {
      dm->table[i] = dm->table[j];
      i = j;
    }
  }
  dm->table[i].key = 0;
  dm->used--;
}

simtvp_status devmem_map(devmem *dm, uint64_t addr, uint64_t size, simtvp_diag *diag) {
  if (size == 0) return SIMTVP_OK;
  if (addr + size < addr || addr + size - 1 + DEVMEM_PAGE_BYTES < addr)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "devmem: range 0x%" PRIx64 "+0x%" PRIx64 " wraps",
                           addr, size);
  uint64_t first = addr >> DEVMEM_PAGE_BITS, last = (addr + size - 1) >> DEVMEM_PAGE_BITS;
  uint64_t n = last - first + 1;
  for (uint64_t p = first; p <= last; p++)
    if (dm_find(dm, p)) {
      simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                      "devmem: cannot map 0x%" PRIx64 "+0x%" PRIx64 ": page 0x%" PRIx64
                      " is already mapped",
                      addr, size, p << DEVMEM_PAGE_BITS);
      simtvp_diag_at_address(diag, p << DEVMEM_PAGE_BITS);
      return SIMTVP_ERR_ARG;
    }
  if (n > (UINT64_MAX >> DEVMEM_PAGE_BITS) / 2 || !dm_grow(dm, n))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "devmem: out of host memory mapping 0x%" PRIx64
                           " bytes", size);
  uint8_t *mem = calloc(n, DEVMEM_PAGE_BYTES);
  if (!mem)
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "devmem: out of host memory mapping 0x%" PRIx64
                           " bytes", size);
  uint32_t b = 0;
  while (b < dm->n_blocks && dm->blocks[b].mem) b++;
  if (b == dm->n_blocks) {
    if (dm->n_blocks == dm->cap_blocks) {
      uint32_t cap = dm->cap_blocks ? dm->cap_blocks * 2 : 16;
      dm_block *nb = realloc(dm->blocks, cap * sizeof *nb);
      if (!nb) {
        free(mem);
        return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "devmem: out of host memory");
      }
      dm->blocks = nb;
      dm->cap_blocks = cap;
    }
    dm->n_blocks++;
  }
  dm->blocks[b] = (dm_block){mem, first, n, n};
  for (uint64_t p = first; p <= last; p++) {
    dm_entry e = {p + 1, mem + ((p - first) << DEVMEM_PAGE_BITS), b};
    dm_insert_raw(dm->table, dm->cap, e);
    dm->used++;
  }
  return SIMTVP_OK;
}

void devmem_unmap(devmem *dm, uint64_t addr, uint64_t size) {
  if (size == 0) return;
  uint64_t first = addr >> DEVMEM_PAGE_BITS;
  uint64_t last = (addr + size - 1 < addr) ? (UINT64_MAX >> DEVMEM_PAGE_BITS)
                                           : (addr + size - 1) >> DEVMEM_PAGE_BITS;
  for (uint64_t p = first;; p++) {
    const dm_entry *e = dm_find(dm, p);
    if (e) {
      dm_block *blk = &dm->blocks[e->block];
      dm_remove(dm, p);
      if (--blk->live_pages == 0) {
        free(blk->mem);
        blk->mem = NULL;
      }
    }
    if (p == last) break;
  }
  dm->generation++;
}

bool devmem_is_mapped(const devmem *dm, uint64_t addr, uint64_t size) {
  if (size == 0) return true;
  if (addr + size - 1 < addr) return false;
  for (uint64_t p = addr >> DEVMEM_PAGE_BITS; p <= (addr + size - 1) >> DEVMEM_PAGE_BITS; p++)
    if (!dm_find(dm, p)) return false;
  return true;
}

uint64_t devmem_mapped_bytes(const devmem *dm) { return dm->used << DEVMEM_PAGE_BITS; }

uint8_t *devmem_page(const devmem *dm, uint64_t page) {
  const dm_entry *e = dm_find(dm, page);
  return e ? e->host : NULL;
}

uint64_t devmem_generation(const devmem *dm) { return dm->generation; }

uint8_t *devmem_span(const devmem *dm, uint64_t addr, uint64_t size) {
  const dm_entry *e = dm_find(dm, addr >> DEVMEM_PAGE_BITS);
  if (!e) return NULL;
  const dm_block *blk = &dm->blocks[e->block];
  uint64_t base = blk->first_page << DEVMEM_PAGE_BITS, end = base + (blk->n_pages << DEVMEM_PAGE_BITS);
  if (size > end - addr) return NULL;
  /* every page of the block in range must still be mapped (partial unmaps leave holes) */
  if (blk->live_pages != blk->n_pages && size && !devmem_is_mapped(dm, addr, size)) return NULL;
  return e->host + (addr & DEVMEM_PAGE_MASK);
}

static simtvp_status dm_unmapped(simtvp_diag *diag, const char *what, uint64_t addr) {
  simtvp_diag_set(diag, SIMTVP_ERR_FAULT, "devmem: %s of unmapped device address 0x%" PRIx64, what,
                  addr);
  simtvp_diag_at_address(diag, addr);
  return SIMTVP_ERR_FAULT;
}

/* First unmapped byte of [addr, addr+size), or false when all are mapped. */
static bool dm_first_hole(const devmem *dm, uint64_t addr, uint64_t size, uint64_t *hole) {
  if (size == 0) return false;
  if (addr + size - 1 < addr) {
    *hole = 0;
    return true;
  }
  for (uint64_t p = addr >> DEVMEM_PAGE_BITS; p <= (addr + size - 1) >> DEVMEM_PAGE_BITS; p++)
    if (!dm_find(dm, p)) {
      uint64_t a = p << DEVMEM_PAGE_BITS;
      *hole = a < addr ? addr : a;
      return true;
    }
  return false;
}

simtvp_status devmem_read(const devmem *dm, uint64_t addr, void *dst, uint64_t size, simtvp_diag *diag) {
  uint64_t hole;
  if (dm_first_hole(dm, addr, size, &hole)) return dm_unmapped(diag, "read", hole);
  uint8_t *out = dst;
  while (size) {
    uint64_t off = addr & DEVMEM_PAGE_MASK, n = DEVMEM_PAGE_BYTES - off;
    if (n > size) n = size;
    memcpy(out, dm_find(dm, addr >> DEVMEM_PAGE_BITS)->host + off, n);
    out += n;
    addr += n;
    size -= n;
  }
  return SIMTVP_OK;
}

simtvp_status devmem_write(devmem *dm, uint64_t addr, const void *src, uint64_t size, simtvp_diag *diag) {
  uint64_t hole;
  if (dm_first_hole(dm, addr, size, &hole)) return dm_unmapped(diag, "write", hole);
  const uint8_t *in = src;
  while (size) {
    uint64_t off = addr & DEVMEM_PAGE_MASK, n = DEVMEM_PAGE_BYTES - off;
    if (n > size) n = size;
    memcpy(dm_find(dm, addr >> DEVMEM_PAGE_BITS)->host + off, in, n);
    in += n;
    addr += n;
    size -= n;
  }
  return SIMTVP_OK;
}

simtvp_status devmem_fill(devmem *dm, uint64_t addr, uint8_t value, uint64_t size, simtvp_diag *diag) {
  uint64_t hole;
  if (dm_first_hole(dm, addr, size, &hole)) return dm_unmapped(diag, "write", hole);
  while (size) {
    uint64_t off = addr & DEVMEM_PAGE_MASK, n = DEVMEM_PAGE_BYTES - off;
    if (n > size) n = size;
    memset(dm_find(dm, addr >> DEVMEM_PAGE_BITS)->host + off, value, n);
    addr += n;
    size -= n;
  }
  return SIMTVP_OK;
}

simtvp_status devmem_copy(devmem *dm, uint64_t dst, uint64_t src, uint64_t size, simtvp_diag *diag) {
  uint64_t hole;
  if (dm_first_hole(dm, src, size, &hole)) return dm_unmapped(diag, "read", hole);
  if (dm_first_hole(dm, dst, size, &hole)) return dm_unmapped(diag, "write", hole);
  uint8_t *s = devmem_span(dm, src, size), *d = devmem_span(dm, dst, size);
  if (s && d) {
    memmove(d, s, size);
    return SIMTVP_OK;
  }
  /* page by page through a bounce buffer, in the direction that keeps overlaps correct */
  uint8_t buf[4096];
  bool backward = dst > src && dst < src + size;
  uint64_t done = 0;
  while (done < size) {
    uint64_t n = size - done < sizeof buf ? size - done : sizeof buf;
    uint64_t off = backward ? size - done - n : done;
    devmem_read(dm, src + off, buf, n, NULL);
    devmem_write(dm, dst + off, buf, n, NULL);
    done += n;
  }
  return SIMTVP_OK;
}

void devmem_tlb_init(devmem_tlb *tlb, const devmem *dm) {
  memset(tlb, 0, sizeof *tlb);
  tlb->dm = dm;
  tlb->generation = dm ? dm->generation : 0;
}

void devmem_tlb_sync(devmem_tlb *tlb) {
  if (tlb->generation != tlb->dm->generation) {
    memset(tlb->tag, 0, sizeof tlb->tag);
    tlb->generation = tlb->dm->generation;
  }
}

uint8_t *devmem_tlb_fill(devmem_tlb *tlb, uint64_t page) {
  const dm_entry *e = dm_find(tlb->dm, page);
  if (!e) return NULL;
  uint32_t slot = (uint32_t)(page ^ (page >> 6)) & (DEVMEM_TLB_ENTRIES - 1u);
  tlb->tag[slot] = page + 1;
  tlb->host[slot] = e->host;
  return e->host;
}
