/* devmem — sparse device-memory store (see devmem.h). */
#define _DEFAULT_SOURCE /* mmap */
#include "devmem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The store is a sorted array of segments: maximal runs of mapped pages that lie contiguously in
 * one host allocation. devmem_map adds one segment (whatever its size: mapping 32 GiB costs the
 * same as mapping one page, and host pages are only touched when written); unmapping trims,
 * removes or splits segments. Lookup is a binary search over the segments, which are few (the
 * platform maps all of device memory at once); hot paths keep a devmem_tlb in front of it. */

/* One host allocation backing one devmem_map call; freed when its last page is unmapped. */
typedef struct dm_alloc {
  uint8_t *mem;
  uint64_t live_pages;
  uint64_t mapped_bytes; /* > 0: an mmap of that many bytes (large mappings), else calloc */
  bool external;         /* devmem_map_external: the caller's memory, never freed here */
  uint8_t aperture;      /* DEVMEM_APERTURE_* of an external mapping */
  uint64_t bus;          /* bus address of mem[0] (external mappings) */
} dm_alloc;

/* Large mappings (device memory of a whole GPU, often more than the host has) are reserved with
 * mmap without swap reservation, so only the pages a program writes take host memory; small ones
 * come from calloc. */
#define DM_MMAP_THRESHOLD (1ull << 20)

static uint8_t *dm_host_alloc(uint64_t pages, uint64_t *mapped_bytes) {
  uint64_t bytes = pages << DEVMEM_PAGE_BITS;
  *mapped_bytes = 0;
  if (bytes < DM_MMAP_THRESHOLD) return calloc(pages, DEVMEM_PAGE_BYTES);
  if (bytes > (uint64_t)SIZE_MAX) return NULL;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_NORESERVE
  flags |= MAP_NORESERVE;
#endif
  void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) return NULL;
  *mapped_bytes = bytes;
  return p;
}

static void dm_host_free(dm_alloc *a) {
  if (a->external) {
    a->mem = NULL;
    return;
  }
  if (a->mapped_bytes) munmap(a->mem, (size_t)a->mapped_bytes);
  else free(a->mem);
  a->mem = NULL;
}

typedef struct dm_segment {
  uint64_t first_page, n_pages; /* every page in [first_page, first_page + n_pages) is mapped */
  uint8_t *host;                /* host address of first_page */
  uint32_t alloc;
} dm_segment;

struct devmem {
  dm_segment *segs; /* sorted by first_page, disjoint */
  uint32_t n_segs, cap_segs;
  dm_alloc *allocs;
  uint32_t n_allocs, cap_allocs;
  uint64_t mapped_pages;
  uint64_t generation;
  uint32_t n_external; /* live external allocations */
  /* live blocks, sorted by addr, disjoint; the recently freed in a ring (oldest overwritten) */
  devmem_block *blocks;
  uint32_t n_blocks, cap_blocks, serial;
  devmem_block freed[DEVMEM_FREED_KEPT];
  uint32_t n_freed, next_freed;
};

devmem *devmem_create(void) { return calloc(1, sizeof(devmem)); }

void devmem_destroy(devmem *dm) {
  if (!dm) return;
  for (uint32_t i = 0; i < dm->n_allocs; i++)
    if (dm->allocs[i].mem) dm_host_free(&dm->allocs[i]);
  free(dm->allocs);
  free(dm->segs);
  free(dm->blocks);
  free(dm);
}

