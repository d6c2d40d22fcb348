/* mmu_pte — the GPU page-table format: what sw/driver writes and the GPU's MMU reads.
 *
 * A GPU virtual address space is a four-level radix tree of 4 KiB tables of 512 little-endian
 * 64-bit entries, rooted at a page-directory base (PDB) that software gives each channel
 * (gpu_abi.h CH_PDB_LO/HI). The shape follows public descriptions of GPU MMUs (NVIDIA's
 * Pascal-and-later GMMU: multi-level page directories, big pages, an aperture per entry that says
 * which memory the address is in, read-only and volatile bits, replayable faults) simplified to
 * one entry format for every level:
 *
 *   level   VA bits   table entry
 *   3 (PD3)  47..39   PDE → a level-2 table
 *   2 (PD2)  38..30   PDE → a level-1 table
 *   1 (PD1)  29..21   PDE → a level-0 table, or (PS = 1) a 2 MiB page
 *   0 (PT)   20..12   PTE → a 4 KiB page
 *
 * Entry bits (PDE and PTE alike):
 *   [0]      VALID     the entry points somewhere. 0: a walk that reaches it faults.
 *   [2:1]    APERTURE  which memory ADDR is in: 0 VIDMEM (device memory, the DRAM behind the
 *                      GPU's L2), 1 SYSMEM (an address on the system bus: the access leaves the
 *                      GPU through gpu_top's DMA initiator socket), 2 and 3 reserved. For a PDE
 *                      it is where the next table lives (page tables may be in either memory).
 *   [3]      PS        page size: set in a level-1 entry that maps a 2 MiB page itself; must be
 *                      0 at the other levels.
 *   [4]      RO        read-only page (leaves): a write or atomic faults.
 *   [5]      REPLAY    the fault is replayable: an access that faults on this entry (VALID = 0,
 *                      or a write to an RO page) is recorded in the GPU's fault buffer and the
 *                      access waits until software replays it (unified memory: the page exists
 *                      but is elsewhere, or is a read-only duplicate). Without REPLAY such a
 *                      fault is fatal for the kernel (reported with kernel, CTA, thread, PC and
 *                      address).
 *   [6]      VOL       volatile (leaves): the GPU's caches do not keep the page's data; every
 *                      access goes to the memory the aperture names.
 *   [11:7]   reserved, 0 (a set bit is a malformed entry: fatal fault)
 *   [51:12]  ADDR      physical address bits [51:12] of the next table or of the page (2 MiB
 *                      pages: bits [20:12] must be 0)
 *   [63:52]  software  ignored by the GPU (the driver's own bookkeeping)
 *
 * SYSMEM: the address is a bus address in the system memory map, the same address the copy
 * engine's SYSMEM copies use. What the GPU does with a SYSMEM access — functional data through
 * the DMA socket (or DMI), bus timing, system-level caches, coherence, an IOMMU in front in
 * shared_va mode — belongs to the system side (docs/system-modes.md); the MMU only says "this
 * page is system memory at bus address X".
 *
 * The header is plain C with inline helpers only, shared by sw/driver (which builds tables),
 * models/mmu (walker, TLBs) and whoever routes a translated access. docs/vm.md is the manual. */
#ifndef SIMTVP_MMU_PTE_H
#define SIMTVP_MMU_PTE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MMU_PAGE_BITS 12u                         /* small page: 4 KiB */
#define MMU_PAGE_BYTES (1ull << MMU_PAGE_BITS)
#define MMU_BIG_PAGE_BITS 21u                     /* big page (level-1 leaf): 2 MiB */
#define MMU_BIG_PAGE_BYTES (1ull << MMU_BIG_PAGE_BITS)
#define MMU_LEVELS 4u                             /* levels 3 (root) .. 0 */
#define MMU_TABLE_ENTRIES 512u                    /* entries per table */
#define MMU_TABLE_BYTES 4096u                     /* bytes per table */
#define MMU_VA_BITS 48u                           /* virtual addresses are below 2^48 */
#define MMU_PA_BITS 52u                           /* physical (and bus) addresses below 2^52 */

typedef enum mmu_aperture {
  MMU_APERTURE_VIDMEM = 0, /* device memory */
  MMU_APERTURE_SYSMEM = 1, /* system memory: a bus address, reached through the DMA initiator */
  MMU_APERTURE_COUNT = 2   /* 2 and 3 are reserved encodings */
} mmu_aperture;

