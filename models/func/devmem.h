/* devmem — the device-memory store: a sparse 64-bit address space backed by host memory.
 *
 * Models what a GPU's memory management unit makes of device memory: ranges are mapped in 4 KiB
 * pages (the GPU MMU's small page), any access to an unmapped page is detected and reported, and
 * mapped memory reads as zero until written. It is the data store behind every component that
 * touches device memory with real data: the functional engine (models/func) when an instruction
 * executes, the copy engine, and the driver's module loader. Timing models never touch it
 * (DESIGN.md §3).
 *
 * The store keeps the mapped ranges as sorted segments, so mapping costs the same whatever the size
 * (the platform maps all of device memory at reset; host pages are only touched when written) and
 * lookup is a binary search over the segments; callers on a hot path keep a small direct-mapped
 * translation cache (devmem_tlb) in front of it. A mapped range is one contiguous host block, so
 * bulk copies inside one mapping need no per-page work (devmem_span).
 *
 * Not thread-safe for map/unmap; concurrent reads and writes of distinct bytes from several host
 * threads are fine as long as nobody maps or unmaps meanwhile (each thread with its own tlb). */
#ifndef SIMTVP_DEVMEM_H
#define SIMTVP_DEVMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DEVMEM_PAGE_BITS 12u
#define DEVMEM_PAGE_BYTES (1ull << DEVMEM_PAGE_BITS)
#define DEVMEM_PAGE_MASK (DEVMEM_PAGE_BYTES - 1ull)

typedef struct devmem devmem;

devmem *devmem_create(void);
void devmem_destroy(devmem *dm);

/* Maps [addr, addr+size) rounded out to whole pages, zero-filled. Fails (SIMTVP_ERR_ARG) when any
 * of those pages is already mapped or the range wraps, SIMTVP_ERR_NOMEM when the host is out of
 * memory. size 0 maps nothing and succeeds. */
simtvp_status devmem_map(devmem *dm, uint64_t addr, uint64_t size, simtvp_diag *diag);
/* Unmaps every mapped page of [addr, addr+size) rounded out to pages; pages not mapped are
 * ignored. Host memory of a mapping is released when its last page is unmapped. */
void devmem_unmap(devmem *dm, uint64_t addr, uint64_t size);
/* true when every byte of [addr, addr+size) lies in mapped pages (size 0: true). */
bool devmem_is_mapped(const devmem *dm, uint64_t addr, uint64_t size);
/* Bytes currently mapped (pages × page size). */
uint64_t devmem_mapped_bytes(const devmem *dm);

/* ---- memory outside the store: system memory the GPU reaches over the bus ----------------------
 * A range of the GPU's address space may be backed by memory the store does not own: system memory
 * reached through the GPU's DMA initiator (zero-copy host memory, an integrated GPU's carve-out).
 * Its bytes are read and written through `host` (the target's direct-memory pointer), so every
 * path that uses the store (the functional engine, copies, debuggers) sees system memory itself;
 * the timing side asks devmem_bus_addr where such an access goes on the bus. This is the GPU
 * page table's aperture in its smallest form: a GPU page-table entry with a SYSMEM aperture maps
 * here. */

/* What the GPU's page tables would call the memory behind an address. */
enum {
  DEVMEM_APERTURE_VIDMEM = 0, /* the GPU's own memory (its DRAM, or a carve-out of system memory) */
  DEVMEM_APERTURE_SYSMEM = 1  /* host memory the GPU reaches over the bus (zero-copy) */
};

/* Maps [addr, addr+size) (page-aligned, whole pages) onto `size` bytes at `host`, which the caller
 * owns and keeps valid until the range is unmapped; `bus` is the system-bus address of the first
 * byte, `aperture` a DEVMEM_APERTURE_*. Fails like devmem_map when a page is already mapped or the
 * range is not page-aligned (SIMTVP_ERR_ARG). devmem_unmap unmaps it (host memory is not freed). */
simtvp_status devmem_map_external(devmem *dm, uint64_t addr, uint64_t size, uint8_t *host, uint64_t bus,
                                  uint8_t aperture, simtvp_diag *diag);
/* For an address in an external mapping: its bus address and aperture (either may be NULL);
 * false for device memory the store owns and for unmapped addresses. */
bool devmem_bus_addr(const devmem *dm, uint64_t addr, uint64_t *bus, uint8_t *aperture);
/* Every GPU address whose external mapping reaches bus address `bus`: fn(ctx, addr) for each
 * (zero-copy memory may be mapped more than once); returns how many. For coherence invalidations
 * (docs/system-modes.md), not for hot paths: it walks the mappings. */