/* Index of the first segment that ends after `page` (n_segs when none). */
static uint32_t dm_lower(const devmem *dm, uint64_t page) {
  uint32_t lo = 0, hi = dm->n_segs;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const dm_segment *s = &dm->segs[mid];
    if (s->first_page + s->n_pages <= page) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The segment holding `page`, or NULL. */
static const dm_segment *dm_find(const devmem *dm, uint64_t page) {
  uint32_t i = dm_lower(dm, page);
  if (i < dm->n_segs && dm->segs[i].first_page <= page) return &dm->segs[i];
  return NULL;
}

static bool dm_reserve_segs(devmem *dm, uint32_t extra) {
  if (dm->n_segs + extra <= dm->cap_segs) return true;
  uint32_t cap = dm->cap_segs ? dm->cap_segs * 2 : 16;
  while (cap < dm->n_segs + extra) cap *= 2;
  dm_segment *n = realloc(dm->segs, (size_t)cap * sizeof *n);
  if (!n) return false;
  dm->segs = n;
  dm->cap_segs = cap;
  return true;
}

static void dm_insert_seg(devmem *dm, uint32_t at, dm_segment s) {
  memmove(&dm->segs[at + 1], &dm->segs[at], (size_t)(dm->n_segs - at) * sizeof s);
  dm->segs[at] = s;
  dm->n_segs++;
}

static void dm_remove_seg(devmem *dm, uint32_t at) {
  memmove(&dm->segs[at], &dm->segs[at + 1], (size_t)(dm->n_segs - at - 1) * sizeof *dm->segs);
  dm->n_segs--;
}

static void dm_release_pages(devmem *dm, uint32_t alloc, uint64_t pages) {
  dm_alloc *a = &dm->allocs[alloc];
  a->live_pages -= pages;
  dm->mapped_pages -= pages;
  if (a->live_pages == 0) {
    if (a->external) dm->n_external--;
    dm_host_free(a);
  }
}

/* Checks that [addr, addr+size) can be mapped; *first / *n: its pages, *at: where its segment goes. */
static simtvp_status dm_check_free(const devmem *dm, uint64_t addr, uint64_t size, uint64_t *first, uint64_t *n,
                                   uint32_t *at, simtvp_diag *diag) {
  if (addr + size < addr || addr + size - 1 + DEVMEM_PAGE_BYTES < addr)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "devmem: range 0x%" PRIx64 "+0x%" PRIx64 " wraps",
                           addr, size);
  uint64_t last = (addr + size - 1) >> DEVMEM_PAGE_BITS;
  *first = addr >> DEVMEM_PAGE_BITS;
  *n = last - *first + 1;
  *at = dm_lower(dm, *first);
  if (*at < dm->n_segs && dm->segs[*at].first_page <= last) {
    uint64_t p = dm->segs[*at].first_page > *first ? dm->segs[*at].first_page : *first;
    simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                    "devmem: cannot map 0x%" PRIx64 "+0x%" PRIx64 ": page 0x%" PRIx64
                    " is already mapped",
                    addr, size, p << DEVMEM_PAGE_BITS);
    simtvp_diag_at_address(diag, p << DEVMEM_PAGE_BITS);
    return SIMTVP_ERR_ARG;
  }
  return SIMTVP_OK;
}

/* Records allocation `a` (mem, pages) as one segment at index `at`; false when out of host memory
 * (nothing changed; the caller frees what it allocated). */
static bool dm_add(devmem *dm, uint32_t at, uint64_t first, uint64_t n, dm_alloc a) {
  uint32_t i = 0;
  while (i < dm->n_allocs && dm->allocs[i].mem) i++;
  if (i == dm->n_allocs && dm->n_allocs == dm->cap_allocs) {
    uint32_t cap = dm->cap_allocs ? dm->cap_allocs * 2 : 16;
    dm_alloc *na = realloc(dm->allocs, (size_t)cap * sizeof *na);
    if (!na) return false;
    dm->allocs = na;
    dm->cap_allocs = cap;
  }
  if (!dm_reserve_segs(dm, 1)) return false;
  if (i == dm->n_allocs) dm->n_allocs++;
  dm->allocs[i] = a;
  dm_insert_seg(dm, at, (dm_segment){first, n, a.mem, i});
  dm->mapped_pages += n;
  if (a.external) dm->n_external++;
  return true;
}

