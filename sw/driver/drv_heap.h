/* drv_heap — the driver's device-memory allocator: one virtual address range handed out in
 * aligned blocks (best fit, lowest address on ties), split on allocation and merged with free
 * neighbours on release. Segments are kept in one address-sorted array, so lookups (which
 * allocation contains an address) are a binary search. */
#ifndef SIMTVP_DRV_HEAP_H
#define SIMTVP_DRV_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct drv_heap drv_heap;

/* [base, base + size) with every block aligned to align (a power of two; base is rounded up and
 * size down to it). NULL on host allocation failure. */
drv_heap *drv_heap_create(uint64_t base, uint64_t size, uint64_t align);
void drv_heap_destroy(drv_heap *h);

/* size 0 takes one alignment unit. false when no free block is large enough (or host memory ran
 * out). */
bool drv_heap_alloc(drv_heap *h, uint64_t size, uint64_t *addr);
/* false when addr is not the start of a live block (nothing changes). */
bool drv_heap_free(drv_heap *h, uint64_t addr);

/* The program's memory is never reused for the driver's own data: a block freed with
 * drv_heap_free_user marks its range as once the program's, and drv_heap_alloc_clean (program
 * images, module segments) takes only memory never so marked — so a kernel that writes through a
 * stale pointer never overwrites code, and still faults where the freed pages are unmapped.
 * drv_heap_alloc takes any free memory (the same blocks as before anything was marked). */
bool drv_heap_free_user(drv_heap *h, uint64_t addr);
bool drv_heap_alloc_clean(drv_heap *h, uint64_t size, uint64_t *addr);
/* The live block containing addr: its start and its requested size (bytes the caller may use). */
bool drv_heap_lookup(const drv_heap *h, uint64_t addr, uint64_t *base, uint64_t *size);

uint64_t drv_heap_total(const drv_heap *h);
uint64_t drv_heap_free_bytes(const drv_heap *h);
uint64_t drv_heap_largest_free(const drv_heap *h);
uint32_t drv_heap_free_blocks(const drv_heap *h);  /* fragmentation: number of free segments */
uint32_t drv_heap_live_blocks(const drv_heap *h);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DRV_HEAP_H */