uint32_t devmem_addrs_of_bus(const devmem *dm, uint64_t bus, void (*fn)(void *ctx, uint64_t addr), void *ctx);
/* true when any external mapping exists (a quick test for hot paths). */
bool devmem_has_external(const devmem *dm);

/* Copy between device memory and a host buffer. On an unmapped byte nothing is copied and the
 * diag names the first unmapped address (SIMTVP_ERR_FAULT). */
simtvp_status devmem_read(const devmem *dm, uint64_t addr, void *dst, uint64_t size, simtvp_diag *diag);
simtvp_status devmem_write(devmem *dm, uint64_t addr, const void *src, uint64_t size, simtvp_diag *diag);
simtvp_status devmem_fill(devmem *dm, uint64_t addr, uint8_t value, uint64_t size, simtvp_diag *diag);
/* Device-to-device copy (ranges may overlap). */
simtvp_status devmem_copy(devmem *dm, uint64_t dst, uint64_t src, uint64_t size, simtvp_diag *diag);

/* Host pointer to [addr, addr+size) when the whole range lies in one mapping (contiguous in host
 * memory), else NULL. Valid until that range is unmapped. */
uint8_t *devmem_span(const devmem *dm, uint64_t addr, uint64_t size);

/* Host address of the page with number `page` (address >> DEVMEM_PAGE_BITS), NULL if unmapped. */
uint8_t *devmem_page(const devmem *dm, uint64_t page);

/* Counter that changes whenever a page is unmapped: translation caches compare it. */
uint64_t devmem_generation(const devmem *dm);

/* ---- virtual memory in front of the store ------------------------------------------------- */

/* A translation of virtual pages to host addresses of their data (GPU virtual memory: the GPU's
 * MMU walks the page tables; models/gpuctl provides it). page() returns the host address of the
 * 4 KiB virtual page `vpage` (address >> DEVMEM_PAGE_BITS) for a read, or for a write when `write`
 * — *writable says whether writes are allowed too — or NULL with *fault set to the translator's
 * reason (an mmu_fault number, mmu_pte.h). `generation` changes whenever translations may have
 * changed. describe() (may be NULL) writes one line saying why an address does not translate,
 * for fault messages. */
/* The translator's fault numbers that mean "replayable" (mmu_pte.h MMU_FAULT_REPLAY_*): the page
 * exists but is not here (or is a read-only duplicate written to); the access may wait. */
#define DEVMEM_FAULT_REPLAY_ABSENT 3u
#define DEVMEM_FAULT_REPLAY_WRITE 4u
typedef struct devmem_xlate {
  void *ctx;
  uint8_t *(*page)(void *ctx, uint64_t vpage, bool write, bool *writable, uint32_t *fault);
  const uint64_t *generation;
  void (*describe)(void *ctx, uint64_t addr, bool write, char *buf, size_t n);
} devmem_xlate;

/* ---- live blocks ---------------------------------------------------------------------------
 * The blocks a driver has allocated (declared through the GPU's MEMMAP registers, gpu-abi.md "Device
 * memory map"): what a kernel may touch. Adding a block maps the pages it touches that are not
 * mapped yet; removing one can unmap the pages no other live block touches, so an access past a
 * block or into a freed one faults at page granularity. The functional engine's memory checker
 * (func_config.memcheck) uses them at byte granularity: the block an address lies in, the nearest
 * ones, and the recently freed ones. Blocks of size 0 hold no byte. */

enum {
  DEVMEM_BLOCK_INTERNAL = 1u << 0, /* the driver's own (program image, module segments, device heap):
                                      not the program's, never reported as a leak */
  DEVMEM_BLOCK_CODE = 1u << 1      /* a program image: instructions only, no kernel data access */
};

typedef struct devmem_block {
  uint64_t addr, size; /* the bytes the program asked for */
  uint64_t tag;        /* the driver's (an allocation site), 0 when none */
  uint32_t serial;     /* 1 for the program's first block, 2 for the next … (internal ones: 0) */
  uint32_t flags;      /* DEVMEM_BLOCK_* */
} devmem_block;

/* Declares [addr, addr+size) a live block and maps the pages it touches that are not mapped.
 * SIMTVP_ERR_ARG when it overlaps a live block or wraps, SIMTVP_ERR_NOMEM without host memory. */
simtvp_status devmem_block_add(devmem *dm, uint64_t addr, uint64_t size, uint64_t tag, uint32_t flags,
                               simtvp_diag *diag);