/* Entry bits. */
#define MMU_PTE_VALID (1ull << 0)
#define MMU_PTE_APERTURE_LSB 1u
#define MMU_PTE_APERTURE_MASK (3ull << MMU_PTE_APERTURE_LSB)
#define MMU_PTE_PS (1ull << 3)
#define MMU_PTE_RO (1ull << 4)
#define MMU_PTE_REPLAY (1ull << 5)
#define MMU_PTE_VOL (1ull << 6)
#define MMU_PTE_RESERVED_MASK 0x0000000000000F80ull /* bits 11:7 */
#define MMU_PTE_ADDR_MASK 0x000FFFFFFFFFF000ull     /* bits 51:12 */
#define MMU_PTE_SW_MASK 0xFFF0000000000000ull       /* bits 63:52, ignored by the GPU */

/* An entry pointing at `addr` (a table, a 4 KiB page, or with MMU_PTE_PS a 2 MiB page) in
 * `aperture`; flags are MMU_PTE_* bits (VALID is added). */
static inline uint64_t mmu_pte_make(uint64_t addr, mmu_aperture aperture, uint64_t flags) {
  return (addr & MMU_PTE_ADDR_MASK) | ((uint64_t)aperture << MMU_PTE_APERTURE_LSB) | flags | MMU_PTE_VALID;
}
/* A not-present entry that faults replayably (unified memory: the page is not here). */
static inline uint64_t mmu_pte_replayable_absent(void) { return MMU_PTE_REPLAY; }

static inline bool mmu_pte_valid(uint64_t e) { return (e & MMU_PTE_VALID) != 0; }
static inline uint32_t mmu_pte_aperture(uint64_t e) {
  return (uint32_t)((e & MMU_PTE_APERTURE_MASK) >> MMU_PTE_APERTURE_LSB);
}
static inline uint64_t mmu_pte_addr(uint64_t e) { return e & MMU_PTE_ADDR_MASK; }

/* Table index of `va` at `level` (0..3). */
static inline uint32_t mmu_va_index(uint64_t va, uint32_t level) {
  return (uint32_t)(va >> (MMU_PAGE_BITS + 9u * level)) & (MMU_TABLE_ENTRIES - 1u);
}
/* Bytes of address space one entry at `level` covers: 4 KiB, 2 MiB, 1 GiB, 512 GiB. */
static inline uint64_t mmu_level_span(uint32_t level) { return 1ull << (MMU_PAGE_BITS + 9u * level); }

/* ---- page-directory base (what a channel's CH_PDB_LO/HI hold) -------------------------------
 * The PDB has the entry format: VALID = translation on for the channel, APERTURE and ADDR = the
 * level-3 table. A PDB without VALID means the channel uses physical (untranslated) addresses. */
static inline uint64_t mmu_pdb_make(uint64_t root, mmu_aperture aperture) {
  return mmu_pte_make(root, aperture, 0);
}

/* ---- faults -----------------------------------------------------------------------------------
 * Why a translation failed. The numbers appear in the GPU's fault buffer entries (gpu_abi.h). */
typedef enum mmu_fault {
  MMU_FAULT_NONE = 0,
  MMU_FAULT_INVALID = 1,    /* a not-VALID entry without REPLAY (unmapped): fatal */
  MMU_FAULT_PROTECTION = 2, /* write or atomic to an RO page without REPLAY: fatal */
  MMU_FAULT_REPLAY_ABSENT = 3, /* not-VALID entry with REPLAY: replayable */
  MMU_FAULT_REPLAY_WRITE = 4,  /* write or atomic to an RO page with REPLAY: replayable */
  MMU_FAULT_MALFORMED = 5,  /* reserved bits, reserved aperture, PS where not allowed, misaligned
                               2 MiB page: fatal */
  MMU_FAULT_RANGE = 6,      /* virtual address at or above 2^48: fatal */
  MMU_FAULT_TABLE_READ = 7, /* a table could not be read (its memory does not answer): fatal */
  MMU_FAULT_COUNT
} mmu_fault;

static inline bool mmu_fault_replayable(mmu_fault f) {
  return f == MMU_FAULT_REPLAY_ABSENT || f == MMU_FAULT_REPLAY_WRITE;
}

/* What an access does (fault buffer entries, permission checks). */
typedef enum mmu_access {
  MMU_ACCESS_READ = 0,
  MMU_ACCESS_WRITE = 1,
  MMU_ACCESS_ATOMIC = 2, /* read-modify-write: needs write permission */
  MMU_ACCESS_COUNT
} mmu_access;

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_MMU_PTE_H */