simtvp_status devmem_map(devmem *dm, uint64_t addr, uint64_t size, simtvp_diag *diag) {
  if (size == 0) return SIMTVP_OK;
  uint64_t first, n;
  uint32_t at;
  simtvp_status st = dm_check_free(dm, addr, size, &first, &n, &at, diag);
  if (st != SIMTVP_OK) return st;
  uint64_t mapped_bytes = 0;
  uint8_t *mem = n > (UINT64_MAX >> DEVMEM_PAGE_BITS) / 2 ? NULL : dm_host_alloc(n, &mapped_bytes);
  dm_alloc a = {mem, n, mapped_bytes, false, DEVMEM_APERTURE_VIDMEM, 0};
  if (!mem || !dm_add(dm, at, first, n, a)) {
    if (mem) dm_host_free(&a);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "devmem: out of host memory mapping 0x%" PRIx64
                           " bytes", size);
  }
  return SIMTVP_OK;
}

simtvp_status devmem_map_external(devmem *dm, uint64_t addr, uint64_t size, uint8_t *host, uint64_t bus,
                                  uint8_t aperture, simtvp_diag *diag) {
  if (size == 0) return SIMTVP_OK;
  if ((addr | size) & DEVMEM_PAGE_MASK)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                           "devmem: an external mapping must cover whole pages: 0x%" PRIx64 "+0x%" PRIx64,
                           addr, size);
  if (!host) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "devmem: external mapping of 0x%" PRIx64 " without memory", addr);
  uint64_t first, n;
  uint32_t at;
  simtvp_status st = dm_check_free(dm, addr, size, &first, &n, &at, diag);
  if (st != SIMTVP_OK) return st;
  dm_alloc a = {host, n, 0, true, aperture, bus};
  if (!dm_add(dm, at, first, n, a))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "devmem: out of host memory mapping 0x%" PRIx64 " bytes", size);
  return SIMTVP_OK;
}

bool devmem_bus_addr(const devmem *dm, uint64_t addr, uint64_t *bus, uint8_t *aperture) {
  if (!dm->n_external) return false;
  const dm_segment *s = dm_find(dm, addr >> DEVMEM_PAGE_BITS);
  if (!s || !dm->allocs[s->alloc].external) return false;
  const dm_alloc *a = &dm->allocs[s->alloc];
  if (bus) *bus = a->bus + (uint64_t)(s->host - a->mem) + (addr - (s->first_page << DEVMEM_PAGE_BITS));
  if (aperture) *aperture = a->aperture;
  return true;
}

bool devmem_has_external(const devmem *dm) { return dm->n_external != 0; }

uint32_t devmem_addrs_of_bus(const devmem *dm, uint64_t bus, void (*fn)(void *ctx, uint64_t addr), void *ctx) {
  uint32_t n = 0;
  if (!dm->n_external) return 0;
  for (uint32_t i = 0; i < dm->n_segs; i++) {
    const dm_segment *s = &dm->segs[i];
    const dm_alloc *a = &dm->allocs[s->alloc];
    if (!a->external) continue;
    const uint64_t lo = a->bus + (uint64_t)(s->host - a->mem), bytes = s->n_pages << DEVMEM_PAGE_BITS;
    if (bus < lo || bus - lo >= bytes) continue;
    fn(ctx, (s->first_page << DEVMEM_PAGE_BITS) + (bus - lo));
    n++;
  }
  return n;
}

