/* iommu — the system IOMMU of -system_mode shared_va (docs/system-modes.md §2): the GPU translates
 * the host program's virtual addresses with the host's page tables (ATS-style), so kernels
 * dereference plain malloc'ed pointers.
 *
 * Page tables: four levels of 512 entries, 4 KiB pages, virtual bits 47..12 (x86-64's layout:
 * level 3 indexes bits 47..39, level 2 38..30, level 1 29..21, level 0 20..12); a leaf holds the
 * page's bus address and whether it is writable. The OS side builds them: iommu_map/unmap, and
 * on a translation that finds no page, the page-request port (an ATS page request to the OS's
 * fault handler) may map it and have the walk retried.
 *
 * Two ways to translate:
 *  - iommu_resolve: the functional translation (values never depend on timing): a walk, with a
 *    page request when the page is absent; no IOTLB, no time. Counts iommu.page_requests and
 *    iommu.faults (requests the OS refused, or writes to read-only pages).
 *  - iommu_translate: the timed translation of an access arriving at now_ps: the IOTLB
 *    (`tlb_sets` × `tlb_ways`, LRU) answers a hit at now + tlb_hit_ps; a miss walks the tables,
 *    one dependent read per level (`walk_level_ps` each: 4 levels = 4 × walk_level_ps after the
 *    IOTLB lookup) and fills the IOTLB. Counts iommu.iotlb_hits / iotlb_misses / walks / walk_ps.
 *    A page the tables do not hold is a fault (false), with no page request (the functional
 *    translation has already made every page present that an access touches).
 * Deterministic; the walk and the IOTLB do not allocate (the tables do, when the OS maps). Not
 * thread-safe: a caller that translates from several threads serialises the calls. */
#ifndef SIMTVP_IOMMU_H
#define SIMTVP_IOMMU_H

#include <stdbool.h>
#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;

#define IOMMU_PAGE_BITS 12u
#define IOMMU_VA_BITS 48u

typedef struct iommu iommu;

typedef struct iommu_port {
  void *ctx;
  /* The OS's page-request handler: map the page holding va (iommu_map) if the host process has
   * it (writable when `write` needs it) and return true, or return false: the access faults. */
  bool (*page_request)(void *ctx, iommu *io, uint64_t va, bool write);
} iommu_port;

typedef struct iommu_config {
  uint32_t tlb_sets, tlb_ways; /* IOTLB: ≥ 1 set, 1..64 ways */
  uint64_t tlb_hit_ps;         /* IOTLB lookup */
  uint64_t walk_level_ps;      /* one page-table read of a walk */
  iommu_port port;
  struct stats *stats;         /* may be NULL */
} iommu_config;

/* SIMTVP_ERR_CONFIG naming -iommu_tlb_sets / -iommu_tlb_ways. */
simtvp_status iommu_create(const iommu_config *cfg, iommu **out, simtvp_diag *diag);
void iommu_destroy(iommu *io);

/* Maps the 4 KiB page holding va to bus address `bus` (page aligned). SIMTVP_ERR_ARG when va is
 * past 2^48, SIMTVP_ERR_NOMEM without host memory for a table. */
simtvp_status iommu_map(iommu *io, uint64_t va, uint64_t bus, bool writable);
/* Unmaps the pages of [va, va + bytes) and drops them from the IOTLB. */
void iommu_unmap(iommu *io, uint64_t va, uint64_t bytes);
/* Unmaps every page and empties the IOTLB (the OS dropping all of the device's mappings). */
void iommu_clear(iommu *io);

typedef enum iommu_fault { IOMMU_OK = 0, IOMMU_NOT_PRESENT = 1, IOMMU_READ_ONLY = 2, IOMMU_OUT_OF_RANGE = 3 } iommu_fault;
const char *iommu_fault_name(iommu_fault f); /* "ok", "not present", "read-only", "out of range" */

/* The tables' answer for va (no IOTLB, no page request, no statistics): IOMMU_OK with *bus. */
iommu_fault iommu_lookup(const iommu *io, uint64_t va, bool write, uint64_t *bus);
/* Functional translation (see above): *bus gets the bus address of va. */
iommu_fault iommu_resolve(iommu *io, uint64_t va, bool write, uint64_t *bus);
/* Timed translation (see above): *bus and *done_ps (≥ now_ps). */
iommu_fault iommu_translate(iommu *io, uint64_t va, bool write, uint64_t now_ps, uint64_t *bus, uint64_t *done_ps);

typedef struct iommu_stats {
  uint64_t iotlb_hits, iotlb_misses, walks, walk_ps, page_requests, faults, pages_mapped;
} iommu_stats;
void iommu_get_stats(const iommu *io, iommu_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_IOMMU_H */