/* Ends the live block that starts at addr (false when none does): it is kept among the recently
 * freed (the last DEVMEM_FREED_KEPT). With unmap_pages, the pages it touched that no other live
 * block touches are unmapped. */
#define DEVMEM_FREED_KEPT 1024u
bool devmem_block_remove(devmem *dm, uint64_t addr, bool unmap_pages);
/* The live block holding byte addr (NULL when none); valid until blocks change. */
const devmem_block *devmem_block_at(const devmem *dm, uint64_t addr);
/* The nearest live blocks without any of the `skip` flags ending at or below addr and starting
 * above it (NULL when none); a block holding addr is neither. */
void devmem_block_near(const devmem *dm, uint64_t addr, uint32_t skip, const devmem_block **below,
                       const devmem_block **above);
/* The most recently freed block that held byte addr (false when none is remembered). */
bool devmem_block_freed(const devmem *dm, uint64_t addr, devmem_block *out);
/* Maps the unmapped pages of every live block (after their range was unmapped wholesale). */
simtvp_status devmem_blocks_map(devmem *dm, simtvp_diag *diag);
/* Live blocks in address order (for leak reports); n_out gets their number. */
const devmem_block *devmem_blocks(const devmem *dm, uint32_t *n_out);

/* ---- translation cache for hot paths ------------------------------------------------------ */

#define DEVMEM_TLB_ENTRIES 64u

typedef struct devmem_tlb {
  const devmem *dm;
  uint64_t generation;
  uint64_t tag[DEVMEM_TLB_ENTRIES]; /* page number + 1 (0 = empty) */
  uint8_t *host[DEVMEM_TLB_ENTRIES];
  /* with a translation (devmem_tlb_init_xlate): pages are virtual */
  const devmem_xlate *xlate;
  uint64_t xgeneration;
  uint64_t wtag[DEVMEM_TLB_ENTRIES]; /* page number + 1 when writes are allowed too */
  uint32_t fault;                    /* why the last fill failed (the translator's code; 0: the
                                        store has no such page) */
  const uint64_t *dm_generation;     /* the store's mapping generation (devmem_tlb_sync reads it
                                        inline: once per warp instruction) */
} devmem_tlb;

void devmem_tlb_init(devmem_tlb *tlb, const devmem *dm);
/* A cache of virtual pages translated by x (x must outlive the cache; NULL = devmem_tlb_init). */
void devmem_tlb_init_xlate(devmem_tlb *tlb, const devmem *dm, const devmem_xlate *x);
/* Empties the cache and records the current generations (devmem_tlb_sync's slow path). */
void devmem_tlb_flush(devmem_tlb *tlb);
/* Empties the cache when pages were unmapped (or translations changed) since it was filled (call
 * before a batch of lookups, e.g. once per warp instruction). */
static inline void devmem_tlb_sync(devmem_tlb *tlb) {
  uint64_t xg = tlb->xlate && tlb->xlate->generation ? *tlb->xlate->generation : 0;
  if (tlb->generation != *tlb->dm_generation || xg != tlb->xgeneration) devmem_tlb_flush(tlb);
}
uint8_t *devmem_tlb_fill(devmem_tlb *tlb, uint64_t page);
uint8_t *devmem_tlb_fill_w(devmem_tlb *tlb, uint64_t page);

/* Host pointer of device byte `addr` for a read, NULL when unmapped (tlb->fault says why). The
 * access [addr, addr+n) must not cross a page boundary (aligned accesses of up to 4 KiB never do). */
static inline uint8_t *devmem_tlb_translate(devmem_tlb *tlb, uint64_t addr) {
  uint64_t page = addr >> DEVMEM_PAGE_BITS;
  uint32_t slot = (uint32_t)(page ^ (page >> 6)) & (DEVMEM_TLB_ENTRIES - 1u);
  uint8_t *host = tlb->tag[slot] == page + 1 ? tlb->host[slot] : devmem_tlb_fill(tlb, page);
  return host ? host + (addr & DEVMEM_PAGE_MASK) : NULL;
}
/* The same for a write (or atomic): read-only pages do not translate. */
static inline uint8_t *devmem_tlb_translate_w(devmem_tlb *tlb, uint64_t addr) {
  uint64_t page = addr >> DEVMEM_PAGE_BITS;
  uint32_t slot = (uint32_t)(page ^ (page >> 6)) & (DEVMEM_TLB_ENTRIES - 1u);
  uint8_t *host = tlb->wtag[slot] == page + 1 ? tlb->host[slot] : devmem_tlb_fill_w(tlb, page);
  return host ? host + (addr & DEVMEM_PAGE_MASK) : NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DEVMEM_H */