void devmem_unmap(devmem *dm, uint64_t addr, uint64_t size) {
  if (size == 0) return;
  uint64_t first = addr >> DEVMEM_PAGE_BITS;
  uint64_t last = (addr + size - 1 < addr) ? (UINT64_MAX >> DEVMEM_PAGE_BITS)
                                           : (addr + size - 1) >> DEVMEM_PAGE_BITS;
  uint32_t i = dm_lower(dm, first);
  while (i < dm->n_segs && dm->segs[i].first_page <= last) {
    dm_segment s = dm->segs[i];
    uint64_t s_last = s.first_page + s.n_pages - 1;
    uint64_t lo = s.first_page > first ? s.first_page : first, hi = s_last < last ? s_last : last;
    bool keep_left = lo > s.first_page, keep_right = hi < s_last;
    if (keep_left && keep_right && !dm_reserve_segs(dm, 1)) {
      /* no room to split: leave the segment mapped rather than corrupt the store */
      i++;
      continue;
    }
    dm_release_pages(dm, s.alloc, hi - lo + 1);
    if (keep_left && keep_right) {
      dm->segs[i].n_pages = lo - s.first_page;
      dm_insert_seg(dm, i + 1,
                    (dm_segment){hi + 1, s_last - hi, s.host + ((hi + 1 - s.first_page) << DEVMEM_PAGE_BITS),
                                 s.alloc});
      i += 2;
    } else if (keep_left) {
      dm->segs[i].n_pages = lo - s.first_page;
      i++;
    } else if (keep_right) {
      dm->segs[i].first_page = hi + 1;
      dm->segs[i].n_pages = s_last - hi;
      dm->segs[i].host = s.host + ((hi + 1 - s.first_page) << DEVMEM_PAGE_BITS);
      i++;
    } else {
      dm_remove_seg(dm, i);
    }
  }
  dm->generation++;
}

/* Bytes of [addr, addr+size) from addr that lie in mapped pages without a hole (0 when addr is
 * unmapped). */
static uint64_t dm_mapped_run(const devmem *dm, uint64_t addr, uint64_t size) {
  uint64_t done = 0;
  uint32_t i = dm_lower(dm, addr >> DEVMEM_PAGE_BITS);
  while (done < size && i < dm->n_segs) {
    const dm_segment *s = &dm->segs[i];
    uint64_t at = addr + done;
    if (s->first_page > at >> DEVMEM_PAGE_BITS) break;
    uint64_t end = (s->first_page + s->n_pages) << DEVMEM_PAGE_BITS; /* 0 when it reaches 2^64 */
    uint64_t avail = end ? end - at : 0 - at;
    if (end == 0 && at == 0) avail = UINT64_MAX;
    done += avail < size - done ? avail : size - done;
    i++;
  }
  return done;
}

bool devmem_is_mapped(const devmem *dm, uint64_t addr, uint64_t size) {
  if (size == 0) return true;
  if (addr + size - 1 < addr) return false;
  return dm_mapped_run(dm, addr, size) == size;
}

uint64_t devmem_mapped_bytes(const devmem *dm) { return dm->mapped_pages << DEVMEM_PAGE_BITS; }

uint8_t *devmem_page(const devmem *dm, uint64_t page) {
  const dm_segment *s = dm_find(dm, page);
  return s ? s->host + ((page - s->first_page) << DEVMEM_PAGE_BITS) : NULL;
}

uint64_t devmem_generation(const devmem *dm) { return dm->generation; }

uint8_t *devmem_span(const devmem *dm, uint64_t addr, uint64_t size) {
  const dm_segment *s = dm_find(dm, addr >> DEVMEM_PAGE_BITS);
  if (!s) return NULL;
  uint64_t base = s->first_page << DEVMEM_PAGE_BITS, end = base + (s->n_pages << DEVMEM_PAGE_BITS);
  if (end != 0 && size > end - addr) return NULL;
  return s->host + (addr - base);
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
  uint64_t run = dm_mapped_run(dm, addr, size);
  if (run == size) return false;
  *hole = addr + run;
  return true;
}

/* Host pointer of the mapped byte addr and how many bytes from it lie contiguously in host memory
 * (the rest of its segment). */
