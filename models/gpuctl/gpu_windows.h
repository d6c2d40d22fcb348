/* gpu_windows — the GPU's table of remote windows: virtual pages the functional engine translated
 * onto a page the device-memory store maps onto system memory (a VIDMEM page-table entry naming a
 * MAP_SYSMEM window: managed pages the GPU maps remotely, docs/vm.md). A timing side's request
 * carries the virtual address; the table says which physical page it reaches, and, the other way,
 * which virtual pages use a window (a coherence directory invalidates by the window's address while
 * the lines of cores without TLBs sit under the virtual page).
 *
 * Filled on the engine's translation-cache fills, possibly from several engine threads at once, and
 * read per memory request: the empty table is one atomic load, and every call is thread-safe.
 * Pages are numbers (address >> page bits); the owner picks the page size. */
#ifndef SIMTVP_GPU_WINDOWS_H
#define SIMTVP_GPU_WINDOWS_H

#include <stdbool.h>
#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_windows gpu_windows;

/* An empty table for pages of 2^page_bits bytes (1..30); NULL on a bad size or out of memory. */
gpu_windows *gpu_windows_create(uint32_t page_bits);
void gpu_windows_destroy(gpu_windows *t);

/* Forgets every window (a GPU reset). */
void gpu_windows_clear(gpu_windows *t);

/* Virtual page vp now translates onto physical page pp through a window (window true), or no longer
 * through one (window false; pp ignored). Replaces what vp had. SIMTVP_ERR_NOMEM leaves the table
 * as it was. */
simtvp_status gpu_windows_set(gpu_windows *t, uint64_t vp, bool window, uint64_t pp);

/* How many virtual pages use a window now. */
uint32_t gpu_windows_count(const gpu_windows *t);

/* The physical address of addr: its page's window with the same offset, or addr itself when its
 * page uses none. */
uint64_t gpu_windows_physical(gpu_windows *t, uint64_t addr);

/* Calls each(ctx, vp) for every virtual page that uses physical page pp, in the order they were
 * set; returns how many. `each` must not call back into the table. */
uint32_t gpu_windows_users(gpu_windows *t, uint64_t pp, void (*each)(void *ctx, uint64_t vp), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_WINDOWS_H */
