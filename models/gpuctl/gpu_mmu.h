/* gpu_mmu — the GPU's memory-management unit on the control side: translation of every engine's
 * device-memory addresses through the page tables software builds (mmu_pte.h, walked by
 * models/mmu), the MMU registers of gpu_abi.h (MMU_INVALIDATE, the replayable-fault buffer,
 * MMU_REPLAY, FAULT_PENDING) and the notifications the SIMT side needs.
 *
 * - Copy engine, command processor and program-image loader reach device memory through the
 *   gpu_vmem_port this block implements: an access is split at 4 KiB boundaries, each page
 *   translated through the operation's PDB and then read or written in the memory its aperture
 *   names (VIDMEM: the device-memory store; SYSMEM: system memory by bus address).
 * - The SIMT sides get a gpu_mmu_port: the same walk (the functional engine caches it per page and
 *   drops its cache when `generation` changes), the host address of a physical page, and the
 *   fault recorder.
 * - A replayable fault is recorded once per distinct (address space, 4 KiB page) until the next
 *   MMU_REPLAY: the first writes a gpu_fault_entry at FAULT_BUF_PUT and raises
 *   INTR_STATUS.MMU_FAULT, later ones on the same page only wait. A full buffer sets
 *   FAULT_STATUS.OVERFLOW (the access still waits and faults again after the replay). Without a
 *   buffer (FAULT_BUF_ENTRIES 0) replayable faults are fatal.
 * - MMU_INVALIDATE bumps the translation generation and tells the SIMT side (timing TLBs);
 *   MMU_REPLAY (or CANCEL) empties the pending set and tells the SIMT side to retry (or fail) the
 *   waiting accesses.
 *
 * No time of its own: walks here are functional (timing models time theirs through models/mmu's
 * TLBs and real memory requests). docs/vm.md is the manual. */
#ifndef SIMTVP_GPU_MMU_H
#define SIMTVP_GPU_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_abi.h"
#include "gpu_hw.h"
#include "mmu.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_mmu gpu_mmu;

typedef struct gpu_mmu_ports {
  gpu_mem_port devmem;   /* physical device memory (VIDMEM) */
  gpu_mem_port sysmem;   /* system memory by bus address (SYSMEM), through the DMA initiator */
  /* Host address of the 4 KiB physical page holding pa (optional, NULL = none): what the
   * functional engine reads and writes directly. */
  struct {
    void *ctx;
    uint8_t *(*vidmem)(void *ctx, uint64_t pa);
    uint8_t *(*sysmem)(void *ctx, uint64_t pa);
    void (*translated)(void *ctx, uint64_t va, uint32_t aperture, uint64_t pa); /* (addition) gpuctl.h */
  } host_page;
  /* The register block, firmware view (gpu_regs_fw_read/write, gpu_regs_raise). */
  struct {
    void *ctx;
    uint32_t (*read)(void *ctx, uint32_t offset);
    void (*write)(void *ctx, uint32_t offset, uint32_t value);
    void (*raise)(void *ctx, uint32_t intr_bits);
  } regs;
  /* Global timer in nanoseconds at control cycle `now` (fault-entry timestamps). */
  struct { void *ctx; uint64_t (*ns)(void *ctx, uint64_t now); } timer;
  /* The SIMT side (each optional): translations of [va, va + bytes) of pdb (0 = every address
   * space; bytes 0 = all addresses) were invalidated; waiting accesses must retry (cancel false)
   * or fail (cancel true). */
  struct {
    void *ctx;
    void (*invalidate)(void *ctx, uint64_t pdb, uint64_t va, uint64_t bytes, uint64_t now);
    void (*replay)(void *ctx, bool cancel, uint64_t now);
  } simt;
  /* Address translation services of the system's IOMMU (optional; -system_mode shared_va,
   * docs/system-modes.md): a virtual address the GPU's page tables do not map (the walk ends at a
   * not-VALID entry without REPLAY) is translated with the host's page tables instead. Returns
   * 0 with *bus and *writable, or the IOMMU's fault (iommu_fault: 1 not present, 2 read-only,
   * 3 out of range). Called from the functional engine's threads: the port serialises. */
  gpu_ats_port ats;
} gpu_mmu_ports;

/* NULL on allocation failure. */
gpu_mmu *gpu_mmu_create(gpu_mmu_ports ports);
void gpu_mmu_destroy(gpu_mmu *m);
/* Forgets pending faults (hardware reset; the registers are the register block's). */
void gpu_mmu_reset(gpu_mmu *m);
/* Late wiring of the SIMT side's notifications (it may be built after the control side). */
void gpu_mmu_set_simt(gpu_mmu *m, void *ctx,
                      void (*invalidate)(void *ctx, uint64_t pdb, uint64_t va, uint64_t bytes, uint64_t now),
                      void (*replay)(void *ctx, bool cancel, uint64_t now));

/* The PDB channel c translates through now (CH_PDB_LO/HI). */
uint64_t gpu_mmu_channel_pdb(const gpu_mmu *m, uint32_t channel);

/* Walks va (pdb without VALID: identity, VIDMEM, 4 KiB pages). */
mmu_fault gpu_mmu_translate(gpu_mmu *m, uint64_t pdb, uint64_t va, mmu_access access, mmu_translation *t);

/* The SIMT side's port (gpu_mmu_simt_port) remembers successful walks until translations may
 * have changed; the control side calls this when a kernel is accepted, so a kernel never uses a
 * walk remembered before it (page tables the driver changed in between without MMU_INVALIDATE). */
void gpu_mmu_forget_walks(gpu_mmu *m);

/* Reads/writes through translation (the gpu_vmem_port below). */
bool gpu_mmu_read(gpu_mmu *m, uint64_t pdb, uint64_t va, void *dst, uint64_t len, uint32_t *fault);
bool gpu_mmu_write(gpu_mmu *m, uint64_t pdb, uint64_t va, const void *src, uint64_t len, uint32_t *fault);
gpu_vmem_port gpu_mmu_vmem_port(gpu_mmu *m);
gpu_mmu_port gpu_mmu_simt_port(gpu_mmu *m);

/* A host write to MMU_INVALIDATE or MMU_REPLAY (value as written) at control cycle now. */
void gpu_mmu_reg_written(gpu_mmu *m, uint32_t offset, uint32_t value, uint64_t now);

/* Records a replayable fault (gpu_mmu_port.fault). */
bool gpu_mmu_record_fault(gpu_mmu *m, uint64_t pdb, const gpu_mmu_fault_info *f, uint64_t now);
/* Distinct pages with accesses waiting for a replay. */
uint32_t gpu_mmu_pending(const gpu_mmu *m);

typedef struct gpu_mmu_counters {
  uint64_t walks;           /* translations walked for the control side and functional caches */
  uint64_t replayable;      /* replayable faults reported (every waiting access) */
  uint64_t entries;         /* fault-buffer entries written (distinct pages) */
  uint64_t overflows;       /* faults that found the buffer full */
  uint64_t replays, cancels, invalidates;
} gpu_mmu_counters;
gpu_mmu_counters gpu_mmu_get_counters(const gpu_mmu *m);
/* Counts into the sink from now on (mmu.*); call once, before work. */
void gpu_mmu_register_stats(gpu_mmu *m, stats *st);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_MMU_H */