static uint8_t *dm_chunk(const devmem *dm, uint64_t addr, uint64_t *avail) {
  const dm_segment *s = dm_find(dm, addr >> DEVMEM_PAGE_BITS);
  uint64_t base = s->first_page << DEVMEM_PAGE_BITS, end = base + (s->n_pages << DEVMEM_PAGE_BITS);
  *avail = end ? end - addr : 0 - addr;
  if (*avail == 0) *avail = UINT64_MAX;
  return s->host + (addr - base);
}

/* Host pointer of [addr, addr + size) when one segment holds all of it (the common case: one
 * lookup instead of a hole search and a chunk walk), else NULL. */
static uint8_t *dm_in_one_segment(const devmem *dm, uint64_t addr, uint64_t size) {
  const dm_segment *s = dm_find(dm, addr >> DEVMEM_PAGE_BITS);
  if (!s) return NULL;
  uint64_t off = addr - (s->first_page << DEVMEM_PAGE_BITS);
  uint64_t bytes = s->n_pages << DEVMEM_PAGE_BITS; /* 0 when it reaches 2^64 */
  return size <= bytes - off ? s->host + off : NULL;
}

simtvp_status devmem_read(const devmem *dm, uint64_t addr, void *dst, uint64_t size, simtvp_diag *diag) {
  uint64_t hole;
  const uint8_t *one = size ? dm_in_one_segment(dm, addr, size) : NULL;
  if (one) {
    memcpy(dst, one, size);
    return SIMTVP_OK;
  }
  if (dm_first_hole(dm, addr, size, &hole)) return dm_unmapped(diag, "read", hole);
  uint8_t *out = dst;
  while (size) {
    uint64_t n;
    const uint8_t *h = dm_chunk(dm, addr, &n);
    if (n > size) n = size;
    memcpy(out, h, n);
    out += n;
    addr += n;
    size -= n;
  }
  return SIMTVP_OK;
}

simtvp_status devmem_write(devmem *dm, uint64_t addr, const void *src, uint64_t size, simtvp_diag *diag) {
  uint64_t hole;
  uint8_t *one = size ? dm_in_one_segment(dm, addr, size) : NULL;
  if (one) {
    memcpy(one, src, size);
    return SIMTVP_OK;
  }
  if (dm_first_hole(dm, addr, size, &hole)) return dm_unmapped(diag, "write", hole);
  const uint8_t *in = src;
  while (size) {
    uint64_t n;
    uint8_t *h = dm_chunk(dm, addr, &n);
    if (n > size) n = size;
    memcpy(h, in, n);
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
    uint64_t n;
    uint8_t *h = dm_chunk(dm, addr, &n);
    if (n > size) n = size;
    memset(h, value, n);
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
  tlb->dm_generation = dm ? &dm->generation : &tlb->generation;
}

void devmem_tlb_init_xlate(devmem_tlb *tlb, const devmem *dm, const devmem_xlate *x) {
  devmem_tlb_init(tlb, dm);
  if (x && x->page) {
    tlb->xlate = x;
    tlb->xgeneration = x->generation ? *x->generation : 0;
  }
}

void devmem_tlb_flush(devmem_tlb *tlb) {
  memset(tlb->tag, 0, sizeof tlb->tag);
  memset(tlb->wtag, 0, sizeof tlb->wtag);
  tlb->generation = *tlb->dm_generation;
  tlb->xgeneration = tlb->xlate && tlb->xlate->generation ? *tlb->xlate->generation : 0;
}

static uint8_t *tlb_fill(devmem_tlb *tlb, uint64_t page, bool write) {
  bool writable = true;
  uint8_t *host;
  tlb->fault = 0;
  if (tlb->xlate)
    host = tlb->xlate->page(tlb->xlate->ctx, page, write, &writable, &tlb->fault);
  else
    host = devmem_page(tlb->dm, page);
  if (!host) return NULL;
  uint32_t slot = (uint32_t)(page ^ (page >> 6)) & (DEVMEM_TLB_ENTRIES - 1u);
  tlb->tag[slot] = page + 1;
  tlb->wtag[slot] = writable ? page + 1 : 0;
  tlb->host[slot] = host;
  return host;
}

uint8_t *devmem_tlb_fill(devmem_tlb *tlb, uint64_t page) { return tlb_fill(tlb, page, false); }
uint8_t *devmem_tlb_fill_w(devmem_tlb *tlb, uint64_t page) { return tlb_fill(tlb, page, true); }

/* ---- live blocks --------------------------------------------------------------------------- */

/* Index of the first block that starts above addr (n_blocks when none). */
static uint32_t dm_block_upper(const devmem *dm, uint64_t addr) {
  uint32_t lo = 0, hi = dm->n_blocks;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (dm->blocks[mid].addr <= addr) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Maps the unmapped pages of [first, last] in maximal runs. */
static simtvp_status dm_map_holes(devmem *dm, uint64_t first, uint64_t last, simtvp_diag *diag) {
  uint64_t p = first;
  while (p <= last) {
    uint32_t i = dm_lower(dm, p);
    if (i < dm->n_segs && dm->segs[i].first_page <= p) { /* mapped: skip to the segment's end */
      p = dm->segs[i].first_page + dm->segs[i].n_pages;
      continue;
    }
    uint64_t end = i < dm->n_segs && dm->segs[i].first_page <= last ? dm->segs[i].first_page - 1 : last;
    simtvp_status st = devmem_map(dm, p << DEVMEM_PAGE_BITS, (end - p + 1) << DEVMEM_PAGE_BITS, diag);
    if (st != SIMTVP_OK) return st;
    if (end == last) break;
    p = end + 1;
  }
  return SIMTVP_OK;
}

simtvp_status devmem_block_add(devmem *dm, uint64_t addr, uint64_t size, uint64_t tag, uint32_t flags,
                               simtvp_diag *diag) {
  if (addr + size < addr)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "devmem: block 0x%" PRIx64 "+0x%" PRIx64 " wraps", addr, size);
  uint32_t at = dm_block_upper(dm, addr);
  const devmem_block *prev = at ? &dm->blocks[at - 1] : NULL, *next = at < dm->n_blocks ? &dm->blocks[at] : NULL;
  if ((prev && (prev->addr == addr || prev->addr + prev->size > addr)) || (next && addr + size > next->addr)) {
    const devmem_block *o = prev && (prev->addr == addr || prev->addr + prev->size > addr) ? prev : next;
    simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                    "devmem: block 0x%" PRIx64 "+0x%" PRIx64 " overlaps the live block 0x%" PRIx64 "+0x%" PRIx64,
                    addr, size, o->addr, o->size);
    simtvp_diag_at_address(diag, addr);
    return SIMTVP_ERR_ARG;
  }
  if (size) {
    simtvp_status st = dm_map_holes(dm, addr >> DEVMEM_PAGE_BITS, (addr + size - 1) >> DEVMEM_PAGE_BITS, diag);
    if (st != SIMTVP_OK) return st;
  }
  if (dm->n_blocks == dm->cap_blocks) {
    uint32_t cap = dm->cap_blocks ? 2 * dm->cap_blocks : 64;
    devmem_block *nb = realloc(dm->blocks, (size_t)cap * sizeof *nb);
    if (!nb) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "devmem: out of host memory for blocks");
    dm->blocks = nb;
    dm->cap_blocks = cap;
  }
  memmove(&dm->blocks[at + 1], &dm->blocks[at], (size_t)(dm->n_blocks - at) * sizeof *dm->blocks);
  dm->blocks[at] = (devmem_block){addr, size, tag, (flags & DEVMEM_BLOCK_INTERNAL) ? 0 : ++dm->serial, flags};
  dm->n_blocks++;
  return SIMTVP_OK;
}

/* true when a live block other than blocks[skip] touches page p. */
static bool dm_page_shared(const devmem *dm, uint64_t p, uint32_t skip) {
  uint64_t lo = p << DEVMEM_PAGE_BITS, hi = lo + DEVMEM_PAGE_BYTES; /* [lo, hi) */
  uint32_t i = dm_block_upper(dm, hi - 1);                            /* blocks starting below hi */
  while (i > 0) {
    i--;
    const devmem_block *b = &dm->blocks[i];
    if (i == skip || b->size == 0) continue;
    if (b->addr + b->size > lo) return true;
    break; /* sorted and disjoint: earlier blocks end earlier */
  }
  return false;
}

bool devmem_block_remove(devmem *dm, uint64_t addr, bool unmap_pages) {
  uint32_t at = dm_block_upper(dm, addr);
  if (at == 0 || dm->blocks[at - 1].addr != addr) return false;
  at--;
  devmem_block b = dm->blocks[at];
  if (unmap_pages && b.size) {
    uint64_t first = b.addr >> DEVMEM_PAGE_BITS, last = (b.addr + b.size - 1) >> DEVMEM_PAGE_BITS;
    uint64_t n = last - first + 1; /* pages to unmap from first */
    if (dm_page_shared(dm, first, at)) {
      first++;
      n--;
    }
    if (n && dm_page_shared(dm, last, at)) n--;
    if (n) devmem_unmap(dm, first << DEVMEM_PAGE_BITS, n << DEVMEM_PAGE_BITS);
  }
  memmove(&dm->blocks[at], &dm->blocks[at + 1], (size_t)(dm->n_blocks - at - 1) * sizeof *dm->blocks);
  dm->n_blocks--;
  dm->freed[dm->next_freed] = b;
  dm->next_freed = (dm->next_freed + 1) % DEVMEM_FREED_KEPT;
  if (dm->n_freed < DEVMEM_FREED_KEPT) dm->n_freed++;
  return true;
}

const devmem_block *devmem_block_at(const devmem *dm, uint64_t addr) {
  uint32_t at = dm_block_upper(dm, addr);
  if (at == 0) return NULL;
  const devmem_block *b = &dm->blocks[at - 1];
  return addr - b->addr < b->size ? b : NULL;
}

void devmem_block_near(const devmem *dm, uint64_t addr, uint32_t skip, const devmem_block **below,
                       const devmem_block **above) {
  uint32_t at = dm_block_upper(dm, addr);
  *above = NULL;
  *below = NULL;
  for (uint32_t i = at; i < dm->n_blocks && !*above; i++)
    if (!(dm->blocks[i].flags & skip)) *above = &dm->blocks[i];
  while (at > 0) {
    const devmem_block *b = &dm->blocks[--at];
    if (addr - b->addr < b->size || (b->flags & skip)) continue;
    *below = b;
    break;
  }
}

bool devmem_block_freed(const devmem *dm, uint64_t addr, devmem_block *out) {
  for (uint32_t k = 0; k < dm->n_freed; k++) {
    uint32_t i = (dm->next_freed + DEVMEM_FREED_KEPT - 1 - k) % DEVMEM_FREED_KEPT; /* newest first */
    const devmem_block *b = &dm->freed[i];
    if (addr - b->addr < b->size) {
      *out = *b;
      return true;
    }
  }
  return false;
}

simtvp_status devmem_blocks_map(devmem *dm, simtvp_diag *diag) {
  for (uint32_t i = 0; i < dm->n_blocks; i++) {
    const devmem_block *b = &dm->blocks[i];
    if (!b->size) continue;
    simtvp_status st = dm_map_holes(dm, b->addr >> DEVMEM_PAGE_BITS, (b->addr + b->size - 1) >> DEVMEM_PAGE_BITS, diag);
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

const devmem_block *devmem_blocks(const devmem *dm, uint32_t *n_out) {
  *n_out = dm->n_blocks;
  return dm->blocks;
}
